#include "models/hf_config.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <mutex>
#include <set>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/printable.hpp"
#include "loaders/model_files.hpp"
#include "loaders/model_source.hpp"
#include "models/family.hpp"

namespace invar {

namespace {

// Sizes are checked before anything is allocated from them (weight-name lists, label names, vocabulary
// tables): no model comes near 2^24 of anything that is counted here (the largest vocabularies hold
// about 2^18 tokens), while 1e9 would build gigabytes before any weight could disagree.
constexpr std::int64_t kMaxSize = std::int64_t{1} << 24;
constexpr std::int64_t kMaxLabels = std::int64_t{1} << 20;
// Layers per stack: the deepest published models have a few hundred; a weight-name list is built per
// layer before any weight is read.
constexpr std::int64_t kMaxLayers = 4096;

// Typed access to config.json fields: an absent (or null) field takes the family default, a
// present one must have the right JSON type; errors name the file and the field.
class Fields {
 public:
  Fields(const nlohmann::json& json, const std::string& where,
         std::optional<std::int64_t> largest_dimension = std::nullopt)
      : json_(json), where_(where), largest_dimension_(largest_dimension) {}

  std::int64_t integer(const char* key, std::int64_t fallback) const {
    const auto* value = find(key);
    if (!value) return fallback;
    if (!value->is_number_integer()) fail("{}: field '{}' must be an integer, got {}", where_, key, value->dump());
    return value->get<std::int64_t>();
  }
  // A size or count: at least `minimum`, at most `maximum`.
  std::int64_t size(const char* key, std::int64_t fallback, std::int64_t minimum = 1,
                    std::int64_t maximum = kMaxSize) const {
    const std::int64_t value = integer(key, fallback);
    if (value < minimum) fail("{}: field '{}' must be at least {}, got {}", where_, key, minimum, value);
    if (value > maximum) fail("{}: field '{}' must be at most {}, got {}", where_, key, maximum, value);
    return value;
  }
  // A size that some weight has as a dimension (a vocabulary, a width, a number of labels): when
  // the weights are known, one larger than all their dimensions is refused before it sizes anything.
  std::int64_t dimension(const char* key, std::int64_t fallback, std::int64_t maximum = kMaxSize) const {
    const std::int64_t value = size(key, fallback, 1, maximum);
    if (largest_dimension_ && value > *largest_dimension_)
      fail("{}: field '{}' is {}, larger than any dimension of the model's weights (at most {})", where_, key, value,
           *largest_dimension_);
    return value;
  }
  // A finite number above zero (an epsilon: zero or less makes layer norm divide by zero or
  // take the square root of a negative number).
  double positive(const char* key, double fallback) const {
    const double value = number(key, fallback);
    if (!(value > 0) || !std::isfinite(value))
      fail("{}: field '{}' must be a positive number, got {}", where_, key, value);
    return value;
  }
  double number(const char* key, double fallback) const {
    const auto* value = find(key);
    if (!value) return fallback;
    if (!value->is_number()) fail("{}: field '{}' must be a number, got {}", where_, key, value->dump());
    return value->get<double>();
  }
  bool boolean(const char* key, bool fallback) const {
    const auto* value = find(key);
    if (!value) return fallback;
    if (!value->is_boolean()) fail("{}: field '{}' must be true or false, got {}", where_, key, value->dump());
    return value->get<bool>();
  }
  std::string string(const char* key, const std::string& fallback) const {
    const auto* value = find(key);
    if (!value) return fallback;
    if (!value->is_string()) fail("{}: field '{}' must be a string, got {}", where_, key, value->dump());
    return value->get<std::string>();
  }
  // A token id: an explicit null means "none" (Python None), unlike an absent field.
  std::optional<std::int64_t> token(const char* key, std::optional<std::int64_t> fallback) const {
    auto it = json_.find(key);
    if (it == json_.end()) return fallback;
    if (it->is_null()) return std::nullopt;
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0)
      fail("{}: field '{}' must be a non-negative token id, got {}", where_, key, it->dump());
    return it->get<std::int64_t>();
  }
  const nlohmann::json* find(const char* key) const {
    auto it = json_.find(key);
    return it == json_.end() || it->is_null() ? nullptr : &*it;
  }
  const std::string& where() const { return where_; }

 private:
  const nlohmann::json& json_;
  const std::string& where_;
  std::optional<std::int64_t> largest_dimension_;
};

// Once per file and process: the config is read by the tokenizer and by the model.
void say_once(const std::string& where, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> said;
  const std::lock_guard lock(mutex);
  if (said.insert(where).second) warn(message);
}

// Configs saved before transformers wrote model_type: the family of the first model class in
// architectures that one has ("BertForSequenceClassification": bert).
const Family* family_from_architectures(const nlohmann::json& config, const std::string& where) {
  const auto it = config.find("architectures");
  if (it == config.end() || !it->is_array()) return nullptr;
  for (const auto& name : *it) {
    if (!name.is_string()) continue;
    if (const Family* row = find_family_by_architecture(name.get<std::string>())) {
      say_once(where, fmt::format("{}: no model_type; read as '{}' from architectures' {}",
                                  printable(where), row->model_type, printable(name.get<std::string>())));
      return row;
    }
  }
  return nullptr;
}

const Family& family_of(const nlohmann::json& config, const std::string& where) {
  auto it = config.find("model_type");
  if (it == config.end()) {
    if (const Family* row = family_from_architectures(config, where)) return *row;
    fail("{}: no 'model_type', and 'architectures' names no model class of a supported family (supported: {})",
         where, model_types());
  }
  if (!it->is_string()) fail("{}: 'model_type' must be a string, got {}", where, it->dump());
  if (const Family* row = find_family(it->get<std::string>())) return *row;
  fail("{}: unknown model_type '{}' (supported: {})", where, it->get<std::string>(), model_types());
}

// The special tokens, with the family's defaults for absent fields.
void read_tokens(const Fields& f, ModelConfig& c) {
  const ConfigDefaults& d = family(c.family).defaults;
  c.pad_token_id = f.token("pad_token_id", d.pad_token_id);
  c.bos_token_id = f.token("bos_token_id", d.bos_token_id);
  c.eos_token_id = f.token("eos_token_id", d.eos_token_id);
  c.decoder_start_token_id = f.token("decoder_start_token_id", d.decoder_start_token_id);
}

// DistilBertConfig: its own field names (dim, n_layers, ...), no token types, LayerNorm eps fixed
// at 1e-12 in the model code.
void read_distilbert(const Fields& f, ModelConfig& c) {
  c.vocab_size = c.target_vocab_size = f.dimension("vocab_size", 30522);
  c.hidden_size = c.embedding_size = f.dimension("dim", 768);
  c.encoder_layers = f.size("n_layers", 6, 0, kMaxLayers);
  c.encoder_attention_heads = f.size("n_heads", 12);
  c.encoder_ffn_dim = f.dimension("hidden_dim", 4 * 768);
  c.activation = f.string("activation", "gelu");
  c.max_position_embeddings = f.dimension("max_position_embeddings", 512);
  c.layer_norm_eps = 1e-12;
}

// DebertaV2Config, with the fields the model code reads by getattr and their fallbacks there.
void read_deberta_v2(const Fields& f, ModelConfig& c) {
  c.relative_attention = f.boolean("relative_attention", false);
  c.max_relative_positions = f.integer("max_relative_positions", -1);
  if (c.max_relative_positions < 1) c.max_relative_positions = c.max_position_embeddings;
  c.position_buckets = std::max<std::int64_t>(f.integer("position_buckets", -1), 0);
  if (c.max_relative_positions > kMaxSize || c.position_buckets > kMaxSize)
    fail("{}: max_relative_positions and position_buckets must be at most {}", f.where(), kMaxSize);
  // A list, or one string "p2c|c2p" (DebertaV2Config splits it on '|').
  if (const auto* types = f.find("pos_att_type")) {
    std::vector<std::string> names;
    if (types->is_string()) {
      std::string joined = types->get<std::string>();
      std::transform(joined.begin(), joined.end(), joined.begin(), [](unsigned char ch) { return std::tolower(ch); });
      for (std::size_t start = 0; start <= joined.size();) {
        const auto bar = std::min(joined.find('|', start), joined.size());
        std::string name = joined.substr(start, bar - start);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        names.push_back(std::move(name));
        start = bar + 1;
      }
    } else if (types->is_array()) {
      for (const auto& name : *types) {
        if (!name.is_string()) fail("{}: field 'pos_att_type' must list names", f.where());
        names.push_back(name.get<std::string>());
      }
    } else {
      fail("{}: field 'pos_att_type' must be a list or a string", f.where());
    }
    for (const auto& name : names) {
      if (name != "c2p" && name != "p2c") fail("{}: pos_att_type '{}' is not supported (c2p, p2c)", f.where(), name);
      if (std::find(c.pos_att_type.begin(), c.pos_att_type.end(), name) == c.pos_att_type.end())
        c.pos_att_type.push_back(name);
    }
  }
  c.share_att_key = f.boolean("share_att_key", false);
  c.norm_rel_ebd = f.string("norm_rel_ebd", "none");
  if (c.norm_rel_ebd != "none" && c.norm_rel_ebd != "layer_norm")
    fail("{}: norm_rel_ebd '{}' is not supported (none, layer_norm)", f.where(), c.norm_rel_ebd);
  c.position_biased_input = f.boolean("position_biased_input", true);
  c.pooler_hidden_act = f.string("pooler_hidden_act", "gelu");
  c.pooler_hidden_size = f.dimension("pooler_hidden_size", c.hidden_size);
  if (c.pooler_hidden_size != c.hidden_size)
    fail("{}: pooler_hidden_size {} differs from hidden_size {} (not supported)", f.where(), c.pooler_hidden_size,
         c.hidden_size);
  if (const auto kernel = f.integer("conv_kernel_size", 0); kernel > 0)
    fail("{}: conv_kernel_size {} (DeBERTa's convolution layer) is not supported", f.where(), kernel);
  if (f.find("attention_head_size") && f.integer("attention_head_size", 0) * c.encoder_attention_heads != c.hidden_size)
    fail("{}: attention_head_size × num_attention_heads must equal hidden_size", f.where());
}

// BertConfig; RobertaConfig and XLMRobertaConfig (subclasses of it in 4.19) change only the
// special tokens; MPNetConfig has its own, close defaults; ElectraConfig, AlbertConfig and
// DebertaV2Config use BERT's field names with their own defaults and a few fields of their own.
void read_encoder(const Fields& f, ModelConfig& c) {
  if (c.family == ModelFamily::DistilBert) return read_distilbert(f, c);
  const bool mpnet = c.family == ModelFamily::Mpnet, electra = c.family == ModelFamily::Electra;
  const bool albert = c.family == ModelFamily::Albert, deberta = c.family == ModelFamily::DebertaV2;
  c.vocab_size = f.dimension("vocab_size", mpnet ? 30527 : albert ? 30000 : deberta ? 128100 : 30522);
  c.target_vocab_size = c.vocab_size;
  c.hidden_size = f.dimension("hidden_size", electra ? 256 : albert ? 4096 : deberta ? 1536 : 768);
  c.encoder_layers = f.size("num_hidden_layers", deberta ? 24 : 12, 0, kMaxLayers);
  c.encoder_attention_heads = f.size("num_attention_heads", electra ? 4 : albert ? 64 : deberta ? 24 : 12);
  c.encoder_ffn_dim = f.dimension("intermediate_size", electra ? 1024 : albert ? 16384 : deberta ? 6144 : 3072);
  c.activation = f.string("hidden_act", albert ? "gelu_new" : "gelu");
  c.max_position_embeddings = f.dimension("max_position_embeddings", 512);  // a stored table's rows
  c.layer_norm_eps = f.positive("layer_norm_eps", deberta ? 1e-7 : 1e-12);
  c.embedding_size = electra || albert ? f.dimension("embedding_size", 128)
                     : deberta         ? f.dimension("embedding_size", c.hidden_size)
                                       : c.hidden_size;
  if (albert) {
    c.num_hidden_groups = f.size("num_hidden_groups", 1, 1, kMaxLayers);
    c.inner_group_num = f.size("inner_group_num", 1, 1, kMaxLayers);
  }
  if (mpnet) {
    c.relative_attention_num_buckets = f.size("relative_attention_num_buckets", 32);
  } else {
    // DeBERTa-v2 has no token-type embeddings unless type_vocab_size is above 0.
    c.type_vocab_size = deberta && f.integer("type_vocab_size", 0) == 0 ? 0 : f.dimension("type_vocab_size", 2);
    if (!deberta) c.position_embedding_type = f.string("position_embedding_type", "absolute");
  }
  if (deberta) read_deberta_v2(f, c);
}

// BartConfig and its relatives: same field names, different defaults.
void read_bart_family(const Fields& f, ModelConfig& c) {
  const bool m2m = c.family == ModelFamily::M2M100, fsmt = c.family == ModelFamily::Fsmt;
  const bool marian = c.family == ModelFamily::Marian;
  if (fsmt) {
    c.vocab_size = f.dimension("src_vocab_size", 42024);
    c.target_vocab_size = f.dimension("tgt_vocab_size", 42024);
  } else {
    c.vocab_size = f.dimension("vocab_size", marian ? 58101 : m2m ? 128112 : 50265);
    c.target_vocab_size = marian ? f.dimension("decoder_vocab_size", c.vocab_size) : c.vocab_size;
  }
  c.hidden_size = f.dimension("d_model", 1024);
  c.encoder_layers = f.size("encoder_layers", 12, 0, kMaxLayers);
  c.decoder_layers = f.size("decoder_layers", 12, 0, kMaxLayers);
  c.encoder_attention_heads = f.size("encoder_attention_heads", 16);
  c.decoder_attention_heads = f.size("decoder_attention_heads", 16);
  c.encoder_ffn_dim = f.dimension("encoder_ffn_dim", 4096);
  c.decoder_ffn_dim = f.dimension("decoder_ffn_dim", 4096);
  c.max_position_embeddings = f.size("max_position_embeddings", 1024);
  c.activation = f.string("activation_function", family(c.family).defaults.activation);
  c.layer_norm_eps = 1e-5;
  c.scale_embedding = f.boolean("scale_embedding", family(c.family).defaults.scale_embedding);
  if (marian) c.share_encoder_decoder_embeddings = f.boolean("share_encoder_decoder_embeddings", true);
  if (fsmt) {
    c.tie_word_embeddings = f.boolean("tie_word_embeddings", false);
    if (const auto* langs = f.find("langs")) {
      if (!langs->is_array() || langs->size() != 2 || !(*langs)[0].is_string() || !(*langs)[1].is_string())
        fail("{}: field 'langs' must be a list of two language codes, e.g. [\"en\", \"de\"]", f.where());
      c.langs = {(*langs)[0].get<std::string>(), (*langs)[1].get<std::string>()};
    }
  }
}

// T5Config: its own field names (d_kv, d_ff, num_layers, num_heads, feed_forward_proj ...).
void read_t5_config(const Fields& f, ModelConfig& c) {
  c.vocab_size = c.target_vocab_size = f.dimension("vocab_size", 32128);
  c.hidden_size = f.dimension("d_model", 512);
  c.head_dim = f.size("d_kv", 64);
  c.encoder_ffn_dim = c.decoder_ffn_dim = f.dimension("d_ff", 2048);
  c.encoder_layers = f.size("num_layers", 6, 0, kMaxLayers);
  c.decoder_layers = f.size("num_decoder_layers", c.encoder_layers, 0, kMaxLayers);
  c.encoder_attention_heads = c.decoder_attention_heads = f.size("num_heads", 8);
  c.relative_attention_num_buckets = f.size("relative_attention_num_buckets", 32);
  c.relative_attention_max_distance = f.size("relative_attention_max_distance", 128);
  c.layer_norm_eps = f.positive("layer_norm_epsilon", 1e-6);
  const std::string projection = f.string("feed_forward_proj", "relu");
  // "ACT" or "gated-ACT"; the legacy "gated-gelu" means gelu_new (tanh approximation).
  const auto dash = projection.find('-');
  c.is_gated_act = dash != std::string::npos && projection.compare(0, dash, "gated") == 0;
  if ((dash != std::string::npos && !c.is_gated_act) ||
      (c.is_gated_act && projection.find('-', dash + 1) != std::string::npos) || projection.empty() ||
      projection.back() == '-')
    fail("{}: feed_forward_proj '{}' is not 'ACT' or 'gated-ACT'", f.where(), projection);
  c.activation = c.is_gated_act ? projection.substr(dash + 1) : projection;
  if (projection == "gated-gelu") c.activation = "gelu_new";
}

// PretrainedConfig: labels, problem type, generate() defaults (after the family's own).
void read_common(const Fields& f, ModelConfig& c) {
  // Informational (bert_score's default layers look it up): any other type is ignored, as before.
  if (const auto* name = f.find("_name_or_path"); name && name->is_string()) c.name_or_path = name->get<std::string>();
  if (const auto* architectures = f.find("architectures")) {
    if (!architectures->is_array()) fail("{}: field 'architectures' must be a list", f.where());
    for (const auto& name : *architectures) {
      if (!name.is_string()) fail("{}: field 'architectures' must list names", f.where());
      c.architectures.push_back(name.get<std::string>());
    }
  }
  const Family& row = family(c.family);
  c.is_encoder_decoder = f.boolean("is_encoder_decoder", row.kind == ModelKind::Seq2Seq);
  if (c.family != ModelFamily::Fsmt) c.tie_word_embeddings = f.boolean("tie_word_embeddings", true);

  if (const auto* id2label = f.find("id2label")) {
    if (!id2label->is_object()) fail("{}: field 'id2label' must be an object", f.where());
    for (const auto& [key, label] : id2label->items()) {
      std::size_t used = 0;
      std::int64_t id = -1;
      try {
        id = std::stoll(key, &used);
      } catch (const std::exception&) {
      }
      if (used != key.size() || id < 0 || id >= kMaxLabels || !label.is_string())
        fail("{}: id2label entry \"{}\": {} is not a label id and name", f.where(), key, label.dump());
      c.id2label[id] = label.get<std::string>();
    }
  } else {
    const std::int64_t count = f.dimension("num_labels", row.defaults.num_labels, kMaxLabels);
    for (std::int64_t i = 0; i < count; ++i) c.id2label[i] = "LABEL_" + std::to_string(i);
  }
  if (const auto* label2id = f.find("label2id")) {
    if (!label2id->is_object()) fail("{}: field 'label2id' must be an object", f.where());
    for (const auto& [label, id] : label2id->items()) {
      if (!id.is_number_integer()) fail("{}: label2id entry '{}' is not an integer", f.where(), label);
      c.label2id[label] = id.get<std::int64_t>();
    }
  } else {
    for (const auto& [id, label] : c.id2label) c.label2id[label] = id;
  }
  const std::string problem = f.string("problem_type", "");
  if (problem == "regression") {
    c.problem_type = ProblemType::Regression;
  } else if (problem == "single_label_classification") {
    c.problem_type = ProblemType::SingleLabelClassification;
  } else if (problem == "multi_label_classification") {
    c.problem_type = ProblemType::MultiLabelClassification;
  } else if (!problem.empty()) {
    fail("{}: problem_type '{}' is not regression, single_label_classification or multi_label_classification",
         f.where(), problem);
  }

  GenerationDefaults& g = c.generation;
  g.max_length = static_cast<int>(f.size("max_length", row.defaults.max_length, 0));
  g.min_length = static_cast<int>(f.size("min_length", 0, 0));
  g.do_sample = f.boolean("do_sample", false);
  g.early_stopping = f.boolean("early_stopping", false);
  g.num_beams = static_cast<int>(f.size("num_beams", row.defaults.num_beams));
  g.temperature = f.number("temperature", 1.0);
  g.top_k = static_cast<int>(f.size("top_k", 50, 0));
  g.top_p = f.number("top_p", 1.0);
  g.length_penalty = f.number("length_penalty", 1.0);
  g.no_repeat_ngram_size = static_cast<int>(f.size("no_repeat_ngram_size", 0, 0));
  g.repetition_penalty = f.number("repetition_penalty", 1.0);
  if (const auto groups = f.size("num_beam_groups", 1); groups > 1)
    g.unsupported.push_back(fmt::format("{}: num_beam_groups {}", f.where(), groups));
  g.encoder_no_repeat_ngram_size = static_cast<int>(f.size("encoder_no_repeat_ngram_size", 0, 0));
  g.num_return_sequences = static_cast<int>(f.size("num_return_sequences", 1));
  if (const auto* bad = f.find("bad_words_ids")) {
    const auto valid = [](const nlohmann::json& list) {
      if (!list.is_array() || list.empty()) return false;
      for (const auto& sequence : list) {
        if (!sequence.is_array() || sequence.empty()) return false;
        for (const auto& id : sequence)
          if (!id.is_number_integer() || id.get<std::int64_t>() < 0) return false;
      }
      return true;
    };
    if (!valid(*bad)) fail("{}: field 'bad_words_ids' must be a list of lists of token ids", f.where());
    g.bad_words_ids = bad->get<std::vector<std::vector<std::int64_t>>>();
  }
  g.forced_bos_token_id = f.token("forced_bos_token_id", g.forced_bos_token_id);
  g.forced_eos_token_id = f.token("forced_eos_token_id", row.defaults.forced_eos_token_id);
}

void check_shapes(const ModelConfig& c) {
  if (c.family == ModelFamily::T5) return;  // heads × d_kv need not equal d_model
  for (std::int64_t heads : {c.encoder_attention_heads, c.decoder_attention_heads})
    if (heads > 0 && c.hidden_size % heads != 0)
      fail("{}: hidden size {} is not a multiple of the number of attention heads ({})", c.where, c.hidden_size,
           heads);
}

}  // namespace

ModelConfig parse_model_config(const nlohmann::json& json, const std::string& where,
                               std::optional<std::int64_t> largest_dimension) {
  if (!json.is_object()) fail("{}: not a JSON object", where);
  ModelConfig config;
  config.where = where;
  const Family& row = family_of(json, where);
  config.family = row.id;
  config.model_type = row.model_type;
  const Fields fields(json, where, largest_dimension);
  if (fields.find("tokenizer_class")) config.tokenizer_class = fields.string("tokenizer_class", "");
  if (row.kind == ModelKind::Encoder) {
    read_encoder(fields, config);
  } else if (row.id == ModelFamily::T5) {
    read_t5_config(fields, config);
  } else {
    read_bart_family(fields, config);
  }
  read_tokens(fields, config);
  check_shapes(config);
  if (config.head_dim == 0) config.head_dim = config.hidden_size / config.encoder_attention_heads;
  read_common(fields, config);
  return config;
}

ModelConfig load_model_config(const ModelSource& source, SizeCheck check) {
  std::optional<std::int64_t> largest;
  if (check == SizeCheck::AgainstWeights)
    for (const auto& name : source.tensor_names())
      for (const std::int64_t size : source.tensor_info(name).shape) largest = std::max(largest.value_or(0), size);
  return parse_model_config(source.config_json(), source.path() + "/config.json", largest);
}

namespace {

nlohmann::json read_json(const ModelSource& source, const std::string& name) {
  const std::string where = source.path() + "/" + name;
  if (!source.has_file(name)) fail("{}: missing", where);
  try {
    return nlohmann::json::parse(source.read_file(name));
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid JSON: {}", where, e.what());
  }
}

std::string module_dir(const std::string& path) { return path.empty() ? "" : path + "/"; }

// sentence-transformers 5.x's pooling_mode: one mode's name, or a list concatenated in its order.
void read_pooling_modes(const nlohmann::json& value, const std::string& where, SentenceTransformerConfig& config) {
  const std::array<std::pair<const char*, Pooling>, 4> names{{
      {"cls", Pooling::Cls},
      {"max", Pooling::Max},
      {"mean", Pooling::Mean},
      {"mean_sqrt_len_tokens", Pooling::MeanSqrtLen},
  }};
  const auto add = [&](const nlohmann::json& mode) {
    if (!mode.is_string()) fail("{}: field 'pooling_mode' must name modes, got {}", where, mode.dump());
    const std::string name = mode.get<std::string>();
    for (const auto& [known, pooling] : names)
      if (name == known) return config.pooling.push_back(pooling);
    if (name == "weightedmean" || name == "lasttoken") fail("{}: pooling_mode '{}' is not supported", where, name);
    fail("{}: pooling_mode '{}' is not a pooling mode (cls, max, mean, mean_sqrt_len_tokens)", where, printable(name));
  };
  if (value.is_array()) {
    for (const auto& mode : value) add(mode);
  } else {
    add(value);
  }
}

// 1_Pooling/config.json: {"embedding_dimension", "pooling_mode", "include_prompt"} (5.x), or
// {"word_embedding_dimension", "pooling_mode_*_tokens": bool, ...} (2.x-4.x). include_prompt only
// matters with prompts, which invar does not prepend (load_sentence_transformer_config refuses a
// default one).
void read_pooling(const ModelSource& source, const std::string& dir, SentenceTransformerConfig& config) {
  const std::string name = dir + "config.json";
  const std::string where = source.path() + "/" + name;
  const nlohmann::json pooling = read_json(source, name);
  if (!pooling.is_object()) fail("{}: not a JSON object", where);
  const Fields f(pooling, where);
  config.word_embedding_dimension = f.find("embedding_dimension") ? f.size("embedding_dimension", 0, 0)
                                                                  : f.size("word_embedding_dimension", 0, 0);
  if (const auto* modes = f.find("pooling_mode")) {
    // 5.x drops the older flags when both are present.
    read_pooling_modes(*modes, where, config);
  } else {
    // Only the modes sentence-transformers concatenates, in its order.
    const std::array<std::pair<const char*, Pooling>, 4> flags{{
        {"pooling_mode_cls_token", Pooling::Cls},
        {"pooling_mode_max_tokens", Pooling::Max},
        {"pooling_mode_mean_tokens", Pooling::Mean},
        {"pooling_mode_mean_sqrt_len_tokens", Pooling::MeanSqrtLen},
    }};
    for (const auto& [key, mode] : flags)
      if (f.boolean(key, false)) config.pooling.push_back(mode);
    for (const char* unsupported : {"pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"})
      if (f.boolean(unsupported, false)) fail("{}: {} is not supported", where, unsupported);
  }
  if (config.pooling.empty()) fail("{}: no pooling mode is enabled", where);
}

// The Transformer module's settings: sentence_bert_config.json (the older names sentence-transformers
// still reads, e.g. sentence_roberta_config.json, after it). 2.x-5.3 write max_seq_length and
// do_lower_case; 5.4+ write neither (the tokenizer's model_max_length is the limit) but
// transformer_task, which must be feature extraction for an embedding.
void read_transformer_settings(const ModelSource& source, const std::string& dir, SentenceTransformerConfig& config) {
  for (const char* file : {"sentence_bert_config.json", "sentence_roberta_config.json",
                           "sentence_distilbert_config.json", "sentence_camembert_config.json",
                           "sentence_albert_config.json", "sentence_xlm-roberta_config.json",
                           "sentence_xlnet_config.json"}) {
    const std::string settings = dir + file;
    if (!source.has_file(settings)) continue;
    const nlohmann::json json = read_json(source, settings);
    const std::string where = source.path() + "/" + settings;
    if (!json.is_object()) fail("{}: not a JSON object", where);
    const Fields f(json, where);
    if (f.find("max_seq_length")) config.max_seq_length = f.size("max_seq_length", 0);
    config.do_lower_case = f.boolean("do_lower_case", false);
    const std::string task = f.string("transformer_task", "feature-extraction");
    if (task != "feature-extraction")
      fail("{}: transformer_task '{}' is not supported (an embedding needs feature-extraction)", where,
           printable(task));
    return;
  }
}

// The module types each sentence-transformers version writes: "sentence_transformers.models.X"
// (2.x-5.3), the module's file and class since 5.4 (Normalize moved to base/ in 6.0).
enum class StModule { Transformer, Pooling, Normalize, Unsupported };

StModule module_of(const std::string& type) {
  static const std::pair<const char*, StModule> kTypes[] = {
      {"sentence_transformers.models.Transformer", StModule::Transformer},
      {"sentence_transformers.base.modules.transformer.Transformer", StModule::Transformer},
      {"sentence_transformers.models.Pooling", StModule::Pooling},
      {"sentence_transformers.sentence_transformer.modules.pooling.Pooling", StModule::Pooling},
      {"sentence_transformers.models.Normalize", StModule::Normalize},
      {"sentence_transformers.sentence_transformer.modules.normalize.Normalize", StModule::Normalize},
      {"sentence_transformers.base.modules.normalize.Normalize", StModule::Normalize},
  };
  for (const auto& [name, module] : kTypes)
    if (type == name) return module;
  return StModule::Unsupported;
}

// config_sentence_transformers.json (3.x+): a default prompt is prepended to every text by
// encode(); invar prepends none, so such a folder would embed other texts.
void check_no_default_prompt(const ModelSource& source) {
  const std::string name = "config_sentence_transformers.json";
  if (!source.has_file(name)) return;
  const nlohmann::json json = read_json(source, name);
  const std::string where = source.path() + "/" + name;
  if (!json.is_object()) fail("{}: not a JSON object", where);
  const Fields f(json, where);
  if (f.find("default_prompt_name"))
    fail("{}: default_prompt_name '{}' is not supported (invar prepends no prompts)", where,
         printable(f.string("default_prompt_name", "")));
}

}  // namespace

std::optional<SentenceTransformerConfig> load_sentence_transformer_config(const ModelSource& source) {
  if (!source.has_file("modules.json")) return std::nullopt;
  const std::string where = source.path() + "/modules.json";
  const nlohmann::json modules = read_json(source, "modules.json");
  if (!modules.is_array() || modules.empty()) fail("{}: must be a non-empty list of modules", where);

  SentenceTransformerConfig config;
  bool transformer = false, pooling = false;
  for (const auto& module : modules) {
    if (!module.is_object() || !module.contains("type") || !module["type"].is_string())
      fail("{}: every module needs a 'type'", where);
    const std::string type = module["type"].get<std::string>();
    const std::string path = module.value("path", std::string());
    if (!path.empty()) check_relative_path(path, where);
    switch (module_of(type)) {
      case StModule::Transformer:
        if (transformer || pooling) fail("{}: the Transformer module must come first, once", where);
        transformer = true;
        read_transformer_settings(source, module_dir(path), config);
        break;
      case StModule::Pooling:
        if (!transformer || pooling || config.normalize) fail("{}: Pooling must follow the Transformer, once", where);
        pooling = true;
        read_pooling(source, module_dir(path), config);
        break;
      case StModule::Normalize:
        if (!pooling || config.normalize) fail("{}: Normalize must follow Pooling, once", where);
        config.normalize = true;
        break;
      case StModule::Unsupported:
        fail("{}: module '{}' is not supported (Transformer, Pooling, Normalize)", where, printable(type));
    }
  }
  if (!transformer || !pooling) fail("{}: needs a Transformer and a Pooling module", where);
  check_no_default_prompt(source);
  return config;
}

}  // namespace invar
