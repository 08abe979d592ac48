#include "engine/seq2seq/layers.hpp"

#include "core/error.hpp"
#include "engine/attention.hpp"

namespace invar::seq2seq {

void Layers::normalize(const Norm& norm, const Tensor& x, const Tensor& residual, const Tensor& out) {
  if (spec_.rms_norm) {
    if (!residual.empty()) backend_.add(x, residual, out);
    backend_.rms_norm(residual.empty() ? x : out, norm.weight, spec_.norm_eps, out);
  } else {
    backend_.layer_norm(x, residual, norm.weight, norm.bias, spec_.norm_eps, out);
  }
}

void Layers::sublayer_input(const Norm& norm, const Tensor& x, const Tensor& scratch, Tensor& input) {
  if (spec_.pre_norm) {
    normalize(norm, x, {}, scratch);
    input = scratch;
  } else {
    input = x;
  }
}

void Layers::sublayer_output(const Norm& norm, const Tensor& x, const Tensor& delta) {
  if (spec_.pre_norm) backend_.add(x, delta, x);
  else normalize(norm, delta, x, x);
}

void Layers::feed_forward(const Layer& layer, const Tensor& x, std::int64_t rows, std::int64_t width, Arena& arena) {
  Tensor scratch = arena.alloc(DType::F32, Shape{rows, d_});
  Tensor hidden = arena.alloc(DType::F32, Shape{rows, width});
  Tensor out = arena.alloc(DType::F32, Shape{rows, d_});
  Tensor input;
  sublayer_input(layer.ffn_norm, x, scratch, input);
  if (spec_.gated_ffn) {
    // T5DenseGatedActDense: act(x·wi_0) ⊙ (x·wi_1).
    Tensor linear_part = arena.alloc(DType::F32, Shape{rows, width});
    backend_.linear(input, layer.ffn_gate.weight, layer.ffn_gate.bias, spec_.activation, hidden);
    backend_.linear(input, layer.ffn_in.weight, layer.ffn_in.bias, Activation::None, linear_part);
    backend_.mul(hidden, linear_part, hidden);
  } else {
    backend_.linear(input, layer.ffn_in.weight, layer.ffn_in.bias, spec_.activation, hidden);
  }
  backend_.linear(hidden, layer.ffn_out.weight, layer.ffn_out.bias, Activation::None, out);
  sublayer_output(layer.ffn_norm, x, out);
}

std::vector<std::int32_t> Layers::position_ids(const TokenIds& ids, std::int64_t rows, std::int64_t n,
                                               std::int64_t start) const {
  std::vector<std::int32_t> positions(ids.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t counted = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t at = static_cast<std::size_t>(r * n + i);
      if (spec_.positions == PositionKind::SinusoidalFairseq) {
        // fairseq make_positions: padding sits at the padding row; real tokens count from past + 1.
        positions[at] = ids[at] == spec_.pad_token_id
                            ? spec_.pad_token_id
                            : static_cast<std::int32_t>(spec_.pad_token_id + start + ++counted);
      } else {
        positions[at] = static_cast<std::int32_t>(spec_.position_offset + start + i);
      }
    }
  }
  return positions;
}

void Layers::embed(const Stack& stack, const TokenIds& ids, const std::vector<std::int32_t>& positions,
                   const Tensor& x, Arena& arena) {
  const std::int64_t count = static_cast<std::int64_t>(ids.size());
  Tensor token_ids = arena.alloc(DType::I32, Shape{count});
  backend_.upload(ids.data(), token_ids);
  weights_.check_rows(stack.embed_tokens, ids);
  backend_.gather_rows(stack.embed_tokens, token_ids, spec_.embed_scale, false, x);
  if (!stack.positions.empty()) {
    for (std::int32_t p : positions)
      if (p < 0 || p >= stack.positions.dim(0))
        fail("position {} is beyond the model's position table ({} rows)", p, stack.positions.dim(0));
    Tensor position_ids = arena.alloc(DType::I32, Shape{count});
    backend_.upload(positions.data(), position_ids);
    weights_.check_rows(stack.positions, positions);
    backend_.gather_rows(stack.positions, position_ids, 1.0f, true, x);
  }
  if (spec_.layernorm_embedding) normalize(stack.embed_norm, x, {}, x);
}

Tensor Layers::relative_bias(const Stack& stack, std::int64_t heads, bool bidirectional, std::int64_t tq,
                             std::int64_t tk, std::int64_t q_start, Arena& arena) {
  const auto bias = relative_position_bias(stack.relative_bias, heads, tq, tk, q_start, bidirectional,
                                           spec_.relative_buckets, spec_.relative_max_distance);
  Tensor tensor = arena.alloc(DType::F32, Shape{heads, tq, tk});
  backend_.upload(bias.data(), tensor);
  return tensor;
}

}  // namespace invar::seq2seq
