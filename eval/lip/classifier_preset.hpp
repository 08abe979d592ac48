#pragma once
// Named settings of the property classifier (featurizer settings, logistic regression, model selection,
// classifier check):
//   "lip-tool" (the default) — the LIP tool's classifier, MilaNLProc/language-invariant-properties
//     classifiers/sklearn_wrapper.py: TfidfVectorizer(analyzer="char", ngram_range=(2, 6),
//     sublinear_tf=True, min_df=0.001, max_df=0.8) -> LogisticRegression(solver="saga",
//     class_weight="balanced") in GridSearchCV over C in {5, 2, 1, 0.5, 0.1}, 5-fold StratifiedKFold,
//     micro-F1, refit on all the training data. The problem saga solves (intercept unpenalised,
//     multinomial for K > 2) is solved here to its optimum with L-BFGS: saga's own iterate depends on
//     an unset random seed, the optimum does not. The check is the 5-fold cross-validation itself.
//   "invar" — invar's earlier setting: max_df 0.6, liblinear (one-vs-rest, intercept penalised), C = 1,
//     trained on 80 % of each class and checked on the other 20 % (seeded, so --runs varies it).
#include <cstddef>
#include <string>
#include <vector>

#include "eval/learn/logreg.hpp"
#include "eval/learn/tfidf.hpp"

namespace invar::lip {

enum class ClassifierCheck { CrossValidation, HeldOut };

struct ClassifierPreset {
  std::string name;
  learn::TfidfOptions tfidf;
  learn::LogisticRegressionOptions regression;
  std::vector<double> c_grid;  // empty: regression.C is used as it is
  ClassifierCheck check = ClassifierCheck::CrossValidation;
  std::size_t folds = 5;   // cross-validation folds (the check and the grid search)
  double held_out = 0.2;   // ClassifierCheck::HeldOut: the share of each class kept out
};

inline const char* kDefaultClassifierPreset = "lip-tool";
std::vector<std::string> classifier_preset_names();
// Fails on an unknown name, listing the known ones.
ClassifierPreset classifier_preset(const std::string& name);

}  // namespace invar::lip
