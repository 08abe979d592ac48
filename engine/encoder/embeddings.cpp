// The embeddings: tokens, positions and token types summed, normed, and projected to the hidden
// width where the model's embeddings are narrower.
#include "engine/encoder/model.hpp"

namespace invar {

// BERT: 0, 1, 2, ... RoBERTa/XLM-R/MPNet (create_position_ids_from_input_ids): the running count of
// non-pad tokens after padding_idx, and padding_idx itself on pad tokens.
std::vector<std::int32_t> EncoderModel::Impl::position_ids(const std::vector<std::int32_t>& ids, std::int64_t batch,
                                                           std::int64_t len) const {
  std::vector<std::int32_t> positions(ids.size());
  for (std::int64_t b = 0; b < batch; ++b) {
    std::int32_t counted = 0;
    for (std::int64_t t = 0; t < len; ++t) {
      const std::size_t at = static_cast<std::size_t>(b * len + t);
      if (!spec.fairseq_positions) positions[at] = static_cast<std::int32_t>(t);
      else positions[at] = ids[at] == spec.pad_token_id ? spec.pad_token_id : spec.pad_token_id + ++counted;
    }
  }
  return positions;
}

void EncoderModel::Impl::embed(const std::vector<std::int32_t>& ids, const std::vector<std::int32_t>& types,
                               const std::vector<std::int32_t>& positions, const Tensor& scratch, const Tensor& x) {
  const std::int64_t rows = static_cast<std::int64_t>(ids.size());
  // Summed at the embeddings' width: x itself, or the narrower scratch that the projection widens.
  const Tensor& sum = scratch.empty() ? x : scratch;
  Tensor id_tensor = arena->alloc(DType::I32, Shape{rows});
  backend.upload(ids.data(), id_tensor);
  weights.check_rows(embed_tokens_, ids);
  backend.gather_rows(embed_tokens_, id_tensor, 1.0f, false, sum);
  if (!embed_positions_.empty()) {
    Tensor position_tensor = arena->alloc(DType::I32, Shape{rows});
    backend.upload(positions.data(), position_tensor);
    weights.check_rows(embed_positions_, positions);
    backend.gather_rows(embed_positions_, position_tensor, 1.0f, true, sum);
  }
  if (!embed_types_.empty()) {
    Tensor type_tensor = arena->alloc(DType::I32, Shape{rows});
    backend.upload(types.data(), type_tensor);
    weights.check_rows(embed_types_, types);
    backend.gather_rows(embed_types_, type_tensor, 1.0f, true, sum);
  }
  if (scratch.empty()) {
    backend.layer_norm(x, {}, embed_norm_.weight, embed_norm_.bias, spec.norm_eps, x);
  } else if (spec.norm_after_project) {  // DebertaV2Embeddings: embed_proj, then LayerNorm
    backend.linear(scratch, embed_project_.weight, embed_project_.bias, Activation::None, x);
    backend.layer_norm(x, {}, embed_norm_.weight, embed_norm_.bias, spec.norm_eps, x);
  } else {  // ELECTRA's embeddings_project, ALBERT's embedding_hidden_mapping_in: after the LayerNorm
    backend.layer_norm(scratch, {}, embed_norm_.weight, embed_norm_.bias, spec.norm_eps, scratch);
    backend.linear(scratch, embed_project_.weight, embed_project_.bias, Activation::None, x);
  }
}

}  // namespace invar
