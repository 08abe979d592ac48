#pragma once
// Hugging Face transformers 4.19's logits processors and sampling warpers
// (generation_logits_process.py), applied to one row of scores. Each bans tokens by setting their
// score to -inf, exactly where HF does.
#include <cstdint>
#include <span>

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

// In-place log-softmax in float32, as torch computes it: x - max - log(sum(exp(x - max))).
void log_softmax(std::span<float> scores);

}  // namespace invar
