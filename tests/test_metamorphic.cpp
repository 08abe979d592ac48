// Metamorphic testing (Manino et al. 2022): the O(n log n) pairwise counters against a plain
// O(n²) reference on random inputs with ties, hand-computed cases, single-input relations,
// transformations, relation diagrams, and `invar metamorphic` end to end on the fixture models.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "eval/metamorphic/pairwise.hpp"
#include "eval/metamorphic/relation.hpp"
#include "eval/metamorphic/single.hpp"
#include "eval/metamorphic/transforms.hpp"
#include "support/test_support.hpp"

using namespace invar;
using namespace invar::metamorphic;

namespace {

// The definitions of eval/metamorphic/pairwise.hpp, pair by pair.
template <typename Premise, typename Violated>
PairwiseCounts reference(std::size_t n, Premise premise, Violated violated) {
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

PairwiseCounts reference_order(const std::vector<double>& s, const std::vector<double>& t) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return s[i] != s[j]; },
      [&](std::size_t i, std::size_t j) { return s[i] < s[j] ? t[i] > t[j] : t[i] < t[j]; });
}

PairwiseCounts reference_classes(const std::vector<int>& s, const std::vector<int>& t) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return s[i] == s[j]; },
      [&](std::size_t i, std::size_t j) { return t[i] != t[j]; });
}

PairwiseCounts reference_similarity(const std::vector<double>& s, const std::vector<double>& t, double delta) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return std::abs(s[i] - s[j]) <= delta; },
      [&](std::size_t i, std::size_t j) { return !(std::abs(t[i] - t[j]) <= delta); });
}

void expect_same(const PairwiseCounts& fast, const PairwiseCounts& slow) {
  EXPECT_EQ(fast.tests, slow.tests);
  EXPECT_EQ(fast.violations, slow.violations);
  EXPECT_EQ(fast.source_tests, slow.source_tests);
  EXPECT_EQ(fast.source_violations, slow.source_violations);
}

// Scores drawn from `levels` values (many ties when levels is small), or continuous when 0.
std::vector<double> random_scores(std::mt19937_64& rng, std::size_t n, int levels) {
  std::vector<double> out(n);
  for (auto& v : out) v = levels > 0 ? static_cast<double>(rng() % levels) / 10.0 : static_cast<double>(rng() % 1000003) / 1000003.0;
  return out;
}

}  // namespace

TEST(MetamorphicPairwise, OrderByHand) {
  // Sources 0.1 < 0.2 < 0.3 = 0.3; follow-ups reverse the first two, tie the last two.
  const std::vector<double> s{0.1, 0.2, 0.3, 0.3}, t{0.5, 0.4, 0.9, 0.9};
  const auto counts = count_order_violations(s, t);
  EXPECT_EQ(counts.tests, 5u);       // 6 pairs less the tied (2, 3)
  EXPECT_EQ(counts.violations, 1u);  // (0, 1)
  EXPECT_EQ(counts.source_tests, (std::vector<std::uint64_t>{3, 3, 2, 2}));
  EXPECT_EQ(counts.source_violations, (std::vector<std::uint64_t>{1, 1, 0, 0}));
  EXPECT_DOUBLE_EQ(counts.rate(), 0.2);
  EXPECT_DOUBLE_EQ(counts.source_rate(0), 1.0 / 3);
}

TEST(MetamorphicPairwise, FollowUpTieIsNotAViolation) {
  const auto counts = count_order_violations(std::vector<double>{1, 2}, std::vector<double>{5, 5});
  EXPECT_EQ(counts.tests, 1u);
  EXPECT_EQ(counts.violations, 0u);
}

TEST(MetamorphicPairwise, FullReversalViolatesEveryPair) {
  std::vector<double> s, t;
  for (int i = 0; i < 50; ++i) {
    s.push_back(i);
    t.push_back(-i);
  }
  const auto counts = count_order_violations(s, t);
  EXPECT_EQ(counts.tests, 50u * 49 / 2);
  EXPECT_EQ(counts.violations, counts.tests);
}

TEST(MetamorphicPairwise, OrderEqualsReferenceOnRandomInputsWithTies) {
  std::mt19937_64 rng(14);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 2 + rng() % 300;
    const int levels = trial % 3 == 0 ? 0 : static_cast<int>(1 + rng() % 12);
    const auto s = random_scores(rng, n, levels), t = random_scores(rng, n, levels);
    expect_same(count_order_violations(s, t), reference_order(s, t));
  }
}

TEST(MetamorphicPairwise, ClassesEqualReferenceOnRandomInputs) {
  std::mt19937_64 rng(15);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 2 + rng() % 300;
    std::vector<int> s(n), t(n);
    for (auto& v : s) v = static_cast<int>(rng() % 4);
    for (auto& v : t) v = static_cast<int>(rng() % 4);
    expect_same(count_class_violations(s, t), reference_classes(s, t));
  }
}

TEST(MetamorphicPairwise, SimilarityEqualsReferenceOnRandomInputsWithTies) {
  std::mt19937_64 rng(16);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 2 + rng() % 300;
    const int levels = trial % 3 == 0 ? 0 : static_cast<int>(1 + rng() % 12);
    const auto s = random_scores(rng, n, levels), t = random_scores(rng, n, levels);
    // δ on the grid of the tied scores (0.1, 0.2, ...) puts pairs exactly on the boundary.
    const double delta = static_cast<double>(rng() % 4) / 10.0;
    expect_same(count_similarity_violations(s, t, delta), reference_similarity(s, t, delta));
  }
}

TEST(MetamorphicPairwise, RejectsMisalignedAndNonFiniteScores) {
  EXPECT_THROW(count_order_violations(std::vector<double>{1, 2}, std::vector<double>{1}), Error);
  EXPECT_THROW(count_order_violations(std::vector<double>{1, NAN}, std::vector<double>{1, 2}), Error);
  EXPECT_THROW(count_similarity_violations(std::vector<double>{1, 2}, std::vector<double>{1, 2}, -1), Error);
}

TEST(MetamorphicSingle, ViolationsByHand) {
  EXPECT_EQ(check_equivalence(std::vector<int>{0, 1, 1}, std::vector<int>{0, 0, 1}).violating, std::vector<std::size_t>{1});
  const auto order = check_order(std::vector<double>{0.5, 0.5, 0.5}, std::vector<double>{0.4, 0.5, 0.6}, Direction::Increase);
  EXPECT_EQ(order.violating, std::vector<std::size_t>{0});
  EXPECT_DOUBLE_EQ(order.rate(), 1.0 / 3);
  EXPECT_EQ(check_order(std::vector<double>{0.5, 0.5}, std::vector<double>{0.4, 0.6}, Direction::Decrease).violating,
            std::vector<std::size_t>{1});
  EXPECT_EQ(check_score_similarity(std::vector<double>{0.5, 0.5}, std::vector<double>{0.75, 0.5}, 0.2).violating,
            std::vector<std::size_t>{0});
  const std::vector<std::vector<float>> a{{1, 0}, {1, 0}}, b{{1, 1}, {2, 0}};
  EXPECT_NEAR(cosine(a[0], b[0]), std::sqrt(0.5), 1e-12);
  EXPECT_EQ(check_cosine_similarity(a, b, 0.9).violating, std::vector<std::size_t>{0});
}
