#include "eval/learn/model_selection.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <map>

#include "core/error.hpp"
#include "eval/stats/random.hpp"

namespace invar::learn {

std::vector<std::size_t> stratified_kfold(const std::vector<int>& labels, std::size_t splits) {
  if (splits < 2) fail("cross-validation needs at least 2 folds, got {}", splits);
  if (labels.size() < splits) fail("cross-validation: {} folds but only {} samples", splits, labels.size());
  std::map<int, std::size_t> first_seen;
  std::vector<std::size_t> encoded;
  for (int label : labels) encoded.push_back(first_seen.try_emplace(label, first_seen.size()).first->second);
  const std::size_t classes = first_seen.size();
  std::vector<std::size_t> counts(classes, 0);
  for (auto c : encoded) ++counts[c];
  if (std::all_of(counts.begin(), counts.end(), [&](std::size_t n) { return n < splits; }))
    fail("cross-validation: {} folds but no class has that many samples", splits);

  std::vector<std::size_t> order = encoded;
  std::sort(order.begin(), order.end());
  // allocation[fold][class]: how many of the class the fold gets.
  std::vector<std::vector<std::size_t>> allocation(splits, std::vector<std::size_t>(classes, 0));
  for (std::size_t i = 0; i < order.size(); ++i) ++allocation[i % splits][order[i]];
  std::vector<std::size_t> folds(labels.size());
  std::vector<std::size_t> fold_of_class(classes, 0), filled(classes, 0);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::size_t c = encoded[i];
    while (filled[c] == allocation[fold_of_class[c]][c]) {
      ++fold_of_class[c];
      filled[c] = 0;
    }
    folds[i] = fold_of_class[c];
    ++filled[c];
  }
  return folds;
}

double f1_micro(const std::vector<int>& truth, const std::vector<int>& predicted) {
  if (truth.size() != predicted.size() || truth.empty())
    fail("f1_micro: {} true labels and {} predictions", truth.size(), predicted.size());
  std::size_t correct = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) correct += truth[i] == predicted[i];
  const double precision = static_cast<double>(correct) / static_cast<double>(predicted.size());
  const double recall = static_cast<double>(correct) / static_cast<double>(truth.size());
  if (precision + recall == 0) return 0.0;
  return 2 * precision * recall / (precision + recall);
}

std::size_t best_candidate(const std::vector<double>& mean_scores) {
  if (mean_scores.empty()) fail("grid search: no candidates");
  return static_cast<std::size_t>(std::max_element(mean_scores.begin(), mean_scores.end()) - mean_scores.begin());
}

Split stratified_split(const std::vector<int>& labels, std::size_t num_classes, double share, std::uint64_t seed) {
  if (!(share >= 0 && share < 1)) fail("held-out share {} is outside [0, 1)", share);
  std::vector<std::vector<std::size_t>> members(num_classes);
  for (std::size_t i = 0; i < labels.size(); ++i) members.at(static_cast<std::size_t>(labels[i])).push_back(i);
  std::mt19937_64 rng(seed);
  Split split;
  for (auto& indices : members) {
    for (std::size_t i = indices.size(); i > 1; --i) std::swap(indices[i - 1], indices[stats::uniform_below(rng, i)]);
    std::size_t held = 0;
    if (!indices.empty())
      held = std::min(indices.size() - 1, static_cast<std::size_t>(std::floor(share * static_cast<double>(indices.size()) + 0.5)));
    split.held_out.insert(split.held_out.end(), indices.begin(), indices.begin() + static_cast<std::ptrdiff_t>(held));
    split.train.insert(split.train.end(), indices.begin() + static_cast<std::ptrdiff_t>(held), indices.end());
  }
  std::sort(split.train.begin(), split.train.end());
  std::sort(split.held_out.begin(), split.held_out.end());
  return split;
}

}  // namespace invar::learn
