#pragma once
// Encoder-decoder transformers (Marian, BART, mBART, Pegasus, M2M100/NLLB, FSMT, T5) on a Backend:
// one implementation driven by models/seq2seq_spec.hpp. Works on token ids; engine/translator.hpp
// adds the tokenizer.
//
// Generation keeps, per decoder layer, a self-attention cache laid out [capacity, rows, d_model]
// (time-major: beams that change parents either read their positions where other rows hold them,
// through a table, or copy exactly the filled positions of the rows that move; kv_cache.hpp) and
// cross-attention keys/values computed once per source and shared by that source's beams. Sources
// and rows that finish leave the batch, so the per-step cost depends only on the live rows and,
// inside attention, on the length so far.
//
// The implementation is split by job under engine/seq2seq/: weights (loading both stacks and the
// LM head), layers (the sublayer operations both stacks share), encoder_pass, kv_cache (the
// decoder's state between steps), decode_step, shortlist (the LM head over a vocabulary shortlist),
// defaults (generation defaults), classification_head (a sequence classifier's); this file's .cpp
// is the facade that wires them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/decode/generation.hpp"
#include "engine/model_weights.hpp"
#include "backends/backend.hpp"
#include "loaders/model_source.hpp"
#include "models/generation_config.hpp"
#include "models/seq2seq_spec.hpp"

namespace invar {

using TokenIds = std::vector<std::int32_t>;

// Hugging Face generate()'s settings as the checkpoint sets them (models/generation_config:
// generation_config.json over config.json over PretrainedConfig 4.19's defaults and the family's),
// for the model's special tokens.
SearchSettings search_defaults(const GenerationConfig& generation, const ModelConfig& config, const Seq2SeqSpec& spec);
// config.json's alone (generation_config_of).
SearchSettings search_defaults(const ModelConfig& config, const Seq2SeqSpec& spec);

class Seq2SeqModel {
 public:
  // Reads config.json and the weights of `source` onto `backend`; both must outlive the model.
  // Fails naming the file for a model that is not a supported encoder-decoder.
  Seq2SeqModel(const ModelSource& source, Backend& backend);
  ~Seq2SeqModel();
  Seq2SeqModel(const Seq2SeqModel&) = delete;
  Seq2SeqModel& operator=(const Seq2SeqModel&) = delete;

  const Seq2SeqSpec& spec() const;
  const ModelConfig& config() const;  // config.json as read (labels of a classifier)
  // Backend memory the weights take (WeightStore::bytes).
  std::size_t weight_bytes() const;
  // How the model reads each stored tensor (ModelWeights::uses).
  const WeightUses& weight_uses() const;
  // generate()'s settings from generation_config.json and config.json (num_beams, max_length,
  // forced tokens, ...).
  const SearchSettings& default_settings() const;

  // Encoder last hidden states, [B, S, d_model] for the sources right-padded to the longest S
  // (values at padded positions are unspecified). Sources must be non-empty and within the positions.
  std::vector<float> encode(const std::vector<TokenIds>& sources);

  // Teacher-forced logits [B, T, target_vocab]: decoder_inputs (start token first) right-padded to
  // the longest T with the pad token; the causal mask keeps real positions exact.
  std::vector<float> decoder_logits(const std::vector<TokenIds>& sources, const std::vector<TokenIds>& decoder_inputs);

  // Search (engine/decode/generation.hpp) for every source at once; per source the hypotheses, best
  // first. A non-empty `shortlist` (target ids, engine/vocabulary_map.hpp) restricts the LM head to
  // those rows, plus the ids the search needs (start, EOS, pad, forced tokens, and the lowest ids
  // when beam search needs more candidates): the search normalises and chooses over them only.
  std::vector<std::vector<Hypothesis>> generate(const std::vector<TokenIds>& sources, const SearchSettings& settings,
                                                std::vector<std::int32_t> shortlist = {});

  // Forced decoding: for each (source, target) pair, Σ_t log p(target_t | start, target_<t, source)
  // over the target tokens (include EOS in `target` to score it), as log_softmax of the model's
  // logits. The first `given` target tokens (a forced language token) are read but not scored.
  std::vector<double> score(const std::vector<TokenIds>& sources, const std::vector<TokenIds>& targets,
                            std::size_t given = 0);

  // A sequence classifier's logits [num_labels] per input (ids with the tokenizer's special tokens,
  // e.g. a pair `<s> A </s></s> B </s>`): BartForSequenceClassification's forward, the decoder fed
  // the inputs shifted right and the head reading its state at each input's last EOS. Fails for a
  // model without the head (spec().sequence_classifier) or an input without EOS.
  std::vector<std::vector<float>> classify(const std::vector<TokenIds>& inputs);

  // Fails with a message naming the source (index) when ids are outside the vocabulary or the
  // source exceeds the model's positions. Called by every entry point above.
  void check_sources(const std::vector<TokenIds>& sources) const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace invar
