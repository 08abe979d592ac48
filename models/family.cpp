#include "models/family.hpp"

#include <array>

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
// Booleans in Family's order: relative_attention_bias, pre_norm, final_norm, rms_norm,
// embedding_norm, pooler_classifier, final_logits_bias, beam_masks_pad.
constexpr std::array<Family, 15> kFamilies{{
    {Bert, "bert", Encoder, "BertTokenizer", WordPiece, ClsSep, PieceIds::None, Languages::None,
     Learned, Zero, false, false, false, false, true, true, false, false,
     {.pad_token_id = 0}},
    {Roberta, "roberta", Encoder, "RobertaTokenizer", ByteLevelBpe, DoubleSep, PieceIds::None, Languages::None,
     Learned, AfterPad, false, false, false, false, true, false, false, false,
     {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2}},
    {XlmRoberta, "xlm-roberta", Encoder, "XLMRobertaTokenizer", SentencePiece, DoubleSep, PieceIds::FairseqOffset,
     Languages::None, Learned, AfterPad, false, false, false, false, true, false, false, false,
     {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2}},
    {Mpnet, "mpnet", Encoder, "MPNetTokenizer", WordPiece, DoubleSep, PieceIds::None, Languages::None,
     Learned, AfterPad, true, false, false, false, true, false, false, false,
     {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2}},
    {Marian, "marian", Seq2Seq, "MarianTokenizer", SentencePiece, EosSuffix, PieceIds::VocabJson,
     Languages::TargetToken, SinusoidalHalves, Zero, false, false, false, false, false, false, true, true,
     {.pad_token_id = 58100, .eos_token_id = 0, .decoder_start_token_id = 58100, .forced_eos_token_id = 0}},
    {Bart, "bart", Seq2Seq, "BartTokenizer", ByteLevelBpe, DoubleSep, PieceIds::None, Languages::None,
     Learned, Two, false, false, false, false, true, false, true, false,
     {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2, .decoder_start_token_id = 2,
      .forced_eos_token_id = 2, .num_labels = 3}},
    {MBart, "mbart", Seq2Seq, "MBartTokenizer", SentencePiece, LanguageCode, PieceIds::FairseqOffset,
     Languages::CodeSuffix, Learned, Two, false, true, true, false, true, false, true, false,
     {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2, .forced_eos_token_id = 2}},
    {Pegasus, "pegasus", Seq2Seq, "PegasusTokenizer", SentencePiece, EosSuffix, PieceIds::ReservedOffset,
     Languages::None, SinusoidalHalves, Zero, false, true, true, false, false, false, true, false,
     {.pad_token_id = 0, .eos_token_id = 1, .decoder_start_token_id = 0, .forced_eos_token_id = 1}},
    {M2M100, "m2m_100", Seq2Seq, "M2M100Tokenizer", SentencePiece, LanguageCode, PieceIds::VocabJsonCodes,
     Languages::CodePrefix, SinusoidalFairseq, AfterPad, false, true, true, false, false, false, false, false,
     {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2, .decoder_start_token_id = 2,
      .scale_embedding = true, .activation = "relu"}},
    {Fsmt, "fsmt", Seq2Seq, "FSMTTokenizer", MosesBpe, EosSuffix, PieceIds::None, Languages::None,
     SinusoidalFairseq, AfterPad, false, false, false, false, false, false, false, false,
     {.pad_token_id = 1, .bos_token_id = 0, .eos_token_id = 2, .decoder_start_token_id = 2,
      .forced_eos_token_id = 2, .num_beams = 5, .max_length = 200, .scale_embedding = true, .activation = "relu"}},
    {T5, "t5", Seq2Seq, "T5Tokenizer", SentencePiece, EosEach, PieceIds::ExtraIdsAtEnd, Languages::None,
     Relative, Zero, true, true, true, true, false, false, false, false,
     {.pad_token_id = 0, .eos_token_id = 1, .activation = "relu"}},
    {DistilBert, "distilbert", Encoder, "DistilBertTokenizer", WordPiece, ClsSep, PieceIds::None, Languages::None,
     Learned, Zero, false, false, false, false, true, false, false, false,
     {.pad_token_id = 0}},
    {Electra, "electra", Encoder, "ElectraTokenizer", WordPiece, ClsSep, PieceIds::None, Languages::None,
     Learned, Zero, false, false, false, false, true, false, false, false,
     {.pad_token_id = 0}},
    {Albert, "albert", Encoder, "AlbertTokenizer", SentencePiece, ClsSep, PieceIds::SpieceAsIs, Languages::None,
     Learned, Zero, false, false, false, false, true, true, false, false,
     {.pad_token_id = 0, .bos_token_id = 2, .eos_token_id = 3}},
    {DebertaV2, "deberta-v2", Encoder, "DebertaV2Tokenizer", SentencePiece, ClsSep, PieceIds::SpmAsIs, Languages::None,
     Learned, Zero, false, false, false, false, true, true, false, false,
     {.pad_token_id = 0}},
}};

constexpr bool rows_follow_ids() {
  for (std::size_t i = 0; i < kFamilies.size(); ++i)
    if (static_cast<std::size_t>(kFamilies[i].id) != i) return false;
  return true;
}
static_assert(rows_follow_ids(), "family() indexes kFamilies by ModelFamily");

}  // namespace

const Family& family(ModelFamily id) { return kFamilies[static_cast<std::size_t>(id)]; }

const Family* find_family(std::string_view model_type) {
  for (const Family& row : kFamilies)
    if (model_type == row.model_type) return &row;
  return nullptr;
}

const Family* find_family_by_tokenizer_class(std::string_view tokenizer_class) {
  if (tokenizer_class.size() > 4 && tokenizer_class.ends_with("Fast")) tokenizer_class.remove_suffix(4);
  for (const Family& row : kFamilies)
    if (tokenizer_class == row.tokenizer_class) return &row;
  return nullptr;
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
