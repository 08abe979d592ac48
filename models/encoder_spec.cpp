#include "models/encoder_spec.hpp"

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
  spec.classifier = row.pooler_classifier ? ClassifierKind::Pooler : ClassifierKind::Dense;
  spec.num_labels = config.num_labels();
  spec.regression = config.problem_type == ProblemType::Regression || spec.num_labels == 1;
  spec.multi_label = config.problem_type == ProblemType::MultiLabelClassification;
  for (std::int64_t i = 0; i < spec.num_labels; ++i) {
    const auto it = config.id2label.find(i);
    spec.labels.push_back(it != config.id2label.end() ? it->second : "LABEL_" + std::to_string(i));
  }
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

std::vector<WeightName> encoder_weight_names(const EncoderSpec& spec) {
  const bool bert = spec.family == ModelFamily::Bert, mpnet = spec.family == ModelFamily::Mpnet;
  // Task models prefix the base model ("roberta.embeddings..."); base models, as sentence-
  // transformers saves them, do not.
  const std::string base = bert ? "bert." : mpnet ? "mpnet." : "roberta.";
  const auto both = [&](const std::string& name) { return std::vector<std::string>{base + name, name}; };
  std::vector<WeightName> names;
  add(names, "embed.tokens", both("embeddings.word_embeddings.weight"));
  add(names, "embed.positions", both("embeddings.position_embeddings.weight"));
  if (spec.type_vocab > 0) add(names, "embed.types", both("embeddings.token_type_embeddings.weight"));
  add_pair(names, "embed.norm", both("embeddings.LayerNorm"));
  if (mpnet) add(names, "relative_attention_bias", both("encoder.relative_attention_bias.weight"));
  for (std::int64_t i = 0; i < spec.layers; ++i) {
    const std::string canonical = "layers." + std::to_string(i) + ".";
    const std::string stored = "encoder.layer." + std::to_string(i) + ".";
    if (mpnet) {
      for (const char* p : {"q", "k", "v", "o"})
        add_pair(names, canonical + "attn." + p, both(stored + "attention.attn." + p));
      add_pair(names, canonical + "attn_norm", both(stored + "attention.LayerNorm"));
    } else {
      add_pair(names, canonical + "attn.q", both(stored + "attention.self.query"));
      add_pair(names, canonical + "attn.k", both(stored + "attention.self.key"));
      add_pair(names, canonical + "attn.v", both(stored + "attention.self.value"));
      add_pair(names, canonical + "attn.o", both(stored + "attention.output.dense"));
      add_pair(names, canonical + "attn_norm", both(stored + "attention.output.LayerNorm"));
    }
    add_pair(names, canonical + "ffn.in", both(stored + "intermediate.dense"));
    add_pair(names, canonical + "ffn.out", both(stored + "output.dense"));
    add_pair(names, canonical + "ffn_norm", both(stored + "output.LayerNorm"));
  }
  add_pair(names, "pooler", both("pooler.dense"), false);
  if (bert) {
    add_pair(names, "classifier", {"classifier"}, false);
    add_pair(names, "mlm.dense", {"cls.predictions.transform.dense"}, false);
    add_pair(names, "mlm.norm", {"cls.predictions.transform.LayerNorm"}, false);
    // The decoder is tied to the word embeddings; checkpoints may store it either way.
    add(names, "mlm.decoder", {"cls.predictions.decoder.weight", base + "embeddings.word_embeddings.weight"}, false);
    add(names, "mlm.bias", {"cls.predictions.bias", "cls.predictions.decoder.bias"}, false);
  } else {
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
