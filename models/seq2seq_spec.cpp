#include "models/seq2seq_spec.hpp"

#include <cmath>

#include "core/error.hpp"

namespace invar {

namespace {

const char* const kFamilies = "marian, bart, mbart, pegasus, m2m_100 (NLLB), fsmt, t5";

std::int64_t get_int(const nlohmann::json& config, const char* key, const std::string& where) {
  auto it = config.find(key);
  if (it == config.end() || !it->is_number_integer()) fail("{}: field '{}' is missing or not an integer", where, key);
  const std::int64_t value = it->get<std::int64_t>();
  if (value < 0) fail("{}: field '{}' must not be negative, got {}", where, key, value);
  return value;
}

std::int64_t get_int(const nlohmann::json& config, const char* key, std::int64_t fallback, const std::string& where) {
  return config.contains(key) && !config[key].is_null() ? get_int(config, key, where) : fallback;
}

std::optional<std::int32_t> get_token(const nlohmann::json& config, const char* key) {
  auto it = config.find(key);
  if (it == config.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int32_t>();
}

std::int32_t require_token(const nlohmann::json& config, const char* key, const std::string& where) {
  auto token = get_token(config, key);
  if (!token) fail("{}: field '{}' is missing", where, key);
  return *token;
}

void read_bart_family(const nlohmann::json& config, const std::string& where, Seq2SeqSpec& spec) {
  spec.d_model = get_int(config, "d_model", where);
  spec.encoder_layers = get_int(config, "encoder_layers", where);
  spec.decoder_layers = get_int(config, "decoder_layers", where);
  spec.encoder_heads = get_int(config, "encoder_attention_heads", where);
  spec.decoder_heads = get_int(config, "decoder_attention_heads", where);
  spec.encoder_ffn = get_int(config, "encoder_ffn_dim", where);
  spec.decoder_ffn = get_int(config, "decoder_ffn_dim", where);
  spec.max_positions = get_int(config, "max_position_embeddings", where);
  if (spec.encoder_heads == 0 || spec.decoder_heads == 0 || spec.d_model % spec.encoder_heads != 0 ||
      spec.encoder_heads != spec.decoder_heads)
    fail("{}: d_model {} must split evenly over the attention heads ({} encoder, {} decoder)", where, spec.d_model,
         spec.encoder_heads, spec.decoder_heads);
  spec.head_dim = spec.d_model / spec.encoder_heads;
  spec.activation = parse_activation(config.value("activation_function", std::string("gelu")), where);
  if (config.value("scale_embedding", spec.model_type == "fsmt"))
    spec.embed_scale = std::sqrt(static_cast<float>(spec.d_model));
}

void read_t5(const nlohmann::json& config, const std::string& where, Seq2SeqSpec& spec) {
  spec.d_model = get_int(config, "d_model", where);
  spec.head_dim = get_int(config, "d_kv", where);
  spec.encoder_heads = spec.decoder_heads = get_int(config, "num_heads", where);
  spec.encoder_layers = get_int(config, "num_layers", where);
  spec.decoder_layers = get_int(config, "num_decoder_layers", spec.encoder_layers, where);
  spec.encoder_ffn = spec.decoder_ffn = get_int(config, "d_ff", where);
  spec.relative_buckets = get_int(config, "relative_attention_num_buckets", 32, where);
  spec.relative_max_distance = get_int(config, "relative_attention_max_distance", 128, where);
  spec.positions = PositionKind::Relative;
  spec.pre_norm = true;
  spec.rms_norm = true;
  spec.final_norm = true;
  spec.norm_eps = static_cast<float>(config.value("layer_norm_epsilon", 1e-6));
  spec.attention_scaling = false;
  // "ACT" or "gated-ACT" (T5Config): T5 v1.1 and flan-t5 say "gated-gelu", which T5Config maps to
  // gelu_new for backward compatibility.
  const std::string projection = config.value("feed_forward_proj", std::string("relu"));
  spec.gated_ffn = projection.starts_with("gated-");
  const std::string act = spec.gated_ffn ? projection.substr(6) : projection;
  spec.activation = projection == "gated-gelu" ? Activation::GeluTanh
                                               : parse_activation(act, fmt::format("{}: feed_forward_proj", where));
  if (config.value("tie_word_embeddings", true)) spec.lm_input_scale = 1.0f / std::sqrt(static_cast<float>(spec.d_model));
}

}  // namespace

Seq2SeqSpec seq2seq_spec(const nlohmann::json& config, const std::string& where) {
  Seq2SeqSpec spec;
  spec.model_type = config.value("model_type", std::string());
  const std::string& type = spec.model_type;
  const bool known = type == "marian" || type == "bart" || type == "mbart" || type == "pegasus" || type == "m2m_100" ||
                     type == "fsmt" || type == "t5";
  if (!known) {
    if (!config.value("is_encoder_decoder", false))
      fail("{}: model_type '{}' is an encoder-only model; generation needs an encoder-decoder ({})", where, type,
           kFamilies);
    fail("{}: model_type '{}' is not a supported encoder-decoder ({})", where, type, kFamilies);
  }
  if (type == "t5") {
    read_t5(config, where, spec);
  } else {
    read_bart_family(config, where, spec);
  }
  if (type == "fsmt") {
    spec.source_vocab = get_int(config, "src_vocab_size", where);
    spec.target_vocab = get_int(config, "tgt_vocab_size", where);
  } else {
    spec.source_vocab = spec.target_vocab = get_int(config, "vocab_size", where);
  }
  spec.pad_token_id = require_token(config, "pad_token_id", where);
  spec.eos_token_id = require_token(config, "eos_token_id", where);
  auto start = get_token(config, "decoder_start_token_id");
  if (!start) start = get_token(config, "bos_token_id");
  if (!start) fail("{}: neither 'decoder_start_token_id' nor 'bos_token_id' is set", where);
  spec.decoder_start_token_id = *start;

  if (type == "marian" || type == "pegasus") {
    spec.positions = PositionKind::SinusoidalHalves;
  } else if (type == "bart" || type == "mbart") {
    spec.positions = PositionKind::Learned;
    spec.position_offset = 2;  // fairseq's learned positions start after the padding index
  } else if (type == "m2m_100" || type == "fsmt") {
    spec.positions = PositionKind::SinusoidalFairseq;
    spec.position_offset = spec.pad_token_id + 1;
  }
  spec.pre_norm = spec.pre_norm || type == "mbart" || type == "pegasus" || type == "m2m_100";
  spec.final_norm = spec.final_norm || type == "mbart" || type == "pegasus" || type == "m2m_100";
  spec.layernorm_embedding = type == "bart" || type == "mbart";
  spec.final_logits_bias = type == "marian" || type == "bart" || type == "mbart" || type == "pegasus";

  const std::int64_t vocab = std::max(spec.source_vocab, spec.target_vocab);
  for (std::int32_t token : {spec.pad_token_id, spec.eos_token_id, spec.decoder_start_token_id})
    if (token < 0 || token >= vocab) fail("{}: special token id {} is outside the vocabulary ({})", where, token, vocab);
  return spec;
}

SearchSettings search_defaults(const nlohmann::json& config, const Seq2SeqSpec& spec) {
  const std::string where = "config.json";
  SearchSettings settings;
  settings.num_beams = static_cast<int>(get_int(config, "num_beams", 1, where));
  settings.num_return_sequences = static_cast<int>(get_int(config, "num_return_sequences", 1, where));
  settings.max_length = static_cast<int>(get_int(config, "max_length", 20, where));
  settings.min_length = static_cast<int>(get_int(config, "min_length", 0, where));
  settings.no_repeat_ngram_size = static_cast<int>(get_int(config, "no_repeat_ngram_size", 0, where));
  settings.length_penalty = config.value("length_penalty", 1.0);
  settings.early_stopping = config.value("early_stopping", false);
  settings.do_sample = config.value("do_sample", false);
  settings.temperature = config.value("temperature", 1.0);
  settings.top_k = static_cast<int>(get_int(config, "top_k", 50, where));
  settings.top_p = config.value("top_p", 1.0);
  if (config.contains("bad_words_ids") && config["bad_words_ids"].is_array())
    settings.bad_words_ids = config["bad_words_ids"].get<std::vector<std::vector<std::int32_t>>>();
  settings.forced_bos_token_id = get_token(config, "forced_bos_token_id");
  settings.forced_eos_token_id = get_token(config, "forced_eos_token_id");
  settings.decoder_start_token_id = spec.decoder_start_token_id;
  settings.eos_token_id = spec.eos_token_id;
  settings.pad_token_id = spec.pad_token_id;
  // MarianMTModel.adjust_logits_during_generation: the pad token is never predicted in beam search.
  if (spec.model_type == "marian") settings.beam_masked_token_id = spec.pad_token_id;
  return settings;
}

namespace {

struct LayerNames {
  std::string self_attn, cross_attn, self_norm, cross_norm, ffn_norm, ffn_in, ffn_gate, ffn_out;
  const char* q;
  const char* k;
  const char* v;
  const char* o;
};

void add_linear(std::vector<WeightName>& names, const std::string& canonical, const std::string& stored, bool bias) {
  names.push_back({canonical + ".weight", {stored + ".weight"}, true});
  if (bias) names.push_back({canonical + ".bias", {stored + ".bias"}, true});
}

void add_norm(std::vector<WeightName>& names, const std::string& canonical, const std::string& stored, bool bias) {
  add_linear(names, canonical, stored, bias);
}

void add_attention(std::vector<WeightName>& names, const std::string& canonical, const std::string& stored,
                   const LayerNames& layer, bool bias) {
  add_linear(names, canonical + ".q", stored + "." + layer.q, bias);
  add_linear(names, canonical + ".k", stored + "." + layer.k, bias);
  add_linear(names, canonical + ".v", stored + "." + layer.v, bias);
  add_linear(names, canonical + ".o", stored + "." + layer.o, bias);
}

}  // namespace

std::vector<WeightName> seq2seq_weight_names(const Seq2SeqSpec& spec, const nlohmann::json& config) {
  const bool t5 = spec.model_type == "t5";
  const bool bias = !t5;
  const bool fsmt = spec.model_type == "fsmt";
  std::vector<WeightName> names;
  for (const std::string stack : {"enc", "dec"}) {
    const bool decoder = stack == "dec";
    const std::string prefix = t5 ? (decoder ? "decoder." : "encoder.") : (decoder ? "model.decoder." : "model.encoder.");
    const std::string shared = t5 ? "shared.weight" : "model.shared.weight";
    WeightName embed{stack + ".embed_tokens", {prefix + "embed_tokens.weight"}, true};
    const bool separate_decoder_embeddings = fsmt || !config.value("share_encoder_decoder_embeddings", true);
    if (!(decoder && separate_decoder_embeddings) && !fsmt) embed.stored.insert(embed.stored.begin(), shared);
    names.push_back(embed);
    if (spec.positions == PositionKind::Relative) {
      names.push_back({stack + ".relative_attention_bias",
                       {prefix + "block.0.layer.0.SelfAttention.relative_attention_bias.weight"}, true});
    } else {
      const std::string table = spec.model_type == "m2m_100" ? "embed_positions.weights" : "embed_positions.weight";
      names.push_back({stack + ".embed_positions", {prefix + table}, spec.positions == PositionKind::Learned});
    }
    if (spec.layernorm_embedding) add_norm(names, stack + ".embed_norm", prefix + "layernorm_embedding", true);
    if (spec.final_norm) add_norm(names, stack + ".final_norm", prefix + (t5 ? "final_layer_norm" : "layer_norm"), bias);

    const std::int64_t layers = decoder ? spec.decoder_layers : spec.encoder_layers;
    for (std::int64_t i = 0; i < layers; ++i) {
      const std::string canonical = stack + ".layers." + std::to_string(i);
      LayerNames layer;
      std::string stored;
      if (t5) {
        stored = prefix + "block." + std::to_string(i) + ".layer.";
        const std::string ffn = decoder ? "2" : "1";
        layer = {"0.SelfAttention", "1.EncDecAttention", "0.layer_norm", "1.layer_norm", ffn + ".layer_norm",
                 ffn + (spec.gated_ffn ? ".DenseReluDense.wi_1" : ".DenseReluDense.wi"), ffn + ".DenseReluDense.wi_0",
                 ffn + ".DenseReluDense.wo", "q", "k", "v", "o"};
      } else {
        stored = prefix + "layers." + std::to_string(i) + ".";
        layer = {"self_attn", "encoder_attn", "self_attn_layer_norm", "encoder_attn_layer_norm", "final_layer_norm",
                 "fc1", "", "fc2", "q_proj", "k_proj", "v_proj", "out_proj"};
      }
      add_attention(names, canonical + ".self_attn", stored + layer.self_attn, layer, bias);
      add_norm(names, canonical + ".self_attn_norm", stored + layer.self_norm, bias);
      if (decoder) {
        add_attention(names, canonical + ".cross_attn", stored + layer.cross_attn, layer, bias);
        add_norm(names, canonical + ".cross_attn_norm", stored + layer.cross_norm, bias);
      }
      add_linear(names, canonical + ".ffn.in", stored + layer.ffn_in, bias);
      if (spec.gated_ffn) add_linear(names, canonical + ".ffn.gate", stored + layer.ffn_gate, bias);
      add_linear(names, canonical + ".ffn.out", stored + layer.ffn_out, bias);
      add_norm(names, canonical + ".ffn_norm", stored + layer.ffn_norm, bias);
    }
  }
  // The LM head: tied to the (decoder) embeddings unless the config unties it.
  WeightName head{"lm_head", {"lm_head.weight"}, true};
  if (fsmt) {
    head.stored = {"model.decoder.output_projection.weight", "model.decoder.embed_tokens.weight"};
  } else if (config.value("tie_word_embeddings", true)) {
    head.stored.insert(head.stored.begin(), t5 ? "shared.weight" : "model.shared.weight");
    if (!config.value("share_encoder_decoder_embeddings", true))
      head.stored.insert(head.stored.begin(), "model.decoder.embed_tokens.weight");
  }
  names.push_back(head);
  if (spec.final_logits_bias) names.push_back({"final_logits_bias", {"final_logits_bias"}, false});
  return names;
}

}  // namespace invar
