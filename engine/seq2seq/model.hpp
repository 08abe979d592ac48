#pragma once
// Seq2SeqModel's parts, for the files that implement it (engine/seq2seq/*.cpp): the weights, the
// shared layer operations, the decoder state (kv_cache), the LM head (shortlist), and the two passes
// (encoder_pass.cpp, decode_step.cpp), and the sequence classifier's head (classification_head.cpp).
// Not a public header.
#include <memory>
#include <vector>

#include "engine/model_weights.hpp"
#include "engine/seq2seq.hpp"
#include "engine/seq2seq/kv_cache.hpp"
#include "engine/seq2seq/layers.hpp"
#include "engine/seq2seq/shortlist.hpp"
#include "engine/seq2seq/weights.hpp"

namespace invar {

class Seq2SeqModel::Impl {
 public:
  Impl(const ModelSource& source, Backend& backend);

  const ModelConfig config;
  const Seq2SeqSpec spec;
  const GenerationConfig generation;
  Backend& backend;
  ModelWeights weights;
  const SearchSettings defaults;
  const seq2seq::Weights stacks;
  seq2seq::Layers layers;
  seq2seq::KvCache cache;
  seq2seq::LmHead head;

  // Fails naming the source (1-based) for no tokens, too many, or an id outside the vocabulary.
  void check_sources(const std::vector<TokenIds>& sources) const;
  // Runs the encoder over `sources` and fills the cross-attention keys/values (one group per
  // source); the last hidden states go to `hidden_out` when given.
  void encode(const std::vector<TokenIds>& sources, std::vector<float>* hidden_out);
  // Appends `n` tokens to every row of the cache (tokens [rows*n], row-major) and writes logits for
  // every new position ([rows*n, V]) or, with last_only, for each row's last position ([rows, V]).
  void decode(const TokenIds& tokens, std::int64_t n, bool last_only, std::vector<float>& logits);
  // A decoding step (one token per row) that returns each row's k largest logits and their
  // log-softmax terms (Backend::top_k_rows) instead of whole rows.
  void decode_top_k(const TokenIds& tokens, std::int64_t k, std::int32_t exclude, TopLogits& top);
  // The LM head's logits of `n` new tokens per row (all of them, or each row's last), in the step arena.
  Tensor logits(const TokenIds& tokens, std::int64_t n, bool last_only);
  // The decoder layers over `n` new tokens per row: their states [rows*n, d] (in the step arena,
  // before the final norm).
  Tensor run_decoder(const TokenIds& tokens, std::int64_t n);
  // The sequence classifier's logits per input (classification_head.cpp).
  std::vector<std::vector<float>> classify(const std::vector<TokenIds>& inputs);
  // New row i continues old row rows[i].
  void select_rows(std::span<const std::int32_t> rows) { cache.select_rows(rows, *step_arena_); }
  void expand_groups(std::int64_t expand) { cache.expand_groups(expand, *step_arena_); }

 private:
  std::unique_ptr<Arena> encoder_arena_;
  std::unique_ptr<Arena> step_arena_;  // the decode step's; free between steps
};

}  // namespace invar
