#include "eval/lip/cross_validation.hpp"

#include "eval/learn/model_selection.hpp"

namespace invar::lip {

namespace {

struct FoldResult {
  double f1_micro = 0;
  std::vector<int> predictions;  // for every text, filled only for the fold's test texts
};

// Trains on every fold but one and predicts that one, for one C.
std::vector<FoldResult> run_folds(const std::vector<std::string>& texts, const std::vector<int>& labels,
                                  std::size_t num_classes, const std::vector<std::size_t>& test_folds,
                                  std::size_t folds, const FeaturizerFactory& featurizer,
                                  const learn::LogisticRegressionOptions& options, const std::function<void()>& fitted) {
  std::vector<FoldResult> results(folds);
  for (std::size_t fold = 0; fold < folds; ++fold) {
    std::vector<std::size_t> train, test;
    for (std::size_t i = 0; i < texts.size(); ++i) (test_folds[i] == fold ? test : train).push_back(i);
    PropertyClassifier classifier(featurizer(), options);
    classifier.fit(learn::pick(texts, train), learn::pick(labels, train), num_classes);
    auto predicted = classifier.predict(learn::pick(texts, test));
    results[fold].f1_micro = learn::f1_micro(learn::pick(labels, test), predicted);
    results[fold].predictions = std::move(predicted);
    if (fitted) fitted();
  }
  return results;
}

}  // namespace

CrossValidation cross_validate(const std::vector<std::string>& texts, const std::vector<int>& labels,
                               std::size_t num_classes, const FeaturizerFactory& featurizer,
                               const learn::LogisticRegressionOptions& options, const std::vector<double>& grid,
                               std::size_t folds, const std::function<void()>& fitted) {
  CrossValidation result;
  result.test_folds = learn::stratified_kfold(labels, folds);
  const std::vector<double> candidates = grid.empty() ? std::vector<double>{options.C} : grid;
  std::vector<std::vector<FoldResult>> runs;
  GridSearchResult search;
  search.candidates = candidates;
  for (double C : candidates) {
    learn::LogisticRegressionOptions candidate = options;
    candidate.C = C;
    runs.push_back(run_folds(texts, labels, num_classes, result.test_folds, folds, featurizer, candidate, fitted));
    std::vector<double> scores;
    double sum = 0;
    for (const auto& fold : runs.back()) {
      scores.push_back(fold.f1_micro);
      sum += fold.f1_micro;
    }
    search.fold_scores.push_back(std::move(scores));
    search.means.push_back(sum / static_cast<double>(folds));
  }
  search.best = learn::best_candidate(search.means);
  result.C = candidates[search.best];
  if (!grid.empty()) result.grid = std::move(search);

  // Each fold's predictions, back in text order.
  std::vector<std::size_t> next(folds, 0);
  const auto& chosen = runs[result.grid ? result.grid->best : 0];
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::size_t fold = result.test_folds[i];
    result.out_of_fold_predictions.push_back(chosen[fold].predictions[next[fold]++]);
  }
  result.scores = score_classifier(labels, result.out_of_fold_predictions);
  return result;
}

}  // namespace invar::lip
