#pragma once
// The LIP tool's model selection (classifiers/sklearn_wrapper.py): GridSearchCV over the logistic
// regression's C with StratifiedKFold(5) scored by micro-F1, the featurizer refitted on every fold's
// training part (a TF-IDF vocabulary per fold, as the tool's Pipeline does), then the best C refitted
// on all the data. The out-of-fold predictions at the chosen C are the classifier check: every
// training text is labelled once by a classifier that did not see it, so no text is held back from
// the final classifier.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "eval/lip/property_classifier.hpp"

namespace invar::lip {

struct GridSearchResult {
  std::vector<double> candidates;                // C values, in the order searched
  std::vector<std::vector<double>> fold_scores;  // per candidate: f1_micro of every fold
  std::vector<double> means;                     // per candidate: plain mean over the folds
  std::size_t best = 0;
};

struct CrossValidation {
  std::vector<std::size_t> test_folds;  // the fold of every text
  std::optional<GridSearchResult> grid;
  double C = 1;                            // the C chosen by the grid (or the fixed one)
  std::vector<int> out_of_fold_predictions;
  ClassifierScores scores;  // accuracy and macro-F1 of the out-of-fold predictions
};

// `grid` empty: cross-validate options.C only. `fitted` (if set) is called after every fold's fit.
CrossValidation cross_validate(const std::vector<std::string>& texts, const std::vector<int>& labels,
                               std::size_t num_classes, const FeaturizerFactory& featurizer,
                               const learn::LogisticRegressionOptions& options, const std::vector<double>& grid,
                               std::size_t folds, const std::function<void()>& fitted = {});

}  // namespace invar::lip
