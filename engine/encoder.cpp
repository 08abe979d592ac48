// The model facade over the parts (engine/encoder/model.hpp): the entry points that need no head
// (input checks, hidden states, pooled embeddings) and the padded batch split per input.
#include "engine/encoder.hpp"

#include "core/error.hpp"
#include "engine/encoder/model.hpp"

namespace invar {

void EncoderModel::Impl::check_inputs(std::span<const Encoding> inputs) const {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Encoding& input = inputs[i];
    // Callers that know where an input came from check it alone and prefix FILE:LINE.
    const std::string who = inputs.size() == 1 ? "the input" : fmt::format("input {} of the batch", i + 1);
    if (static_cast<std::int64_t>(input.ids.size()) > spec.max_tokens)
      fail("{} has {} tokens, more than the model's {} positions", who, input.ids.size(), spec.max_tokens);
    check_tokens(input, who);
  }
}

void EncoderModel::Impl::check_tokens(const Encoding& input, const std::string& who) const {
  if (input.ids.empty()) fail("{} has no tokens", who);
  for (std::int32_t id : input.ids)
    if (id < 0 || id >= spec.vocab)
      fail("{} has token id {} outside the model's vocabulary (0..{}): the tokenizer files do not match the model",
           who, id, spec.vocab - 1);
  if (!input.type_ids.empty() && input.type_ids.size() != input.ids.size())
    fail("{} has {} token type ids for {} tokens", who, input.type_ids.size(), input.ids.size());
  for (std::int32_t type : input.type_ids)
    // A model without token types ignores them (DeBERTa-v3's tokenizer still numbers the segments).
    if (spec.type_vocab > 0 && (type < 0 || type >= spec.type_vocab))
      fail("{} has token type {} outside the model's {} types", who, type, spec.type_vocab);
}

PerInput EncoderModel::Impl::split(const std::vector<float>& padded, std::span<const Encoding> inputs) const {
  PerInput out;
  const std::size_t h = static_cast<std::size_t>(spec.hidden), len = static_cast<std::size_t>(len_);
  for (std::size_t b = 0; b < inputs.size(); ++b) {
    const float* start = padded.data() + b * len * h;
    out.emplace_back(start, start + inputs[b].ids.size() * h);
  }
  return out;
}

PerInput EncoderModel::Impl::split_rows(const Tensor& matrix) {
  const auto values = backend.download_f32(matrix);
  const std::size_t cols = static_cast<std::size_t>(matrix.dim(matrix.shape.rank - 1));
  PerInput out;
  for (std::size_t at = 0; at < values.size(); at += cols) out.emplace_back(values.begin() + at, values.begin() + at + cols);
  return out;
}

EncoderModel::EncoderModel(const ModelSource& source, Backend& backend)
    : impl_(std::make_unique<Impl>(source, backend)) {}
EncoderModel::~EncoderModel() = default;

const EncoderSpec& EncoderModel::spec() const { return impl_->spec; }
std::size_t EncoderModel::weight_bytes() const { return impl_->weights.bytes(); }
const WeightUses& EncoderModel::weight_uses() const { return impl_->weights.uses(); }
bool EncoderModel::has_pooler() const { return !impl_->pooler.weight.empty(); }
bool EncoderModel::has_classifier() const { return !impl_->classifier.weight.empty(); }
bool EncoderModel::has_mlm() const { return !impl_->mlm_dense.weight.empty(); }
void EncoderModel::require_classifier() const {
  const Impl& m = *impl_;
  if (!has_classifier())
    fail("{}: the model has no sequence-classification head (config.json id2label and {} weights)", m.weights.path(),
         m.spec.classifier == ClassifierKind::Pooler ? "classifier" : "classifier.dense/out_proj");
  if (m.spec.classifier == ClassifierKind::Pooler && !has_pooler())
    fail("{}: BERT classification needs the pooler (pooler.dense)", m.weights.path());
}

void EncoderModel::require_mlm() const {
  if (!has_mlm())
    fail("{}: the model has no masked-LM head (lm_head / cls.predictions weights); pseudo-log-likelihood needs a "
         "*ForMaskedLM checkpoint",
         impl_->weights.path());
}

void EncoderModel::check_inputs(std::span<const Encoding> inputs) const { impl_->check_inputs(inputs); }
void EncoderModel::check_tokens(const Encoding& input) const { impl_->check_tokens(input, "the input"); }

PerInput EncoderModel::hidden_states(std::span<const Encoding> inputs, std::int64_t layer) {
  if (inputs.empty()) return {};
  return impl_->split(impl_->backend.download_f32(impl_->run(inputs, layer, nullptr)), inputs);
}

std::vector<PerInput> EncoderModel::all_hidden_states(std::span<const Encoding> inputs) {
  std::vector<PerInput> layers;
  if (!inputs.empty()) impl_->run(inputs, impl_->spec.layers, &layers);
  return layers;
}

PerInput EncoderModel::embed(std::span<const Encoding> inputs, std::span<const Pooling> modes, bool normalize,
                             std::int64_t layer) {
  if (inputs.empty()) return {};
  const Tensor x = impl_->run(inputs, layer, nullptr);
  return impl_->split_rows(impl_->pool(x, modes, normalize));
}

}  // namespace invar
