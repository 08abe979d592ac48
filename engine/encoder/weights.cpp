// Loading an encoder's weights: embeddings, relative tables, the stored layers and the heads the
// checkpoint has.
#include <string>
#include <utility>

#include "core/error.hpp"
#include "engine/encoder/model.hpp"

namespace invar {

EncoderModel::Impl::Impl(const ModelSource& source, Backend& backend_ref)
    : spec(encoder_spec(load_model_config(source))),
      backend(backend_ref),
      weights(source, backend_ref, encoder_weight_names(spec)),
      arena(backend_ref.make_arena()) {
  const std::int64_t h = spec.hidden, inner = spec.heads * spec.head_dim, e = spec.embedding_size;
  embed_tokens_ = weights.get("embed.tokens", Shape{spec.vocab, e}, WeightUse::Table);
  if (spec.absolute_positions)
    embed_positions_ = weights.get("embed.positions", Shape{spec.position_rows, e}, WeightUse::Table);
  if (spec.type_vocab > 0) embed_types_ = weights.get("embed.types", Shape{spec.type_vocab, e}, WeightUse::Table);
  embed_norm_ = weights.norm("embed.norm", spec.norm_after_project ? h : e);
  if (spec.project_embeddings) embed_project_ = weights.linear("embed.project", h, e);
  if (spec.relative_buckets > 0)
    relative_table_ = weights.host("relative_attention_bias", {spec.relative_buckets, spec.heads});
  if (weights.listed("rel.embeddings")) {
    rel_embeddings_ = weights.get("rel.embeddings", Shape{2 * spec.disentangled.span, h});
    if (spec.disentangled.norm) rel_norm_ = weights.norm("rel.norm", h);
  }
  for (std::int64_t i = 0; i < stored_layers(spec); ++i) {
    const std::string prefix = "layers." + std::to_string(i) + ".";
    encoder::Layer layer;
    layer.qkv = weights.fused(prefix + "attn", {"q", "k", "v"}, inner, h);
    layer.attn_out = weights.linear(prefix + "attn.o", h, inner);
    layer.attn_norm = weights.norm(prefix + "attn_norm", h);
    layer.ffn_in = weights.linear(prefix + "ffn.in", spec.ffn, h);
    layer.ffn_out = weights.linear(prefix + "ffn.out", h, spec.ffn);
    layer.ffn_norm = weights.norm(prefix + "ffn_norm", h);
    layers_.push_back(std::move(layer));
  }
  // Heads: loaded when the checkpoint has them.
  if (weights.stored("pooler.weight")) pooler = weights.linear("pooler", h, h);
  if (spec.num_labels > 0) {
    if (spec.classifier == ClassifierKind::Pooler && weights.stored("classifier.weight")) {
      classifier = weights.linear("classifier", spec.num_labels, h);
    } else if (spec.classifier == ClassifierKind::Dense && weights.stored("classifier.dense.weight")) {
      classifier_dense = weights.linear("classifier.dense", h, h);
      classifier = weights.linear("classifier.out", spec.num_labels, h);
    }
  }
  if (weights.stored("mlm.dense.weight")) {
    mlm_dense = weights.linear("mlm.dense", h, h);
    mlm_norm = weights.norm("mlm.norm", h);
    mlm_decoder = {weights.get("mlm.decoder", Shape{spec.vocab, h}, WeightUse::Matrix),
                   weights.get("mlm.bias", Shape{spec.vocab})};
    if (mlm_decoder.bias.empty()) fail("{}: the masked-LM head has no output bias", weights.path());
  }
}

}  // namespace invar
