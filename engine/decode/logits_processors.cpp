#include "engine/decode/logits_processors.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "core/exp_sum.hpp"

namespace invar {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

void ban(std::span<float> scores, std::int32_t token) {
  if (token >= 0 && static_cast<std::size_t>(token) < scores.size()) scores[static_cast<std::size_t>(token)] = kNegInf;
}

// RepetitionPenaltyLogitsProcessor: each distinct token of the prefix once (at its first
// occurrence: no allocation per decoding step), in float32 as torch computes score * penalty and
// score / penalty.
void penalize_repetitions(std::span<float> scores, std::span<const std::int32_t> prefix, double penalty) {
  const float p = static_cast<float>(penalty);
  for (auto at = prefix.begin(); at != prefix.end(); ++at) {
    const std::int32_t token = *at;
    if (std::find(prefix.begin(), at, token) != at) continue;
    if (token < 0 || static_cast<std::size_t>(token) >= scores.size()) continue;
    float& score = scores[static_cast<std::size_t>(token)];
    score = score < 0 ? score * p : score / p;
  }
}

// Each token that would complete an n-gram of `seen` after the prefix's last n-1 tokens: seen = the
// prefix itself (NoRepeatNGramLogitsProcessor) or the source (EncoderNoRepeatNGramLogitsProcessor).
template <class Ban>
void ngram_completions(std::span<const std::int32_t> prefix, std::span<const std::int32_t> seen, int n,
                       const Ban& ban) {
  const std::size_t size = static_cast<std::size_t>(n);
  if (prefix.size() + 1 < size) return;
  const auto tail = prefix.subspan(prefix.size() + 1 - size);  // the last n-1 tokens
  for (std::size_t start = 0; start + size <= seen.size(); ++start) {
    if (std::equal(tail.begin(), tail.end(), seen.begin() + static_cast<std::ptrdiff_t>(start)))
      ban(seen[start + size - 1]);
  }
}

// NoBadWordsLogitsProcessor: the last token of a banned sequence whose other tokens end the prefix.
template <class Ban>
void bad_word_completions(std::span<const std::int32_t> prefix, const SearchSettings& settings, const Ban& ban) {
  for (const auto& words : settings.bad_words_ids) {
    if (words.empty()) continue;
    if (settings.eos_token_id && words.size() == 1 && words[0] == *settings.eos_token_id) continue;
    const std::size_t context = words.size() - 1;
    if (context > prefix.size()) continue;
    if (std::equal(words.begin(), words.end() - 1, prefix.end() - static_cast<std::ptrdiff_t>(context)))
      ban(words.back());
  }
}

// ban(token) for every token that the banning processors (no-repeat n-gram, encoder no-repeat
// n-gram, bad words, min length) set to -inf after `prefix`, in HF's order.
template <class Ban>
void for_each_ban(std::span<const std::int32_t> prefix, const SearchSettings& settings,
                  std::span<const std::int32_t> encoder_input, const Ban& ban) {
  if (settings.no_repeat_ngram_size > 0) ngram_completions(prefix, prefix, settings.no_repeat_ngram_size, ban);
  if (settings.encoder_no_repeat_ngram_size > 0)
    ngram_completions(prefix, encoder_input, settings.encoder_no_repeat_ngram_size, ban);
  if (!settings.bad_words_ids.empty()) bad_word_completions(prefix, settings, ban);
  if (settings.eos_token_id && settings.min_length > 0 && static_cast<int>(prefix.size()) < settings.min_length)
    ban(*settings.eos_token_id);
}

// ForcedBOSTokenLogitsProcessor / ForcedEOSTokenLogitsProcessor: every other token -inf, the forced 0.
void force(std::span<float> scores, std::int32_t token) {
  std::fill(scores.begin(), scores.end(), kNegInf);
  if (token >= 0 && static_cast<std::size_t>(token) < scores.size()) scores[static_cast<std::size_t>(token)] = 0.0f;
}

}  // namespace

void apply_logits_processors(std::span<float> scores, std::span<const std::int32_t> prefix,
                             const SearchSettings& settings, std::span<const std::int32_t> encoder_input) {
  const int cur_len = static_cast<int>(prefix.size());
  if (settings.repetition_penalty != 1.0) penalize_repetitions(scores, prefix, settings.repetition_penalty);
  for_each_ban(prefix, settings, encoder_input, [scores](std::int32_t token) { ban(scores, token); });
  if (settings.forced_bos_token_id && cur_len == 1) force(scores, *settings.forced_bos_token_id);
  if (settings.forced_eos_token_id && cur_len == settings.max_length - 1) force(scores, *settings.forced_eos_token_id);
}

void apply_sampling_warpers(std::span<float> scores, const SearchSettings& settings) {
  if (settings.temperature != 1.0) {
    const float temperature = static_cast<float>(settings.temperature);
    for (float& score : scores) score /= temperature;
  }
  if (settings.top_k > 0) {
    // TopKLogitsWarper: below the k-th largest score (ties with it stay).
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(settings.top_k), scores.size());
    std::vector<float> sorted(scores.begin(), scores.end());
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k - 1), sorted.end(),
                     std::greater<float>());
    const float threshold = sorted[k - 1];
    for (float& score : scores)
      if (score < threshold) score = kNegInf;
  }
  if (settings.top_p < 1.0) {
    // TopPLogitsWarper (4.19): sort descending, drop tokens once the cumulative probability of the
    // tokens before them exceeds top_p; the most likely token always stays.
    std::vector<std::size_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    std::vector<float> sorted(scores.size());
    for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = scores[order[i]];
    log_softmax(sorted);
    const float top_p = static_cast<float>(settings.top_p);
    double cumulative = 0.0;
    bool remove_next = false;
    for (std::size_t i = 0; i < order.size(); ++i) {
      cumulative += static_cast<double>(std::exp(sorted[i]));
      if (remove_next) scores[order[i]] = kNegInf;
      remove_next = static_cast<float>(cumulative) > top_p;
    }
  }
}

void banned_tokens(std::span<const std::int32_t> prefix, const SearchSettings& settings,
                   std::span<const std::int32_t> encoder_input, std::vector<std::int32_t>& banned) {
  banned.clear();
  for_each_ban(prefix, settings, encoder_input, [&banned](std::int32_t token) { banned.push_back(token); });
}

bool processors_only_ban(std::size_t cur_len, const SearchSettings& settings) {
  const int length = static_cast<int>(cur_len);
  return settings.repetition_penalty == 1.0 && !(settings.forced_bos_token_id && length == 1) &&
         !(settings.forced_eos_token_id && length == settings.max_length - 1);
}

LogSoftmaxTerms log_softmax_terms(std::span<const float> scores) {
  if (scores.empty()) return {};
  using Floats = Eigen::Map<const Eigen::ArrayXf>;
  const Floats row(scores.data(), static_cast<Eigen::Index>(scores.size()));
  // The max of the numbers: a NaN then spreads to every score through the sum.
  const float max = row.maxCoeff<Eigen::PropagateNumbers>();
  if (!std::isfinite(max)) return {};
  const double sum = exp_sum(scores.data(), static_cast<std::int64_t>(scores.size()), max);
  return {max, static_cast<float>(std::log(sum))};
}

void log_softmax(std::span<float> scores) {
  const LogSoftmaxTerms terms = log_softmax_terms(scores);
  for (float& score : scores) score = terms(score);
}

}  // namespace invar
