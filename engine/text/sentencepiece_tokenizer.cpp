// SentencePiece tokenizers through libsentencepiece, with each family's mapping between pieces and
// model ids, as transformers 4.19's slow tokenizers define it:
//   XLM-R, mBART  fairseq order <s>=0 <pad>=1 </s>=2 <unk>=3, piece id + 1; mBART's (cc25) and
//                 mBART-50's (ML50) language codes after the pieces; <mask> last
//   BARThez       <s>=0 <pad>=1 </s>=2 <unk>=3, every other piece at its own id, <mask> on the last
//   Marian        source.spm / target.spm for pieces, vocab.json (target_vocab.json) for ids
//   Pegasus       pad 0, eos 1, <mask_1> 2, <mask_2> 3, <unk_2>.. up to the offset, piece id + offset
//   M2M100        vocab.json for ids, __xx__ language tokens after it
//   T5            piece ids as they are, <extra_id_N> counted down from the end
//   ALBERT        spiece.model's piece ids as they are, text lower-cased, spaces collapsed, accents dropped
//   DeBERTa-v2    spm.model's piece ids as they are, [MASK] from added_tokens.json
#include <sentencepiece_processor.h>
#include <utf8proc.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/unicode.hpp"
#include "core/utf8.hpp"
#include "engine/text/tokenizer_files.hpp"

namespace invar {
namespace {

const std::vector<std::string> kMbartLanguages = {
    "ar_AR", "cs_CZ", "de_DE", "en_XX", "es_XX", "et_EE", "fi_FI", "fr_XX", "gu_IN", "hi_IN", "it_IT", "ja_XX", "kk_KZ",
    "ko_KR", "lt_LT", "lv_LV", "my_MM", "ne_NP", "nl_XX", "ro_RO", "ru_RU", "si_LK", "tr_TR", "vi_VN", "zh_CN"};

// MBart50Tokenizer's FAIRSEQ_LANGUAGE_CODES (ML50): cc25's, then 27 more.
const std::vector<std::string> kMbart50Languages = [] {
  std::vector<std::string> codes = kMbartLanguages;
  for (const char* code : {"af_ZA", "az_AZ", "bn_IN", "fa_IR", "he_IL", "hr_HR", "id_ID", "ka_GE", "km_KH",
                           "mk_MK", "ml_IN", "mn_MN", "mr_IN", "pl_PL", "ps_AF", "pt_XX", "sv_SE", "sw_KE",
                           "ta_IN", "te_IN", "th_TH", "tl_XX", "uk_UA", "ur_PK", "xh_ZA", "gl_ES", "sl_SI"})
    codes.emplace_back(code);
  return codes;
}();

const std::vector<std::string> kM2m100Languages = {
    "af", "am", "ar", "ast", "az", "ba", "be", "bg", "bn", "br", "bs", "ca", "ceb", "cs", "cy", "da", "de",
    "el", "en", "es", "et", "fa", "ff", "fi", "fr", "fy", "ga", "gd", "gl", "gu", "ha", "he", "hi", "hr",
    "ht", "hu", "hy", "id", "ig", "ilo", "is", "it", "ja", "jv", "ka", "kk", "km", "kn", "ko", "lb", "lg",
    "ln", "lo", "lt", "lv", "mg", "mk", "ml", "mn", "mr", "ms", "my", "ne", "nl", "no", "ns", "oc", "or",
    "pa", "pl", "ps", "pt", "ro", "ru", "sd", "si", "sk", "sl", "so", "sq", "sr", "ss", "su", "sv", "sw",
    "ta", "th", "tl", "tn", "tr", "uk", "ur", "uz", "vi", "wo", "xh", "yi", "yo", "zh", "zu"};

const std::vector<std::string> kWmt21Languages = {"en", "ha", "is", "ja", "cs", "ru", "zh", "de"};

const std::string kSpieceUnderline = "\u2581";

// Bound on configured counts of reserved ids (Pegasus offset, T5 extra_ids, M2M100 made-up words).
constexpr std::int64_t kMaxReservedIds = 100000;

// How convert_tokens_to_string turns pieces back into text.
enum class DecodeMode {
  Join,            // XLM-R, mBART: "".join(tokens).replace("▁", " ").strip()
  Spm,             // Marian, Pegasus, M2M100: sp_model.decode_pieces(tokens)
  SpmKeepSpecial,  // T5: decode_pieces between special tokens, which are kept verbatim
};

// unicodedata.normalize("NFKD", text) without the characters of nonzero combining class
// (AlbertTokenizer.preprocess_text with keep_accents false).
std::u32string decompose_without_marks(std::u32string_view text) {
  std::u32string out;
  for (char32_t c : unicode_decompose(text, true))
    if (utf8proc_get_property(static_cast<utf8proc_int32_t>(c))->combining_class == 0) out.push_back(c);
  return out;
}

std::unique_ptr<sentencepiece::SentencePieceProcessor> load_spm(const TokenizerFiles& files, const std::string& name) {
  auto bytes = files.read(name, "the SentencePiece model");
  auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
  auto status = processor->LoadFromSerializedProto(bytes);
  if (!status.ok()) fail("{}: {} is not a SentencePiece model: {}", files.path(), name, status.ToString());
  return processor;
}

// vocab.json: {"token": id, ...}.
Vocab load_json_vocab(const TokenizerFiles& files, const std::string& name, Side side = Side::Source) {
  Vocab vocab;
  files.read_vocab(name, "the token-to-id vocabulary", vocab, side);
  return vocab;
}

std::string some_codes(const std::vector<std::string>& codes) {
  std::string out;
  for (std::size_t i = 0; i < codes.size() && i < 12; ++i) out += (i ? ", " : "") + codes[i];
  if (codes.size() > 12) out += fmt::format(", ... ({} in all)", codes.size());
  return out;
}

class SentencePieceTokenizer final : public Tokenizer {
 public:
  SentencePieceTokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class)
      : languages_framing_(tokenizer_class.languages), pieces_(tokenizer_class.pieces) {
    init_base(tokenizer_class, init_vocabulary(files, tokenizer_class), files);
    build_layouts();
  }

  std::string_view algorithm() const override { return "sentencepiece"; }

  std::vector<std::string> language_codes() const override { return languages_; }

  std::int32_t lang_id(std::string_view code) const override {
    if (languages_.empty()) return Tokenizer::lang_id(code);
    return token_to_id(language_token(code));
  }

  void set_source_language(std::string_view code) override {
    if (!codes_frame_sequences(languages_framing_)) Tokenizer::set_source_language(code);
    source_language_ = std::string(code);
    build_layouts();
  }

  void set_target_language(std::string_view code) override {
    if (!codes_frame_sequences(languages_framing_)) Tokenizer::set_target_language(code);
    target_language_ = std::string(code);
    build_layouts();
  }

 protected:
  std::vector<std::string> split_text(std::string_view text, Side side) const override {
    std::vector<std::string> pieces;
    std::string stripped;
    if (languages_framing_ == LanguageFraming::TargetToken) {
      stripped = remove_language_codes(text, pieces);
      text = stripped;
    }
    std::string prepared;
    if (lower_case_ || albert_preprocess_) {
      prepared = preprocess(text);
      text = prepared;
    }
    const auto encoded = encode_pieces(text, side);
    if (!albert_preprocess_) {
      pieces.insert(pieces.end(), encoded.begin(), encoded.end());
      return pieces;
    }
    // AlbertTokenizer._tokenize: a piece ending in a digit and ',' is encoded again without the
    // comma (and without its word boundary unless the piece had one), then the comma follows.
    for (const auto& piece : encoded) {
      const auto chars = decode_utf8(piece);
      if (chars.size() < 2 || chars.back() != U',' ||
          utf8proc_category(static_cast<utf8proc_int32_t>(chars[chars.size() - 2])) != UTF8PROC_CATEGORY_ND) {
        pieces.push_back(piece);
        continue;
      }
      std::string digits = piece.substr(0, piece.size() - 1);
      python_replace(digits, kSpieceUnderline, "");
      auto again = encode_pieces(digits, side);
      if (!piece.starts_with(kSpieceUnderline) && !again.empty() && again[0].starts_with(kSpieceUnderline)) {
        if (again[0] == kSpieceUnderline) again.erase(again.begin());
        else again[0].erase(0, kSpieceUnderline.size());
      }
      pieces.insert(pieces.end(), again.begin(), again.end());
      pieces.emplace_back(",");
    }
    return pieces;
  }

  std::string tokens_to_text(const std::vector<std::string>& tokens, Side side) const override {
    switch (decode_mode_) {
      case DecodeMode::Join: {
        std::string joined;
        for (const auto& token : tokens) joined += token;
        std::string spaced;
        for (std::size_t i = 0; i < joined.size();) {
          if (joined.compare(i, kSpieceUnderline.size(), kSpieceUnderline) == 0) {
            spaced.push_back(' ');
            i += kSpieceUnderline.size();
          } else {
            spaced.push_back(joined[i++]);
          }
        }
        return std::string(python_strip(spaced));
      }
      case DecodeMode::Spm:
        return spm(side).DecodePieces(tokens);
      case DecodeMode::SpmKeepSpecial: {
        std::string out;
        std::vector<std::string> run;
        for (const auto& token : tokens) {
          if (is_special_token(token)) {
            out += spm(side).DecodePieces(run) + token + " ";
            run.clear();
          } else {
            run.push_back(token);
          }
        }
        out += spm(side).DecodePieces(run);
        return std::string(python_strip(out));
      }
    }
    return {};
  }

  const Vocab& vocab(Side side) const override {
    return side == Side::Target && target_vocab_ ? *target_vocab_ : source_vocab_;
  }

  const SpecialLayout& layout(Side side) const override {
    if (side == Side::Source) return source_layout_;
    if (!target_layout_)
      fail("{}: {} has no target language: set tgt_lang in tokenizer_config.json or choose one", files_path(),
           tokenizer_class().name);
    return *target_layout_;
  }

  std::size_t base_vocab_size() const override { return base_vocab_size_; }

 private:
  const sentencepiece::SentencePieceProcessor& spm(Side side) const {
    return side == Side::Target && target_spm_ ? *target_spm_ : *source_spm_;
  }

  std::vector<std::string> encode_pieces(std::string_view text, Side side) const {
    std::vector<std::string> encoded;
    auto status = spm(side).Encode(text, &encoded);
    if (!status.ok()) fail("SentencePiece cannot encode the text: {}", status.ToString());
    return encoded;
  }

  // do_lower_case's per-character lower-casing, then AlbertTokenizer.preprocess_text.
  std::string preprocess(std::string_view text) const {
    std::u32string chars = decode_utf8(text);
    if (lower_case_) chars = lower_each_char(chars);
    if (!albert_preprocess_) return encode_utf8(chars);
    std::string out = encode_utf8(chars);
    if (remove_space_) {
      std::string joined;
      for (const auto word : python_split(out)) {
        if (!joined.empty()) joined += ' ';
        joined += word;
      }
      out = std::move(joined);
    }
    python_replace(out, "``", "\"");
    python_replace(out, "''", "\"");
    if (!keep_accents_) out = encode_utf8(decompose_without_marks(decode_utf8(out)));
    if (lower_case_) out = python_lower(std::string_view(out));
    return out;
  }

  // Loads the vocabularies of the tokenizer class, sets the decoding rule, returns the special
  // tokens.
  SpecialTokens init_vocabulary(const TokenizerFiles& files, const TokenizerClass& tokenizer_class) {
    switch (tokenizer_class.pieces) {
      case PieceIds::FairseqOffset:
        return init_fairseq(files);
      case PieceIds::FairseqFixed:
        return init_barthez(files);
      case PieceIds::VocabJson:
        return init_marian(files);
      case PieceIds::ReservedOffset:
        return init_pegasus(files);
      case PieceIds::VocabJsonCodes:
        return init_m2m100(files);
      case PieceIds::ExtraIdsAtEnd:
        return init_t5(files);
      case PieceIds::SpieceAsIs:
        return init_albert(files);
      case PieceIds::SpmAsIs:
        return init_deberta_v2(files);
      case PieceIds::None:
        break;
    }
    fail("{}: {} is not a SentencePiece tokenizer", files.path(), tokenizer_class.name);
  }

  // XLMRobertaTokenizer / MBartTokenizer / MBart50Tokenizer (language codes after the pieces).
  SpecialTokens init_fairseq(const TokenizerFiles& files) {
    const bool mbart50 = languages_framing_ == LanguageFraming::CodePrefix;
    source_spm_ = load_spm(files, "sentencepiece.bpe.model");
    auto pieces = static_cast<std::int32_t>(source_spm_->GetPieceSize());
    const std::int32_t offset = 1;
    source_vocab_.add("<s>", 0);
    source_vocab_.add("<pad>", 1);
    source_vocab_.add("</s>", 2);
    source_vocab_.add("<unk>", 3);
    std::int32_t next = pieces + offset;
    if (codes_frame_sequences(languages_framing_)) {
      languages_ = mbart50 ? kMbart50Languages : kMbartLanguages;
      for (const auto& code : languages_) source_vocab_.add(code, next++);
    }
    source_vocab_.add("<mask>", next++);
    // The fixed tokens above win over the model's own <unk>, <s>, </s> pieces.
    for (std::int32_t id = 0; id < pieces; ++id) source_vocab_.add(source_spm_->IdToPiece(id), id + offset);
    base_vocab_size_ = static_cast<std::size_t>(next);

    SpecialTokens defaults = fairseq_specials();
    if (mbart50) defaults.bos.reset();  // MBart50Tokenizer has no bos_token
    auto specials = files.special_tokens(defaults, TokenizerFiles::Wrap::MaskOnly);
    // MBartTokenizer: the language codes first, then any other additional special tokens;
    // MBart50Tokenizer: the configured ones first, then the codes they lack.
    if (codes_frame_sequences(languages_framing_)) add_language_tokens(specials, files, !mbart50, "en_XX");
    // MBart50Tokenizer.convert_tokens_to_string is sp_model.decode.
    decode_mode_ = mbart50 ? DecodeMode::Spm : DecodeMode::Join;
    return specials;
  }

  // BarthezTokenizer: the SentencePiece ids as they are, except the four fairseq tokens at 0-3 and
  // <mask> on the last piece; a piece at id 0 is unknown (`spm_id if spm_id else unk_token_id`).
  SpecialTokens init_barthez(const TokenizerFiles& files) {
    source_spm_ = load_spm(files, "sentencepiece.bpe.model");
    const auto pieces = static_cast<std::int32_t>(source_spm_->GetPieceSize());
    if (pieces < 5)
      fail("{}: sentencepiece.bpe.model has {} pieces, too few for BarthezTokenizer", files.path(), pieces);
    source_vocab_.add("<s>", 0);
    source_vocab_.add("<pad>", 1);
    source_vocab_.add("</s>", 2);
    source_vocab_.add("<unk>", 3);
    source_vocab_.add("<mask>", pieces - 1);
    for (std::int32_t id = 1; id < pieces; ++id) source_vocab_.add(source_spm_->IdToPiece(id), id);
    base_vocab_size_ = static_cast<std::size_t>(pieces);
    decode_mode_ = DecodeMode::Join;
    return files.special_tokens(fairseq_specials(), TokenizerFiles::Wrap::MaskOnly);
  }

  // The special tokens of the fairseq-derived classes (XLM-R, mBART, BARThez): the mask keeps the
  // space before it.
  static SpecialTokens fairseq_specials() {
    SpecialTokens defaults;
    defaults.bos = defaults.cls = plain_token("<s>");
    defaults.eos = defaults.sep = plain_token("</s>");
    defaults.unk = plain_token("<unk>");
    defaults.pad = plain_token("<pad>");
    defaults.mask = added_token("<mask>", true, false);
    return defaults;
  }

  // MarianTokenizer.
  SpecialTokens init_marian(const TokenizerFiles& files) {
    source_spm_ = load_spm(files, "source.spm");
    target_spm_ = load_spm(files, "target.spm");
    source_vocab_ = load_json_vocab(files, "vocab.json");
    if (files.flag("separate_vocabs", false)) target_vocab_ = load_json_vocab(files, "target_vocab.json", Side::Target);
    base_vocab_size_ = source_vocab_.size();
    SpecialTokens defaults;
    defaults.eos = plain_token("</s>");
    defaults.unk = plain_token("<unk>");
    defaults.pad = plain_token("<pad>");
    auto specials = files.special_tokens(defaults, TokenizerFiles::Wrap::None);
    if (!specials.unk || !source_vocab_.find(specials.unk->content))
      fail("{}: vocab.json has no unknown token '{}'", files.path(), specials.unk ? specials.unk->content : "");
    for (std::int32_t id = 0; id < static_cast<std::int32_t>(source_vocab_.size()); ++id) {
      const auto* token = source_vocab_.token(id);
      if (token && token->size() > 4 && token->starts_with(">>") && token->ends_with("<<"))
        languages_.push_back(token->substr(2, token->size() - 4));
    }
    decode_mode_ = DecodeMode::Spm;
    return specials;
  }

  // PegasusTokenizer.
  SpecialTokens init_pegasus(const TokenizerFiles& files) {
    source_spm_ = load_spm(files, "spiece.model");
    auto offset = files.integer("offset", 103, kMaxReservedIds);
    std::optional<std::string> mask_sent = "<mask_1>";
    if (auto it = files.tokenizer_config().find("mask_token_sent"); it != files.tokenizer_config().end())
      mask_sent = it->is_string() ? std::optional<std::string>(it->get<std::string>()) : std::nullopt;

    SpecialTokens defaults;
    defaults.pad = plain_token("<pad>");
    defaults.eos = plain_token("</s>");
    defaults.unk = plain_token("<unk>");
    defaults.mask = plain_token("<mask_2>");
    if (mask_sent) defaults.additional.push_back(plain_token(*mask_sent));
    for (std::int64_t i = 2; i < offset; ++i) defaults.additional.push_back(plain_token(fmt::format("<unk_{}>", i)));
    auto specials = files.special_tokens(defaults, TokenizerFiles::Wrap::None);

    // The encoder of reserved ids, then the pieces shifted by the offset.
    source_vocab_.add(specials.pad ? specials.pad->content : "<pad>", 0);
    source_vocab_.add(specials.eos ? specials.eos->content : "</s>", 1);
    if (mask_sent) {
      source_vocab_.add(*mask_sent, 2);
      if (specials.mask) source_vocab_.add(specials.mask->content, 3);
    }
    if (offset > 0) {
      if (specials.additional.size() + 1 < static_cast<std::size_t>(offset))
        fail("{}: Pegasus needs {} additional special tokens for offset {}, the files give {}", files.path(),
             offset - 1, offset, specials.additional.size());
      for (std::int64_t i = 1; i < offset - 1; ++i)
        source_vocab_.add(specials.additional[static_cast<std::size_t>(i)].content, static_cast<std::int32_t>(i + 3));
    }
    auto pieces = static_cast<std::int32_t>(source_spm_->GetPieceSize());
    for (std::int32_t id = 0; id < pieces; ++id)
      source_vocab_.add(source_spm_->IdToPiece(id), id + static_cast<std::int32_t>(offset));
    base_vocab_size_ = static_cast<std::size_t>(pieces + offset);
    decode_mode_ = DecodeMode::Spm;
    return specials;
  }

  // M2M100Tokenizer.
  SpecialTokens init_m2m100(const TokenizerFiles& files) {
    source_spm_ = load_spm(files, "sentencepiece.bpe.model");
    auto encoder = load_json_vocab(files, "vocab.json");
    auto language_set = files.string("language_codes").value_or("m2m100");
    if (language_set == "m2m100")
      languages_ = kM2m100Languages;
    else if (language_set == "wmt21")
      languages_ = kWmt21Languages;
    else
      fail("{}: tokenizer_config.json: language_codes '{}' is neither m2m100 nor wmt21", files.path(), language_set);
    auto madeup = files.integer("num_madeup_words", 8, kMaxReservedIds);
    // Language tokens win over vocab.json entries of the same spelling (_convert_token_to_id).
    auto size = static_cast<std::int32_t>(encoder.size());
    for (std::size_t i = 0; i < languages_.size(); ++i)
      source_vocab_.add("__" + languages_[i] + "__", size + static_cast<std::int32_t>(i));
    for (std::int32_t id = 0; id < size; ++id)
      if (const auto* token = encoder.token(id)) source_vocab_.add(*token, id);
    base_vocab_size_ = static_cast<std::size_t>(size) + languages_.size() + static_cast<std::size_t>(madeup);

    SpecialTokens defaults;
    defaults.bos = plain_token("<s>");
    defaults.eos = defaults.sep = plain_token("</s>");
    defaults.pad = plain_token("<pad>");
    defaults.unk = plain_token("<unk>");
    auto specials = files.special_tokens(defaults, TokenizerFiles::Wrap::None);
    // M2M100Tokenizer: the configured additional special tokens, then the missing language tokens.
    add_language_tokens(specials, files, false, "en");
    decode_mode_ = DecodeMode::Spm;
    return specials;
  }

  // T5Tokenizer.
  SpecialTokens init_t5(const TokenizerFiles& files) {
    source_spm_ = load_spm(files, "spiece.model");
    auto extra_ids = files.integer("extra_ids", 100, kMaxReservedIds);
    auto pieces = static_cast<std::int32_t>(source_spm_->GetPieceSize());
    for (std::int32_t id = 0; id < pieces; ++id) source_vocab_.add(source_spm_->IdToPiece(id), id);
    base_vocab_size_ = static_cast<std::size_t>(pieces + extra_ids);
    for (std::int64_t i = 0; i < extra_ids; ++i)
      source_vocab_.add(fmt::format("<extra_id_{}>", i), static_cast<std::int32_t>(pieces + extra_ids - 1 - i));

    SpecialTokens defaults;
    defaults.eos = plain_token("</s>");
    defaults.unk = plain_token("<unk>");
    defaults.pad = plain_token("<pad>");
    for (std::int64_t i = 0; i < extra_ids; ++i) defaults.additional.push_back(plain_token(fmt::format("<extra_id_{}>", i)));
    decode_mode_ = DecodeMode::SpmKeepSpecial;
    return files.special_tokens(defaults, TokenizerFiles::Wrap::None);
  }

  // The pieces of `name` at their own ids.
  void load_pieces_as_is(const TokenizerFiles& files, const std::string& name) {
    source_spm_ = load_spm(files, name);
    const auto pieces = static_cast<std::int32_t>(source_spm_->GetPieceSize());
    for (std::int32_t id = 0; id < pieces; ++id) source_vocab_.add(source_spm_->IdToPiece(id), id);
    base_vocab_size_ = static_cast<std::size_t>(pieces);
  }

  // BERT's [CLS] and [SEP] (also as bos and eos), with the class's unknown, padding and mask tokens.
  static SpecialTokens cls_sep_tokens(const char* unk, const char* pad, SpecialToken mask) {
    SpecialTokens defaults;
    defaults.bos = defaults.cls = plain_token("[CLS]");
    defaults.eos = defaults.sep = plain_token("[SEP]");
    defaults.unk = plain_token(unk);
    defaults.pad = plain_token(pad);
    defaults.mask = std::move(mask);
    return defaults;
  }

  // AlbertTokenizer.
  SpecialTokens init_albert(const TokenizerFiles& files) {
    load_pieces_as_is(files, "spiece.model");
    lower_case_ = files.flag("do_lower_case", true);
    remove_space_ = files.flag("remove_space", true);
    keep_accents_ = files.flag("keep_accents", false);
    albert_preprocess_ = true;
    decode_mode_ = DecodeMode::Join;
    return files.special_tokens(cls_sep_tokens("<unk>", "<pad>", added_token("[MASK]", true, false)),
                                TokenizerFiles::Wrap::MaskOnly);
  }

  // DebertaV2Tokenizer (its SPMTokenizer: pieces the vocabulary lacks become [UNK], as token_to_id
  // makes them here).
  SpecialTokens init_deberta_v2(const TokenizerFiles& files) {
    load_pieces_as_is(files, "spm.model");
    lower_case_ = files.flag("do_lower_case", false);
    if (files.flag("split_by_punct", false))
      fail("{}: tokenizer_config.json: split_by_punct true is not supported", files.path());
    decode_mode_ = DecodeMode::Spm;
    return files.special_tokens(cls_sep_tokens("[UNK]", "[PAD]", plain_token("[MASK]")), TokenizerFiles::Wrap::None);
  }

  // The language tokens become additional special tokens (before or after the configured ones);
  // src_lang / tgt_lang come from tokenizer_config.json.
  void add_language_tokens(SpecialTokens& tokens, const TokenizerFiles& files, bool first, const char* source) {
    std::vector<SpecialToken> languages;
    for (const auto& code : languages_) languages.push_back(plain_token(language_spelling(code)));
    tokens.additional = first ? merged(languages, tokens.additional) : merged(tokens.additional, languages);
    source_language_ = files.string("src_lang").value_or(source);
    target_language_ = files.string("tgt_lang");
  }

  // front, then the tokens of back it lacks.
  static std::vector<SpecialToken> merged(std::vector<SpecialToken> front, const std::vector<SpecialToken>& back) {
    for (const auto& token : back)
      if (std::none_of(front.begin(), front.end(), [&](const SpecialToken& t) { return t.content == token.content; }))
        front.push_back(token);
    return front;
  }

  // How the class writes a language code as a token: "__de__" (M2M100), ">>de<<" (Marian), "de_DE"
  // (mBART, mBART-50).
  std::string language_spelling(std::string_view code) const {
    if (pieces_ == PieceIds::VocabJsonCodes)
      return code.starts_with("__") ? std::string(code) : "__" + std::string(code) + "__";
    if (languages_framing_ == LanguageFraming::TargetToken)
      return code.starts_with(">>") ? std::string(code) : ">>" + std::string(code) + "<<";
    return std::string(code);
  }

  std::string language_token(std::string_view code) const {
    std::string token = language_spelling(code);
    if (!find_token(token))
      fail("unknown language code '{}' for {} (valid: {})", code, tokenizer_class().name,
           some_codes(languages_));
    return token;
  }

  // The tokenizer class's build_inputs_with_special_tokens, for the source and (labels) target side.
  void build_layouts() {
    auto eos = require_special(specials().eos, "end-of-sequence");
    SpecialLayout source;
    std::optional<SpecialLayout> target;
    switch (tokenizer_class().framing) {
      case SequenceFraming::DoubleSep: {  // XLMRobertaTokenizer
        auto cls = require_special(specials().cls, "classification (cls)");
        auto sep = require_special(specials().sep, "separator (sep)");
        source.prefix = {cls};
        source.middle = {sep, sep};
        source.suffix = {sep};
        target = source;
        break;
      }
      case SequenceFraming::LanguageCode:
        if (languages_framing_ == LanguageFraming::CodeSuffix) {
          // MBartTokenizer: no prefix, suffix [eos, language code].
          source.suffix = {eos, lang_id(source_language_)};
          if (target_language_) target = SpecialLayout{{}, {}, {eos, lang_id(*target_language_)}};
        } else {
          // M2M100Tokenizer, MBart50Tokenizer: prefix [language token], suffix [eos].
          source.prefix = {lang_id(source_language_)};
          source.suffix = {eos};
          if (target_language_) target = SpecialLayout{{lang_id(*target_language_)}, {}, {eos}};
        }
        break;
      case SequenceFraming::EosEach:  // T5Tokenizer
        source.middle = {eos};
        source.suffix = {eos};
        source.eos_if_absent = true;
        target = source;
        break;
      case SequenceFraming::ClsSep: {  // AlbertTokenizer, DebertaV2Tokenizer: BERT's framing and segments
        auto cls = require_special(specials().cls, "classification (cls)");
        auto sep = require_special(specials().sep, "separator (sep)");
        source.prefix = {cls};
        source.middle = {sep};
        source.suffix = {sep};
        source.segment_type_ids = true;
        target = source;
        break;
      }
      case SequenceFraming::EosSuffix:  // Marian, Pegasus: text </s>, pairs without separator.
        source.suffix = {eos};
        target = source;
    }
    source_layout_ = std::move(source);
    target_layout_ = std::move(target);
  }

  // MarianTokenizer.remove_language_code: the regex >>.+<< (greedy, within a line); a match at the
  // very start is kept as the first token, and every match is removed from the text.
  std::string remove_language_codes(std::string_view text, std::vector<std::string>& codes) const {
    std::string out;
    std::size_t pos = 0;
    for (auto start = text.find(">>"); start != std::string_view::npos; start = text.find(">>", start + 1)) {
      if (start < pos) continue;
      auto line_end = text.find('\n', start);
      auto line = text.substr(start, line_end == std::string_view::npos ? std::string_view::npos : line_end - start);
      auto close = line.rfind("<<");
      if (close == std::string_view::npos || close < 3) continue;
      if (start == 0) codes.emplace_back(line.substr(0, close + 2));
      out.append(text.substr(pos, start - pos));
      pos = start + close + 2;
      start = pos - 1;
    }
    out.append(text.substr(pos));
    return out;
  }

  LanguageFraming languages_framing_;
  PieceIds pieces_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> source_spm_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> target_spm_;  // Marian only
  Vocab source_vocab_;
  std::optional<Vocab> target_vocab_;  // Marian with separate_vocabs
  std::size_t base_vocab_size_ = 0;
  SpecialLayout source_layout_;
  std::optional<SpecialLayout> target_layout_;
  DecodeMode decode_mode_ = DecodeMode::Spm;
  bool lower_case_ = false;         // do_lower_case (ALBERT, DeBERTa-v2)
  bool albert_preprocess_ = false;  // AlbertTokenizer.preprocess_text and its digit-comma split
  bool remove_space_ = false, keep_accents_ = true;
  std::vector<std::string> languages_;
  std::string source_language_;
  std::optional<std::string> target_language_;
};

}  // namespace

std::unique_ptr<Tokenizer> make_sentencepiece_tokenizer(const TokenizerFiles& files,
                                                        const TokenizerClass& tokenizer_class) {
  return std::make_unique<SentencePieceTokenizer>(files, tokenizer_class);
}

}  // namespace invar
