#pragma once
// Text classifiers for a property label (sentiment, formality, gender, ...): a featurizer turns texts
// into a feature matrix, an L2 logistic regression (eval/logreg.hpp) maps features to classes.
//   TF: TF-IDF character n-grams (eval/tfidf.hpp), fitted on the training texts.
//   SE: sentence embeddings of an encoder model (no fitting), added where the encoder is available.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eval/logreg.hpp"
#include "eval/sparse.hpp"
#include "eval/tfidf.hpp"

namespace invar {

class TextFeaturizer {
 public:
  virtual ~TextFeaturizer() = default;
  virtual void fit(const std::vector<std::string>& texts) = 0;
  virtual SparseMatrix transform(const std::vector<std::string>& texts) = 0;
  virtual std::string description() const = 0;  // the settings, for reports
};

// Each classifier gets a fresh featurizer (a TF-IDF vocabulary belongs to one training set).
using FeaturizerFactory = std::function<std::unique_ptr<TextFeaturizer>()>;

class TfidfFeaturizer : public TextFeaturizer {
 public:
  explicit TfidfFeaturizer(TfidfOptions options) : vectorizer_(options) {}
  void fit(const std::vector<std::string>& texts) override { vectorizer_.fit(texts); }
  SparseMatrix transform(const std::vector<std::string>& texts) override { return vectorizer_.transform(texts); }
  std::string description() const override;
  const TfidfVectorizer& vectorizer() const { return vectorizer_; }

 private:
  TfidfVectorizer vectorizer_;
};

// The LIP paper's TF-IDF setting: analyzer "char", n-grams 2–6, sublinear tf, min_df 0.001, max_df 0.6.
TfidfOptions lip_tfidf_options();

class PropertyClassifier {
 public:
  PropertyClassifier(std::unique_ptr<TextFeaturizer> featurizer, LogisticRegressionOptions options);

  // labels are class indices in [0, num_classes); every class must occur.
  void fit(const std::vector<std::string>& texts, const std::vector<int>& labels, std::size_t num_classes);
  std::vector<int> predict(const std::vector<std::string>& texts);
  // Predicted class and the probabilities of every class, per text.
  struct Prediction {
    std::vector<int> labels;
    std::vector<std::vector<double>> probabilities;
  };
  Prediction predict_with_probabilities(const std::vector<std::string>& texts);
  std::string description() const;

 private:
  std::unique_ptr<TextFeaturizer> featurizer_;
  LogisticRegressionOptions options_;
  LogisticRegression model_;
};

// Accuracy and sklearn's f1_score(average="macro"): the mean F1 over the classes that occur in the
// truth or the predictions, a class with no predicted or no true member counting F1 = 0.
struct ClassifierScores {
  std::size_t texts = 0;
  double accuracy = 0;
  double macro_f1 = 0;
};
ClassifierScores score_classifier(const std::vector<int>& truth, const std::vector<int>& predicted);

}  // namespace invar
