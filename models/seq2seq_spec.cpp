#include "models/seq2seq_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace invar {

namespace {

float as_float(double value) { return static_cast<float>(value); }

// BartAttention and its relatives: head_dim = d_model / heads, per stack (the config reader checked
// that each head count divides d_model); T5's d_kv is its own field, shared by both stacks.
StackSizes stack_sizes(const ModelConfig& c, std::int64_t layers, std::int64_t heads, std::int64_t ffn,
                       std::int64_t vocab) {
  const std::int64_t head_dim = c.family == ModelFamily::T5 ? c.head_dim : c.hidden_size / heads;
  return {layers, heads, head_dim, ffn, vocab};
}

// What T5 computes unlike the BART family: relative position buckets, unscaled attention scores, a
// gated feed-forward (v1.1), and a rescaled LM-head input when the embeddings are tied.
void set_t5_computation(const ModelConfig& c, Seq2SeqSpec& spec) {
  spec.relative_buckets = c.relative_attention_num_buckets;
  spec.relative_max_distance = c.relative_attention_max_distance;
  spec.attention_scaling = false;
  spec.gated_ffn = c.is_gated_act;
  if (c.tie_word_embeddings) spec.lm_input_scale = 1.0f / std::sqrt(static_cast<float>(spec.d_model));
}

}  // namespace

Seq2SeqSpec seq2seq_spec(const ModelConfig& c) {
  const Family& row = family(c.family);
  if (row.kind != ModelKind::Seq2Seq)
    fail("{}: model_type '{}' is an encoder-only model; generation needs an encoder-decoder ({})", c.where,
         c.model_type, model_types(ModelKind::Seq2Seq));
  Seq2SeqSpec spec;
  spec.family = c.family;
  spec.model_type = c.model_type;
  spec.d_model = c.hidden_size;
  spec.encoder = stack_sizes(c, c.encoder_layers, c.encoder_attention_heads, c.encoder_ffn_dim, c.vocab_size);
  spec.decoder = stack_sizes(c, c.decoder_layers, c.decoder_attention_heads, c.decoder_ffn_dim, c.target_vocab_size);
  spec.max_positions = c.max_position_embeddings;
  const char* activation_field = c.family == ModelFamily::T5 ? "feed_forward_proj" : "activation_function";
  spec.activation = parse_activation(c.activation, fmt::format("{}: {}", c.where, activation_field));

  spec.positions = row.positions;
  spec.pre_norm = row.pre_norm;
  spec.final_norm = row.final_norm;
  spec.rms_norm = row.rms_norm;
  spec.layernorm_embedding = row.embedding_norm;
  spec.final_logits_bias = row.final_logits_bias;
  spec.beam_masks_pad = row.beam_masks_pad;
  spec.norm_eps = as_float(c.layer_norm_eps);
  if (c.scale_embedding) spec.embed_scale = std::sqrt(static_cast<float>(spec.d_model));
  if (c.family == ModelFamily::T5) set_t5_computation(c, spec);
  for (const auto& architecture : c.architectures)
    if (architecture.ends_with("ForSequenceClassification")) {
      // transformers 4.19's heads on an encoder-decoder: BART's and mBART's read the last EOS.
      if (c.family != ModelFamily::Bart && c.family != ModelFamily::MBart)
        fail("{}: architecture '{}' is not supported (sequence classification: BART and mBART)", c.where, architecture);
      spec.sequence_classifier = true;
      spec.num_labels = c.num_labels();
    }

  if (!c.pad_token_id) fail("{}: field 'pad_token_id' is missing", c.where);
  if (!c.eos_token_id) fail("{}: field 'eos_token_id' is missing", c.where);
  // generate(): decoder_start_token_id, else bos_token_id.
  const auto start = c.decoder_start_token_id ? c.decoder_start_token_id : c.bos_token_id;
  if (!start) fail("{}: neither 'decoder_start_token_id' nor 'bos_token_id' is set", c.where);
  // Padding fills both stacks' inputs; EOS and the start token are decoder tokens.
  const std::int64_t pad_vocab = std::min(spec.encoder.vocab, spec.decoder.vocab);
  if (*c.pad_token_id >= pad_vocab)
    fail("{}: pad_token_id {} is outside the vocabulary ({})", c.where, *c.pad_token_id, pad_vocab);
  for (std::int64_t token : {*c.eos_token_id, *start})
    if (token >= spec.decoder.vocab)
      fail("{}: special token id {} is outside the target vocabulary ({})", c.where, token, spec.decoder.vocab);
  spec.pad_token_id = static_cast<std::int32_t>(*c.pad_token_id);
  spec.eos_token_id = static_cast<std::int32_t>(*c.eos_token_id);
  spec.decoder_start_token_id = static_cast<std::int32_t>(*start);
  switch (row.first_position) {
    case FirstPosition::Zero:
      break;
    case FirstPosition::Two:
      spec.position_offset = 2;  // fairseq's learned positions start after the padding index
      break;
    case FirstPosition::AfterPad:
      spec.position_offset = spec.pad_token_id + 1;
  }
  return spec;
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

std::vector<WeightName> seq2seq_weight_names(const Seq2SeqSpec& spec, const ModelConfig& config) {
  const bool t5 = spec.family == ModelFamily::T5;
  const bool bias = !t5;
  const bool fsmt = spec.family == ModelFamily::Fsmt;
  std::vector<WeightName> names;
  for (const std::string stack : {"enc", "dec"}) {
    const bool decoder = stack == "dec";
    const std::string prefix = t5 ? (decoder ? "decoder." : "encoder.") : (decoder ? "model.decoder." : "model.encoder.");
    const std::string shared = t5 ? "shared.weight" : "model.shared.weight";
    WeightName embed{stack + ".embed_tokens", {prefix + "embed_tokens.weight"}, true};
    const bool separate_decoder_embeddings = fsmt || !config.share_encoder_decoder_embeddings;
    if (!(decoder && separate_decoder_embeddings) && !fsmt) embed.stored.insert(embed.stored.begin(), shared);
    names.push_back(embed);
    if (spec.positions == PositionKind::Relative) {
      names.push_back({stack + ".relative_attention_bias",
                       {prefix + "block.0.layer.0.SelfAttention.relative_attention_bias.weight"}, true});
    } else {
      const std::string table = spec.family == ModelFamily::M2M100 ? "embed_positions.weights" : "embed_positions.weight";
      names.push_back({stack + ".embed_positions", {prefix + table}, spec.positions == PositionKind::Learned});
    }
    if (spec.layernorm_embedding) add_norm(names, stack + ".embed_norm", prefix + "layernorm_embedding", true);
    if (spec.final_norm) add_norm(names, stack + ".final_norm", prefix + (t5 ? "final_layer_norm" : "layer_norm"), bias);

    const std::int64_t layers = (decoder ? spec.decoder : spec.encoder).layers;
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
  } else if (config.tie_word_embeddings) {
    head.stored.insert(head.stored.begin(), t5 ? "shared.weight" : "model.shared.weight");
    if (!config.share_encoder_decoder_embeddings)
      head.stored.insert(head.stored.begin(), "model.decoder.embed_tokens.weight");
  }
  names.push_back(head);
  if (spec.final_logits_bias) names.push_back({"final_logits_bias", {"final_logits_bias"}, false});
  if (spec.sequence_classifier) {
    add_linear(names, "classifier.dense", "classification_head.dense", true);
    add_linear(names, "classifier.out_proj", "classification_head.out_proj", true);
  }
  return names;
}

}  // namespace invar
