#pragma once
// The encoder-decoder's weights per layer and the sublayer operations both stacks share, as the
// spec sets them: layer or RMS norm before or after each sublayer, plain or gated feed-forward,
// token and position embeddings, T5's relative position bias.
#include <cstdint>
#include <vector>

#include "engine/model_weights.hpp"
#include "backends/backend.hpp"
#include "models/seq2seq_spec.hpp"

namespace invar {

using TokenIds = std::vector<std::int32_t>;

namespace seq2seq {

struct Layer {
  Linear qkv;            // self-attention q, k, v fused: [3d, d]
  Linear self_out;
  Norm self_norm;
  Linear cross_q, cross_kv;  // cross-attention: q [d, d], k and v fused [2d, d]
  Linear cross_out;
  Norm cross_norm;
  Linear ffn_in, ffn_gate, ffn_out;
  Norm ffn_norm;
};

struct Stack {
  Tensor embed_tokens;
  Tensor positions;                  // table indexed by position id; empty for T5
  std::vector<float> relative_bias;  // T5: [buckets, heads] on the host, turned into per-batch biases
  Norm embed_norm, final_norm;
  std::vector<Layer> layers;
};

class Layers {
 public:
  // `weights`, `backend` and `spec` must outlive this object.
  Layers(const ModelWeights& weights, Backend& backend, const Seq2SeqSpec& spec)
      : weights_(weights), backend_(backend), spec_(spec), d_(spec.d_model) {}

  // out ← norm(x + residual), or norm(x) for an empty residual.
  void normalize(const Norm& norm, const Tensor& x, const Tensor& residual, const Tensor& out);
  // Pre-norm: the sublayer reads norm(x) (in scratch); post-norm: x itself.
  void sublayer_input(const Norm& norm, const Tensor& x, const Tensor& scratch, Tensor& input);
  // x ← x + delta (pre-norm) or norm(x + delta) (post-norm).
  void sublayer_output(const Norm& norm, const Tensor& x, const Tensor& delta);
  // x ← the feed-forward sublayer of `layer` over x [rows, d], hidden width `width`.
  void feed_forward(const Layer& layer, const Tensor& x, std::int64_t rows, std::int64_t width, Arena& arena);
  // x ← token embeddings (scaled) + position embeddings, then the embedding norm (the rows read
  // checked first: ModelWeights::check_rows).
  void embed(const Stack& stack, const TokenIds& ids, const std::vector<std::int32_t>& positions, const Tensor& x,
             Arena& arena);
  // The position id of each of `rows` × `n` tokens that follow `start` tokens.
  std::vector<std::int32_t> position_ids(const TokenIds& ids, std::int64_t rows, std::int64_t n,
                                         std::int64_t start) const;
  // T5's position bias [H, tq, tk] for queries at q_start + i and keys at j.
  Tensor relative_bias(const Stack& stack, std::int64_t heads, bool bidirectional, std::int64_t tq, std::int64_t tk,
                       std::int64_t q_start, Arena& arena);

 private:
  const ModelWeights& weights_;
  Backend& backend_;
  const Seq2SeqSpec& spec_;
  std::int64_t d_;
};

}  // namespace seq2seq
}  // namespace invar
