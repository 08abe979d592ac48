#pragma once
// The encoder-only families as one spec: BERT, RoBERTa, XLM-R and MPNet differ in data (how
// positions are numbered, token types, a relative position bias, head layouts), read from
// config.json, plus a table from Hugging Face weight names to canonical names. One implementation
// (engine/encoder.cpp) runs them all.
#include <cstdint>
#include <string>
#include <vector>

#include "core/activation.hpp"
#include "models/hf_config.hpp"
#include "models/weight_name.hpp"

namespace invar {

// How a checkpoint's sequence-classification head is built.
enum class ClassifierKind : std::uint8_t {
  Pooler,  // BertForSequenceClassification: pooler (dense + tanh on [CLS]), then classifier
  Dense,   // RobertaClassificationHead (RoBERTa, XLM-R, MPNet): dense + tanh on <s>, then out_proj
};

struct EncoderSpec {
  ModelFamily family = ModelFamily::Bert;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t layers = 0;
  std::int64_t ffn = 0;
  std::int64_t vocab = 0;
  std::int64_t type_vocab = 0;     // 0: no token-type embeddings (MPNet)
  std::int64_t position_rows = 0; // rows of the position table (max_position_embeddings)
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
  ClassifierKind classifier = ClassifierKind::Pooler;
  std::int64_t num_labels = 0;
  bool regression = false;   // num_labels == 1 (Hugging Face's regression problem type)
  bool multi_label = false;  // problem_type multi_label_classification: sigmoid, not softmax
  std::vector<std::string> labels;  // id2label names, by id
};

// Reads the spec from config.json (parsed by models/hf_config). Fails naming the file for an
// encoder-decoder or an unsupported setting (relative_key positions, unknown activation).
EncoderSpec encoder_spec(const ModelConfig& config);

// Canonical names (optional ones in brackets, loaded when the checkpoint has them):
// "embed.{tokens,positions,[types]}", "embed.norm.{weight,bias}", ["relative_attention_bias"],
// "layers.N.attn.{q,k,v,o}.{weight,bias}", "layers.N.attn_norm.{weight,bias}",
// "layers.N.ffn.{in,out}.{weight,bias}", "layers.N.ffn_norm.{weight,bias}",
// ["pooler.{weight,bias}"], ["classifier.{weight,bias}"] (BERT), ["classifier.dense.{weight,bias}",
// "classifier.out.{weight,bias}"], ["mlm.dense.{weight,bias}", "mlm.norm.{weight,bias}",
// "mlm.decoder", "mlm.bias"].
std::vector<WeightName> encoder_weight_names(const EncoderSpec& spec);

}  // namespace invar
