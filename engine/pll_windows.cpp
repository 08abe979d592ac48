#include "engine/pll_windows.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace invar {

std::vector<PllWindow> pll_windows(std::size_t tokens, std::size_t width) {
  if (tokens <= width) return {{0, tokens, 0, tokens}};
  if (width < 2) fail("pseudo-log-likelihood windows need room for at least 2 tokens besides the special tokens");
  const std::size_t stride = width / 2;
  std::vector<std::size_t> starts;
  for (std::size_t s = 0; s + width < tokens; s += stride) starts.push_back(s);
  starts.push_back(tokens - width);
  std::vector<PllWindow> out;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    // Halfway between the centres of this window and the next one.
    const std::size_t score_end = k + 1 < starts.size() ? (starts[k] + starts[k + 1] + width) / 2 : tokens;
    const std::size_t score_begin = out.empty() ? 0 : out.back().score_end;
    out.push_back({starts[k], starts[k] + width, score_begin, score_end});
  }
  return out;
}

Framing framing_of(const Encoding& input) {
  const auto& mask = input.special_mask;
  Framing f;
  while (f.prefix < mask.size() && mask[f.prefix]) ++f.prefix;
  while (f.suffix + f.prefix < mask.size() && mask[mask.size() - 1 - f.suffix]) ++f.suffix;
  return f;
}

Encoding window_of(const Encoding& input, const Framing& framing, std::size_t begin, std::size_t end) {
  const std::size_t n = input.ids.size();
  const auto pick = [&](const auto& values) {
    using Values = std::decay_t<decltype(values)>;
    if (values.size() != n) return values;  // a field the encoding leaves empty
    Values out(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(framing.prefix));
    out.insert(out.end(), values.begin() + static_cast<std::ptrdiff_t>(framing.prefix + begin),
               values.begin() + static_cast<std::ptrdiff_t>(framing.prefix + end));
    out.insert(out.end(), values.begin() + static_cast<std::ptrdiff_t>(n - framing.suffix), values.end());
    return out;
  };
  return {pick(input.ids), pick(input.tokens), pick(input.type_ids), pick(input.special_mask)};
}

}  // namespace invar
