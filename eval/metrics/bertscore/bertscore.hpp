#pragma once
// BERTScore (Zhang et al. 2020, "BERTScore: Evaluating Text Generation with BERT") exactly as
// bert_score v0.3.13's score() computes it: contextual token embeddings of one layer, greedy cosine
// matching, optional idf weights from the references, the maximum over several references and
// rescaling with a baseline file. bert_score's quirks are kept on purpose, because published
// numbers carry them: [CLS]/[SEP] take part in the matching but weigh 0, a pair padded in its
// batch lets a token's best cosine fall no lower than 0, P, R and F are maxed over references
// independently, and an empty sentence scores P = R = F = 0.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/text_encoder.hpp"

namespace invar::metrics {

// Precision, recall and F1, float32 as bert_score returns them (NaN where bert_score gives NaN:
// every token of a side weighing 0 under idf).
struct BertScore {
  float precision = 0, recall = 0, f1 = 0;
};

// The weight of each token id (bert_score's idf_dict).
class BertScoreWeights {
 public:
  // idf=False: 1 for every id except [CLS] and [SEP] (<s>, </s>), which weigh 0.
  static BertScoreWeights uniform(std::int32_t cls_id, std::int32_t sep_id);
  // idf=True: ln((M + 1) / (df + 1)) over the M references' id sets, ln(M + 1) for unseen ids.
  // Special tokens are not treated apart: they occur in every reference, so they get ln(1) = 0.
  static BertScoreWeights idf(const std::vector<std::vector<std::int32_t>>& reference_ids);

  double operator()(std::int32_t id) const;
  std::size_t documents() const { return documents_; }
  const std::unordered_map<std::int32_t, double>& table() const { return table_; }
  double default_weight() const { return default_; }

 private:
  std::unordered_map<std::int32_t, double> table_;
  double default_ = 1.0;
  std::size_t documents_ = 0;
};

// One row of a rescale baseline file (bert_score's LAYER,P,R,F csv).
struct BertScoreBaseline {
  std::int64_t layer = 0;
  float precision = 0, recall = 0, f1 = 0;
};

// The row of `layer`; fails naming the file when it has none or a value is not a number.
// (bert_score takes row number `layer`, which is the same row in its files, whose layers count
// up from 0.)
BertScoreBaseline read_bertscore_baseline(const std::string& path, std::int64_t layer);

// (x − b) / (1 − b) for P, R and F, in float32 as bert_score does.
BertScore rescale(const BertScore& score, const BertScoreBaseline& baseline);

// P, R and F averaged over `scores` (summed in double): bert_score's CLI summary.
BertScore mean_score(const std::vector<BertScore>& scores);

// bert_score's model2layers: the default layer of a known Hugging Face model id
// ("roberta-large" → 17), or nothing.
std::optional<std::int64_t> bertscore_default_layer(std::string_view model_id);
// The name bert_score's hash and model2layers know a model at `path` by: the folder (or .invar
// file) name.
std::string bertscore_model_name(const std::string& path);
// `layer` when given, else the default layer of the model's name or of config.json's
// _name_or_path; fails naming the model when neither is in the table.
std::int64_t bertscore_layer(const std::string& path, const ModelSource& source, std::optional<std::int64_t> layer);

// bert_score's get_hash for `model` (a name: bert_score prints what it was given). The version
// fields name the bert_score and transformers releases whose behaviour invar reproduces, so the
// hash compares equal with bert_score's own.
std::string bertscore_hash(std::string_view model, std::int64_t layer, bool idf, bool rescaled);

// A sentence's unit-length token embeddings ([tokens, width], row-major) and token weights
// (float32, as bert_score pads its idf lists into a float tensor).
struct TokenEmbeddings {
  std::vector<float> vectors;
  std::vector<float> weights;
  std::size_t tokens = 0;
};

// bert_score's greedy_cos_idf for one pair: the float32 cosine matrix (torch.bmm there), the best
// cosine of every token on the other side, weighted means, F = 2PR/(P+R). bert_score pads a batch
// of pairs to its longest sentences and zeroes the padded cosines before the maximum: where the
// reference (hypothesis) was padded, `floor_precision` (`floor_recall`) keeps every best cosine of
// the other side at 0 or above. A side of exactly two tokens (the special tokens alone: an empty
// text) gives P = R = 0; a NaN F (weights summing to 0) becomes 0.
BertScore greedy_match(const TokenEmbeddings& hyp, const TokenEmbeddings& ref, std::size_t width,
                       bool floor_precision, bool floor_recall);

struct BertScoreOptions {
  std::int64_t layer = 0;        // hidden states after this many layers (0 = embeddings)
  bool idf = false;
  std::size_t batch_size = 64;   // sentences per model batch and pairs per matching batch
  std::size_t max_length = 0;    // 0 = the tokenizer's model_max_length and the model's positions
  std::function<void(std::size_t)> progress;  // sentences embedded so far, per batch
};

class BertScorer {
 public:
  // `encoder` must outlive the scorer. Fails when the layer does not exist.
  BertScorer(TextEncoder& encoder, BertScoreOptions options);

  // bert_score's sent_encode: the stripped text with special tokens, truncated to the length
  // limit; an empty text gives the special tokens alone.
  Encoding encode(std::string_view text) const;
  std::size_t max_length() const { return limit_; }

  // One score per hypothesis against its references (each hypothesis needs at least one). With
  // idf, the weights come from these references, or from those of weigh_by() once it is called.
  std::vector<BertScore> score(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs);
  // With idf: the weights of every later score() come from these references, so that scoring the
  // segments in parts gives each segment the score of one whole call.
  void weigh_by(const std::vector<std::vector<std::string>>& refs);

  // The weights of the last score() call.
  const BertScoreWeights& weights() const { return weights_; }
  // Whether the last score() call cut `text`, one of its texts, to max_length().
  bool truncated(std::string_view text) const { return truncated_.contains(text); }

 private:
  // Unit-length hidden states of `layer` and the current weights, per encoding.
  std::vector<TokenEmbeddings> embed(const std::vector<Encoding>& encodings);

  TextEncoder& encoder_;
  BertScoreOptions options_;
  std::size_t limit_ = 0;
  BertScoreWeights weights_;
  bool weights_fixed_ = false;  // by weigh_by()
  std::set<std::string, std::less<>> truncated_;
};

}  // namespace invar::metrics
