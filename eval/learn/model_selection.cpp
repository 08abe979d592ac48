#include "eval/learn/model_selection.hpp"

#include <algorithm>
#include <map>

#include "core/error.hpp"

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

}  // namespace invar::learn
