#pragma once
// A float or double as the hex digits of its bits: a field of a run-control record
// (run/row_run.hpp) that reads back to the very value, NaN's sign and infinities included, so
// that output written from records equals the output written from the computed numbers.
#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/error.hpp"

namespace invar::run {

template <typename T>
using ExactBits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <typename T>
std::string exact_field(T value) {
  return fmt::format("{:0{}x}", std::bit_cast<ExactBits<T>>(value), 2 * sizeof(T));
}

// Fails when `field` is not what exact_field<T> writes (a damaged record of `what`).
template <typename T>
T read_exact_field(std::string_view field, std::string_view what) {
  ExactBits<T> bits = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), bits, 16);
  if (ec != std::errc() || end != field.data() + field.size() || field.size() != 2 * sizeof(T))
    fail("a {} record holds '{}', not the {} hex digits of a number", what, field, 2 * sizeof(T));
  return std::bit_cast<T>(bits);
}

}  // namespace invar::run
