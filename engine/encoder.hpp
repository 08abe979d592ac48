#pragma once
// Encoder-only transformers (BERT, RoBERTa, XLM-R, MPNet, DistilBERT, ELECTRA, ALBERT, DeBERTa-v2)
// on a Backend: one implementation driven by models/encoder_spec.hpp, with the heads Hugging Face
// and sentence-transformers put on top (pooling, BERT's pooler, sequence classification and
// regression, the masked-LM head for pseudo-log-likelihood). Works on tokenizer encodings; every
// call runs its inputs as one batch, right-padded to the longest, in one per-model arena (no
// allocation inside the layer loop).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/text/tokenizer.hpp"
#include "engine/model_weights.hpp"
#include "backends/backend.hpp"
#include "loaders/model_source.hpp"
#include "models/encoder_spec.hpp"

namespace invar {

// One row-major float matrix per input (e.g. [tokens, hidden]) or one vector per input.
using PerInput = std::vector<std::vector<float>>;

class EncoderModel {
 public:
  // Reads config.json and the weights of `source` onto `backend`; both must outlive the model.
  EncoderModel(const ModelSource& source, Backend& backend);
  ~EncoderModel();
  EncoderModel(const EncoderModel&) = delete;
  EncoderModel& operator=(const EncoderModel&) = delete;

  const EncoderSpec& spec() const;
  // Backend memory the weights take (WeightStore::bytes).
  std::size_t weight_bytes() const;
  // How the model reads each stored tensor (ModelWeights::uses).
  const WeightUses& weight_uses() const;
  bool has_pooler() const;
  bool has_classifier() const;
  bool has_mlm() const;
  // Fail naming the model folder when the head is missing (logits() and pll() call them too).
  void require_classifier() const;
  void require_mlm() const;

  // Hidden states [tokens, hidden] of each input after `layer` layers: 0 is the embeddings'
  // output, spec().layers the last hidden state (Hugging Face's hidden_states[layer]).
  PerInput hidden_states(std::span<const Encoding> inputs, std::int64_t layer);
  // Every layer at once: result[layer][input], layer 0..spec().layers.
  std::vector<PerInput> all_hidden_states(std::span<const Encoding> inputs);

  // sentence-transformers' Pooling over `layer`'s hidden states (each mode's vector concatenated
  // in the order given), then its Normalize when `normalize`.
  PerInput embed(std::span<const Encoding> inputs, std::span<const Pooling> modes, bool normalize, std::int64_t layer);
  // BERT's pooler: tanh(dense([CLS])). Fails when the checkpoint has none.
  PerInput pooler_output(std::span<const Encoding> inputs);
  // The sequence-classification head's logits (num_labels each). Fails when the checkpoint has none.
  PerInput logits(std::span<const Encoding> inputs);

  // Pseudo-log-likelihood (Salazar et al. 2020): for each position that is not a special token,
  // log p(true token | the input with that position replaced by mask_id), from the masked-LM head.
  // All masked copies of the input run as one batch, split into passes only when their
  // activations would exceed `budget_bytes` (long inputs: 510 copies of 512 tokens would need
  // gigabytes of activations). Fails when the checkpoint has no MLM head.
  static constexpr std::int64_t kPllBudget = std::int64_t{256} << 20;
  std::vector<double> pll(const Encoding& input, std::int32_t mask_id, std::int64_t budget_bytes = kPllBudget);
  // The same for the given positions only, in their order (long inputs score each token in the
  // window that gives it the most context: TextEncoder::pll).
  std::vector<double> pll_at(const Encoding& input, std::span<const std::size_t> positions, std::int32_t mask_id,
                             std::int64_t budget_bytes = kPllBudget);

  // Fails naming the input (1-based index) when it is empty, longer than the model's positions,
  // or has an id outside the vocabulary or token types.
  void check_inputs(std::span<const Encoding> inputs) const;
  // The same checks on one input of any length (pll scores a long one in windows).
  void check_tokens(const Encoding& input) const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Hugging Face's labels for classification outputs: softmax (single-label) or sigmoid
// (multi-label) of the logits.
std::vector<float> label_probabilities(const std::vector<float>& logits, bool multi_label);
// The label with the largest logit; none when a logit is NaN or infinite (no label is chosen from
// them: any would be arbitrary).
std::optional<std::size_t> best_label(const std::vector<float>& logits);

}  // namespace invar
