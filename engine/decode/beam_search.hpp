#pragma once
// Hugging Face transformers 4.19's BeamSearchScorer and BeamHypotheses (generation_beam_search.py),
// one source sentence at a time. Scores are kept in double, as Python floats are; the choices on
// ties follow Python's sorts, so the hypotheses kept and their order are the same as HF's.
#include <cstdint>
#include <span>
#include <vector>

#include "engine/decode/logits_processors.hpp"

namespace invar {

// The n best finished hypotheses of one source.
class BeamHypotheses {
 public:
  struct Entry {
    double score = 0.0;  // sum_logprobs / length**length_penalty
    std::vector<std::int32_t> ids;
  };

  BeamHypotheses(int num_beams, double length_penalty, bool early_stopping);

  // `prefix` holds the tokens before EOS (start token included; its size is HF's hyp length);
  // `eos` is appended to the stored ids when given. Keeps the entry if fewer than num_beams are held
  // or it beats the worst; the worst (first of equals) is then dropped.
  void add(std::span<const std::int32_t> prefix, double sum_logprobs, const std::int32_t* eos);
  // HF's is_done: num_beams held and (early_stopping, or no live beam can beat the worst kept).
  bool is_done(double best_sum_logprobs, int cur_len) const;
  std::size_t size() const { return entries_.size(); }
  // The n best, best first; among equal scores the later added first (HF's sorted() + pop()).
  std::vector<Entry> best(std::size_t n) const;

 private:
  double length_normalized(double sum_logprobs, std::size_t length) const;

  int num_beams_;
  double length_penalty_;
  bool early_stopping_;
  std::vector<Entry> entries_;
  double worst_score_ = 1e9;
};

// One candidate continuation: the top 2*num_beams (token, beam) pairs of a source, best first.
struct BeamCandidate {
  float score = 0.0f;  // beam score so far + processed log-prob of the token (float32, as HF)
  std::int32_t token = 0;
  std::int32_t beam = 0;  // index of the beam within its source
};

// BeamSearchScorer.process for one source: EOS candidates ranked within the first num_beams become
// hypotheses, the first num_beams other candidates become the next beams. `beams` are the current
// prefixes of this source's beams, `cur_len` their length. Returns the next beams; sets `done`.
std::vector<BeamCandidate> advance_beams(BeamHypotheses& hypotheses, std::span<const BeamCandidate> candidates,
                                         const std::vector<std::vector<std::int32_t>>& beams, int cur_len,
                                         const std::int32_t* eos_token_id, int num_beams, bool& done);

// The top 2*num_beams (token, beam) pairs of one source, best first; among equal scores the lower
// flat index (beam * vocab + token) first. `rows` holds the source's num_beams = terms.size() rows of
// `vocab` raw logits, terms[beam] their log-softmax (LogSoftmaxTerms{} for a row already
// normalised); a token's score is terms[beam](logit) + beam_scores[beam], computed in the one pass
// over each row that keeps the short sorted list.
void top_candidates(std::span<const float> rows, std::int64_t vocab, std::span<const LogSoftmaxTerms> terms,
                    std::span<const float> beam_scores, std::vector<BeamCandidate>& best);

// top_candidates from each row's k largest raw logits instead of the whole row (StepModel::step_top_k):
// `first_row` is the source's first row in `top`, tokens in banned[beam] are skipped (the ban
// processors' -inf). Equal to top_candidates over the banned rows whenever each row keeps
// 2*num_beams finite logits outside its bans and k covers them and the bans.
void top_candidates(const TopLogits& top, std::size_t first_row, std::int64_t vocab,
                    std::span<const LogSoftmaxTerms> terms, std::span<const std::vector<std::int32_t>> banned,
                    std::span<const float> beam_scores, std::vector<BeamCandidate>& best);

}  // namespace invar
