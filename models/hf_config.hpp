#pragma once
// config.json as Hugging Face transformers 4.19 reads it: every field the engine needs, with the
// default the family's PretrainedConfig subclass applies when the file omits it. Field names
// follow transformers' (with its attribute_map: hidden_size is BART's d_model, T5's d_model...).
// Also the sentence-transformers modules of a folder (modules.json and the module configs).
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/pooling.hpp"
#include "models/family.hpp"

namespace invar {

class ModelSource;

enum class ProblemType { Unspecified, Regression, SingleLabelClassification, MultiLabelClassification };

// generate()'s defaults as config.json sets them (PretrainedConfig 4.19 defaults otherwise).
struct GenerationDefaults {
  int max_length = 20;
  int min_length = 0;
  bool do_sample = false;
  bool early_stopping = false;
  int num_beams = 1;
  double temperature = 1.0;
  int top_k = 50;
  double top_p = 1.0;
  double length_penalty = 1.0;
  int no_repeat_ngram_size = 0;
  double repetition_penalty = 1.0;
  int encoder_no_repeat_ngram_size = 0;
  int num_return_sequences = 1;
  std::vector<std::vector<std::int64_t>> bad_words_ids;
  std::optional<std::int64_t> forced_bos_token_id;
  std::optional<std::int64_t> forced_eos_token_id;
  // Settings config.json gives that invar's search does not implement (group beam search), as
  // "FILE: field value": generation with them differs from Hugging Face's.
  std::vector<std::string> unsupported;
};

struct ModelConfig {
  std::string where;       // the file it came from, for error messages
  std::string model_type;  // as written, or the family's when inferred from architectures
  // The tokenizer class config.json names (PretrainedConfig.tokenizer_class), which AutoTokenizer
  // uses when tokenizer_config.json names none.
  std::optional<std::string> tokenizer_class;
  std::string name_or_path;  // _name_or_path: the Hub name or folder the model was saved from; "" when absent
  ModelFamily family = ModelFamily::Bert;
  std::vector<std::string> architectures;
  bool is_encoder_decoder = false;

  std::int64_t vocab_size = 0;         // FSMT: src_vocab_size
  std::int64_t target_vocab_size = 0;  // decoder side: Marian decoder_vocab_size, FSMT tgt_vocab_size; else vocab_size
  std::int64_t hidden_size = 0;        // d_model for the encoder-decoders
  std::int64_t encoder_layers = 0;     // num_hidden_layers for the encoders, num_layers for T5
  std::int64_t decoder_layers = 0;     // 0 for encoder-only models
  std::int64_t encoder_attention_heads = 0;
  std::int64_t decoder_attention_heads = 0;
  std::int64_t head_dim = 0;           // T5's d_kv; hidden_size / heads for the encoders (seq2seq_spec sizes each stack)
  std::int64_t encoder_ffn_dim = 0;    // intermediate_size, encoder_ffn_dim, T5's d_ff
  std::int64_t decoder_ffn_dim = 0;
  std::int64_t max_position_embeddings = 0;  // 0 for T5 (relative positions, no limit)
  std::string activation;                    // hidden_act / activation_function / T5's dense_act_fn
  // The norms' epsilon: layer_norm_eps (BERT family), layer_norm_epsilon (T5); the BART family
  // has no such field and uses torch.nn.LayerNorm's default 1e-5.
  double layer_norm_eps = 0.0;

  // Encoder-only families.
  std::int64_t type_vocab_size = 0;           // 0 for MPNet (no token types)
  std::string position_embedding_type;        // BERT/RoBERTa/XLM-R: "absolute" unless stated
  // MPNet and T5 relative attention buckets; T5's max distance.
  std::int64_t relative_attention_num_buckets = 0;
  std::int64_t relative_attention_max_distance = 0;
  // ELECTRA, ALBERT, DeBERTa-v2: the embeddings' width when it differs from hidden_size (projected
  // up before the first layer); equal to hidden_size elsewhere.
  std::int64_t embedding_size = 0;
  // ALBERT: num_hidden_layers applications of num_hidden_groups stored groups of inner_group_num layers.
  std::int64_t num_hidden_groups = 1;
  std::int64_t inner_group_num = 1;
  // DeBERTa-v2: disentangled relative attention.
  bool relative_attention = false;
  std::int64_t max_relative_positions = 0;  // < 1 in the file: max_position_embeddings
  std::int64_t position_buckets = 0;        // ≤ 0 in the file: none (plain clamped offsets)
  std::vector<std::string> pos_att_type;    // "c2p", "p2c"
  bool share_att_key = false;
  std::string norm_rel_ebd;                 // "none" or "layer_norm"
  bool position_biased_input = true;        // absolute position embeddings added to the tokens
  std::string pooler_hidden_act;            // ContextPooler's activation
  std::int64_t pooler_hidden_size = 0;

  // Encoder-decoder families.
  // FSMT's [source, target] languages (FSMTTokenizer's fallback when tokenizer_config.json has none).
  std::optional<std::array<std::string, 2>> langs;
  bool scale_embedding = false;  // embeddings times sqrt(d_model)
  bool share_encoder_decoder_embeddings = true;  // Marian
  bool is_gated_act = false;                     // T5 "gated-*"
  bool tie_word_embeddings = true;

  std::optional<std::int64_t> pad_token_id, bos_token_id, eos_token_id, decoder_start_token_id;

  std::map<std::int64_t, std::string> id2label;  // LABEL_i for num_labels labels when absent
  std::map<std::string, std::int64_t> label2id;
  ProblemType problem_type = ProblemType::Unspecified;
  std::int64_t num_labels() const { return static_cast<std::int64_t>(id2label.size()); }

  GenerationDefaults generation;
};

// Reads config.json's content; `where` names the file in errors (e.g. "FOLDER/config.json: unknown
// model_type 'gpt2' (supported: ...)"). Without model_type (older Hub configs), the family is the
// one of the first model class in architectures that a family has, said once per file on stderr.
// Sizes are checked against fixed bounds, and those that are some weight's dimension
// (vocabularies, widths, num_labels) against `largest_dimension` when given, before anything is
// built from them.
ModelConfig parse_model_config(const nlohmann::json& config, const std::string& where,
                               std::optional<std::int64_t> largest_dimension = std::nullopt);
// config.json of the source, its sizes checked against the largest dimension of its weights (when
// it has any: a tokenizer alone has none). The tokenizer reads it with SizeCheck::None: it needs
// the vocabulary sizes whatever the weights say, and the model checks them when it loads.
enum class SizeCheck { AgainstWeights, None };
ModelConfig load_model_config(const ModelSource& source, SizeCheck check = SizeCheck::AgainstWeights);

// A sentence-transformers folder: Transformer, then Pooling, then optionally Normalize, in every
// layout sentence-transformers 2.x to 5.x writes (module types, pooling config).
struct SentenceTransformerConfig {
  // Pooled vectors concatenated in this order, each word_embedding_dimension wide: the order of a
  // pooling_mode list (5.x), or for the pooling_mode_* flags (2.x-4.x) cls, max, mean,
  // mean_sqrt_len_tokens.
  std::vector<Pooling> pooling;
  std::int64_t word_embedding_dimension = 0;
  bool normalize = false;                    // a Normalize module follows the pooling
  // sentence_bert_config.json's; absent (5.x never writes it) = the tokenizer's model_max_length,
  // capped by the model's limit.
  std::optional<std::int64_t> max_seq_length;
  bool do_lower_case = false;
};

// Absent when the source has no modules.json. Fails naming the file on a module invar does not run
// (Dense, CNN, LSTM, ...), a missing pooling config or a pooling mode it does not know.
std::optional<SentenceTransformerConfig> load_sentence_transformer_config(const ModelSource& source);

}  // namespace invar
