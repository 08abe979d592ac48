// One decoder pass over the rows of the cache: n new tokens per row, attending to the cached
// positions and the row's source, ending in the LM head's logits.
#include <array>
#include <cmath>

#include "core/error.hpp"
#include "engine/seq2seq/model.hpp"

namespace invar {

Tensor Seq2SeqModel::Impl::run_decoder(const TokenIds& tokens, std::int64_t n) {
  const std::int64_t rows = cache.rows(), count = rows * n, heads = spec.decoder.heads, dh = spec.decoder.head_dim;
  const std::int64_t d = spec.d_model;
  if (static_cast<std::int64_t>(tokens.size()) != count) fail("internal: {} tokens for {} rows × {}", tokens.size(), rows, n);
  for (std::int32_t id : tokens)
    if (id < 0 || id >= spec.decoder.vocab) fail("decoder token id {} is outside the vocabulary ({})", id, spec.decoder.vocab);
  const std::int64_t start = cache.length(), total = start + n;
  if (spec.max_positions > 0 && total > spec.max_positions)
    fail("the target would have {} tokens, more than the model's {} positions (max_position_embeddings)", total,
         spec.max_positions);
  cache.prepare(n);

  Arena& arena = *step_arena_;
  arena.reset();
  const std::int64_t groups = cache.groups(), group_rows = cache.group_size() * n, len = cache.source_len();
  const std::int64_t a = spec.decoder.attention_width(), width = 3 * a;
  Tensor x = arena.alloc(DType::F32, Shape{count, d});
  Tensor scratch = arena.alloc(DType::F32, Shape{count, d});
  Tensor qkv = arena.alloc(DType::F32, Shape{count, width});
  Tensor self_scores =
      backend.attention_needs_scores(total) ? arena.alloc(DType::F32, Shape{rows, heads, n, total}) : Tensor{};
  Tensor query = arena.alloc(DType::F32, Shape{count, a});
  Tensor cross_scores =
      backend.attention_needs_scores(len) ? arena.alloc(DType::F32, Shape{groups, heads, group_rows, len}) : Tensor{};
  Tensor context = arena.alloc(DType::F32, Shape{count, a});
  Tensor attended = arena.alloc(DType::F32, Shape{count, d});
  const seq2seq::Stack& decoder = stacks.decoder;
  Tensor bias = spec.positions == PositionKind::Relative
                    ? layers.relative_bias(decoder, heads, false, n, total, start, arena)
                    : Tensor{};
  layers.embed(decoder, tokens, layers.position_ids(tokens, rows, n, start), x, arena);

  const float scale = spec.attention_scaling ? 1.0f / std::sqrt(static_cast<float>(dh)) : 1.0f;
  const std::int64_t cache_ld = rows * a;
  for (std::size_t l = 0; l < decoder.layers.size(); ++l) {
    const seq2seq::Layer& layer = decoder.layers[l];
    const Tensor &keys = cache.keys(l), &values = cache.values(l);
    // Self-attention over the cache: write this step's keys and values, attend to all so far.
    Tensor input;
    layers.sublayer_input(layer.self_norm, x, scratch, input);
    backend.linear(input, layer.qkv.weight, layer.qkv.bias, Activation::None, qkv);
    const std::array<std::int64_t, 4> extent{rows, n, a, 1};
    backend.copy_strided(qkv, {a, {n * width, width, 1, 0}}, keys, {start * cache_ld, {a, cache_ld, 1, 0}}, extent);
    backend.copy_strided(qkv, {2 * a, {n * width, width, 1, 0}}, values, {start * cache_ld, {a, cache_ld, 1, 0}},
                         extent);
    backend.attention({.outer = rows, .inner = heads, .queries = n, .keys = total, .head_dim = dh,
                       .q = qkv, .k = keys, .v = values, .context = context,
                       .q_view = {0, width, n * width, dh}, .k_view = {0, cache_ld, a, dh},
                       .v_view = {0, cache_ld, a, dh}, .context_view = {0, a, n * a, dh},
                       .scale = scale, .position_bias = bias, .causal = true, .causal_offset = start,
                       .scores = self_scores, .key_rows = cache.key_rows()});
    backend.linear(context, layer.self_out.weight, layer.self_out.bias, Activation::None, attended);
    layers.sublayer_output(layer.self_norm, x, attended);

    // Cross-attention: the rows of one group share their source's keys and values.
    layers.sublayer_input(layer.cross_norm, x, scratch, input);
    backend.linear(input, layer.cross_q.weight, layer.cross_q.bias, Activation::None, query);
    const Tensor& kv = cache.cross_kv(l);
    backend.attention({.outer = groups, .inner = heads, .queries = group_rows, .keys = len, .head_dim = dh,
                       .q = query, .k = kv, .v = kv, .context = context,
                       .q_view = {0, a, group_rows * a, dh}, .k_view = {0, 2 * a, len * 2 * a, dh},
                       .v_view = {a, 2 * a, len * 2 * a, dh}, .context_view = {0, a, group_rows * a, dh},
                       .scale = scale, .key_mask = cache.key_mask(), .scores = cross_scores});
    backend.linear(context, layer.cross_out.weight, layer.cross_out.bias, Activation::None, attended);
    layers.sublayer_output(layer.cross_norm, x, attended);

    layers.feed_forward(layer, x, count, spec.decoder.ffn, arena);
  }
  cache.advance(n);
  return x;
}

Tensor Seq2SeqModel::Impl::logits(const TokenIds& tokens, std::int64_t n, bool last_only) {
  const Tensor x = run_decoder(tokens, n);
  const std::int64_t rows = cache.rows(), d = spec.d_model;
  Arena& arena = *step_arena_;
  Tensor last = x;
  if (last_only && n > 1) {
    last = arena.alloc(DType::F32, Shape{rows, d});
    backend.copy_strided(x, {(n - 1) * d, {n * d, 1, 0, 0}}, last, {0, {d, 1, 0, 0}}, {rows, d, 1, 1});
  }
  if (spec.final_norm) layers.normalize(stacks.decoder.final_norm, last, {}, last);
  Tensor out = arena.alloc(DType::F32, Shape{last.dim(0), head.weight().dim(0)});
  backend.linear(last, head.weight(), head.bias(), Activation::None, out);
  return out;
}

void Seq2SeqModel::Impl::decode(const TokenIds& tokens, std::int64_t n, bool last_only, std::vector<float>& out) {
  const Tensor values = logits(tokens, n, last_only);
  out.resize(static_cast<std::size_t>(values.numel()));
  backend.download(values, out.data());
}

void Seq2SeqModel::Impl::decode_top_k(const TokenIds& tokens, std::int64_t k, std::int32_t exclude, TopLogits& top) {
  const Tensor row_logits = logits(tokens, 1, true);
  const std::int64_t rows = row_logits.dim(0);
  Arena& arena = *step_arena_;
  const Tensor values = arena.alloc(DType::F32, Shape{rows, k}), ids = arena.alloc(DType::I32, Shape{rows, k}),
               terms = arena.alloc(DType::F32, Shape{rows, 2});
  backend.top_k_rows(row_logits, k, exclude, values, ids, terms);
  top.k = k;
  top.values.resize(static_cast<std::size_t>(rows * k));
  top.ids.resize(static_cast<std::size_t>(rows * k));
  top.terms.resize(static_cast<std::size_t>(rows * 2));
  backend.download(values, top.values.data());
  backend.download(ids, top.ids.data());
  backend.download(terms, top.terms.data());
}

}  // namespace invar
