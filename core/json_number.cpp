#include "core/json_number.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace invar {

namespace {

template <typename T>
std::string number_text(T value) {
  return std::isfinite(value) ? fmt::format("{}", value) : "null";
}

template <typename T>
std::string array_text(std::span<const T> values) {
  std::vector<std::string> parts;
  parts.reserve(values.size());
  for (T v : values) parts.push_back(number_text(v));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

template <typename T>
bool finite(std::span<const T> values) {
  return std::all_of(values.begin(), values.end(), [](T v) { return std::isfinite(v); });
}

}  // namespace

std::string json_number_text(double value) { return number_text(value); }
std::string json_number_text(float value) { return number_text(value); }
std::string json_array_text(std::span<const float> values) { return array_text(values); }
std::string json_array_text(std::span<const double> values) { return array_text(values); }

nlohmann::ordered_json json_number(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

bool all_finite(std::span<const float> values) { return finite(values); }
bool all_finite(std::span<const double> values) { return finite(values); }

}  // namespace invar
