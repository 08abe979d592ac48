#include "eval/lip/property_classifier.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "core/error.hpp"
#include "eval/stats/classification.hpp"

namespace invar::lip {

std::string TfidfFeaturizer::description() const {
  const auto& o = vectorizer_.options();
  return fmt::format("TF-IDF {} {}-{}-grams{}, min_df {}, max_df {}{}",
                     o.analyzer == learn::NgramAnalyzer::Char ? "char" : "char_wb", o.ngram_min, o.ngram_max,
                     o.sublinear_tf ? ", sublinear tf" : "", o.min_df.str(), o.max_df.str(),
                     o.lowercase ? "" : ", case kept");
}

SentenceEmbeddings::SentenceEmbeddings(TextEncoder& encoder, BatchOptions batches)
    : encoder_(encoder), batches_(std::move(batches)), settings_(encoder.default_embedding_settings()) {
  encoder_.cap_length_for_embeddings();
}

learn::SparseMatrix SentenceEmbeddings::rows(const std::vector<std::string>& texts) {
  std::vector<std::string> missing;
  std::set<std::string> queued;
  for (const auto& text : texts)
    if (!cache_.count(text) && queued.insert(text).second) missing.push_back(text);
  auto embedded = embed(missing);
  for (std::size_t i = 0; i < missing.size(); ++i) add(missing[i], std::move(embedded[i]));
  std::vector<std::vector<float>> dense;
  dense.reserve(texts.size());
  for (const auto& text : texts) dense.push_back(cache_.at(text));
  return learn::SparseMatrix::from_dense(dense, encoder_.embedding_width(settings_));
}

std::vector<SentenceEmbeddings::Embedded> SentenceEmbeddings::embed(const std::vector<std::string>& texts) {
  if (texts.empty()) return {};
  // Tokenized one by one, so that each text's truncation is known.
  std::vector<Encoding> encodings;
  std::vector<bool> cut;
  for (const auto& text : texts) {
    std::size_t truncated = 0;
    const TextInput input{text, {}};
    encodings.push_back(std::move(encoder_.encode(std::span(&input, 1), false, truncated).front()));
    cut.push_back(truncated > 0);
  }
  auto embeddings = encoder_.embed(encodings, settings_, batches_);
  std::vector<Embedded> out;
  for (std::size_t i = 0; i < texts.size(); ++i) out.push_back({std::move(embeddings[i]), cut[i]});
  return out;
}

void SentenceEmbeddings::add(const std::string& text, Embedded embedded) {
  if (embedded.values.size() != encoder_.embedding_width(settings_))
    fail("an embedding of {} values for a model whose embeddings have {}", embedded.values.size(),
         encoder_.embedding_width(settings_));
  if (cache_.emplace(text, std::move(embedded.values)).second && embedded.truncated) ++truncated_;
}

std::string SentenceEmbeddings::description() const {
  std::vector<std::string> modes;
  for (Pooling mode : settings_.modes) modes.push_back(pooling_name(mode));
  return fmt::format("sentence embeddings of {} ({} pooling{}, {} dims)", encoder_.source().path(),
                     fmt::join(modes, "+"), settings_.normalize ? ", normalized" : "",
                     encoder_.embedding_width(settings_));
}

PropertyClassifier::PropertyClassifier(std::unique_ptr<TextFeaturizer> featurizer, learn::LogisticRegressionOptions options)
    : featurizer_(std::move(featurizer)), options_(options) {}

void PropertyClassifier::fit(const std::vector<std::string>& texts, const std::vector<int>& labels,
                             std::size_t num_classes) {
  featurizer_->fit(texts);
  model_.fit(featurizer_->transform(texts), labels, num_classes, options_);
}

std::vector<int> PropertyClassifier::predict(const std::vector<std::string>& texts) {
  return model_.predict(featurizer_->transform(texts));
}

PropertyClassifier::Prediction PropertyClassifier::predict_with_probabilities(const std::vector<std::string>& texts) {
  auto features = featurizer_->transform(texts);
  return {model_.predict(features), model_.predict_proba(features)};
}

std::string PropertyClassifier::description() const {
  const bool lbfgs = options_.solver == learn::LogisticSolver::Lbfgs;
  return fmt::format("{}; L2 logistic regression ({}, class weights {}, intercept {})", featurizer_->description(),
                     lbfgs ? "sklearn's lbfgs/saga problem solved to its optimum by L-BFGS, multinomial for K > 2"
                           : "liblinear, one-vs-rest",
                     options_.class_weight == learn::ClassWeighting::Balanced ? "balanced" : "none",
                     !options_.fit_intercept ? "none" : lbfgs ? "not penalised" : "penalised");
}

ClassifierScores score_classifier(const std::vector<int>& truth, const std::vector<int>& predicted) {
  if (truth.size() != predicted.size())
    fail("classifier scores: {} true labels but {} predictions", truth.size(), predicted.size());
  ClassifierScores scores;
  scores.texts = truth.size();
  if (truth.empty()) return scores;
  // sklearn's accuracy_score and f1_score(average="macro") over the classes either side uses.
  std::vector<std::string> true_labels, predicted_labels;
  for (int label : truth) true_labels.push_back(std::to_string(label));
  for (int label : predicted) predicted_labels.push_back(std::to_string(label));
  const auto computed = stats::classification_scores(true_labels, predicted_labels);
  scores.accuracy = computed.accuracy;
  scores.macro_f1 = computed.macro.f1;
  return scores;
}

}  // namespace invar::lip
