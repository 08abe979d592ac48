#include "engine/text_encoder.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "engine/pll_windows.hpp"
#include "models/hf_config.hpp"

namespace invar {

TextEncoder::TextEncoder(const ModelSource& source, Backend& backend)
    : source_(source), tokenizer_(make_tokenizer(source)), model_(source, backend) {
  limit_ = static_cast<std::size_t>(model_.spec().max_tokens);
}

void TextEncoder::cap_length(std::size_t tokens) { limit_ = std::min(limit_, tokens); }

std::size_t TextEncoder::embedding_length() const {
  const auto st = load_sentence_transformer_config(source_);
  if (!st) return limit_;
  if (st->max_seq_length) return std::min(limit_, static_cast<std::size_t>(*st->max_seq_length));
  // No max_seq_length (sentence-transformers 5.x never writes one): the tokenizer's
  // model_max_length capped by the model's positions, as every version computes it.
  if (const auto tokenizer_limit = tokenizer_->model_max_length()) return std::min(limit_, *tokenizer_limit);
  return limit_;
}

std::vector<Encoding> TextEncoder::encode(std::span<const TextInput> inputs, bool pairs, std::size_t& truncated,
                                          std::size_t limit) const {
  if (limit == 0) limit = limit_;
  std::vector<Encoding> out;
  out.reserve(inputs.size());
  truncated = 0;
  for (const auto& input : inputs) {
    Encoding e = pairs ? tokenizer_->encode_pair(input.first, input.second) : tokenizer_->encode(input.first);
    if (e.ids.size() > limit) {
      ++truncated;
      e = pairs ? tokenizer_->encode_pair(input.first, input.second, limit) : tokenizer_->encode(input.first, limit);
    }
    out.push_back(std::move(e));
  }
  return out;
}

EmbeddingSettings TextEncoder::default_embedding_settings() const {
  EmbeddingSettings settings;
  settings.layer = model_.spec().layers;
  const auto st = load_sentence_transformer_config(source_);
  if (st) {
    settings.modes = st->pooling;
    settings.normalize = st->normalize;
  }
  if (settings.modes.empty()) settings.modes.push_back(Pooling::Mean);
  return settings;
}

std::size_t TextEncoder::embedding_width(const EmbeddingSettings& settings) const {
  return static_cast<std::size_t>(model_.spec().hidden) * settings.modes.size();
}

PerInput TextEncoder::embed(const std::vector<Encoding>& inputs, const EmbeddingSettings& settings,
                            const BatchOptions& options) {
  return batched<std::vector<float>>(inputs, options, [&](std::span<const Encoding> batch) {
    return model_.embed(batch, settings.modes, settings.normalize, settings.layer);
  });
}

PerInput TextEncoder::logits(const std::vector<Encoding>& inputs, const BatchOptions& options) {
  model_.require_classifier();
  return batched<std::vector<float>>(inputs, options,
                                     [&](std::span<const Encoding> batch) { return model_.logits(batch); });
}

TextEncoder::PseudoLikelihood TextEncoder::pll(const Encoding& input, std::int32_t mask_id) {
  if (input.ids.size() <= limit_) return {model_.pll(input, mask_id), 1};
  const Framing framing = framing_of(input);
  const std::size_t specials = framing.prefix + framing.suffix;
  if (limit_ <= specials) fail("pseudo-log-likelihood: a window of {} tokens has no room besides the special tokens", limit_);
  const auto windows = pll_windows(input.ids.size() - specials, limit_ - specials);
  PseudoLikelihood out{{}, windows.size()};
  for (const auto& w : windows) {
    std::vector<std::size_t> positions;
    for (std::size_t t = w.score_begin; t < w.score_end; ++t) positions.push_back(framing.prefix + t - w.begin);
    const auto scores = model_.pll_at(window_of(input, framing, w.begin, w.end), positions, mask_id);
    out.per_token.insert(out.per_token.end(), scores.begin(), scores.end());
  }
  return out;
}

}  // namespace invar
