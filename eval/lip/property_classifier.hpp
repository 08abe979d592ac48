#pragma once
// Text classifiers for a property label (sentiment, formality, gender, ...): a featurizer turns texts
// into a feature matrix, an L2 logistic regression (eval/learn/logreg.hpp) maps features to classes.
//   TF: TF-IDF character n-grams (eval/learn/tfidf.hpp), fitted on the training texts.
//   SE: sentence embeddings of an encoder model (engine/text_encoder.hpp; no fitting).
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/text_encoder.hpp"

#include "eval/learn/logreg.hpp"
#include "eval/learn/sparse.hpp"
#include "eval/learn/tfidf.hpp"

namespace invar::lip {

class TextFeaturizer {
 public:
  virtual ~TextFeaturizer() = default;
  virtual void fit(const std::vector<std::string>& texts) = 0;
  virtual learn::SparseMatrix transform(const std::vector<std::string>& texts) = 0;
  virtual std::string description() const = 0;  // the settings, for reports
};

// Each classifier gets a fresh featurizer (a TF-IDF vocabulary belongs to one training set).
using FeaturizerFactory = std::function<std::unique_ptr<TextFeaturizer>()>;

class TfidfFeaturizer : public TextFeaturizer {
 public:
  explicit TfidfFeaturizer(learn::TfidfOptions options) : vectorizer_(options) {}
  void fit(const std::vector<std::string>& texts) override { vectorizer_.fit(texts); }
  learn::SparseMatrix transform(const std::vector<std::string>& texts) override { return vectorizer_.transform(texts); }
  std::string description() const override;

 private:
  learn::TfidfVectorizer vectorizer_;
};

// Sentence embeddings of texts as the model's sentence-transformers modules compute them, each text
// embedded once: every LIP run trains on the same texts again, and only the split changes.
class SentenceEmbeddings {
 public:
  SentenceEmbeddings(TextEncoder& encoder, BatchOptions batches);
  // One dense row per text, in order.
  learn::SparseMatrix rows(const std::vector<std::string>& texts);

  // A text's embedding, and whether the text was cut to the model's length.
  struct Embedded {
    std::vector<float> values;
    bool truncated = false;
  };
  // Embeddings of `texts`, computed now (a command may compute them over several processes).
  std::vector<Embedded> embed(const std::vector<std::string>& texts);
  // Keeps an embedding computed by embed() for rows(); the first one given for a text is kept.
  void add(const std::string& text, Embedded embedded);
  // Texts longer than the model's limit, truncated (each counted once).
  std::size_t truncated() const { return truncated_; }
  std::string description() const;

 private:
  TextEncoder& encoder_;
  BatchOptions batches_;
  EmbeddingSettings settings_;
  std::unordered_map<std::string, std::vector<float>> cache_;
  std::size_t truncated_ = 0;
};

class EmbeddingFeaturizer : public TextFeaturizer {
 public:
  explicit EmbeddingFeaturizer(std::shared_ptr<SentenceEmbeddings> embeddings) : embeddings_(std::move(embeddings)) {}
  void fit(const std::vector<std::string>&) override {}
  learn::SparseMatrix transform(const std::vector<std::string>& texts) override { return embeddings_->rows(texts); }
  std::string description() const override { return embeddings_->description(); }

 private:
  std::shared_ptr<SentenceEmbeddings> embeddings_;
};

class PropertyClassifier {
 public:
  PropertyClassifier(std::unique_ptr<TextFeaturizer> featurizer, learn::LogisticRegressionOptions options);

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
  learn::LogisticRegressionOptions options_;
  learn::LogisticRegression model_;
};

// Accuracy and sklearn's f1_score(average="macro"): the mean F1 over the classes that occur in the
// truth or the predictions, a class with no predicted or no true member counting F1 = 0.
struct ClassifierScores {
  std::size_t texts = 0;
  double accuracy = 0;
  double macro_f1 = 0;
};
ClassifierScores score_classifier(const std::vector<int>& truth, const std::vector<int>& predicted);

}  // namespace invar::lip
