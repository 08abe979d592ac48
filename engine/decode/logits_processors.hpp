#pragma once
// Hugging Face transformers 4.19's logits processors and sampling warpers
// (generation_logits_process.py), applied to one row of scores. Each bans tokens by setting their
// score to -inf, exactly where HF does.
#include <cstdint>
#include <span>
#include <vector>

#include "engine/decode/generation.hpp"

namespace invar {

// HF's _get_logits_processor order: repetition penalty, no-repeat n-gram, encoder no-repeat n-gram,
// bad words, min length, forced BOS, forced EOS.
// `prefix` is the row's sequence so far (start token included); its size is HF's cur_len.
// `encoder_input` is the token ids of the row's source (for encoder_no_repeat_ngram_size).
void apply_logits_processors(std::span<float> scores, std::span<const std::int32_t> prefix,
                             const SearchSettings& settings, std::span<const std::int32_t> encoder_input = {});

// HF's _get_logits_warper order for sampling: temperature, top-k, top-p (min_tokens_to_keep 1).
void apply_sampling_warpers(std::span<float> scores, const SearchSettings& settings);

// True when, for a row whose prefix has `cur_len` tokens, apply_logits_processors only bans tokens
// (sets them to -inf). Bans commute with log-softmax's shift, so they can then be applied to the
// raw logits after log_softmax_terms() has read them, and the row need not be normalised in place.
bool processors_only_ban(std::size_t cur_len, const SearchSettings& settings);

// The tokens apply_logits_processors sets to -inf after `prefix` where processors_only_ban() (one
// entry per ban: a token may repeat), for a search that reads candidates instead of whole rows.
void banned_tokens(std::span<const std::int32_t> prefix, const SearchSettings& settings,
                   std::span<const std::int32_t> encoder_input, std::vector<std::int32_t>& banned);

// Log-softmax of one row as two numbers: x becomes (x - max) - log_sum, in float32 as torch
// computes it. A row whose max is not finite (all -inf) is left as it is: max = log_sum = 0.
struct LogSoftmaxTerms {
  float max = 0.0f, log_sum = 0.0f;
  float operator()(float x) const { return (x - max) - log_sum; }
};
// One vectorised pass for the max, one for Σ exp(x - max) (float exponentials, summed in double).
LogSoftmaxTerms log_softmax_terms(std::span<const float> scores);

// In-place log-softmax: every x becomes log_softmax_terms(scores)(x).
void log_softmax(std::span<float> scores);

}  // namespace invar
