#pragma once
// Pairwise systematicity (Manino et al., Findings of ACL 2022, §4): every unordered pair of distinct
// sources (x_i, x_j) whose outputs satisfy the premise is a test case; it is violated when the
// outputs on the follow-ups t(x_i), t(x_j) break the hypothesis. Counted without visiting the
// n(n − 1)/2 pairs: O(n log n) for orders and similarity (sorting plus a Fenwick tree), O(n) for classes.
// Cosine similarity of embeddings has no order to sort by: every pair is computed, in blocked matrix
// products (O(n² d)).
//
// Ties (the same rule in tests/eval/test_metamorphic.cpp's O(n²) reference):
//   order:       premise s_i < s_j (or s_i > s_j); a pair with s_i = s_j is not a test case. Violated
//                when the follow-ups are strictly reversed, t_i > t_j; a tie t_i = t_j keeps the
//                hypothesis s(t(x_i)) ≤ s(t(x_j)) and is not a violation.
//   classes:     premise c_i = c_j; violated when the follow-up classes differ.
//   similarity:  premise |s_i − s_j| ≤ δ; violated when |t_i − t_j| > δ.
//   cosine:      premise cos(e_i, e_j) ≥ δ; violated when cos(t_i, t_j) < δ (a zero vector has cosine 0).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace invar::metamorphic {

struct PairwiseCounts {
  std::uint64_t tests = 0;       // pairs satisfying the premise
  std::uint64_t violations = 0;  // of those, pairs breaking the hypothesis
  // Per source: the test cases and violations it takes part in (each pair counts for both sources).
  std::vector<std::uint64_t> source_tests;
  std::vector<std::uint64_t> source_violations;

  double rate() const;                          // violations / tests; NaN without tests
  double source_rate(std::size_t source) const;  // the same for one source
};

// Order: the follow-ups must keep the sources' strict order. For an expected reversal (e.g. an
// upward-monotone context in compositionality) pass the follow-ups negated. Scores must be finite.
PairwiseCounts count_order_violations(std::span<const double> source, std::span<const double> follow_up);

// Equivalence: sources in the same class must have follow-ups in the same class.
PairwiseCounts count_class_violations(std::span<const int> source, std::span<const int> follow_up);

// Similarity of scalar outputs: sources within δ must have follow-ups within δ.
PairwiseCounts count_similarity_violations(std::span<const double> source, std::span<const double> follow_up,
                                           double delta);

// Similarity of embeddings: sources whose cosine is ≥ δ must have follow-ups whose cosine is ≥ δ.
// Every embedding must have the same dimension and finite components.
PairwiseCounts count_cosine_violations(const std::vector<std::vector<float>>& source,
                                       const std::vector<std::vector<float>>& follow_up, double delta);

}  // namespace invar::metamorphic
