#pragma once
// The plain O(n²) pairwise counters: every pair of sources visited, with the premise and violation
// rules of eval/metamorphic/pairwise.hpp written out directly. tests/eval/test_metamorphic.cpp checks the
// O(n log n) counters against them; bench/bench_metamorphic.cpp times them for comparison.
#include <cmath>
#include <vector>

#include "eval/metamorphic/pairwise.hpp"
#include "engine/cosine.hpp"
#include "eval/metamorphic/single.hpp"

namespace invar::test {

using metamorphic::PairwiseCounts;

// The definitions of eval/metamorphic/pairwise.hpp, pair by pair.
template <typename Premise, typename Violated>
inline PairwiseCounts reference(std::size_t n, Premise premise, Violated violated) {
  PairwiseCounts counts;
  counts.source_tests.assign(n, 0);
  counts.source_violations.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      if (!premise(i, j)) continue;
      ++counts.tests;
      ++counts.source_tests[i];
      ++counts.source_tests[j];
      if (!violated(i, j)) continue;
      ++counts.violations;
      ++counts.source_violations[i];
      ++counts.source_violations[j];
    }
  return counts;
}

inline PairwiseCounts reference_order(const std::vector<double>& s, const std::vector<double>& t) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return s[i] != s[j]; },
      [&](std::size_t i, std::size_t j) { return s[i] < s[j] ? t[i] > t[j] : t[i] < t[j]; });
}

inline PairwiseCounts reference_classes(const std::vector<int>& s, const std::vector<int>& t) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return s[i] == s[j]; },
      [&](std::size_t i, std::size_t j) { return t[i] != t[j]; });
}

inline PairwiseCounts reference_similarity(const std::vector<double>& s, const std::vector<double>& t, double delta) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return std::abs(s[i] - s[j]) <= delta; },
      [&](std::size_t i, std::size_t j) { return !(std::abs(t[i] - t[j]) <= delta); });
}

inline PairwiseCounts reference_cosine(const std::vector<std::vector<float>>& s, const std::vector<std::vector<float>>& t,
                                       double delta) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return cosine_similarity(s[i], s[j]) >= delta; },
      [&](std::size_t i, std::size_t j) { return !(cosine_similarity(t[i], t[j]) >= delta); });
}

}  // namespace invar::test
