#pragma once
// Pseudo-log-likelihood of inputs longer than the model's positions. Salazar et al. (2020) score
// sentences that fit; a longer text is split into overlapping windows of the longest length the
// model takes, each framed with the model's special tokens like a text of its own, windows half a
// window apart, and every token is scored (masked) in the one window whose centre is nearest to
// it, so that it sees at least a quarter window of context on each side wherever the text allows.
// The sum over all tokens is the text's PLL, exp(−PLL / N) its pseudo-perplexity.
#include <cstddef>
#include <vector>

#include "engine/text/tokenizer.hpp"

namespace invar {

// Content-token ranges (special tokens not counted): the window holds [begin, end) and scores
// [score_begin, score_end). The scored ranges of successive windows tile [0, tokens).
struct PllWindow {
  std::size_t begin = 0, end = 0;
  std::size_t score_begin = 0, score_end = 0;
};

// Windows of `width` content tokens (the last one ends at `tokens`); one window when the text
// fits. `width` must be at least 2 unless the text fits.
std::vector<PllWindow> pll_windows(std::size_t tokens, std::size_t width);

// The special tokens the tokenizer put before and after the text of a single-sequence encoding.
struct Framing {
  std::size_t prefix = 0, suffix = 0;
};
Framing framing_of(const Encoding& input);

// `input`'s special prefix and suffix around its content tokens [begin, end).
Encoding window_of(const Encoding& input, const Framing& framing, std::size_t begin, std::size_t end);

}  // namespace invar
