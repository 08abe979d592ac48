#pragma once
// Every model family invar runs, one row each: the one place that knows what a config.json
// model_type means. The config reader (hf_config), the specs (encoder_spec, seq2seq_spec) and the
// tokenizer factory read these fields; no code outside models/ compares family names.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace invar {

enum class ModelFamily : std::uint8_t {
  Bert, Roberta, XlmRoberta, Mpnet, Marian, Bart, MBart, Pegasus, M2M100, Fsmt, T5, DistilBert, Electra, Albert, DebertaV2
};

enum class ModelKind : std::uint8_t { Encoder, Seq2Seq };

// The algorithm of the family's tokenizer (engine/text has one implementation of each).
// JsonOnly: PreTrainedTokenizerFast, the generic fast class some Hub folders name: whatever their
// tokenizer.json describes, with no slow files behind it.
enum class TokenizerAlgorithm : std::uint8_t { WordPiece, ByteLevelBpe, SentencePiece, MosesBpe, JsonOnly };

// How language codes enter the token sequences.
enum class LanguageFraming : std::uint8_t {
  None,         // none, or a language pair fixed by the model (FSMT)
  TargetToken,  // Marian multilingual models: ">>xx<<" written at the start of the source text
  CodeSuffix,   // mBART: tokens, </s>, language code (source and target)
  CodePrefix,   // M2M100/NLLB (__code__), mBART-50 (en_XX): the code, tokens, </s> (source and target)
};

// How special tokens frame one text or a pair (the tokenizer class's build_inputs_with_special_tokens).
enum class SequenceFraming : std::uint8_t {
  ClsSep,        // BERT: [CLS] a [SEP] b [SEP], token types 0 then 1
  DoubleSep,     // RoBERTa, XLM-R, MPNet, BART: <s> a </s></s> b </s>
  EosSuffix,     // Marian, Pegasus, FSMT: a </s>; a pair a b </s>
  EosEach,       // T5: a </s> b </s>, each </s> added only when the text lacks it
  LanguageCode,  // mBART, mBART-50, M2M100: the language code where LanguageFraming says, and </s>
};

// How a SentencePiece model's pieces map to ids (each tokenizer class's vocabulary).
enum class PieceIds : std::uint8_t {
  None,            // not a SentencePiece tokenizer
  FairseqOffset,   // XLM-R, mBART(-50): <s> <pad> </s> <unk>, piece i at i + 1 (mBART: then language codes), <mask>
  FairseqFixed,    // BARThez: <s> <pad> </s> <unk> at 0-3, piece i at i (none at 0), <mask> on the last piece
  VocabJson,       // Marian: vocab.json, with source.spm / target.spm
  ReservedOffset,  // Pegasus: <pad> </s> masks and <unk_i> reserved below `offset`, piece i at i + offset
  VocabJsonCodes,  // M2M100: vocab.json, then the __code__ language tokens
  ExtraIdsAtEnd,   // T5: piece i at i, then <extra_id_N> counting down from the end
  SpieceAsIs,      // ALBERT: spiece.model's piece i at i; text lower-cased, spaces collapsed, accents dropped
  SpmAsIs,         // DeBERTa-v2/v3: spm.model's piece i at i ([PAD] [CLS] [SEP] [UNK] among them), [MASK] added after
};

// Whether language codes are part of the token sequence (set by --src-lang / --tgt-lang).
constexpr bool codes_frame_sequences(LanguageFraming framing) {
  return framing == LanguageFraming::CodeSuffix || framing == LanguageFraming::CodePrefix;
}

enum class PositionKind : std::uint8_t {
  Relative,           // T5: no position embedding, a learned bias on attention scores by bucketed offset
  Learned,            // a table indexed by position + the family's first position
  SinusoidalHalves,   // Marian, Pegasus: sin(p·ω_i) in the first half, cos in the second, ω_i = 10000^(-2i/d)
  SinusoidalFairseq,  // M2M100/NLLB, FSMT: ω_i = exp(-i·ln(10000)/(d/2-1))
};

// Where position numbering starts.
enum class FirstPosition : std::uint8_t {
  Zero,
  Two,       // BART, mBART: fairseq's learned positions start after two reserved rows
  AfterPad,  // fairseq numbering: padding sits at pad_token_id, real tokens from pad_token_id + 1
};

// config.json fields whose default differs by family (the PretrainedConfig subclass of
// transformers 4.19 that the family's model_type selects).
struct ConfigDefaults {
  std::optional<std::int64_t> pad_token_id, bos_token_id, eos_token_id, decoder_start_token_id;
  std::optional<std::int64_t> forced_eos_token_id;
  int num_beams = 1;
  int max_length = 20;
  std::int64_t num_labels = 2;
  bool scale_embedding = false;
  const char* activation = "gelu";
};

// A slow tokenizer class of transformers 4.19 that invar implements: what engine/text needs to
// build it. Every family names its default class; a folder may name another one
// (tokenizer_config.json's tokenizer_class, else config.json's), e.g. a BARThez model (model_type
// mbart) tokenized by BarthezTokenizer.
struct TokenizerClass {
  const char* name;  // as Hugging Face names it, without the "Fast" suffix (but PreTrainedTokenizerFast)
  TokenizerAlgorithm algorithm;
  SequenceFraming framing;
  PieceIds pieces = PieceIds::None;
  LanguageFraming languages = LanguageFraming::None;
};

// One row per model_type, written with designated initializers: a boolean left out is false.
struct Family {
  ModelFamily id;
  const char* model_type;  // as config.json names it
  ModelKind kind;
  TokenizerClass tokenizer;  // the class Hugging Face's AutoTokenizer picks for the model_type
  // The prefix of the family's model classes (config.json's architectures: "Bert" for BertModel,
  // BertForSequenceClassification, ...), from which a config without model_type is recognised.
  const char* class_prefix;
  PositionKind positions;
  FirstPosition first_position = FirstPosition::Zero;
  bool relative_attention_bias = false;  // a learned bias by bucketed relative position (MPNet, T5)
  bool pre_norm = false;                 // normalise before each sublayer (else after the residual add)
  bool final_norm = false;               // a norm after the last layer of each stack
  bool rms_norm = false;                 // T5LayerNorm instead of LayerNorm
  bool embedding_norm = false;           // a LayerNorm right after the embeddings (every encoder; BART, mBART)
  bool pooler_classifier = false;        // BertForSequenceClassification's pooler; else RobertaClassificationHead
  bool final_logits_bias = false;        // a bias added to the LM head's logits
  bool beam_masks_pad = false;           // MarianMTModel.adjust_logits_during_generation: pad never predicted in beams
  ConfigDefaults defaults;
};

const Family& family(ModelFamily id);
// The row of a config.json model_type; nullptr when no family has it.
const Family* find_family(std::string_view model_type);
// The row of a model class named in config.json's architectures ("BertForSequenceClassification":
// the class prefix, then "Model", "MTModel", "EncoderModel", "LMHeadModel" or "For..."); nullptr
// when no family has it.
const Family* find_family_by_architecture(std::string_view architecture);
// A tokenizer class named in tokenizer_config.json or config.json (with or without the "Fast"
// suffix; PreTrainedTokenizerFast only with it): a family's default class or another one invar
// implements; nullptr when none.
const TokenizerClass* find_tokenizer_class(std::string_view name);
// "BertTokenizer, RobertaTokenizer, ...": every tokenizer class, for error messages.
std::string tokenizer_class_names();
// "bert, roberta, ..." (every family), or only those of one kind, for error messages.
std::string model_types();
std::string model_types(ModelKind kind);

}  // namespace invar
