#pragma once
// Vocabulary shortlisting (engine/vocabulary_map.hpp): the LM head restricted to a sorted set of
// target ids, and the search run over positions in that set instead of the whole vocabulary.
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/decode/generation.hpp"
#include "engine/model_weights.hpp"
#include "engine/seq2seq/layers.hpp"
#include "backends/backend.hpp"

namespace invar::seq2seq {

// The LM head the decode step multiplies with: the whole one, or its rows of a shortlist.
class LmHead {
 public:
  // `weights` and `backend` must outlive the head; `matrix` [vocab, d] and `bias` [vocab] (or empty)
  // are the model's.
  LmHead(ModelWeights& weights, Backend& backend, Tensor matrix, Tensor bias);

  // The rows `rows` (sorted target ids) from now on; empty = the whole vocabulary.
  void restrict(const std::vector<std::int32_t>& rows);
  const Tensor& weight() const { return head_; }
  const Tensor& bias() const { return head_bias_; }

 private:
  ModelWeights& weights_;
  Backend& backend_;
  Tensor matrix_, bias_;
  Tensor head_, head_bias_;  // matrix_ and bias_, or their rows of a shortlist
  // The LM head as a table to gather a shortlist's rows from: matrix_ itself may be stored for
  // `linear` alone (packed, int8). Fetched at the first shortlist, so runs without one pay nothing.
  Tensor table_;
  std::unique_ptr<Arena> arena_;
};

// generate() (engine/decode/generation.hpp) with the target vocabulary restricted to `shortlist`
// plus the ids the search needs (start, EOS, pad, forced tokens, and the lowest ids when beam
// search needs more candidates): restricts `head` to those rows and maps the search's settings,
// the sources (for encoder_no_repeat_ngram_size) and the hypotheses between ids and positions.
std::vector<std::vector<Hypothesis>> generate_shortlisted(StepModel& steps, LmHead& head, int batch,
                                                          const SearchSettings& settings,
                                                          const std::vector<TokenIds>& sources,
                                                          std::vector<std::int32_t> shortlist, std::int64_t vocab);

}  // namespace invar::seq2seq
