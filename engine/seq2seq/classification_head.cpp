// BartForSequenceClassification's forward (transformers 4.19): the whole encoder-decoder over the
// inputs, the decoder fed them shifted right (decoder start first), and a head, dense → tanh →
// out_proj, on the decoder's state at each input's last EOS.
#include <algorithm>

#include "core/error.hpp"
#include "engine/seq2seq/model.hpp"

namespace invar {

std::vector<std::vector<float>> Seq2SeqModel::Impl::classify(const std::vector<TokenIds>& inputs) {
  if (!spec.sequence_classifier)
    fail("{}: the model has no sequence classification head (architectures in config.json name no "
         "*ForSequenceClassification)", config.where);
  if (inputs.empty()) return {};
  encode(inputs, nullptr);
  const std::int64_t batch = static_cast<std::int64_t>(inputs.size()), d = spec.d_model;
  std::int64_t length = 0;
  for (const auto& ids : inputs) length = std::max<std::int64_t>(length, static_cast<std::int64_t>(ids.size()));
  // shift_tokens_right; a state at position t reads positions ≤ t only, so the pooled one (the last
  // EOS) is the same whether the row is shifted before or after padding.
  TokenIds shifted(static_cast<std::size_t>(batch * length), spec.pad_token_id);
  std::vector<std::int32_t> pooled_rows;
  for (std::int64_t b = 0; b < batch; ++b) {
    const TokenIds& ids = inputs[static_cast<std::size_t>(b)];
    const auto row = shifted.begin() + b * length;
    row[0] = spec.decoder_start_token_id;
    std::copy(ids.begin(), ids.end() - 1, row + 1);
    const auto eos = std::find(ids.rbegin(), ids.rend(), spec.eos_token_id);
    if (eos == ids.rend())
      fail("input {} has no EOS token (id {}): the classification head reads the decoder's state there", b + 1,
           spec.eos_token_id);
    pooled_rows.push_back(static_cast<std::int32_t>(b * length + (ids.rend() - eos - 1)));
  }
  cache.start(batch, 1, length);
  const Tensor states = run_decoder(shifted, length);

  Arena& arena = *step_arena_;  // states live there too: allocate, never reset
  Tensor rows = arena.alloc(DType::I32, Shape{batch});
  backend.upload(pooled_rows.data(), rows);
  Tensor pooled = arena.alloc(DType::F32, Shape{batch, d});
  backend.gather_rows(states, rows, 1.0f, false, pooled);
  if (spec.final_norm) layers.normalize(stacks.decoder.final_norm, pooled, {}, pooled);
  Tensor hidden = arena.alloc(DType::F32, Shape{batch, d});
  backend.linear(pooled, stacks.classifier_dense.weight, stacks.classifier_dense.bias, Activation::Tanh, hidden);
  Tensor out = arena.alloc(DType::F32, Shape{batch, spec.num_labels});
  backend.linear(hidden, stacks.classifier_out.weight, stacks.classifier_out.bias, Activation::None, out);
  const std::vector<float> flat = backend.download_f32(out);
  std::vector<std::vector<float>> logits;
  for (std::int64_t b = 0; b < batch; ++b)
    logits.emplace_back(flat.begin() + b * spec.num_labels, flat.begin() + (b + 1) * spec.num_labels);
  return logits;
}

}  // namespace invar
