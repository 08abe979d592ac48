#pragma once
// Text in, encoder outputs out: the model's tokenizer around EncoderModel, with truncation to the
// model's limit and length-sorted batches whose results come back in input order. What
// sentence-transformers' encode() and a Hugging Face tokenizer → model → logits loop do, for the
// commands and evaluations that start from text (embed, classify, LIP's SE classifier, isometry's
// paraphrase detectors).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/decode/batching.hpp"
#include "engine/encoder.hpp"
#include "engine/text/tokenizer.hpp"
#include "backends/backend.hpp"
#include "loaders/model_source.hpp"

namespace invar {

// One input: a text, or a pair of texts (`second` used only when encoding pairs).
struct TextInput {
  std::string first, second;
};

// How sentence embeddings are pooled: sentence-transformers' modules.json unless overridden.
struct EmbeddingSettings {
  std::vector<Pooling> modes;  // each mode's vector concatenated in this order
  bool normalize = false;
  std::int64_t layer = 0;      // hidden states after this many layers (the model's last by default)
};

struct BatchOptions {
  std::size_t batch_size = 32;
  std::function<void(std::size_t)> progress;  // called after each batch with the inputs it held
  std::size_t max_tokens = 0;  // > 0: at most this many padded tokens per batch (engine/decode/batching.hpp)
};

class TextEncoder {
 public:
  // Opens the tokenizer and the model of `source` on `backend`; both must outlive the encoder.
  // Inputs are truncated to the model's positions.
  TextEncoder(const ModelSource& source, Backend& backend);

  EncoderModel& model() { return model_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const ModelSource& source() const { return source_; }

  // Truncates inputs to at most `tokens` tokens (special tokens included) from now on.
  void cap_length(std::size_t tokens);
  // For sentence embeddings: a sentence-transformers folder's sentence_bert_config.json
  // max_seq_length (else its tokenizer's model_max_length) caps inputs too, as
  // sentence-transformers' encode() truncates.
  void cap_length_for_embeddings() { cap_length(embedding_length()); }
  std::size_t max_length() const { return limit_; }
  // max_length() capped by sentence_bert_config.json's max_seq_length (without one, by the
  // tokenizer's model_max_length) in a sentence-transformers folder, without capping other uses.
  std::size_t embedding_length() const;

  // Tokenizes every input (pairs when `pairs`), truncating longest_first to `limit` tokens (0 =
  // max_length()). `truncated` counts the inputs that were cut.
  std::vector<Encoding> encode(std::span<const TextInput> inputs, bool pairs, std::size_t& truncated,
                               std::size_t limit = 0) const;

  // modules.json's pooling and Normalize over the last layer (mean pooling for a plain model).
  EmbeddingSettings default_embedding_settings() const;
  // One width per embedding: hidden size × pooling modes.
  std::size_t embedding_width(const EmbeddingSettings& settings) const;

  // Runs `batch_fn` over length-sorted batches of `inputs`; results land at their inputs' positions.
  template <typename Result>
  std::vector<Result> batched(const std::vector<Encoding>& inputs, const BatchOptions& options,
                              const std::function<std::vector<Result>(std::span<const Encoding>)>& batch_fn);

  // Sentence embeddings of already encoded inputs, in input order.
  PerInput embed(const std::vector<Encoding>& inputs, const EmbeddingSettings& settings, const BatchOptions& options);
  // The classification head's logits, in input order (fails when the model has no such head).
  PerInput logits(const std::vector<Encoding>& inputs, const BatchOptions& options);

  // Pseudo-log-likelihood of every non-special token of a single-sequence `input` of any length:
  // one pass when it fits max_length(), else overlapping windows (engine/pll_windows.hpp).
  struct PseudoLikelihood {
    std::vector<double> per_token;
    std::size_t windows = 1;
  };
  PseudoLikelihood pll(const Encoding& input, std::int32_t mask_id);

 private:
  const ModelSource& source_;
  std::unique_ptr<Tokenizer> tokenizer_;
  EncoderModel model_;
  std::size_t limit_ = 0;
};

template <typename Result>
std::vector<Result> TextEncoder::batched(const std::vector<Encoding>& inputs, const BatchOptions& options,
                                         const std::function<std::vector<Result>(std::span<const Encoding>)>& batch_fn) {
  std::vector<std::size_t> lengths;
  for (const auto& e : inputs) lengths.push_back(e.ids.size());
  std::vector<Result> results(inputs.size());
  std::vector<Encoding> batch;
  for (const auto& indices : length_sorted_batches(lengths, options.batch_size, options.max_tokens)) {
    batch.clear();
    for (std::size_t i : indices) batch.push_back(inputs[i]);
    auto out = batch_fn(batch);
    for (std::size_t k = 0; k < indices.size(); ++k) results[indices[k]] = std::move(out[k]);
    if (options.progress) options.progress(indices.size());
  }
  return results;
}

}  // namespace invar
