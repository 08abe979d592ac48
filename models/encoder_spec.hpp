#pragma once
// The encoder-only families as one spec: BERT, RoBERTa, XLM-R, MPNet, DistilBERT, ELECTRA, ALBERT
// and DeBERTa-v2 differ in data (how positions are numbered, token types, a relative position bias
// or disentangled attention, factorized embeddings, shared layers, head layouts), read from
// config.json, plus a table from Hugging Face weight names to canonical names. One implementation
// (engine/encoder.cpp) runs them all.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/activation.hpp"
#include "models/hf_config.hpp"
#include "models/weight_name.hpp"

namespace invar {

// How a checkpoint's sequence-classification head is built; both take the first token's hidden
// state through a dense layer and an activation, then a linear layer.
enum class ClassifierKind : std::uint8_t {
  Pooler,  // BertForSequenceClassification, ALBERT's: the pooler (dense + pooler_activation), then
           // classifier; DeBERTa-v2's ContextPooler the same with its pooler_hidden_act
  Dense,   // RobertaClassificationHead (RoBERTa, XLM-R, MPNet: tanh), ElectraClassificationHead (gelu),
           // DistilBERT's pre_classifier (relu): dense + dense_activation, then out_proj / classifier
};

// DeBERTa-v2's disentangled attention: scores add content→position (c2p) and position→content
// (p2c) terms, query and key against projections of a layer-normed table of relative-position
// embeddings, at log-bucketed relative positions.
struct DisentangledAttention {
  bool c2p = false, p2c = false;
  std::int64_t span = 0;           // att_span: rel_embeddings rows used are 2·span
  std::int64_t buckets = 0;        // position_buckets (0: offsets clamped, not log-bucketed)
  std::int64_t max_positions = 0;  // max_relative_positions
  bool norm = false;               // norm_rel_ebd layer_norm
  // 1 + the number of position terms: scores are divided by sqrt(head_dim · scale_factor).
  std::int64_t scale_factor() const { return 1 + (c2p ? 1 : 0) + (p2c ? 1 : 0); }
};

struct EncoderSpec {
  ModelFamily family = ModelFamily::Bert;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t layers = 0;
  std::int64_t ffn = 0;
  std::int64_t vocab = 0;
  std::int64_t type_vocab = 0;     // 0: no token-type embeddings (MPNet, DistilBERT, DeBERTa-v3)
  std::int64_t position_rows = 0; // rows of the position table (max_position_embeddings)
  bool absolute_positions = true; // false: no position table (DeBERTa-v2 position_biased_input false)
  // Width of the embedding tables. When it differs from hidden (ELECTRA, ALBERT always), a linear
  // projection "embed.project" widens the embeddings: after their LayerNorm (ELECTRA, ALBERT, with
  // a bias) or before it (DeBERTa-v2, without).
  std::int64_t embedding_size = 0;
  bool project_embeddings = false;
  bool norm_after_project = false;
  // ALBERT: layer l runs stored group floor(l / (layers / layer_groups)), whose inner_layers
  // stored layers run in turn; elsewhere every layer is its own (layer_groups = layers, inner 1).
  std::int64_t layer_groups = 0;
  std::int64_t inner_layers = 1;
  // RoBERTa, XLM-R, MPNet number positions like fairseq: padding at pad_token_id, real tokens
  // from pad_token_id + 1 (create_position_ids_from_input_ids); BERT from 0.
  bool fairseq_positions = false;
  std::int64_t max_tokens = 0;     // longest input the position table allows
  std::int32_t pad_token_id = 0;
  Activation activation = Activation::GeluErf;
  Activation mlm_activation = Activation::GeluErf;  // BERT's transform uses hidden_act; the others gelu
  float norm_eps = 1e-12f;
  std::int64_t relative_buckets = 0;       // MPNet: 32
  std::int64_t relative_max_distance = 0;  // MPNet: 128 (fixed in Hugging Face's code)
  DisentangledAttention disentangled;  // DeBERTa-v2 relative_attention; off elsewhere
  ClassifierKind classifier = ClassifierKind::Pooler;
  Activation pooler_activation = Activation::Tanh;  // the pooler's (DeBERTa-v2: pooler_hidden_act)
  Activation dense_activation = Activation::Tanh;   // the Dense head's
  std::int64_t num_labels = 0;
  bool regression = false;   // num_labels == 1 (Hugging Face's regression problem type)
  bool multi_label = false;  // problem_type multi_label_classification: sigmoid, not softmax
  std::vector<std::string> labels;  // id2label names, by id
  std::map<std::string, std::int64_t> label2id;  // config.json's, which the zero-shot pipeline reads
  std::string config_where;  // config.json's path, for messages
};

// Reads the spec from config.json (parsed by models/hf_config). Fails naming the file for an
// encoder-decoder or an unsupported setting (relative_key positions, unknown activation).
EncoderSpec encoder_spec(const ModelConfig& config);

// The stored layer (index into the "layers.N." weights) that runs as inner layer `inner` of
// layer `layer`.
std::int64_t stored_layer(const EncoderSpec& spec, std::int64_t layer, std::int64_t inner);
std::int64_t stored_layers(const EncoderSpec& spec);

// Canonical names (optional ones in brackets, loaded when the checkpoint has them):
// "embed.{tokens,[positions],[types]}", "embed.norm.{weight,bias}", ["embed.project.{weight,[bias]}"],
// ["relative_attention_bias"], ["rel.embeddings", "rel.norm.{weight,bias}"] (DeBERTa-v2),
// "layers.N.attn.{q,k,v,o}.{weight,bias}", "layers.N.attn_norm.{weight,bias}",
// "layers.N.ffn.{in,out}.{weight,bias}", "layers.N.ffn_norm.{weight,bias}",
// ["pooler.{weight,bias}"], ["classifier.{weight,bias}"] (BERT), ["classifier.dense.{weight,bias}",
// "classifier.out.{weight,bias}"], ["mlm.dense.{weight,bias}", "mlm.norm.{weight,bias}",
// "mlm.decoder", "mlm.bias"].
std::vector<WeightName> encoder_weight_names(const EncoderSpec& spec);

}  // namespace invar
