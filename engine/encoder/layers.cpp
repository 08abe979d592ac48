// The forward pass: the batch padded to the longest, the embeddings, then the post-norm layers
// (self-attention and feed-forward sublayers) with MPNet's or DeBERTa-v2's relative terms.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "engine/attention.hpp"
#include "engine/encoder/model.hpp"

namespace invar {

Tensor EncoderModel::Impl::run(std::span<const Encoding> inputs, std::int64_t stop, std::vector<PerInput>* every_layer) {
  check_inputs(inputs);
  if (stop < 0 || stop > spec.layers) fail("layer {} does not exist (the model has layers 0 to {})", stop, spec.layers);
  const std::int64_t batch = static_cast<std::int64_t>(inputs.size());
  std::int64_t len = 0;
  for (const auto& input : inputs) len = std::max<std::int64_t>(len, static_cast<std::int64_t>(input.ids.size()));
  const std::int64_t rows = batch * len, h = spec.hidden, heads = spec.heads, dh = spec.head_dim;
  const std::int64_t inner = heads * dh;
  std::vector<std::int32_t> ids(static_cast<std::size_t>(rows), spec.pad_token_id), types(ids.size(), 0);
  std::vector<float> mask(ids.size(), 0.0f);
  for (std::int64_t b = 0; b < batch; ++b) {
    const Encoding& input = inputs[static_cast<std::size_t>(b)];
    for (std::size_t t = 0; t < input.ids.size(); ++t) {
      const std::size_t at = static_cast<std::size_t>(b * len) + t;
      ids[at] = input.ids[t];
      if (!input.type_ids.empty()) types[at] = input.type_ids[t];
      mask[at] = 1.0f;
    }
  }
  const auto positions = position_ids(ids, batch, len);

  arena->reset();
  Tensor x = arena->alloc(DType::F32, Shape{rows, h});
  Tensor narrow = spec.project_embeddings ? arena->alloc(DType::F32, Shape{rows, spec.embedding_size}) : Tensor{};
  Tensor qkv = arena->alloc(DType::F32, Shape{rows, 3 * inner});
  Tensor scores =
      backend.attention_needs_scores(len) ? arena->alloc(DType::F32, Shape{batch, heads, len, len}) : Tensor{};
  Tensor context = arena->alloc(DType::F32, Shape{rows, inner});
  Tensor delta = arena->alloc(DType::F32, Shape{rows, h});
  Tensor hidden = arena->alloc(DType::F32, Shape{rows, spec.ffn});
  key_mask_ = arena->alloc(DType::F32, Shape{batch, len});
  backend.upload(mask.data(), key_mask_);
  Tensor bias;
  if (!relative_table_.empty()) {
    const auto values = relative_position_bias(relative_table_, heads, len, len, 0, true, spec.relative_buckets,
                                               spec.relative_max_distance);
    bias = arena->alloc(DType::F32, Shape{heads, len, len});
    backend.upload(values.data(), bias);
  }
  // DeBERTa-v2: the layer-normed relative embeddings, their projections per layer, the c2p / p2c
  // products and the bucket of each (query, key).
  const DisentangledAttention& d = spec.disentangled;
  Tensor rel, rel_qkv, c2p, p2c, rel_index;
  if (!rel_embeddings_.empty()) {
    const std::int64_t span2 = 2 * d.span;
    rel = rel_embeddings_;
    if (d.norm) {
      rel = arena->alloc(DType::F32, Shape{span2, h});
      backend.layer_norm(rel_embeddings_, {}, rel_norm_.weight, rel_norm_.bias, spec.norm_eps, rel);
    }
    rel_qkv = arena->alloc(DType::F32, Shape{span2, 3 * inner});
    if (d.c2p) c2p = arena->alloc(DType::F32, Shape{batch, heads, len, span2});
    if (d.p2c) p2c = arena->alloc(DType::F32, Shape{batch, heads, len, span2});
    bias = arena->alloc(DType::F32, Shape{batch, heads, len, len});
    const auto index = disentangled_positions(len, d.span, d.buckets, d.max_positions);
    rel_index = arena->alloc(DType::I32, Shape{len, len});
    backend.upload(index.data(), rel_index);
  }
  embed(ids, types, positions, narrow, x);
  batch_ = batch;
  len_ = len;
  if (every_layer) every_layer->push_back(split(backend.download_f32(x), inputs));

  // Post-norm layers (BertLayer, MPNetLayer, ...): x ← LN(x + attention(x)); x ← LN(x + FFN(x)).
  // DeBERTa-v2 divides the scores by sqrt(head_dim · scale_factor), its position terms included.
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh * d.scale_factor()));
  for (std::int64_t l = 0; l < stop; ++l) {
    for (std::int64_t k = 0; k < spec.inner_layers; ++k) {
      const encoder::Layer& layer = layers_[static_cast<std::size_t>(stored_layer(spec, l, k))];
      backend.linear(x, layer.qkv.weight, layer.qkv.bias, Activation::None, qkv);
      if (!rel.empty()) disentangled_bias(layer, qkv, rel, rel_qkv, c2p, p2c, rel_index, bias);
      backend.self_attention(qkv, batch, len, heads, dh, scale, key_mask_, bias, scores, context);
      backend.linear(context, layer.attn_out.weight, layer.attn_out.bias, Activation::None, delta);
      backend.layer_norm(delta, x, layer.attn_norm.weight, layer.attn_norm.bias, spec.norm_eps, x);
      backend.linear(x, layer.ffn_in.weight, layer.ffn_in.bias, spec.activation, hidden);
      backend.linear(hidden, layer.ffn_out.weight, layer.ffn_out.bias, Activation::None, delta);
      backend.layer_norm(delta, x, layer.ffn_norm.weight, layer.ffn_norm.bias, spec.norm_eps, x);
    }
    if (every_layer) every_layer->push_back(split(backend.download_f32(x), inputs));
  }
  return x;
}

// DisentangledSelfAttention.disentangled_attention_bias with share_att_key: the layer's own query
// and key projections of the relative embeddings (Pq, Pk); c2p[i, r] = q_i · Pk_r and
// p2c[j, r] = k_j · Pq_r per head, each read at the (query, key) pair's bucket r. Both terms are
// scaled here as the scores are in attention_softmax.
void EncoderModel::Impl::disentangled_bias(const encoder::Layer& layer, const Tensor& qkv, const Tensor& rel,
                                           const Tensor& rel_qkv, const Tensor& c2p, const Tensor& p2c,
                                           const Tensor& index, const Tensor& bias) {
  const DisentangledAttention& d = spec.disentangled;
  const std::int64_t heads = spec.heads, dh = spec.head_dim, inner = heads * dh, width = 3 * inner;
  const std::int64_t span2 = 2 * d.span, len = len_, batch = batch_;
  const float alpha = 1.0f / std::sqrt(static_cast<float>(dh * d.scale_factor()));
  backend.linear(rel, layer.qkv.weight, layer.qkv.bias, Activation::None, rel_qkv);
  const MatrixView out{0, span2, heads * len * span2, len * span2};
  // Queries against Pk, keys against Pq: the relative side is the same for every sequence.
  if (!c2p.empty())
    backend.gemm_batched(false, true, len, span2, dh, alpha, qkv, {0, width, len * width, dh}, rel_qkv,
                         {inner, width, 0, dh}, 0.0f, c2p, out, batch, heads);
  if (!p2c.empty())
    backend.gemm_batched(false, true, len, span2, dh, alpha, qkv, {inner, width, len * width, dh}, rel_qkv,
                         {0, width, 0, dh}, 0.0f, p2c, out, batch, heads);
  backend.relative_gather(c2p, p2c, index, bias);
}

}  // namespace invar
