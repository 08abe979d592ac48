// The encoder over a batch of sources, ending in the cross-attention keys/values the decoder reads.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "engine/seq2seq/model.hpp"

namespace invar {

void Seq2SeqModel::Impl::check_sources(const std::vector<TokenIds>& sources) const {
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& ids = sources[i];
    if (ids.empty()) fail("source {} has no tokens", i + 1);
    if (spec.max_positions > 0 && static_cast<std::int64_t>(ids.size()) > spec.max_positions)
      fail("source {} has {} tokens, more than the model's {} positions (max_position_embeddings)", i + 1, ids.size(),
           spec.max_positions);
    for (std::int32_t id : ids)
      if (id < 0 || id >= spec.encoder.vocab)
        fail("source {} has token id {} outside the vocabulary (size {})", i + 1, id, spec.encoder.vocab);
  }
}

void Seq2SeqModel::Impl::encode(const std::vector<TokenIds>& sources, std::vector<float>* hidden_out) {
  check_sources(sources);
  const std::int64_t batch = static_cast<std::int64_t>(sources.size()), d = spec.d_model;
  std::int64_t len = 0;
  for (const auto& ids : sources) len = std::max<std::int64_t>(len, static_cast<std::int64_t>(ids.size()));
  const std::int64_t rows = batch * len, heads = spec.encoder.heads, dh = spec.encoder.head_dim;
  const std::int64_t inner = spec.encoder.attention_width();
  TokenIds ids(static_cast<std::size_t>(rows), spec.pad_token_id);
  std::vector<float> mask(static_cast<std::size_t>(rows), 0.0f);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::size_t t = 0; t < sources[static_cast<std::size_t>(b)].size(); ++t) {
      ids[static_cast<std::size_t>(b * len) + t] = sources[static_cast<std::size_t>(b)][t];
      mask[static_cast<std::size_t>(b * len) + t] = 1.0f;
    }

  Arena& arena = *encoder_arena_;
  arena.reset();
  Tensor x = arena.alloc(DType::F32, Shape{rows, d});
  Tensor scratch = arena.alloc(DType::F32, Shape{rows, d});
  Tensor qkv = arena.alloc(DType::F32, Shape{rows, 3 * inner});
  Tensor scores =
      backend.attention_needs_scores(len) ? arena.alloc(DType::F32, Shape{batch, heads, len, len}) : Tensor{};
  Tensor context = arena.alloc(DType::F32, Shape{rows, inner});
  Tensor attended = arena.alloc(DType::F32, Shape{rows, d});
  Tensor key_mask = arena.alloc(DType::F32, Shape{batch, len});
  backend.upload(mask.data(), key_mask);
  const seq2seq::Stack& encoder = stacks.encoder;
  Tensor bias = spec.positions == PositionKind::Relative ? layers.relative_bias(encoder, heads, true, len, len, 0, arena)
                                                         : Tensor{};
  layers.embed(encoder, ids, layers.position_ids(ids, batch, len, 0), x, arena);

  const float scale = spec.attention_scaling ? 1.0f / std::sqrt(static_cast<float>(dh)) : 1.0f;
  for (const seq2seq::Layer& layer : encoder.layers) {
    Tensor input;
    layers.sublayer_input(layer.self_norm, x, scratch, input);
    backend.linear(input, layer.qkv.weight, layer.qkv.bias, Activation::None, qkv);
    backend.self_attention(qkv, batch, len, heads, dh, scale, key_mask, bias, scores, context);
    backend.linear(context, layer.self_out.weight, layer.self_out.bias, Activation::None, attended);
    layers.sublayer_output(layer.self_norm, x, attended);
    layers.feed_forward(layer, x, rows, spec.encoder.ffn, arena);
  }
  if (spec.final_norm) layers.normalize(encoder.final_norm, x, {}, x);
  if (hidden_out) *hidden_out = backend.download_f32(x);

  // Cross-attention keys and values (the decoder's heads), once per source for every decoder layer.
  const auto& cross_kv = cache.begin_sources(batch, len, mask);
  for (std::size_t l = 0; l < stacks.decoder.layers.size(); ++l) {
    const seq2seq::Layer& layer = stacks.decoder.layers[l];
    backend.linear(x, layer.cross_kv.weight, layer.cross_kv.bias, Activation::None, cross_kv[l]);
  }
}

}  // namespace invar
