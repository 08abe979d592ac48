#pragma once
// EncoderModel's parts, for the files that implement it (engine/encoder/*.cpp): the weights
// (weights.cpp), the embeddings with their projection (embeddings.cpp), the layer stack with
// DeBERTa-v2's relative terms (layers.cpp), and the heads (heads.cpp). Not a public header.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/encoder.hpp"
#include "engine/model_weights.hpp"

namespace invar {

namespace encoder {

struct Layer {
  Linear qkv;  // q, k, v fused: [3·hidden, hidden]
  Linear attn_out;
  Norm attn_norm;
  Linear ffn_in, ffn_out;
  Norm ffn_norm;
};

}  // namespace encoder

class EncoderModel::Impl {
 public:
  Impl(const ModelSource& source, Backend& backend);

  // Runs the embeddings and the first `stop` layers over `inputs` padded to the longest; returns the
  // hidden states [B·T, hidden] in the arena. With `every_layer`, each layer's output (the
  // embeddings' first) is downloaded, split per input.
  Tensor run(std::span<const Encoding> inputs, std::int64_t stop, std::vector<PerInput>* every_layer);
  // Pools run()'s output (mask from the same batch) into [B, width · modes].
  Tensor pool(const Tensor& x, std::span<const Pooling> modes, bool normalize);
  // The [CLS] / <s> row of each sequence through dense + tanh: [B, hidden].
  Tensor cls_dense(const Tensor& x, const Linear& dense, Activation activation);
  PerInput split_rows(const Tensor& matrix);
  // run()'s padded [B, T, hidden] values as one [tokens, hidden] matrix per input.
  PerInput split(const std::vector<float>& padded, std::span<const Encoding> inputs) const;
  void check_inputs(std::span<const Encoding> inputs) const;
  void check_tokens(const Encoding& input, const std::string& who) const;

  const EncoderSpec spec;
  Backend& backend;
  ModelWeights weights;
  std::unique_ptr<Arena> arena;
  Linear pooler, classifier, classifier_dense, mlm_dense, mlm_decoder;
  Norm mlm_norm;

 private:
  std::vector<std::int32_t> position_ids(const std::vector<std::int32_t>& ids, std::int64_t batch,
                                         std::int64_t len) const;

  // The embeddings [rows, hidden] into x (scratch: embedding_size wide, when projected).
  void embed(const std::vector<std::int32_t>& ids, const std::vector<std::int32_t>& types,
             const std::vector<std::int32_t>& positions, const Tensor& scratch, const Tensor& x);
  // DeBERTa-v2's c2p and p2c terms of one layer, scaled, as attention_softmax's bias [B, H, T, T].
  void disentangled_bias(const encoder::Layer& layer, const Tensor& qkv, const Tensor& rel, const Tensor& rel_qkv,
                         const Tensor& c2p, const Tensor& p2c, const Tensor& index, const Tensor& bias);

  Tensor embed_tokens_, embed_positions_, embed_types_;
  Norm embed_norm_;
  Linear embed_project_;
  std::vector<float> relative_table_;  // MPNet [buckets, heads]
  Tensor rel_embeddings_;              // DeBERTa-v2 [2·span, hidden]
  Norm rel_norm_;
  std::vector<encoder::Layer> layers_;  // the stored layers (ALBERT: fewer than spec.layers)
  // The batch run() saw last.
  std::int64_t batch_ = 0, len_ = 0;
  Tensor key_mask_;
};

}  // namespace invar
