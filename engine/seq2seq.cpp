#include "engine/seq2seq.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include "core/error.hpp"
#include "engine/attention.hpp"
#include "engine/decode/logits_processors.hpp"
#include "engine/model_weights.hpp"

namespace invar {

namespace {

std::int32_t token_id(std::int64_t id, const char* field, const ModelConfig& config) {
  if (id > std::numeric_limits<std::int32_t>::max()) fail("{}: field '{}' holds token id {}, too large", config.where, field, id);
  return static_cast<std::int32_t>(id);
}

std::optional<std::int32_t> token_id(std::optional<std::int64_t> id, const char* field, const ModelConfig& config) {
  if (!id) return std::nullopt;
  return token_id(*id, field, config);
}

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

std::int64_t ceil_pow2(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace

SearchSettings search_defaults(const ModelConfig& config, const Seq2SeqSpec& spec) {
  const GenerationDefaults& g = config.generation;
  SearchSettings settings;
  settings.num_beams = g.num_beams;
  settings.num_return_sequences = g.num_return_sequences;
  settings.max_length = g.max_length;
  settings.min_length = g.min_length;
  settings.no_repeat_ngram_size = g.no_repeat_ngram_size;
  settings.repetition_penalty = g.repetition_penalty;
  settings.encoder_no_repeat_ngram_size = g.encoder_no_repeat_ngram_size;
  settings.unsupported = g.unsupported;
  settings.length_penalty = g.length_penalty;
  settings.early_stopping = g.early_stopping;
  settings.do_sample = g.do_sample;
  settings.temperature = g.temperature;
  settings.top_k = g.top_k;
  settings.top_p = g.top_p;
  for (const auto& sequence : g.bad_words_ids) {
    std::vector<std::int32_t>& ids = settings.bad_words_ids.emplace_back();
    for (std::int64_t id : sequence) ids.push_back(token_id(id, "bad_words_ids", config));
  }
  settings.forced_bos_token_id = token_id(g.forced_bos_token_id, "forced_bos_token_id", config);
  settings.forced_eos_token_id = token_id(g.forced_eos_token_id, "forced_eos_token_id", config);
  settings.decoder_start_token_id = spec.decoder_start_token_id;
  settings.eos_token_id = spec.eos_token_id;
  settings.pad_token_id = spec.pad_token_id;
  if (spec.beam_masks_pad) settings.beam_masked_token_id = spec.pad_token_id;
  return settings;
}

class Seq2SeqModel::Impl {
 public:
  Impl(const ModelSource& source, Backend& backend);

  const ModelConfig config;
  const Seq2SeqSpec spec;
  SearchSettings defaults;
  Backend& backend;

  void check_sources(const std::vector<TokenIds>& sources) const;
  // Runs the encoder over `sources` and fills the cross-attention keys/values (one group per source).
  void encode(const std::vector<TokenIds>& sources, std::vector<float>* hidden_out);
  // The decoder state over rows grouped `group_size` per source group, empty caches.
  void start_decoder(std::int64_t groups, std::int64_t group_size, std::int64_t capacity);
  // Appends `n` tokens to every row (tokens [rows*n], row-major) and writes logits for every new
  // position ([rows*n, V]) or, with last_only, for each row's last position ([rows, V]).
  void decode(const TokenIds& tokens, std::int64_t n, bool last_only, std::vector<float>& logits);
  // New row i continues old row rows[i].
  void select_rows(std::span<const std::int32_t> rows);
  // Gives each of `expand` rows per source its own cross-attention group (sampling several per source).
  void expand_groups(std::int64_t expand);
  std::size_t weight_bytes() const { return weights_.bytes(); }
  const WeightUses& weight_uses() const { return weights_.uses(); }
  // The LM head's rows `rows` (sorted target ids) from now on; empty = the whole vocabulary.
  void restrict_head(const std::vector<std::int32_t>& rows);

 private:
  Stack load_stack(const std::string& stack);

  void normalize(const Norm& norm, const Tensor& x, const Tensor& residual, const Tensor& out);
  void sublayer_input(const Norm& norm, const Tensor& x, const Tensor& scratch, Tensor& input);
  void sublayer_output(const Norm& norm, const Tensor& x, const Tensor& delta);
  void feed_forward(const Layer& layer, const Tensor& x, std::int64_t rows, std::int64_t width, Arena& arena);
  void embed(const Stack& stack, const TokenIds& ids, const std::vector<std::int32_t>& position_ids, const Tensor& x,
             Arena& arena);
  std::vector<std::int32_t> position_ids(const TokenIds& ids, std::int64_t rows, std::int64_t n, std::int64_t start) const;
  Tensor relative_bias(const Stack& stack, std::int64_t heads, bool bidirectional, std::int64_t tq, std::int64_t tk,
                       std::int64_t q_start, Arena& arena);
  void alloc_cache(Arena& arena, std::int64_t capacity, std::int64_t rows);
  void copy_cache(std::span<const std::int32_t> rows, std::int64_t new_capacity);
  void move_cache_rows(std::span<const std::int32_t> rows, const std::vector<std::int64_t>& moved);

  const ModelSource& source_;
  ModelWeights weights_;
  Stack encoder_, decoder_;
  Tensor lm_head_, logits_bias_;
  Tensor head_, head_bias_;  // lm_head_ and logits_bias_, or their rows of a shortlist
  // The LM head as a table to gather a shortlist's rows from: lm_head_ itself may be stored for
  // `linear` alone (packed, int8). Fetched at the first shortlist, so runs without one pay nothing.
  Tensor head_table_;
  std::unique_ptr<Arena> head_arena_;
  std::int64_t d_ = 0;

  // Per-batch state.
  std::unique_ptr<Arena> encoder_arena_, step_arena_;
  std::unique_ptr<Arena> cross_arena_[2], cache_arena_[2];
  int cross_current_ = 0, cache_current_ = 0;
  std::vector<Tensor> cross_kv_;  // per decoder layer [groups*S, 2d]
  Tensor key_mask_;               // [groups, S]
  std::int64_t groups_ = 0, group_size_ = 0, source_len_ = 0;
  std::vector<Tensor> cache_k_, cache_v_;  // per decoder layer [capacity, rows, d]
  std::int64_t capacity_ = 0, rows_ = 0, length_ = 0;
};

Seq2SeqModel::Impl::Impl(const ModelSource& source, Backend& backend_ref)
    : config(load_model_config(source)),
      spec(seq2seq_spec(config)),
      backend(backend_ref),
      source_(source),
      weights_(source, backend_ref, seq2seq_weight_names(spec, config)),
      head_arena_(backend_ref.make_arena()),
      encoder_arena_(backend_ref.make_arena()),
      step_arena_(backend_ref.make_arena()) {
  defaults = search_defaults(config, spec);
  for (auto& arena : cross_arena_) arena = backend.make_arena();
  for (auto& arena : cache_arena_) arena = backend.make_arena();
  d_ = spec.d_model;
  encoder_ = load_stack("enc");
  decoder_ = load_stack("dec");
  lm_head_ = weights_.get("lm_head", {}, WeightUse::Matrix);
  weights_.may_get("lm_head", WeightUse::Table);  // restrict_head() gathers its rows for a shortlist
  if (lm_head_.shape != Shape{spec.decoder.vocab, d_})
    fail("{}: the LM head is {}, expected [{}, {}]", source.path(), lm_head_.shape.str(), spec.decoder.vocab, d_);
  if (spec.final_logits_bias) {
    Tensor bias = weights_.get("final_logits_bias");
    if (!bias.empty()) logits_bias_ = bias.reshaped(Shape{spec.decoder.vocab});
  }
  restrict_head({});
}

Stack Seq2SeqModel::Impl::load_stack(const std::string& name) {
  const bool decoder = name == "dec";
  const StackSizes& sizes = decoder ? spec.decoder : spec.encoder;
  const std::int64_t inner = sizes.attention_width();
  Stack stack;
  stack.embed_tokens = weights_.get(name + ".embed_tokens", {}, WeightUse::Table);
  if (stack.embed_tokens.shape != Shape{sizes.vocab, d_})
    fail("{}: {} embeddings are {}, expected [{}, {}]", source_.path(), decoder ? "decoder" : "encoder",
         stack.embed_tokens.shape.str(), sizes.vocab, d_);
  if (spec.positions == PositionKind::Relative) {
    stack.relative_bias = weights_.host(name + ".relative_attention_bias", {spec.relative_buckets, sizes.heads});
  } else {
    const std::int64_t rows = spec.max_positions + spec.position_offset;
    stack.positions = weights_.get(name + ".embed_positions", {}, WeightUse::Table);
    if (stack.positions.empty()) {
      // Computed, not stored: nothing in the file bounds the table, so a sane bound does.
      if (rows > kMaxComputedPositions)
        fail("{}: field 'max_position_embeddings' is {}, more than the {} positions invar computes a sinusoidal "
             "table for", config.where, spec.max_positions, kMaxComputedPositions);
      stack.positions = weights_.store().add(sinusoidal_table(spec.positions, rows, d_, spec.pad_token_id),
                                              Shape{rows, d_}, WeightUse::Table);
    } else if (stack.positions.dim(1) != d_ || stack.positions.dim(0) < rows) {
      fail("{}: {} position table is {}, expected [{}, {}]", source_.path(), name, stack.positions.shape.str(), rows, d_);
    }
  }
  if (spec.layernorm_embedding) stack.embed_norm = weights_.norm(name + ".embed_norm", d_);
  if (spec.final_norm) stack.final_norm = weights_.norm(name + ".final_norm", d_);
  if (decoder && spec.lm_input_scale != 1.0f) {
    // T5 rescales the decoder output by d_model^-0.5 before the tied LM head; folded into the
    // final norm's weight (an RMS norm is linear in its weight).
    auto scaled = weights_.host("dec.final_norm.weight", {d_});
    for (float& w : scaled) w *= spec.lm_input_scale;
    stack.final_norm.weight = weights_.store().add(scaled, Shape{d_}, WeightUse::Any);
  }
  for (std::int64_t i = 0; i < sizes.layers; ++i) {
    const std::string prefix = name + ".layers." + std::to_string(i);
    Layer layer;
    layer.qkv = weights_.fused(prefix + ".self_attn", {"q", "k", "v"}, inner, d_);
    layer.self_out = weights_.linear(prefix + ".self_attn.o", d_, inner);
    layer.self_norm = weights_.norm(prefix + ".self_attn_norm", d_);
    if (decoder) {
      layer.cross_q = weights_.linear(prefix + ".cross_attn.q", inner, d_);
      layer.cross_kv = weights_.fused(prefix + ".cross_attn", {"k", "v"}, inner, d_);
      layer.cross_out = weights_.linear(prefix + ".cross_attn.o", d_, inner);
      layer.cross_norm = weights_.norm(prefix + ".cross_attn_norm", d_);
    }
    const std::int64_t ffn = sizes.ffn;
    layer.ffn_in = weights_.linear(prefix + ".ffn.in", ffn, d_);
    if (spec.gated_ffn) layer.ffn_gate = weights_.linear(prefix + ".ffn.gate", ffn, d_);
    layer.ffn_out = weights_.linear(prefix + ".ffn.out", d_, ffn);
    layer.ffn_norm = weights_.norm(prefix + ".ffn_norm", d_);
    stack.layers.push_back(std::move(layer));
  }
  return stack;
}

void Seq2SeqModel::Impl::check_sources(const std::vector<TokenIds>& sources) const {
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& ids = sources[i];
    if (ids.empty()) fail("source {} has no tokens", i + 1);
    if (spec.max_positions > 0 && static_cast<std::int64_t>(ids.size()) > spec.max_positions)
      fail("source {} has {} tokens, more than the model's {} positions (max_position_embeddings)", i + 1, ids.size(),
           spec.max_positions);
    for (std::int32_t id : ids)
      if (id < 0 || id >= spec.encoder.vocab)
        fail("source {} has token id {} outside the vocabulary (size {})", i + 1, id, spec.encoder.vocab);
  }
}

void Seq2SeqModel::Impl::normalize(const Norm& norm, const Tensor& x, const Tensor& residual, const Tensor& out) {
  if (spec.rms_norm) {
    if (!residual.empty()) backend.add(x, residual, out);
    backend.rms_norm(residual.empty() ? x : out, norm.weight, spec.norm_eps, out);
  } else {
    backend.layer_norm(x, residual, norm.weight, norm.bias, spec.norm_eps, out);
  }
}

// Pre-norm: the sublayer reads norm(x) (in scratch); post-norm: x itself.
void Seq2SeqModel::Impl::sublayer_input(const Norm& norm, const Tensor& x, const Tensor& scratch, Tensor& input) {
  if (spec.pre_norm) {
    normalize(norm, x, {}, scratch);
    input = scratch;
  } else {
    input = x;
  }
}

// x ← x + delta (pre-norm) or norm(x + delta) (post-norm).
void Seq2SeqModel::Impl::sublayer_output(const Norm& norm, const Tensor& x, const Tensor& delta) {
  if (spec.pre_norm) backend.add(x, delta, x);
  else normalize(norm, delta, x, x);
}

void Seq2SeqModel::Impl::feed_forward(const Layer& layer, const Tensor& x, std::int64_t rows, std::int64_t width,
                                      Arena& arena) {
  Tensor scratch = arena.alloc(DType::F32, Shape{rows, d_});
  Tensor hidden = arena.alloc(DType::F32, Shape{rows, width});
  Tensor out = arena.alloc(DType::F32, Shape{rows, d_});
  Tensor input;
  sublayer_input(layer.ffn_norm, x, scratch, input);
  if (spec.gated_ffn) {
    // T5DenseGatedActDense: act(x·wi_0) ⊙ (x·wi_1).
    Tensor linear_part = arena.alloc(DType::F32, Shape{rows, width});
    backend.linear(input, layer.ffn_gate.weight, layer.ffn_gate.bias, spec.activation, hidden);
    backend.linear(input, layer.ffn_in.weight, layer.ffn_in.bias, Activation::None, linear_part);
    backend.mul(hidden, linear_part, hidden);
  } else {
    backend.linear(input, layer.ffn_in.weight, layer.ffn_in.bias, spec.activation, hidden);
  }
  backend.linear(hidden, layer.ffn_out.weight, layer.ffn_out.bias, Activation::None, out);
  sublayer_output(layer.ffn_norm, x, out);
}

std::vector<std::int32_t> Seq2SeqModel::Impl::position_ids(const TokenIds& ids, std::int64_t rows, std::int64_t n,
                                                          std::int64_t start) const {
  std::vector<std::int32_t> positions(ids.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t counted = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t at = static_cast<std::size_t>(r * n + i);
      if (spec.positions == PositionKind::SinusoidalFairseq) {
        // fairseq make_positions: padding sits at the padding row; real tokens count from past + 1.
        positions[at] = ids[at] == spec.pad_token_id
                            ? spec.pad_token_id
                            : static_cast<std::int32_t>(spec.pad_token_id + start + ++counted);
      } else {
        positions[at] = static_cast<std::int32_t>(spec.position_offset + start + i);
      }
    }
  }
  return positions;
}

void Seq2SeqModel::Impl::embed(const Stack& stack, const TokenIds& ids, const std::vector<std::int32_t>& positions,
                               const Tensor& x, Arena& arena) {
  const std::int64_t count = static_cast<std::int64_t>(ids.size());
  Tensor token_ids = arena.alloc(DType::I32, Shape{count});
  backend.upload(ids.data(), token_ids);
  backend.gather_rows(stack.embed_tokens, token_ids, spec.embed_scale, false, x);
  if (!stack.positions.empty()) {
    for (std::int32_t p : positions)
      if (p < 0 || p >= stack.positions.dim(0))
        fail("position {} is beyond the model's position table ({} rows)", p, stack.positions.dim(0));
    Tensor position_ids = arena.alloc(DType::I32, Shape{count});
    backend.upload(positions.data(), position_ids);
    backend.gather_rows(stack.positions, position_ids, 1.0f, true, x);
  }
  if (spec.layernorm_embedding) normalize(stack.embed_norm, x, {}, x);
}

// T5's position bias [H, tq, tk] for queries at q_start + i and keys at j.
Tensor Seq2SeqModel::Impl::relative_bias(const Stack& stack, std::int64_t heads, bool bidirectional, std::int64_t tq,
                                         std::int64_t tk, std::int64_t q_start, Arena& arena) {
  const auto bias = relative_position_bias(stack.relative_bias, heads, tq, tk, q_start, bidirectional,
                                           spec.relative_buckets, spec.relative_max_distance);
  Tensor tensor = arena.alloc(DType::F32, Shape{heads, tq, tk});
  backend.upload(bias.data(), tensor);
  return tensor;
}

void Seq2SeqModel::Impl::encode(const std::vector<TokenIds>& sources, std::vector<float>* hidden_out) {
  check_sources(sources);
  const std::int64_t batch = static_cast<std::int64_t>(sources.size());
  std::int64_t len = 0;
  for (const auto& ids : sources) len = std::max<std::int64_t>(len, static_cast<std::int64_t>(ids.size()));
  const std::int64_t rows = batch * len, heads = spec.encoder.heads, dh = spec.encoder.head_dim;
  const std::int64_t inner = spec.encoder.attention_width(), cross_width = 2 * spec.decoder.attention_width();
  TokenIds ids(static_cast<std::size_t>(rows), spec.pad_token_id);
  std::vector<float> mask(static_cast<std::size_t>(rows), 0.0f);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::size_t t = 0; t < sources[static_cast<std::size_t>(b)].size(); ++t) {
      ids[static_cast<std::size_t>(b * len) + t] = sources[static_cast<std::size_t>(b)][t];
      mask[static_cast<std::size_t>(b * len) + t] = 1.0f;
    }

  Arena& arena = *encoder_arena_;
  arena.reset();
  Tensor x = arena.alloc(DType::F32, Shape{rows, d_});
  Tensor scratch = arena.alloc(DType::F32, Shape{rows, d_});
  Tensor qkv = arena.alloc(DType::F32, Shape{rows, 3 * inner});
  Tensor scores = arena.alloc(DType::F32, Shape{batch, heads, len, len});
  Tensor context = arena.alloc(DType::F32, Shape{rows, inner});
  Tensor attended = arena.alloc(DType::F32, Shape{rows, d_});
  Tensor key_mask = arena.alloc(DType::F32, Shape{batch, len});
  backend.upload(mask.data(), key_mask);
  Tensor bias = spec.positions == PositionKind::Relative ? relative_bias(encoder_, heads, true, len, len, 0, arena) : Tensor{};
  embed(encoder_, ids, position_ids(ids, batch, len, 0), x, arena);

  const float scale = spec.attention_scaling ? 1.0f / std::sqrt(static_cast<float>(dh)) : 1.0f;
  for (const Layer& layer : encoder_.layers) {
    Tensor input;
    sublayer_input(layer.self_norm, x, scratch, input);
    backend.linear(input, layer.qkv.weight, layer.qkv.bias, Activation::None, qkv);
    self_attention(backend, qkv, batch, len, heads, dh, scale, key_mask, bias, scores, context);
    backend.linear(context, layer.self_out.weight, layer.self_out.bias, Activation::None, attended);
    sublayer_output(layer.self_norm, x, attended);
    feed_forward(layer, x, rows, spec.encoder.ffn, arena);
  }
  if (spec.final_norm) normalize(encoder_.final_norm, x, {}, x);
  if (hidden_out) *hidden_out = backend.download_f32(x);

  // Cross-attention keys and values (the decoder's heads), once per source for every decoder layer.
  cross_current_ = 0;
  Arena& cross = *cross_arena_[0];
  cross.reset();
  cross_kv_.clear();
  for (const Layer& layer : decoder_.layers) {
    Tensor kv = cross.alloc(DType::F32, Shape{rows, cross_width});
    backend.linear(x, layer.cross_kv.weight, layer.cross_kv.bias, Activation::None, kv);
    cross_kv_.push_back(kv);
  }
  key_mask_ = cross.alloc(DType::F32, Shape{batch, len});
  backend.upload(mask.data(), key_mask_);
  groups_ = batch;
  source_len_ = len;
}

void Seq2SeqModel::Impl::alloc_cache(Arena& arena, std::int64_t capacity, std::int64_t rows) {
  arena.reset();
  cache_k_.clear();
  cache_v_.clear();
  for (std::size_t i = 0; i < decoder_.layers.size(); ++i) {
    cache_k_.push_back(arena.alloc(DType::F32, Shape{capacity, rows, spec.decoder.attention_width()}));
    cache_v_.push_back(arena.alloc(DType::F32, Shape{capacity, rows, spec.decoder.attention_width()}));
  }
  capacity_ = capacity;
  rows_ = rows;
}

void Seq2SeqModel::Impl::start_decoder(std::int64_t groups, std::int64_t group_size, std::int64_t capacity) {
  if (groups != groups_) fail("internal: decoder groups {} differ from the encoded batch {}", groups, groups_);
  group_size_ = group_size;
  cache_current_ = 0;
  alloc_cache(*cache_arena_[0], std::max<std::int64_t>(capacity, 1), groups * group_size);
  length_ = 0;
}

// Moves the filled cache positions into the other arena: rows[i] of the old rows becomes row i,
// with room for new_capacity positions. Copies length × rows × d per layer, no more.
void Seq2SeqModel::Impl::copy_cache(std::span<const std::int32_t> rows, std::int64_t new_capacity) {
  const std::int64_t old_rows = rows_, new_rows = static_cast<std::int64_t>(rows.size());
  const auto old_k = cache_k_, old_v = cache_v_;
  const std::int64_t old_capacity = capacity_, inner = spec.decoder.attention_width();
  cache_current_ = 1 - cache_current_;
  Arena& arena = *cache_arena_[cache_current_];
  alloc_cache(arena, new_capacity, new_rows);
  if (length_ == 0) return;
  std::vector<std::int32_t> ids(static_cast<std::size_t>(length_ * new_rows));
  for (std::int64_t p = 0; p < length_; ++p)
    for (std::int64_t i = 0; i < new_rows; ++i)
      ids[static_cast<std::size_t>(p * new_rows + i)] = static_cast<std::int32_t>(p * old_rows + rows[static_cast<std::size_t>(i)]);
  Tensor id_tensor = arena.alloc(DType::I32, Shape{static_cast<std::int64_t>(ids.size())});
  backend.upload(ids.data(), id_tensor);
  for (std::size_t l = 0; l < cache_k_.size(); ++l) {
    const Shape table{old_capacity * old_rows, inner};
    const std::int64_t filled = length_ * new_rows;
    backend.gather_rows(old_k[l].reshaped(table), id_tensor, 1.0f, false,
                        cache_k_[l].reshaped(Shape{new_capacity * new_rows, inner}).rows(0, filled));
    backend.gather_rows(old_v[l].reshaped(table), id_tensor, 1.0f, false,
                        cache_v_[l].reshaped(Shape{new_capacity * new_rows, inner}).rows(0, filled));
  }
}

// Beams that changed parents, in place: row moved[j] takes old row rows[moved[j]], every other
// row stays. The moved rows are gathered into scratch first (a row's source may itself be
// overwritten), then copied back run by run: 2 × length × moved × d per layer, against
// length × rows × d for copy_cache.
void Seq2SeqModel::Impl::move_cache_rows(std::span<const std::int32_t> rows, const std::vector<std::int64_t>& moved) {
  if (moved.empty() || length_ == 0) return;
  const std::int64_t count = static_cast<std::int64_t>(moved.size()), a = spec.decoder.attention_width();
  auto moved_row = [&](std::int64_t j) { return moved[static_cast<std::size_t>(j)]; };
  std::vector<std::int32_t> ids(static_cast<std::size_t>(length_ * count));
  for (std::int64_t p = 0; p < length_; ++p)
    for (std::int64_t j = 0; j < count; ++j)
      ids[static_cast<std::size_t>(p * count + j)] =
          static_cast<std::int32_t>(p * rows_ + rows[static_cast<std::size_t>(moved_row(j))]);
  Arena& arena = *step_arena_;  // free between steps
  arena.reset();
  Tensor id_tensor = arena.alloc(DType::I32, Shape{static_cast<std::int64_t>(ids.size())});
  backend.upload(ids.data(), id_tensor);
  Tensor scratch = arena.alloc(DType::F32, Shape{length_ * count, a});
  for (auto* caches : {&cache_k_, &cache_v_}) {
    for (const Tensor& cache : *caches) {
      backend.gather_rows(cache.reshaped(Shape{capacity_ * rows_, a}), id_tensor, 1.0f, false, scratch);
      std::int64_t run = 1;
      for (std::int64_t j = 0; j < count; j += run) {
        // Consecutive moved rows are adjacent in both the cache and the scratch: one copy per run.
        for (run = 1; j + run < count && moved_row(j + run) == moved_row(j) + run; ++run) {
        }
        // The contiguous run last: the innermost loop of a copy is then a plain copy.
        backend.copy_strided(scratch, {j * a, {count * a, 0, 0, 1}}, cache, {moved_row(j) * a, {rows_ * a, 0, 0, 1}},
                             {length_, 1, 1, run * a});
      }
    }
  }
}

void Seq2SeqModel::Impl::select_rows(std::span<const std::int32_t> rows) {
  for (std::int32_t r : rows)
    if (r < 0 || r >= rows_) fail("internal: select_rows row {} outside [0, {})", r, rows_);
  const std::int64_t new_rows = static_cast<std::int64_t>(rows.size());
  // Cross-attention groups: every group of the new rows must come from one old group.
  if (new_rows % group_size_ != 0) fail("internal: {} rows do not form groups of {}", new_rows, group_size_);
  const std::int64_t new_groups = new_rows / group_size_;
  std::vector<std::int32_t> group_of(static_cast<std::size_t>(new_groups));
  bool same_groups = new_groups == groups_;
  for (std::int64_t g = 0; g < new_groups; ++g) {
    const std::int32_t old = static_cast<std::int32_t>(rows[static_cast<std::size_t>(g * group_size_)] / group_size_);
    for (std::int64_t i = 0; i < group_size_; ++i)
      if (rows[static_cast<std::size_t>(g * group_size_ + i)] / group_size_ != old)
        fail("internal: a new row group mixes sources");
    group_of[static_cast<std::size_t>(g)] = old;
    same_groups = same_groups && old == g;
  }
  if (!same_groups) {
    std::vector<std::int32_t> source_rows(static_cast<std::size_t>(new_groups * source_len_));
    for (std::int64_t g = 0; g < new_groups; ++g)
      for (std::int64_t s = 0; s < source_len_; ++s)
        source_rows[static_cast<std::size_t>(g * source_len_ + s)] =
            static_cast<std::int32_t>(group_of[static_cast<std::size_t>(g)] * source_len_ + s);
    cross_current_ = 1 - cross_current_;
    Arena& arena = *cross_arena_[cross_current_];
    arena.reset();
    Tensor ids = arena.alloc(DType::I32, Shape{static_cast<std::int64_t>(source_rows.size())});
    backend.upload(source_rows.data(), ids);
    for (Tensor& kv : cross_kv_) {
      Tensor moved = arena.alloc(DType::F32, Shape{new_groups * source_len_, 2 * spec.decoder.attention_width()});
      backend.gather_rows(kv, ids, 1.0f, false, moved);
      kv = moved;
    }
    Tensor group_ids = arena.alloc(DType::I32, Shape{new_groups});
    backend.upload(group_of.data(), group_ids);
    Tensor mask = arena.alloc(DType::F32, Shape{new_groups, source_len_});
    backend.gather_rows(key_mask_, group_ids, 1.0f, false, mask);
    key_mask_ = mask;
    groups_ = new_groups;
  }
  std::vector<std::int64_t> moved;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i] != static_cast<std::int32_t>(i)) moved.push_back(static_cast<std::int64_t>(i));
  // Beam search keeps its rows until a source finishes; often few beams change parents. Moving
  // fewer than half the rows in place copies less than rebuilding the cache.
  if (new_rows == rows_ && 2 * static_cast<std::int64_t>(moved.size()) < rows_) move_cache_rows(rows, moved);
  else copy_cache(rows, capacity_);
}

void Seq2SeqModel::Impl::restrict_head(const std::vector<std::int32_t>& rows) {
  head_ = lm_head_;
  head_bias_ = logits_bias_;
  if (rows.empty()) return;
  head_arena_->reset();
  const std::int64_t count = static_cast<std::int64_t>(rows.size());
  Tensor ids = head_arena_->alloc(DType::I32, Shape{count});
  backend.upload(rows.data(), ids);
  if (head_table_.empty()) head_table_ = weights_.get("lm_head", {}, WeightUse::Table);
  head_ = head_arena_->alloc(DType::F32, Shape{count, d_});
  backend.gather_rows(head_table_, ids, 1.0f, false, head_);
  if (logits_bias_.empty()) return;
  head_bias_ = head_arena_->alloc(DType::F32, Shape{count});
  backend.gather_rows(logits_bias_.reshaped(Shape{spec.decoder.vocab, 1}), ids, 1.0f, false,
                      head_bias_.reshaped(Shape{count, 1}));
}

void Seq2SeqModel::Impl::expand_groups(std::int64_t expand) {
  if (expand == 1) return;
  std::vector<std::int32_t> rows(static_cast<std::size_t>(groups_ * expand));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int32_t>(i / static_cast<std::size_t>(expand));
  group_size_ = 1;
  rows_ = groups_;
  select_rows(rows);  // with group size 1, each new row becomes a group of its own
}

void Seq2SeqModel::Impl::decode(const TokenIds& tokens, std::int64_t n, bool last_only, std::vector<float>& logits) {
  const std::int64_t rows = rows_, count = rows * n, heads = spec.decoder.heads, dh = spec.decoder.head_dim;
  if (static_cast<std::int64_t>(tokens.size()) != count) fail("internal: {} tokens for {} rows × {}", tokens.size(), rows, n);
  for (std::int32_t id : tokens)
    if (id < 0 || id >= spec.decoder.vocab) fail("decoder token id {} is outside the vocabulary ({})", id, spec.decoder.vocab);
  const std::int64_t start = length_, total = length_ + n;
  if (spec.max_positions > 0 && total > spec.max_positions)
    fail("the target would have {} tokens, more than the model's {} positions (max_position_embeddings)", total,
         spec.max_positions);
  if (total > capacity_) {
    std::vector<std::int32_t> identity(static_cast<std::size_t>(rows));
    std::iota(identity.begin(), identity.end(), 0);
    copy_cache(identity, ceil_pow2(total));
  }

  Arena& arena = *step_arena_;
  arena.reset();
  const std::int64_t group_rows = group_size_ * n, len = source_len_, a = spec.decoder.attention_width(), width = 3 * a;
  Tensor x = arena.alloc(DType::F32, Shape{count, d_});
  Tensor scratch = arena.alloc(DType::F32, Shape{count, d_});
  Tensor qkv = arena.alloc(DType::F32, Shape{count, width});
  Tensor self_scores = arena.alloc(DType::F32, Shape{rows, heads, n, total});
  Tensor query = arena.alloc(DType::F32, Shape{count, a});
  Tensor cross_scores = arena.alloc(DType::F32, Shape{groups_, heads, group_rows, len});
  Tensor context = arena.alloc(DType::F32, Shape{count, a});
  Tensor attended = arena.alloc(DType::F32, Shape{count, d_});
  Tensor bias = spec.positions == PositionKind::Relative ? relative_bias(decoder_, heads, false, n, total, start, arena) : Tensor{};
  embed(decoder_, tokens, position_ids(tokens, rows, n, start), x, arena);

  const float scale = spec.attention_scaling ? 1.0f / std::sqrt(static_cast<float>(dh)) : 1.0f;
  const std::int64_t cache_ld = rows * a;
  for (std::size_t l = 0; l < decoder_.layers.size(); ++l) {
    const Layer& layer = decoder_.layers[l];
    // Self-attention over the cache: write this step's keys and values, attend to all so far.
    Tensor input;
    sublayer_input(layer.self_norm, x, scratch, input);
    backend.linear(input, layer.qkv.weight, layer.qkv.bias, Activation::None, qkv);
    const std::array<std::int64_t, 4> extent{rows, n, a, 1};
    backend.copy_strided(qkv, {a, {n * width, width, 1, 0}}, cache_k_[l], {start * cache_ld, {a, cache_ld, 1, 0}}, extent);
    backend.copy_strided(qkv, {2 * a, {n * width, width, 1, 0}}, cache_v_[l], {start * cache_ld, {a, cache_ld, 1, 0}},
                         extent);
    backend.gemm_batched(false, true, n, total, dh, 1.0f, qkv, {0, width, n * width, dh}, cache_k_[l],
                         {0, cache_ld, a, dh}, 0.0f, self_scores, {0, total, heads * n * total, n * total}, rows, heads);
    backend.attention_softmax(self_scores, scale, {}, bias, true, start);
    backend.gemm_batched(false, false, n, dh, total, 1.0f, self_scores, {0, total, heads * n * total, n * total},
                         cache_v_[l], {0, cache_ld, a, dh}, 0.0f, context, {0, a, n * a, dh}, rows, heads);
    backend.linear(context, layer.self_out.weight, layer.self_out.bias, Activation::None, attended);
    sublayer_output(layer.self_norm, x, attended);

    // Cross-attention: the rows of one group share their source's keys and values.
    sublayer_input(layer.cross_norm, x, scratch, input);
    backend.linear(input, layer.cross_q.weight, layer.cross_q.bias, Activation::None, query);
    const Tensor& kv = cross_kv_[l];
    backend.gemm_batched(false, true, group_rows, len, dh, 1.0f, query, {0, a, group_rows * a, dh}, kv,
                         {0, 2 * a, len * 2 * a, dh}, 0.0f, cross_scores,
                         {0, len, heads * group_rows * len, group_rows * len}, groups_, heads);
    backend.attention_softmax(cross_scores, scale, key_mask_, {}, false, 0);
    backend.gemm_batched(false, false, group_rows, dh, len, 1.0f, cross_scores,
                         {0, len, heads * group_rows * len, group_rows * len}, kv, {a, 2 * a, len * 2 * a, dh}, 0.0f,
                         context, {0, a, group_rows * a, dh}, groups_, heads);
    backend.linear(context, layer.cross_out.weight, layer.cross_out.bias, Activation::None, attended);
    sublayer_output(layer.cross_norm, x, attended);

    feed_forward(layer, x, count, spec.decoder.ffn, arena);
  }
  length_ = total;

  Tensor last = x;
  if (last_only && n > 1) {
    last = arena.alloc(DType::F32, Shape{rows, d_});
    backend.copy_strided(x, {(n - 1) * d_, {n * d_, 1, 0, 0}}, last, {0, {d_, 1, 0, 0}}, {rows, d_, 1, 1});
  }
  if (spec.final_norm) normalize(decoder_.final_norm, last, {}, last);
  Tensor out = arena.alloc(DType::F32, Shape{last.dim(0), head_.dim(0)});
  backend.linear(last, head_, head_bias_, Activation::None, out);
  logits.resize(static_cast<std::size_t>(out.numel()));
  backend.download(out, logits.data());
}

namespace {

// The search's view of the model: rows of one generate() call.
class ModelSteps final : public StepModel {
 public:
  explicit ModelSteps(Seq2SeqModel::Impl& model) : model_(model) {}
  std::int64_t vocab_size() const override { return model_.spec.decoder.vocab; }
  void step(std::span<const std::int32_t> tokens, std::vector<float>& logits) override {
    model_.decode(TokenIds(tokens.begin(), tokens.end()), 1, true, logits);
  }
  void select_rows(std::span<const std::int32_t> rows) override { model_.select_rows(rows); }
  int threads() const override { return model_.backend.threads(); }

 private:
  Seq2SeqModel::Impl& model_;
};

// The search over a shortlist of target ids: it sees ids 0..shortlist.size()-1, the model the
// shortlist's ids.
class ShortlistSteps final : public StepModel {
 public:
  ShortlistSteps(StepModel& model, const std::vector<std::int32_t>& shortlist) : model_(model), shortlist_(shortlist) {}
  std::int64_t vocab_size() const override { return static_cast<std::int64_t>(shortlist_.size()); }
  void step(std::span<const std::int32_t> tokens, std::vector<float>& logits) override {
    ids_.clear();
    for (std::int32_t t : tokens) ids_.push_back(shortlist_[static_cast<std::size_t>(t)]);
    model_.step(ids_, logits);
  }
  void select_rows(std::span<const std::int32_t> rows) override { model_.select_rows(rows); }
  int threads() const override { return model_.threads(); }

 private:
  StepModel& model_;
  const std::vector<std::int32_t>& shortlist_;
  std::vector<std::int32_t> ids_;
};

// The position of `id` in the sorted shortlist, or -1 (never generated, never matched).
std::int32_t shortlist_index(const std::vector<std::int32_t>& shortlist, std::int32_t id) {
  const auto at = std::lower_bound(shortlist.begin(), shortlist.end(), id);
  return at != shortlist.end() && *at == id ? static_cast<std::int32_t>(at - shortlist.begin()) : -1;
}

std::optional<std::int32_t> shortlist_index(const std::vector<std::int32_t>& shortlist, std::optional<std::int32_t> id) {
  if (!id) return std::nullopt;
  return shortlist_index(shortlist, *id);
}

// `settings` in shortlist positions. The ids the search needs are in the shortlist; a bad-words
// entry with a token outside it can never be completed and is dropped.
SearchSettings shortlisted(SearchSettings settings, const std::vector<std::int32_t>& shortlist) {
  settings.decoder_start_token_id = shortlist_index(shortlist, settings.decoder_start_token_id);
  settings.pad_token_id = shortlist_index(shortlist, settings.pad_token_id);
  settings.eos_token_id = shortlist_index(shortlist, settings.eos_token_id);
  settings.forced_bos_token_id = shortlist_index(shortlist, settings.forced_bos_token_id);
  settings.forced_eos_token_id = shortlist_index(shortlist, settings.forced_eos_token_id);
  settings.beam_masked_token_id = shortlist_index(shortlist, settings.beam_masked_token_id);
  std::vector<std::vector<std::int32_t>> bad_words;
  for (auto words : settings.bad_words_ids) {
    for (std::int32_t& token : words) token = shortlist_index(shortlist, token);
    if (std::find(words.begin(), words.end(), -1) == words.end()) bad_words.push_back(std::move(words));
  }
  settings.bad_words_ids = std::move(bad_words);
  return settings;
}

// `shortlist` with the ids the search needs, sorted and distinct; beam search needs 2 × num_beams
// candidates, so the lowest other ids fill a shortlist that is smaller.
std::vector<std::int32_t> completed_shortlist(std::vector<std::int32_t> shortlist, const SearchSettings& settings,
                                              std::int64_t vocab) {
  for (const auto id : {std::optional(settings.decoder_start_token_id), std::optional(settings.pad_token_id),
                        settings.eos_token_id, settings.forced_bos_token_id, settings.forced_eos_token_id})
    if (id) shortlist.push_back(*id);
  for (std::int32_t id : shortlist)
    if (id < 0 || id >= vocab) fail("shortlisted target id {} is outside the vocabulary ({})", id, vocab);
  std::sort(shortlist.begin(), shortlist.end());
  shortlist.erase(std::unique(shortlist.begin(), shortlist.end()), shortlist.end());
  const std::size_t needed = static_cast<std::size_t>(std::min<std::int64_t>(2 * settings.num_beams, vocab));
  for (std::int32_t id = 0; shortlist.size() < needed; ++id)
    if (shortlist_index(shortlist, id) < 0) shortlist.insert(std::lower_bound(shortlist.begin(), shortlist.end(), id), id);
  return shortlist;
}

std::vector<TokenIds> padded(const std::vector<TokenIds>& sequences, std::int32_t pad, std::int64_t& length) {
  length = 0;
  for (const auto& s : sequences) length = std::max<std::int64_t>(length, static_cast<std::int64_t>(s.size()));
  std::vector<TokenIds> out = sequences;
  for (auto& s : out) s.resize(static_cast<std::size_t>(length), pad);
  return out;
}

}  // namespace

Seq2SeqModel::Seq2SeqModel(const ModelSource& source, Backend& backend)
    : impl_(std::make_unique<Impl>(source, backend)) {}
Seq2SeqModel::~Seq2SeqModel() = default;

const Seq2SeqSpec& Seq2SeqModel::spec() const { return impl_->spec; }
std::size_t Seq2SeqModel::weight_bytes() const { return impl_->weight_bytes(); }
const WeightUses& Seq2SeqModel::weight_uses() const { return impl_->weight_uses(); }
const SearchSettings& Seq2SeqModel::default_settings() const { return impl_->defaults; }
void Seq2SeqModel::check_sources(const std::vector<TokenIds>& sources) const { impl_->check_sources(sources); }

std::vector<float> Seq2SeqModel::encode(const std::vector<TokenIds>& sources) {
  std::vector<float> hidden;
  impl_->encode(sources, &hidden);
  return hidden;
}

std::vector<float> Seq2SeqModel::decoder_logits(const std::vector<TokenIds>& sources,
                                                const std::vector<TokenIds>& decoder_inputs) {
  if (sources.size() != decoder_inputs.size()) fail("{} sources but {} decoder inputs", sources.size(), decoder_inputs.size());
  if (sources.empty()) return {};
  impl_->encode(sources, nullptr);
  std::int64_t length = 0;
  const auto inputs = padded(decoder_inputs, impl_->spec.pad_token_id, length);
  if (length == 0) fail("decoder inputs are empty");
  impl_->restrict_head({});
  impl_->start_decoder(static_cast<std::int64_t>(sources.size()), 1, length);
  TokenIds flat;
  for (const auto& s : inputs) flat.insert(flat.end(), s.begin(), s.end());
  std::vector<float> logits;
  impl_->decode(flat, length, false, logits);
  return logits;
}

std::vector<std::vector<Hypothesis>> Seq2SeqModel::generate(const std::vector<TokenIds>& sources,
                                                            const SearchSettings& settings,
                                                            std::vector<std::int32_t> shortlist) {
  settings.validate(impl_->spec.decoder.vocab);
  if (impl_->spec.max_positions > 0 && settings.max_length > impl_->spec.max_positions)
    fail("max_length {} exceeds the model's {} positions (max_position_embeddings)", settings.max_length,
         impl_->spec.max_positions);
  if (sources.empty()) return {};
  impl_->encode(sources, nullptr);
  const std::int64_t batch = static_cast<std::int64_t>(sources.size());
  const std::int64_t per_source = rows_per_source(settings);
  const bool beams = settings.num_beams > 1;
  // Beams of a source share its cross-attention group; sampled rows finish one by one, so each
  // gets a group of its own.
  impl_->start_decoder(batch, beams ? per_source : 1, std::min<std::int64_t>(settings.max_length, 64));
  if (!beams) impl_->expand_groups(per_source);
  ModelSteps steps(*impl_);
  if (shortlist.empty()) {
    impl_->restrict_head({});
    return invar::generate(steps, static_cast<int>(batch), settings, sources);
  }
  shortlist = completed_shortlist(std::move(shortlist), settings, impl_->spec.decoder.vocab);
  impl_->restrict_head(shortlist);
  std::vector<TokenIds> shortlisted_sources = sources;  // for encoder_no_repeat_ngram_size
  for (auto& source : shortlisted_sources)
    for (std::int32_t& id : source) id = shortlist_index(shortlist, id);
  ShortlistSteps restricted(steps, shortlist);
  auto results = invar::generate(restricted, static_cast<int>(batch), shortlisted(settings, shortlist),
                                 shortlisted_sources);
  for (auto& hyps : results)
    for (auto& hyp : hyps)
      for (std::int32_t& id : hyp.ids) id = shortlist[static_cast<std::size_t>(id)];
  return results;
}

std::vector<double> Seq2SeqModel::score(const std::vector<TokenIds>& sources, const std::vector<TokenIds>& targets,
                                        std::size_t given) {
  if (sources.size() != targets.size()) fail("{} sources but {} targets", sources.size(), targets.size());
  std::vector<TokenIds> inputs;
  for (const auto& target : targets) {
    if (target.size() <= given) fail("a target to score has no tokens after the {} given", given);
    for (std::int32_t id : target)
      if (id < 0 || id >= impl_->spec.decoder.vocab)
        fail("target token id {} is outside the vocabulary ({})", id, impl_->spec.decoder.vocab);
    TokenIds input{impl_->spec.decoder_start_token_id};
    input.insert(input.end(), target.begin(), target.end() - 1);
    inputs.push_back(std::move(input));
  }
  const auto logits = decoder_logits(sources, inputs);
  std::int64_t length = 0;
  for (const auto& s : inputs) length = std::max<std::int64_t>(length, static_cast<std::int64_t>(s.size()));
  const std::size_t vocab = static_cast<std::size_t>(impl_->spec.decoder.vocab);
  std::vector<double> scores;
  for (std::size_t b = 0; b < targets.size(); ++b) {
    double total = 0.0;
    for (std::size_t t = given; t < targets[b].size(); ++t) {
      const std::span<const float> row(logits.data() + (b * static_cast<std::size_t>(length) + t) * vocab, vocab);
      total += log_softmax_terms(row)(row[static_cast<std::size_t>(targets[b][t])]);
    }
    scores.push_back(total);
  }
  return scores;
}

}  // namespace invar
