#pragma once
// The models and data a style-transfer evaluation may use, each optional and each loaded once per
// run: the formality regressor and the STS regressor (sequence-classification checkpoints with one
// regression output, as Briakou et al. fine-tune XLM-R), a masked LM for pseudo-log-likelihood, a
// BERTScore model, fastText word vectors and the WordNet database for METEOR.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/text_encoder.hpp"
#include "eval/metrics/bertscore/bertscore.hpp"
#include "eval/metrics/lexical/meteor.hpp"
#include "eval/metrics/vectors/word_vectors.hpp"
#include "backends/backend.hpp"

namespace invar::style_transfer {

struct ModelSettings {
  std::string formality, sts, mlm, bertscore;  // model folders or .invar files; empty = not used
  // A binary formality classifier (the paper's Table 4, Figure 1 and its Table 8 rows) and the label
  // that means formal (empty: the one named "formal", in any case).
  std::string formality_classifier, formal_label;
  std::optional<std::int64_t> bertscore_layer;  // default: bert_score's layer for the model's name
  bool bertscore_idf = false;
  std::string bertscore_baseline;  // bert_score's LAYER,P,R,F file; empty = no rescaling
  std::size_t bertscore_batch_size = 64;  // bert_score's default (padding in a batch floors cosines at 0)
  std::string vectors;  // fastText .vec or .bin; empty = no WMD / word-vector cosine
  bool unit_vectors = false;
  std::optional<std::string> wordnet;  // nullopt: the default folder if it holds WordNet, else no METEOR
  metrics::MeteorVersion meteor_version = metrics::MeteorVersion::Nltk38;
  std::size_t batch_size = 32;  // regressor batches
  int threads = 0;              // lexical metrics
};

class Models {
 public:
  // Loads every model and file the settings name; `backend` must outlive the models. Fails naming
  // the file when one cannot be read, when a regressor is not a one-output regression checkpoint,
  // or the masked LM has no MLM head.
  Models(ModelSettings settings, Backend& backend);
  ~Models();

  const ModelSettings& settings() const { return settings_; }
  TextEncoder* formality() { return formality_ ? formality_->encoder.get() : nullptr; }
  TextEncoder* sts() { return sts_ ? sts_->encoder.get() : nullptr; }
  TextEncoder* mlm() { return mlm_ ? mlm_->encoder.get() : nullptr; }
  TextEncoder* formality_classifier() { return classifier_ ? classifier_->encoder.get() : nullptr; }
  std::size_t formal_label() const { return formal_label_; }  // the classifier's label id meaning formal
  TextEncoder* bertscore() { return bertscore_ ? bertscore_->encoder.get() : nullptr; }
  std::int64_t bertscore_layer() const { return bertscore_layer_; }
  const std::optional<metrics::BertScoreBaseline>& bertscore_baseline() const { return baseline_; }
  // bert_score's hash of the BERTScore settings.
  std::string bertscore_hash() const;
  const metrics::WordVectors* vectors() const { return vectors_.get(); }
  const metrics::Meteor* meteor() const { return meteor_.get(); }
  // Why METEOR is not computed (WordNet not found at the default folder), or empty.
  const std::string& meteor_missing() const { return meteor_missing_; }

 private:
  struct Loaded {
    std::unique_ptr<ModelSource> source;
    std::unique_ptr<TextEncoder> encoder;
  };
  static std::unique_ptr<Loaded> load(const std::string& path, Backend& backend);

  ModelSettings settings_;
  std::unique_ptr<Loaded> formality_, sts_, mlm_, bertscore_, classifier_;
  std::size_t formal_label_ = 0;
  std::int64_t bertscore_layer_ = 0;
  std::optional<metrics::BertScoreBaseline> baseline_;
  std::unique_ptr<metrics::WordVectors> vectors_;
  std::unique_ptr<metrics::WordNet> wordnet_;
  std::unique_ptr<metrics::Meteor> meteor_;
  std::string meteor_missing_;
};

}  // namespace invar::style_transfer
