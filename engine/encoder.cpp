#include "engine/encoder.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "engine/attention.hpp"
#include "engine/model_weights.hpp"

namespace invar {

namespace {

struct Layer {
  Linear qkv;  // q, k, v fused: [3·hidden, hidden]
  Linear attn_out;
  Norm attn_norm;
  Linear ffn_in, ffn_out;
  Norm ffn_norm;
};

}  // namespace

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
  void disentangled_bias(const Layer& layer, const Tensor& qkv, const Tensor& rel, const Tensor& rel_qkv,
                         const Tensor& c2p, const Tensor& p2c, const Tensor& index, const Tensor& bias);

  Tensor embed_tokens_, embed_positions_, embed_types_;
  Norm embed_norm_;
  Linear embed_project_;
  std::vector<float> relative_table_;  // MPNet [buckets, heads]
  Tensor rel_embeddings_;              // DeBERTa-v2 [2·span, hidden]
  Norm rel_norm_;
  std::vector<Layer> layers_;          // the stored layers (ALBERT: fewer than spec.layers)
  // The batch run() saw last.
  std::int64_t batch_ = 0, len_ = 0;
  Tensor key_mask_;
};

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
    Layer layer;
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

Tensor EncoderModel::Impl::run(std::span<const Encoding> inputs, std::int64_t stop, std::vector<PerInput>* every_layer) {
  check_inputs(inputs);
  if (stop < 0 || stop > spec.layers) fail("layer {} does not exist (the model has layers 0 to {})", stop, spec.layers);
  const std::int64_t batch = static_cast<std::int64_t>(inputs.size());
  std::int64_t len = 0;
  for (const auto& input : inputs) len = std::max<std::int64_t>(len, static_cast<std::int64_t>(input.ids.size()));
  const std::int64_t rows = batch * len, h = spec.hidden, heads = spec.heads, dh = spec.head_dim;
  const std::int64_t inner = heads * dh;
  std::vector<std::int32_t> ids(static_cast<std::size_t>(rows), spec.pad_token_id), types(ids.size(), 0);
  std::vector<float> mask(ids.size(), 0.0f);
  for (std::int64_t b = 0; b < batch; ++b) {
    const Encoding& input = inputs[static_cast<std::size_t>(b)];
    for (std::size_t t = 0; t < input.ids.size(); ++t) {
      const std::size_t at = static_cast<std::size_t>(b * len) + t;
      ids[at] = input.ids[t];
      if (!input.type_ids.empty()) types[at] = input.type_ids[t];
      mask[at] = 1.0f;
    }
  }
  const auto positions = position_ids(ids, batch, len);

  arena->reset();
  Tensor x = arena->alloc(DType::F32, Shape{rows, h});
  Tensor narrow = spec.project_embeddings ? arena->alloc(DType::F32, Shape{rows, spec.embedding_size}) : Tensor{};
  Tensor qkv = arena->alloc(DType::F32, Shape{rows, 3 * inner});
  Tensor scores = arena->alloc(DType::F32, Shape{batch, heads, len, len});
  Tensor context = arena->alloc(DType::F32, Shape{rows, inner});
  Tensor delta = arena->alloc(DType::F32, Shape{rows, h});
  Tensor hidden = arena->alloc(DType::F32, Shape{rows, spec.ffn});
  key_mask_ = arena->alloc(DType::F32, Shape{batch, len});
  backend.upload(mask.data(), key_mask_);
  Tensor bias;
  if (!relative_table_.empty()) {
    const auto values = relative_position_bias(relative_table_, heads, len, len, 0, true, spec.relative_buckets,
                                               spec.relative_max_distance);
    bias = arena->alloc(DType::F32, Shape{heads, len, len});
    backend.upload(values.data(), bias);
  }
  // DeBERTa-v2: the layer-normed relative embeddings, their projections per layer, the c2p / p2c
  // products and the bucket of each (query, key).
  const DisentangledAttention& d = spec.disentangled;
  Tensor rel, rel_qkv, c2p, p2c, rel_index;
  if (!rel_embeddings_.empty()) {
    const std::int64_t span2 = 2 * d.span;
    rel = rel_embeddings_;
    if (d.norm) {
      rel = arena->alloc(DType::F32, Shape{span2, h});
      backend.layer_norm(rel_embeddings_, {}, rel_norm_.weight, rel_norm_.bias, spec.norm_eps, rel);
    }
    rel_qkv = arena->alloc(DType::F32, Shape{span2, 3 * inner});
    if (d.c2p) c2p = arena->alloc(DType::F32, Shape{batch, heads, len, span2});
    if (d.p2c) p2c = arena->alloc(DType::F32, Shape{batch, heads, len, span2});
    bias = arena->alloc(DType::F32, Shape{batch, heads, len, len});
    const auto index = disentangled_positions(len, d.span, d.buckets, d.max_positions);
    rel_index = arena->alloc(DType::I32, Shape{len, len});
    backend.upload(index.data(), rel_index);
  }
  embed(ids, types, positions, narrow, x);
  batch_ = batch;
  len_ = len;
  if (every_layer) every_layer->push_back(split(backend.download_f32(x), inputs));

  // Post-norm layers (BertLayer, MPNetLayer, ...): x ← LN(x + attention(x)); x ← LN(x + FFN(x)).
  // DeBERTa-v2 divides the scores by sqrt(head_dim · scale_factor), its position terms included.
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh * d.scale_factor()));
  for (std::int64_t l = 0; l < stop; ++l) {
    for (std::int64_t k = 0; k < spec.inner_layers; ++k) {
      const Layer& layer = layers_[static_cast<std::size_t>(stored_layer(spec, l, k))];
      backend.linear(x, layer.qkv.weight, layer.qkv.bias, Activation::None, qkv);
      if (!rel.empty()) disentangled_bias(layer, qkv, rel, rel_qkv, c2p, p2c, rel_index, bias);
      self_attention(backend, qkv, batch, len, heads, dh, scale, key_mask_, bias, scores, context);
      backend.linear(context, layer.attn_out.weight, layer.attn_out.bias, Activation::None, delta);
      backend.layer_norm(delta, x, layer.attn_norm.weight, layer.attn_norm.bias, spec.norm_eps, x);
      backend.linear(x, layer.ffn_in.weight, layer.ffn_in.bias, spec.activation, hidden);
      backend.linear(hidden, layer.ffn_out.weight, layer.ffn_out.bias, Activation::None, delta);
      backend.layer_norm(delta, x, layer.ffn_norm.weight, layer.ffn_norm.bias, spec.norm_eps, x);
    }
    if (every_layer) every_layer->push_back(split(backend.download_f32(x), inputs));
  }
  return x;
}

void EncoderModel::Impl::embed(const std::vector<std::int32_t>& ids, const std::vector<std::int32_t>& types,
                               const std::vector<std::int32_t>& positions, const Tensor& scratch, const Tensor& x) {
  const std::int64_t rows = static_cast<std::int64_t>(ids.size());
  // Summed at the embeddings' width: x itself, or the narrower scratch that the projection widens.
  const Tensor& sum = scratch.empty() ? x : scratch;
  Tensor id_tensor = arena->alloc(DType::I32, Shape{rows});
  backend.upload(ids.data(), id_tensor);
  backend.gather_rows(embed_tokens_, id_tensor, 1.0f, false, sum);
  if (!embed_positions_.empty()) {
    Tensor position_tensor = arena->alloc(DType::I32, Shape{rows});
    backend.upload(positions.data(), position_tensor);
    backend.gather_rows(embed_positions_, position_tensor, 1.0f, true, sum);
  }
  if (!embed_types_.empty()) {
    Tensor type_tensor = arena->alloc(DType::I32, Shape{rows});
    backend.upload(types.data(), type_tensor);
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

// DisentangledSelfAttention.disentangled_attention_bias with share_att_key: the layer's own query
// and key projections of the relative embeddings (Pq, Pk); c2p[i, r] = q_i · Pk_r and
// p2c[j, r] = k_j · Pq_r per head, each read at the (query, key) pair's bucket r. Both terms are
// scaled here as the scores are in attention_softmax.
void EncoderModel::Impl::disentangled_bias(const Layer& layer, const Tensor& qkv, const Tensor& rel,
                                           const Tensor& rel_qkv, const Tensor& c2p, const Tensor& p2c,
                                           const Tensor& index, const Tensor& bias) {
  const DisentangledAttention& d = spec.disentangled;
  const std::int64_t heads = spec.heads, dh = spec.head_dim, inner = heads * dh, width = 3 * inner;
  const std::int64_t span2 = 2 * d.span, len = len_, batch = batch_;
  const float alpha = 1.0f / std::sqrt(static_cast<float>(dh * d.scale_factor()));
  backend.linear(rel, layer.qkv.weight, layer.qkv.bias, Activation::None, rel_qkv);
  const MatrixView out{0, span2, heads * len * span2, len * span2};
  // Queries against Pk, keys against Pq: the relative side is the same for every sequence.
  if (!c2p.empty())
    backend.gemm_batched(false, true, len, span2, dh, alpha, qkv, {0, width, len * width, dh}, rel_qkv,
                         {inner, width, 0, dh}, 0.0f, c2p, out, batch, heads);
  if (!p2c.empty())
    backend.gemm_batched(false, true, len, span2, dh, alpha, qkv, {inner, width, len * width, dh}, rel_qkv,
                         {0, width, 0, dh}, 0.0f, p2c, out, batch, heads);
  backend.relative_gather(c2p, p2c, index, bias);
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
  // Bytes of activations per copy: the layer loop's buffers, attention scores, the head's logits.
  const std::int64_t len = static_cast<std::int64_t>(input.ids.size());
  const std::int64_t per_copy =
      4 * (len * (6 * m.spec.hidden + m.spec.ffn) + m.spec.heads * len * len + m.spec.vocab);
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
