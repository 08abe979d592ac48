// The heads over the last hidden states: pooling, BERT's pooler, sequence classification, the
// masked-LM head for pseudo-log-likelihood, and the labels of classification outputs.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "engine/encoder/model.hpp"

namespace invar {

Tensor EncoderModel::Impl::pool(const Tensor& x, std::span<const Pooling> modes, bool normalize) {
  if (modes.empty()) fail_internal("no pooling mode");
  const std::int64_t h = spec.hidden, width = h * static_cast<std::int64_t>(modes.size());
  const Tensor sequences = x.reshaped(Shape{batch_, len_, h});
  Tensor out = arena->alloc(DType::F32, Shape{batch_, width});
  if (modes.size() == 1) {
    backend.pool(sequences, key_mask_, modes[0], out);
  } else {
    Tensor one = arena->alloc(DType::F32, Shape{batch_, h});
    for (std::size_t i = 0; i < modes.size(); ++i) {
      backend.pool(sequences, key_mask_, modes[i], one);
      backend.copy_strided(one, {0, {h, 1, 0, 0}}, out, {static_cast<std::int64_t>(i) * h, {width, 1, 0, 0}},
                           {batch_, h, 1, 1});
    }
  }
  if (normalize) backend.l2_normalize(out);
  return out;
}

Tensor EncoderModel::Impl::cls_dense(const Tensor& x, const Linear& dense, Activation activation) {
  const std::int64_t h = spec.hidden;
  Tensor cls = arena->alloc(DType::F32, Shape{batch_, h});
  backend.pool(x.reshaped(Shape{batch_, len_, h}), key_mask_, Pooling::Cls, cls);
  Tensor out = arena->alloc(DType::F32, Shape{batch_, h});
  backend.linear(cls, dense.weight, dense.bias, activation, out);
  return out;
}

PerInput EncoderModel::pooler_output(std::span<const Encoding> inputs) {
  if (!has_pooler()) fail("{}: the model has no pooler (pooler.dense)", impl_->weights.path());
  if (inputs.empty()) return {};
  const Tensor x = impl_->run(inputs, impl_->spec.layers, nullptr);
  return impl_->split_rows(impl_->cls_dense(x, impl_->pooler, impl_->spec.pooler_activation));
}

PerInput EncoderModel::logits(std::span<const Encoding> inputs) {
  Impl& m = *impl_;
  require_classifier();
  if (inputs.empty()) return {};
  const Tensor x = m.run(inputs, m.spec.layers, nullptr);
  // BertForSequenceClassification: classifier(pooler); RobertaClassificationHead: out_proj(tanh(dense(<s>)));
  // the others the same with their activations.
  const bool pooled = m.spec.classifier == ClassifierKind::Pooler;
  const Tensor features = m.cls_dense(x, pooled ? m.pooler : m.classifier_dense,
                                      pooled ? m.spec.pooler_activation : m.spec.dense_activation);
  Tensor out = m.arena->alloc(DType::F32, Shape{features.dim(0), m.spec.num_labels});
  m.backend.linear(features, m.classifier.weight, m.classifier.bias, Activation::None, out);
  return m.split_rows(out);
}

std::vector<double> EncoderModel::pll(const Encoding& input, std::int32_t mask_id, std::int64_t budget_bytes) {
  std::vector<std::size_t> positions;
  for (std::size_t t = 0; t < input.ids.size(); ++t)
    if (t >= input.special_mask.size() || !input.special_mask[t]) positions.push_back(t);
  return pll_at(input, positions, mask_id, budget_bytes);
}

std::vector<double> EncoderModel::pll_at(const Encoding& input, std::span<const std::size_t> scored,
                                         std::int32_t mask_id, std::int64_t budget_bytes) {
  Impl& m = *impl_;
  require_mlm();
  if (mask_id < 0 || mask_id >= m.spec.vocab) fail("mask token id {} is outside the vocabulary ({})", mask_id, m.spec.vocab);
  check_inputs(std::span<const Encoding>(&input, 1));
  std::vector<Encoding> copies;
  std::vector<std::int32_t> positions, targets;
  for (std::size_t t : scored) {
    if (t >= input.ids.size()) fail("pseudo-log-likelihood: position {} is outside the input ({} tokens)", t, input.ids.size());
    Encoding copy = input;
    copy.ids[t] = mask_id;
    positions.push_back(static_cast<std::int32_t>(t));
    targets.push_back(input.ids[t]);
    copies.push_back(std::move(copy));
  }
  // Bytes of activations per copy: the layer loop's buffers, the head's logits and, where the
  // backend materializes them, the attention scores (the fused CPU attention keeps its scores in
  // per-thread blocks that do not grow with the copies).
  const std::int64_t len = static_cast<std::int64_t>(input.ids.size());
  const std::int64_t attention_scores = m.backend.attention_needs_scores(len) ? m.spec.heads * len * len : 0;
  const std::int64_t per_copy = 4 * (len * (6 * m.spec.hidden + m.spec.ffn) + attention_scores + m.spec.vocab);
  const std::size_t per_pass = static_cast<std::size_t>(std::max<std::int64_t>(1, budget_bytes / per_copy));
  std::vector<double> scores;
  for (std::size_t begin = 0; begin < copies.size(); begin += per_pass) {
    const std::size_t count = std::min(per_pass, copies.size() - begin);
    const Tensor x = m.run(std::span<const Encoding>(copies).subspan(begin, count), m.spec.layers, nullptr);
    // Only the masked position of each copy goes through the head: rows b·T + position_b.
    const std::int64_t k = static_cast<std::int64_t>(count), h = m.spec.hidden;
    std::vector<std::int32_t> rows(count);
    for (std::size_t b = 0; b < count; ++b)
      rows[b] = static_cast<std::int32_t>(static_cast<std::int64_t>(b) * len + positions[begin + b]);
    Tensor row_ids = m.arena->alloc(DType::I32, Shape{k});
    m.backend.upload(rows.data(), row_ids);
    Tensor masked = m.arena->alloc(DType::F32, Shape{k, h});
    m.backend.gather_rows(x, row_ids, 1.0f, false, masked);
    // RobertaLMHead / BertLMPredictionHead: decoder(LN(act(dense(h)))) + bias.
    Tensor transformed = m.arena->alloc(DType::F32, Shape{k, h});
    m.backend.linear(masked, m.mlm_dense.weight, m.mlm_dense.bias, m.spec.mlm_activation, transformed);
    m.backend.layer_norm(transformed, {}, m.mlm_norm.weight, m.mlm_norm.bias, m.spec.norm_eps, transformed);
    Tensor logits = m.arena->alloc(DType::F32, Shape{k, m.spec.vocab});
    m.backend.linear(transformed, m.mlm_decoder.weight, m.mlm_decoder.bias, Activation::None, logits);
    m.backend.log_softmax(logits, logits);
    const auto values = m.backend.download_f32(logits);
    for (std::size_t b = 0; b < count; ++b)
      scores.push_back(values[b * static_cast<std::size_t>(m.spec.vocab) + static_cast<std::size_t>(targets[begin + b])]);
  }
  return scores;
}

std::vector<float> label_probabilities(const std::vector<float>& logits, bool multi_label) {
  std::vector<float> probs(logits.size());
  if (multi_label) {
    for (std::size_t i = 0; i < logits.size(); ++i) probs[i] = 1.0f / (1.0f + std::exp(-logits[i]));
    return probs;
  }
  const float top = *std::max_element(logits.begin(), logits.end());
  double total = 0.0;
  for (std::size_t i = 0; i < logits.size(); ++i) total += probs[i] = std::exp(logits[i] - top);
  for (float& p : probs) p = static_cast<float>(p / total);
  return probs;
}

std::optional<std::size_t> best_label(const std::vector<float>& logits) {
  if (logits.empty() || !std::all_of(logits.begin(), logits.end(), [](float v) { return std::isfinite(v); }))
    return std::nullopt;
  return static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

}  // namespace invar
