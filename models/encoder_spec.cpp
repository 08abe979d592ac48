#include "models/encoder_spec.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace invar {

EncoderSpec encoder_spec(const ModelConfig& config) {
  const std::string& where = config.where;
  const ModelFamily family = config.family;
  const Family& row = invar::family(family);
  if (row.kind != ModelKind::Encoder)
    fail("{}: model_type '{}' is not an encoder-only model ({})", where, config.model_type,
         model_types(ModelKind::Encoder));
  if (!config.position_embedding_type.empty() && config.position_embedding_type != "absolute")
    fail("{}: position_embedding_type '{}' is not supported (absolute)", where, config.position_embedding_type);
  EncoderSpec spec;
  spec.family = family;
  spec.hidden = config.hidden_size;
  spec.heads = config.encoder_attention_heads;
  spec.head_dim = config.head_dim;
  spec.layers = config.encoder_layers;
  spec.ffn = config.encoder_ffn_dim;
  spec.vocab = config.vocab_size;
  spec.type_vocab = config.type_vocab_size;
  spec.position_rows = config.max_position_embeddings;
  spec.pad_token_id = static_cast<std::int32_t>(config.pad_token_id.value_or(0));
  if (spec.pad_token_id < 0 || spec.pad_token_id >= spec.vocab)
    fail("{}: pad_token_id {} is outside the vocabulary ({})", where, spec.pad_token_id, spec.vocab);
  spec.fairseq_positions = row.first_position == FirstPosition::AfterPad;
  spec.max_tokens = spec.fairseq_positions ? spec.position_rows - spec.pad_token_id - 1 : spec.position_rows;
  if (spec.max_tokens < 2)
    fail("{}: max_position_embeddings {} leaves no room for a sequence", where, spec.position_rows);
  spec.activation = parse_activation(config.activation, where);
  // BertPredictionHeadTransform applies hidden_act; RobertaLMHead (and XLM-R's, MPNet's) always gelu.
  spec.mlm_activation = family == ModelFamily::Bert ? spec.activation : Activation::GeluErf;
  spec.norm_eps = static_cast<float>(config.layer_norm_eps);
  if (row.relative_attention_bias) {
    spec.relative_buckets = config.relative_attention_num_buckets;
    spec.relative_max_distance = 128;
    if (spec.relative_buckets < 4) fail("{}: relative_attention_num_buckets must be at least 4", where);
  }
  spec.embedding_size = config.embedding_size > 0 ? config.embedding_size : spec.hidden;
  // ALBERT maps its embeddings to the hidden width whatever the two sizes.
  spec.project_embeddings = family == ModelFamily::Albert || spec.embedding_size != spec.hidden;
  spec.norm_after_project = family == ModelFamily::DebertaV2;
  spec.layer_groups = family == ModelFamily::Albert ? config.num_hidden_groups : spec.layers;
  spec.inner_layers = family == ModelFamily::Albert ? config.inner_group_num : 1;
  if (family == ModelFamily::DebertaV2) {
    spec.absolute_positions = config.position_biased_input;
    if (config.relative_attention) {
      DisentangledAttention& d = spec.disentangled;
      d.c2p = std::find(config.pos_att_type.begin(), config.pos_att_type.end(), "c2p") != config.pos_att_type.end();
      d.p2c = std::find(config.pos_att_type.begin(), config.pos_att_type.end(), "p2c") != config.pos_att_type.end();
      d.buckets = config.position_buckets;
      d.max_positions = config.max_relative_positions;
      d.span = d.buckets > 0 ? d.buckets : d.max_positions;
      d.norm = config.norm_rel_ebd == "layer_norm";
      if ((d.c2p || d.p2c) && !config.share_att_key)
        fail("{}: share_att_key false (separate position projections) is not supported", where);
    }
  }
  spec.classifier = row.pooler_classifier ? ClassifierKind::Pooler : ClassifierKind::Dense;
  // ElectraClassificationHead uses gelu, DistilBERT's pre_classifier relu, DeBERTa's ContextPooler
  // pooler_hidden_act.
  spec.dense_activation = family == ModelFamily::Electra      ? Activation::GeluErf
                          : family == ModelFamily::DistilBert ? Activation::Relu
                                                              : Activation::Tanh;
  if (family == ModelFamily::DebertaV2) spec.pooler_activation = parse_activation(config.pooler_hidden_act, where);
  spec.num_labels = config.num_labels();
  spec.regression = config.problem_type == ProblemType::Regression || spec.num_labels == 1;
  spec.multi_label = config.problem_type == ProblemType::MultiLabelClassification;
  for (std::int64_t i = 0; i < spec.num_labels; ++i) {
    const auto it = config.id2label.find(i);
    spec.labels.push_back(it != config.id2label.end() ? it->second : "LABEL_" + std::to_string(i));
  }
  spec.label2id = config.label2id;
  spec.config_where = config.where;
  return spec;
}

namespace {

void add(std::vector<WeightName>& names, const std::string& canonical, std::vector<std::string> stored,
         bool required = true) {
  names.push_back({canonical, std::move(stored), required});
}

// "<canonical>.weight" and "<canonical>.bias" under each of the stored prefixes.
void add_pair(std::vector<WeightName>& names, const std::string& canonical, const std::vector<std::string>& stored,
              bool required = true) {
  for (const char* part : {".weight", ".bias"}) {
    std::vector<std::string> full;
    for (const auto& s : stored) full.push_back(s + part);
    add(names, canonical + part, full, required);
  }
}

}  // namespace

std::int64_t stored_layers(const EncoderSpec& spec) { return spec.layer_groups * spec.inner_layers; }

std::int64_t stored_layer(const EncoderSpec& spec, std::int64_t layer, std::int64_t inner) {
  // AlbertTransformer: int(i / (num_hidden_layers / num_hidden_groups)), in Python floats.
  const double per_group = static_cast<double>(spec.layers) / static_cast<double>(spec.layer_groups);
  const auto group = static_cast<std::int64_t>(static_cast<double>(layer) / per_group);
  return group * spec.inner_layers + inner;
}

namespace {

// Where a family stores one layer's weights, under the layer's prefix.
struct LayerNames {
  const char *q, *k, *v, *o, *attn_norm, *ffn_in, *ffn_out, *ffn_norm;
};

// BertLayer and its copies (RoBERTa, XLM-R, ELECTRA).
constexpr LayerNames kBertLayer{"attention.self.query", "attention.self.key", "attention.self.value",
                                "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense",
                                "output.dense", "output.LayerNorm"};

LayerNames layer_names(ModelFamily family) {
  switch (family) {
    case ModelFamily::Mpnet:
      return {"attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o", "attention.LayerNorm",
              kBertLayer.ffn_in, kBertLayer.ffn_out, kBertLayer.ffn_norm};
    case ModelFamily::DistilBert:
      return {"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin", "sa_layer_norm",
              "ffn.lin1", "ffn.lin2", "output_layer_norm"};
    case ModelFamily::Albert:
      return {"attention.query", "attention.key", "attention.value", "attention.dense", "attention.LayerNorm", "ffn",
              "ffn_output", "full_layer_layer_norm"};
    case ModelFamily::DebertaV2:
      return {"attention.self.query_proj", "attention.self.key_proj", "attention.self.value_proj",
              kBertLayer.o, kBertLayer.attn_norm, kBertLayer.ffn_in, kBertLayer.ffn_out, kBertLayer.ffn_norm};
    default:
      return kBertLayer;
  }
}

// The prefix of stored layer i: ALBERT numbers its layers within their groups.
std::string layer_prefix(const EncoderSpec& spec, std::int64_t i) {
  switch (spec.family) {
    case ModelFamily::DistilBert:
      return "transformer.layer." + std::to_string(i) + ".";
    case ModelFamily::Albert:
      return "encoder.albert_layer_groups." + std::to_string(i / spec.inner_layers) + ".albert_layers." +
             std::to_string(i % spec.inner_layers) + ".";
    default:
      return "encoder.layer." + std::to_string(i) + ".";
  }
}

// The prefix of the base model inside task models ("bert.embeddings...").
std::string base_prefix(ModelFamily family) {
  switch (family) {
    case ModelFamily::Bert: return "bert.";
    case ModelFamily::Mpnet: return "mpnet.";
    case ModelFamily::DistilBert: return "distilbert.";
    case ModelFamily::Electra: return "electra.";
    case ModelFamily::Albert: return "albert.";
    case ModelFamily::DebertaV2: return "deberta.";
    default: return "roberta.";
  }
}

}  // namespace

std::vector<WeightName> encoder_weight_names(const EncoderSpec& spec) {
  const ModelFamily family = spec.family;
  // Task models prefix the base model ("roberta.embeddings..."); base models, as sentence-
  // transformers saves them, do not.
  const std::string base = base_prefix(family);
  const auto both = [&](const std::string& name) { return std::vector<std::string>{base + name, name}; };
  std::vector<WeightName> names;
  add(names, "embed.tokens", both("embeddings.word_embeddings.weight"));
  if (spec.absolute_positions) add(names, "embed.positions", both("embeddings.position_embeddings.weight"));
  if (spec.type_vocab > 0) add(names, "embed.types", both("embeddings.token_type_embeddings.weight"));
  add_pair(names, "embed.norm", both("embeddings.LayerNorm"));
  if (spec.project_embeddings) {
    if (family == ModelFamily::DebertaV2) {
      add(names, "embed.project.weight", both("embeddings.embed_proj.weight"));
    } else {
      add_pair(names, "embed.project",
               both(family == ModelFamily::Albert ? "encoder.embedding_hidden_mapping_in" : "embeddings_project"));
    }
  }
  if (family == ModelFamily::Mpnet)
    add(names, "relative_attention_bias", both("encoder.relative_attention_bias.weight"));
  if (spec.disentangled.c2p || spec.disentangled.p2c) {
    add(names, "rel.embeddings", both("encoder.rel_embeddings.weight"));
    if (spec.disentangled.norm) add_pair(names, "rel.norm", both("encoder.LayerNorm"));
  }
  const LayerNames stored = layer_names(family);
  for (std::int64_t i = 0; i < stored_layers(spec); ++i) {
    const std::string canonical = "layers." + std::to_string(i) + ".", prefix = layer_prefix(spec, i);
    add_pair(names, canonical + "attn.q", both(prefix + stored.q));
    add_pair(names, canonical + "attn.k", both(prefix + stored.k));
    add_pair(names, canonical + "attn.v", both(prefix + stored.v));
    add_pair(names, canonical + "attn.o", both(prefix + stored.o));
    add_pair(names, canonical + "attn_norm", both(prefix + stored.attn_norm));
    add_pair(names, canonical + "ffn.in", both(prefix + stored.ffn_in));
    add_pair(names, canonical + "ffn.out", both(prefix + stored.ffn_out));
    add_pair(names, canonical + "ffn_norm", both(prefix + stored.ffn_norm));
  }
  switch (family) {
    case ModelFamily::Bert:
      add_pair(names, "pooler", both("pooler.dense"), false);
      add_pair(names, "classifier", {"classifier"}, false);
      add_pair(names, "mlm.dense", {"cls.predictions.transform.dense"}, false);
      add_pair(names, "mlm.norm", {"cls.predictions.transform.LayerNorm"}, false);
      // The decoder is tied to the word embeddings; checkpoints may store it either way.
      add(names, "mlm.decoder", {"cls.predictions.decoder.weight", base + "embeddings.word_embeddings.weight"}, false);
      add(names, "mlm.bias", {"cls.predictions.bias", "cls.predictions.decoder.bias"}, false);
      break;
    case ModelFamily::Albert:
      add_pair(names, "pooler", both("pooler"), false);
      add_pair(names, "classifier", {"classifier"}, false);
      break;
    case ModelFamily::DebertaV2:
      // The ContextPooler of DebertaV2ForSequenceClassification sits outside the base model.
      add_pair(names, "pooler", both("pooler.dense"), false);
      add_pair(names, "classifier", {"classifier"}, false);
      break;
    case ModelFamily::DistilBert:
      add_pair(names, "classifier.dense", {"pre_classifier"}, false);
      add_pair(names, "classifier.out", {"classifier"}, false);
      break;
    case ModelFamily::Electra:
      add_pair(names, "classifier.dense", {"classifier.dense"}, false);
      add_pair(names, "classifier.out", {"classifier.out_proj"}, false);
      break;
    default:
      add_pair(names, "pooler", both("pooler.dense"), false);
      add_pair(names, "classifier.dense", {"classifier.dense"}, false);
      add_pair(names, "classifier.out", {"classifier.out_proj"}, false);
      add_pair(names, "mlm.dense", {"lm_head.dense"}, false);
      add_pair(names, "mlm.norm", {"lm_head.layer_norm"}, false);
      add(names, "mlm.decoder", {"lm_head.decoder.weight", base + "embeddings.word_embeddings.weight"}, false);
      add(names, "mlm.bias", {"lm_head.bias", "lm_head.decoder.bias"}, false);
  }
  return names;
}

}  // namespace invar
