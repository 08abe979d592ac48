#pragma once
// Comparisons against the sacrebleu / scipy goldens, with the tolerances of
// tests/fixtures/metrics/README.md: 1e-9 relative, 1e-12 absolute near 0, NaN and infinities
// spelled "NaN", "Infinity", "-Infinity".
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace invar::test {

inline double golden_double(const nlohmann::json& v) {
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  return v.get<double>();
}

inline ::testing::AssertionResult near_golden(double actual, double expected, double rel = 1e-9, double abs = 1e-12) {
  if (std::isnan(expected) && std::isnan(actual)) return ::testing::AssertionSuccess();
  if (actual == expected) return ::testing::AssertionSuccess();
  if (std::fabs(actual - expected) <= std::max(abs, rel * std::fabs(expected))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << fmt::format("actual {:.17g}, expected {:.17g}", actual, expected);
}

inline ::testing::AssertionResult near_golden(double actual, const nlohmann::json& expected, double rel = 1e-9,
                                              double abs = 1e-12) {
  return near_golden(actual, golden_double(expected), rel, abs);
}

}  // namespace invar::test
