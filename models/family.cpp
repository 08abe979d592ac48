#include "models/family.hpp"

#include <iterator>

#include "core/error.hpp"

namespace invar {

namespace {

using enum ModelFamily;
using enum ModelKind;
using enum TokenizerAlgorithm;
using enum SequenceFraming;
using enum PositionKind;
using enum FirstPosition;
using Languages = LanguageFraming;

// Defaults as transformers 4.19's config classes set them: BertConfig; RobertaConfig and
// XLMRobertaConfig, MPNetConfig (pad 1, bos 0, eos 2); BartConfig (num_labels 3); MBartConfig (no
// decoder start: generation falls back to bos); MarianConfig (pad = decoder start = 58100, eos 0);
// PegasusConfig (pad 0, eos 1); M2M100Config (scale_embedding, relu, no forced eos); FSMTConfig
// (scale_embedding, relu, num_beams 5, max_length 200); T5Config (pad 0, eos 1); DistilBertConfig,
// ElectraConfig, DebertaV2Config (pad 0); AlbertConfig (pad 0, bos 2, eos 3).
// Rows are found by model_type or id, in any order.
constexpr Family kFamilies[] = {
    {.id = Bert, .model_type = "bert", .kind = Encoder,
     .tokenizer = {.name = "BertTokenizer", .algorithm = WordPiece, .framing = ClsSep},
     .class_prefix = "Bert",
     .positions = Learned, .embedding_norm = true, .pooler_classifier = true,
     .defaults = {.pad_token_id = 0}},
    {.id = Roberta, .model_type = "roberta", .kind = Encoder,
     .tokenizer = {.name = "RobertaTokenizer", .algorithm = ByteLevelBpe, .framing = DoubleSep},
     .class_prefix = "Roberta",
     .positions = Learned, .first_position = AfterPad, .embedding_norm = true,
     .defaults = {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2}},
    {.id = XlmRoberta, .model_type = "xlm-roberta", .kind = Encoder,
     .tokenizer = {.name = "XLMRobertaTokenizer", .algorithm = SentencePiece, .framing = DoubleSep,
                   .pieces = PieceIds::FairseqOffset},
     .class_prefix = "XLMRoberta",
     .positions = Learned, .first_position = AfterPad, .embedding_norm = true,
     .defaults = {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2}},
    {.id = Mpnet, .model_type = "mpnet", .kind = Encoder,
     .tokenizer = {.name = "MPNetTokenizer", .algorithm = WordPiece, .framing = DoubleSep},
     .class_prefix = "MPNet",
     .positions = Learned, .first_position = AfterPad, .relative_attention_bias = true, .embedding_norm = true,
     .defaults = {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2}},
    {.id = Marian, .model_type = "marian", .kind = Seq2Seq,
     .tokenizer = {.name = "MarianTokenizer", .algorithm = SentencePiece, .framing = EosSuffix,
                   .pieces = PieceIds::VocabJson, .languages = Languages::TargetToken},
     .class_prefix = "Marian",
     .positions = SinusoidalHalves, .final_logits_bias = true, .beam_masks_pad = true,
     .defaults = {.pad_token_id = 58100, .eos_token_id = 0, .decoder_start_token_id = 58100,
                  .forced_eos_token_id = 0}},
    {.id = Bart, .model_type = "bart", .kind = Seq2Seq,
     .tokenizer = {.name = "BartTokenizer", .algorithm = ByteLevelBpe, .framing = DoubleSep},
     .class_prefix = "Bart",
     .positions = Learned, .first_position = Two, .embedding_norm = true, .final_logits_bias = true,
     .defaults = {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2, .decoder_start_token_id = 2,
                  .forced_eos_token_id = 2, .num_labels = 3}},
    {.id = MBart, .model_type = "mbart", .kind = Seq2Seq,
     .tokenizer = {.name = "MBartTokenizer", .algorithm = SentencePiece, .framing = LanguageCode,
                   .pieces = PieceIds::FairseqOffset, .languages = Languages::CodeSuffix},
     .class_prefix = "MBart",
     .positions = Learned, .first_position = Two, .pre_norm = true, .final_norm = true, .embedding_norm = true,
     .final_logits_bias = true,
     .defaults = {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2, .forced_eos_token_id = 2}},
    {.id = Pegasus, .model_type = "pegasus", .kind = Seq2Seq,
     .tokenizer = {.name = "PegasusTokenizer", .algorithm = SentencePiece, .framing = EosSuffix,
                   .pieces = PieceIds::ReservedOffset},
     .class_prefix = "Pegasus",
     .positions = SinusoidalHalves, .pre_norm = true, .final_norm = true, .final_logits_bias = true,
     .defaults = {.pad_token_id = 0, .eos_token_id = 1, .decoder_start_token_id = 0, .forced_eos_token_id = 1}},
    {.id = M2M100, .model_type = "m2m_100", .kind = Seq2Seq,
     .tokenizer = {.name = "M2M100Tokenizer", .algorithm = SentencePiece, .framing = LanguageCode,
                   .pieces = PieceIds::VocabJsonCodes, .languages = Languages::CodePrefix},
     .class_prefix = "M2M100",
     .positions = SinusoidalFairseq, .first_position = AfterPad, .pre_norm = true, .final_norm = true,
     .defaults = {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2, .decoder_start_token_id = 2,
                  .scale_embedding = true, .activation = "relu"}},
    {.id = Fsmt, .model_type = "fsmt", .kind = Seq2Seq,
     .tokenizer = {.name = "FSMTTokenizer", .algorithm = MosesBpe, .framing = EosSuffix},
     .class_prefix = "FSMT",
     .positions = SinusoidalFairseq, .first_position = AfterPad,
     .defaults = {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2, .decoder_start_token_id = 2,
                  .forced_eos_token_id = 2, .num_beams = 5, .max_length = 200, .scale_embedding = true,
                  .activation = "relu"}},
    {.id = T5, .model_type = "t5", .kind = Seq2Seq,
     .tokenizer = {.name = "T5Tokenizer", .algorithm = SentencePiece, .framing = EosEach,
                   .pieces = PieceIds::ExtraIdsAtEnd},
     .class_prefix = "T5",
     .positions = Relative, .relative_attention_bias = true, .pre_norm = true, .final_norm = true, .rms_norm = true,
     .defaults = {.pad_token_id = 0, .eos_token_id = 1, .activation = "relu"}},
    {.id = DistilBert, .model_type = "distilbert", .kind = Encoder,
     .tokenizer = {.name = "DistilBertTokenizer", .algorithm = WordPiece, .framing = ClsSep},
     .class_prefix = "DistilBert",
     .positions = Learned, .embedding_norm = true,
     .defaults = {.pad_token_id = 0}},
    {.id = Electra, .model_type = "electra", .kind = Encoder,
     .tokenizer = {.name = "ElectraTokenizer", .algorithm = WordPiece, .framing = ClsSep},
     .class_prefix = "Electra",
     .positions = Learned, .embedding_norm = true,
     .defaults = {.pad_token_id = 0}},
    {.id = Albert, .model_type = "albert", .kind = Encoder,
     .tokenizer = {.name = "AlbertTokenizer", .algorithm = SentencePiece, .framing = ClsSep,
                   .pieces = PieceIds::SpieceAsIs},
     .class_prefix = "Albert",
     .positions = Learned, .embedding_norm = true, .pooler_classifier = true,
     .defaults = {.pad_token_id = 0, .bos_token_id = 2, .eos_token_id = 3}},
    {.id = DebertaV2, .model_type = "deberta-v2", .kind = Encoder,
     .tokenizer = {.name = "DebertaV2Tokenizer", .algorithm = SentencePiece, .framing = ClsSep,
                   .pieces = PieceIds::SpmAsIs},
     .class_prefix = "DebertaV2",
     .positions = Learned, .embedding_norm = true, .pooler_classifier = true,
     .defaults = {.pad_token_id = 0}},
};

// Tokenizer classes no family picks by default, which folders name: BARThez and mBART-50
// checkpoints are model_type mbart.
constexpr TokenizerClass kOtherTokenizers[] = {
    {.name = "BarthezTokenizer", .algorithm = SentencePiece, .framing = DoubleSep, .pieces = PieceIds::FairseqFixed},
    {.name = "MBart50Tokenizer", .algorithm = SentencePiece, .framing = LanguageCode,
     .pieces = PieceIds::FairseqOffset, .languages = Languages::CodePrefix},
    // Its framing is the post-processor's in tokenizer.json; the framing field is not read.
    {.name = "PreTrainedTokenizerFast", .algorithm = JsonOnly, .framing = ClsSep},
};

// Each ModelFamily has exactly one row (the ids are dense from 0, so one row per id 0..N-1 covers
// every id), and no two rows share a model_type.
constexpr bool one_row_per_family() {
  constexpr std::size_t count = std::size(kFamilies);
  for (std::size_t id = 0; id < count; ++id) {
    std::size_t rows = 0;
    for (const Family& row : kFamilies) rows += static_cast<std::size_t>(row.id) == id ? 1 : 0;
    if (rows != 1) return false;
  }
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t j = i + 1; j < count; ++j)
      if (std::string_view(kFamilies[i].model_type) == kFamilies[j].model_type) return false;
  return true;
}
static_assert(one_row_per_family(), "every ModelFamily needs exactly one row, every model_type one row");

}  // namespace

const Family& family(ModelFamily id) {
  for (const Family& row : kFamilies)
    if (row.id == id) return row;
  // one_row_per_family() rules this out for every id a row names.
  fail("no family row for model family {}", static_cast<int>(id));
}

const Family* find_family(std::string_view model_type) {
  for (const Family& row : kFamilies)
    if (model_type == row.model_type) return &row;
  return nullptr;
}

const Family* find_family_by_architecture(std::string_view architecture) {
  for (const Family& row : kFamilies) {
    if (!architecture.starts_with(row.class_prefix)) continue;
    const std::string_view rest = architecture.substr(std::string_view(row.class_prefix).size());
    if (rest.starts_with("For") || rest == "Model" || rest == "MTModel" || rest == "EncoderModel" ||
        rest == "LMHeadModel")
      return &row;
  }
  return nullptr;
}

const TokenizerClass* find_tokenizer_class(std::string_view name) {
  const auto named = [](std::string_view wanted) -> const TokenizerClass* {
    for (const Family& row : kFamilies)
      if (wanted == row.tokenizer.name) return &row.tokenizer;
    for (const TokenizerClass& other : kOtherTokenizers)
      if (wanted == other.name) return &other;
    return nullptr;
  };
  if (const TokenizerClass* exact = named(name)) return exact;  // PreTrainedTokenizerFast keeps its suffix
  if (name.size() > 4 && name.ends_with("Fast")) return named(name.substr(0, name.size() - 4));
  return nullptr;
}

std::string tokenizer_class_names() {
  std::string list;
  for (const Family& row : kFamilies) list += (list.empty() ? "" : ", ") + std::string(row.tokenizer.name);
  for (const TokenizerClass& other : kOtherTokenizers) list += ", " + std::string(other.name);
  return list;
}

std::string model_types() {
  std::string list;
  for (const Family& row : kFamilies) list += (list.empty() ? "" : ", ") + std::string(row.model_type);
  return list;
}

std::string model_types(ModelKind kind) {
  std::string list;
  for (const Family& row : kFamilies)
    if (row.kind == kind) list += (list.empty() ? "" : ", ") + std::string(row.model_type);
  return list;
}

}  // namespace invar
