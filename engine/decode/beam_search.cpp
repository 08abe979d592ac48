#include "engine/decode/beam_search.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace invar {

BeamHypotheses::BeamHypotheses(int num_beams, double length_penalty, bool early_stopping)
    : num_beams_(num_beams), length_penalty_(length_penalty), early_stopping_(early_stopping) {}

double BeamHypotheses::length_normalized(double sum_logprobs, std::size_t length) const {
  return sum_logprobs / std::pow(static_cast<double>(length), length_penalty_);
}

void BeamHypotheses::add(std::span<const std::int32_t> prefix, double sum_logprobs, const std::int32_t* eos) {
  const double score = length_normalized(sum_logprobs, prefix.size());
  if (static_cast<int>(entries_.size()) >= num_beams_ && !(score > worst_score_)) return;
  Entry entry{score, std::vector<std::int32_t>(prefix.begin(), prefix.end())};
  if (eos) entry.ids.push_back(*eos);
  entries_.push_back(std::move(entry));
  if (static_cast<int>(entries_.size()) > num_beams_) {
    // HF sorts (score, index) pairs: the lowest score goes, the first of equal ones.
    std::vector<std::size_t> order(entries_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return entries_[a].score != entries_[b].score ? entries_[a].score < entries_[b].score : a < b;
    });
    worst_score_ = entries_[order[1]].score;
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(order[0]));
  } else {
    worst_score_ = std::min(score, worst_score_);
  }
}

bool BeamHypotheses::is_done(double best_sum_logprobs, int cur_len) const {
  if (static_cast<int>(entries_.size()) < num_beams_) return false;
  if (early_stopping_) return true;
  return worst_score_ >= length_normalized(best_sum_logprobs, static_cast<std::size_t>(cur_len));
}

std::vector<BeamHypotheses::Entry> BeamHypotheses::best(std::size_t n) const {
  std::vector<Entry> sorted = entries_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) { return a.score < b.score; });
  std::vector<Entry> result;
  for (std::size_t i = 0; i < n && !sorted.empty(); ++i) {
    result.push_back(std::move(sorted.back()));
    sorted.pop_back();
  }
  return result;
}

std::vector<BeamCandidate> advance_beams(BeamHypotheses& hypotheses, std::span<const BeamCandidate> candidates,
                                         const std::vector<std::vector<std::int32_t>>& beams, int cur_len,
                                         const std::int32_t* eos_token_id, int num_beams, bool& done) {
  std::vector<BeamCandidate> next;
  next.reserve(static_cast<std::size_t>(num_beams));
  for (std::size_t rank = 0; rank < candidates.size(); ++rank) {
    const BeamCandidate& candidate = candidates[rank];
    if (eos_token_id && candidate.token == *eos_token_id) {
      // An EOS outside the top num_beams would displace a live beam: HF ignores it.
      if (static_cast<int>(rank) >= num_beams) continue;
      hypotheses.add(beams[static_cast<std::size_t>(candidate.beam)], candidate.score, eos_token_id);
    } else {
      next.push_back(candidate);
    }
    if (static_cast<int>(next.size()) == num_beams) break;
  }
  done = hypotheses.is_done(candidates.front().score, cur_len);
  return next;
}

void top_candidates(std::span<const float> rows, std::int64_t vocab, std::span<const LogSoftmaxTerms> terms,
                    std::span<const float> beam_scores, std::vector<BeamCandidate>& best) {
  // Chunks of a few cache lines: a chunk is skipped after one vectorised max over it.
  constexpr std::size_t kChunk = 256;
  const std::size_t row_size = static_cast<std::size_t>(vocab), wanted = 2 * terms.size();
  best.clear();
  best.reserve(wanted + 1);
  for (std::size_t beam = 0; beam < terms.size(); ++beam) {
    const std::span<const float> row = rows.subspan(beam * row_size, row_size);
    const float beam_score = beam_scores[beam];
    const LogSoftmaxTerms shift = terms[beam];
    for (std::size_t first = 0; first < row.size(); first += kChunk) {
      const std::size_t last = std::min(row.size(), first + kChunk);
      if (best.size() == wanted) {
        // Each float operation of a score rounds monotonically in the logit: when the chunk's
        // largest logit does not beat the last kept candidate, no entry of the chunk does. A NaN
        // max compares false, and the chunk is read entry by entry.
        const float top = Eigen::Map<const Eigen::ArrayXf>(row.data() + first, static_cast<Eigen::Index>(last - first))
                              .maxCoeff<Eigen::PropagateNaN>();
        if (shift(top) + beam_score <= best.back().score) continue;
      }
      for (std::size_t token = first; token < last; ++token) {
        const float score = shift(row[token]) + beam_score;
        // Visited in flat-index order, so a later equal score ranks after the earlier one.
        if (best.size() == wanted && !(score > best.back().score)) continue;
        auto at = std::upper_bound(best.begin(), best.end(), score,
                                   [](float value, const BeamCandidate& c) { return value > c.score; });
        best.insert(at, {score, static_cast<std::int32_t>(token), static_cast<std::int32_t>(beam)});
        if (best.size() > wanted) best.pop_back();
      }
    }
  }
}

void top_candidates(const TopLogits& top, std::size_t first_row, std::int64_t vocab,
                    std::span<const LogSoftmaxTerms> terms, std::span<const std::vector<std::int32_t>> banned,
                    std::span<const float> beam_scores, std::vector<BeamCandidate>& best) {
  const std::size_t wanted = 2 * terms.size(), k = static_cast<std::size_t>(top.k);
  struct Ranked {
    BeamCandidate candidate;
    std::int64_t flat;
  };
  std::vector<Ranked> ranked;
  for (std::size_t beam = 0; beam < terms.size(); ++beam) {
    const std::size_t row = (first_row + beam) * k;
    std::size_t kept = 0;
    for (std::size_t j = 0; j < k && kept < wanted; ++j) {
      const std::int32_t token = top.ids[row + j];
      if (std::ranges::find(banned[beam], token) != banned[beam].end()) continue;
      ++kept;
      // The score as top_candidates computes it, from the same float operations.
      const float score = terms[beam](top.values[row + j]) + beam_scores[beam];
      ranked.push_back({{score, token, static_cast<std::int32_t>(beam)},
                        static_cast<std::int64_t>(beam) * vocab + token});
    }
  }
  std::ranges::sort(ranked, [](const Ranked& a, const Ranked& b) {
    return a.candidate.score != b.candidate.score ? a.candidate.score > b.candidate.score : a.flat < b.flat;
  });
  best.clear();
  for (std::size_t i = 0; i < ranked.size() && i < wanted; ++i) best.push_back(ranked[i].candidate);
}

}  // namespace invar
