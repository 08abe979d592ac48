#include "engine/seq2seq/weights.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace invar::seq2seq {

namespace {

// Sinusoidal tables as Hugging Face builds them (MarianSinusoidalPositionalEmbedding,
// M2M100SinusoidalPositionalEmbedding), used when the checkpoint does not store one.
// Far beyond any sinusoidal model's max_position_embeddings (Marian 512, M2M100 and FSMT 1024).
constexpr std::int64_t kMaxComputedPositions = std::int64_t{1} << 16;

std::vector<float> sinusoidal_table(PositionKind kind, std::int64_t rows, std::int64_t dim, std::int64_t pad_row) {
  std::vector<float> table(static_cast<std::size_t>(rows * dim), 0.0f);
  for (std::int64_t p = 0; p < rows; ++p) {
    float* row = table.data() + p * dim;
    if (kind == PositionKind::SinusoidalHalves) {
      const std::int64_t sentinel = (dim + 1) / 2;
      for (std::int64_t j = 0; j < dim; ++j) {
        const double angle = static_cast<double>(p) / std::pow(10000.0, 2.0 * static_cast<double>(j / 2) / static_cast<double>(dim));
        if (j % 2 == 0) row[j / 2] = static_cast<float>(std::sin(angle));
        else row[sentinel + j / 2] = static_cast<float>(std::cos(angle));
      }
    } else {
      if (p == pad_row) continue;  // the padding position embeds to zero
      // M2M100SinusoidalPositionalEmbedding.get_embedding computes in float32 torch tensors (the
      // Marian table above goes through float64 numpy); float arithmetic keeps large positions'
      // angles rounded as there.
      const std::int64_t half = dim / 2;
      const float neg_step = static_cast<float>(-(std::log(10000.0) / static_cast<double>(half - 1)));
      for (std::int64_t i = 0; i < half; ++i) {
        const float angle = static_cast<float>(p) * std::exp(static_cast<float>(i) * neg_step);
        row[i] = std::sin(angle);
        row[half + i] = std::cos(angle);
      }
    }
  }
  return table;
}

Stack load_stack(ModelWeights& weights, const ModelConfig& config, const Seq2SeqSpec& spec, const std::string& name) {
  const bool decoder = name == "dec";
  const StackSizes& sizes = decoder ? spec.decoder : spec.encoder;
  const std::int64_t inner = sizes.attention_width(), d = spec.d_model;
  Stack stack;
  stack.embed_tokens = weights.get(name + ".embed_tokens", {}, WeightUse::Table);
  if (stack.embed_tokens.shape != Shape{sizes.vocab, d})
    fail("{}: {} embeddings are {}, expected [{}, {}]", weights.path(), decoder ? "decoder" : "encoder",
         stack.embed_tokens.shape.str(), sizes.vocab, d);
  if (spec.positions == PositionKind::Relative) {
    stack.relative_bias = weights.host(name + ".relative_attention_bias", {spec.relative_buckets, sizes.heads});
  } else {
    const std::int64_t rows = spec.max_positions + spec.position_offset;
    stack.positions = weights.get(name + ".embed_positions", {}, WeightUse::Table);
    if (stack.positions.empty()) {
      // Computed, not stored: nothing in the file bounds the table, so a sane bound does.
      if (rows > kMaxComputedPositions)
        fail("{}: field 'max_position_embeddings' is {}, more than the {} positions invar computes a sinusoidal "
             "table for", config.where, spec.max_positions, kMaxComputedPositions);
      stack.positions = weights.store().add(sinusoidal_table(spec.positions, rows, d, spec.pad_token_id),
                                            Shape{rows, d}, WeightUse::Table);
    } else if (stack.positions.dim(1) != d || stack.positions.dim(0) < rows) {
      fail("{}: {} position table is {}, expected [{}, {}]", weights.path(), name, stack.positions.shape.str(), rows, d);
    }
  }
  if (spec.layernorm_embedding) stack.embed_norm = weights.norm(name + ".embed_norm", d);
  if (spec.final_norm) stack.final_norm = weights.norm(name + ".final_norm", d);
  if (decoder && spec.lm_input_scale != 1.0f) {
    // T5 rescales the decoder output by d_model^-0.5 before the tied LM head; folded into the
    // final norm's weight (an RMS norm is linear in its weight).
    auto scaled = weights.host("dec.final_norm.weight", {d});
    for (float& w : scaled) w *= spec.lm_input_scale;
    stack.final_norm.weight = weights.store().add(scaled, Shape{d}, WeightUse::Any);
  }
  for (std::int64_t i = 0; i < sizes.layers; ++i) {
    const std::string prefix = name + ".layers." + std::to_string(i);
    Layer layer;
    layer.qkv = weights.fused(prefix + ".self_attn", {"q", "k", "v"}, inner, d);
    layer.self_out = weights.linear(prefix + ".self_attn.o", d, inner);
    layer.self_norm = weights.norm(prefix + ".self_attn_norm", d);
    if (decoder) {
      layer.cross_q = weights.linear(prefix + ".cross_attn.q", inner, d);
      layer.cross_kv = weights.fused(prefix + ".cross_attn", {"k", "v"}, inner, d);
      layer.cross_out = weights.linear(prefix + ".cross_attn.o", d, inner);
      layer.cross_norm = weights.norm(prefix + ".cross_attn_norm", d);
    }
    const std::int64_t ffn = sizes.ffn;
    layer.ffn_in = weights.linear(prefix + ".ffn.in", ffn, d);
    if (spec.gated_ffn) layer.ffn_gate = weights.linear(prefix + ".ffn.gate", ffn, d);
    layer.ffn_out = weights.linear(prefix + ".ffn.out", d, ffn);
    layer.ffn_norm = weights.norm(prefix + ".ffn_norm", d);
    stack.layers.push_back(std::move(layer));
  }
  return stack;
}

}  // namespace

Weights load_weights(ModelWeights& weights, const ModelConfig& config, const Seq2SeqSpec& spec) {
  const std::int64_t d = spec.d_model;
  Weights out;
  out.encoder = load_stack(weights, config, spec, "enc");
  out.decoder = load_stack(weights, config, spec, "dec");
  out.lm_head = weights.get("lm_head", {}, WeightUse::Matrix);
  weights.may_get("lm_head", WeightUse::Table);  // a vocabulary shortlist gathers its rows (shortlist.hpp)
  if (out.lm_head.shape != Shape{spec.decoder.vocab, d})
    fail("{}: the LM head is {}, expected [{}, {}]", weights.path(), out.lm_head.shape.str(), spec.decoder.vocab, d);
  if (spec.final_logits_bias) {
    Tensor bias = weights.get("final_logits_bias");
    if (!bias.empty()) out.logits_bias = bias.reshaped(Shape{spec.decoder.vocab});
  }
  if (spec.sequence_classifier) {
    out.classifier_dense = weights.linear("classifier.dense", d, d);
    out.classifier_out = weights.linear("classifier.out_proj", spec.num_labels, d);
  }
  return out;
}

}  // namespace invar::seq2seq
