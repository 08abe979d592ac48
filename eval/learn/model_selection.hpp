#pragma once
// Cross-validation as scikit-learn 1.2 does it, so that a grid search picks the same hyper-parameter:
//   - StratifiedKFold(n_splits, shuffle=False): classes are numbered by first appearance; the sorted
//     encoded labels are dealt round-robin to the folds (y_order[i::n_splits]) to get how many of each
//     class every fold receives, then each class's samples, in data order, fill fold 0, 1, ... with
//     those counts;
//   - the f1_micro scorer: P = tp / predicted, R = tp / true, F = 2 P R / (P + R) (so 0.8 can come
//     out as 0.8000000000000002, which then matters for ties);
//   - GridSearchCV: candidate mean = plain average of the fold scores, rank = rankdata(-mean, "min"),
//     best = the first candidate with rank 1.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace invar::learn {

// The elements at `indices`, in that order: a fold's or a split's part of the data.
template <typename T>
std::vector<T> pick(const std::vector<T>& values, const std::vector<std::size_t>& indices) {
  std::vector<T> out;
  out.reserve(indices.size());
  for (auto i : indices) out.push_back(values[i]);
  return out;
}

// The test fold of every sample; fails, like sklearn, when every class has fewer members than folds.
std::vector<std::size_t> stratified_kfold(const std::vector<int>& labels, std::size_t splits);

double f1_micro(const std::vector<int>& truth, const std::vector<int>& predicted);

// Index of the candidate GridSearchCV's refit takes, from each candidate's mean score.
std::size_t best_candidate(const std::vector<double>& mean_scores);

// Stratified split: from each class, round(share · count) indices (at most count − 1) go to the
// held-out part; the order comes from a Fisher–Yates shuffle seeded with `seed` (mt19937_64).
struct Split {
  std::vector<std::size_t> train;
  std::vector<std::size_t> held_out;
};
Split stratified_split(const std::vector<int>& labels, std::size_t num_classes, double share, std::uint64_t seed);

}  // namespace invar::learn
