// WordPiece with BERT's BasicTokenizer, as transformers 4.19's BertTokenizer / MPNetTokenizer:
// clean-up of control characters, CJK characters as words, optional lower-casing and accent
// stripping, punctuation splitting by Unicode category, then greedy longest-match WordPiece.
#include <set>

#include "core/error.hpp"
#include "core/unicode.hpp"
#include "core/utf8.hpp"
#include "engine/text/char_classes.hpp"
#include "engine/text/tokenizer_files.hpp"

namespace invar {
namespace {

// whitespace_tokenize: Python's str.split().
std::vector<std::u32string> split_whitespace(std::u32string_view text) {
  std::vector<std::u32string> words;
  std::u32string word;
  for (char32_t c : text) {
    if (is_python_space(c)) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word.push_back(c);
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

class WordPieceTokenizer final : public Tokenizer {
 public:
  WordPieceTokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class) {
    load_vocab(files);
    do_lower_case_ = files.flag("do_lower_case", true);
    do_basic_tokenize_ = files.flag("do_basic_tokenize", true);
    tokenize_chinese_chars_ = files.flag("tokenize_chinese_chars", true);
    if (auto it = files.tokenizer_config().find("strip_accents");
        it != files.tokenizer_config().end() && it->is_boolean())
      strip_accents_ = it->get<bool>();
    if (auto it = files.tokenizer_config().find("never_split"); it != files.tokenizer_config().end() && it->is_array())
      for (const auto& token : *it)
        if (token.is_string()) config_never_split_.insert(token.get<std::string>());

    SpecialTokens defaults;
    auto wrap = TokenizerFiles::Wrap::None;
    const bool double_sep = tokenizer_class.framing == SequenceFraming::DoubleSep;
    if (double_sep) {
      // MPNetTokenizer: RoBERTa's special tokens and framing over a BERT vocabulary.
      defaults.bos = defaults.cls = added_token("<s>", false, false);
      defaults.eos = defaults.sep = added_token("</s>", false, false);
      defaults.unk = added_token("[UNK]", false, false);
      defaults.pad = added_token("<pad>", false, false);
      defaults.mask = added_token("<mask>", true, false);
      wrap = TokenizerFiles::Wrap::All;
    } else {
      defaults.unk = plain_token("[UNK]");
      defaults.sep = plain_token("[SEP]");
      defaults.pad = plain_token("[PAD]");
      defaults.cls = plain_token("[CLS]");
      defaults.mask = plain_token("[MASK]");
    }
    init_base(tokenizer_class, files.special_tokens(defaults, wrap), files);
    for (const auto& token : all_special_tokens()) never_split_.insert(token.content);
    never_split_.insert(config_never_split_.begin(), config_never_split_.end());
    unk_ = specials().unk ? specials().unk->content : "[UNK]";

    auto cls = require_special(specials().cls, "classification (cls)");
    auto sep = require_special(specials().sep, "separator (sep)");
    layout_.prefix = {cls};
    layout_.suffix = {sep};
    if (double_sep) {
      layout_.middle = {sep, sep};
    } else {
      layout_.middle = {sep};
      layout_.segment_type_ids = true;
    }
  }

  std::string_view algorithm() const override { return "wordpiece"; }

 protected:
  std::vector<std::string> split_text(std::string_view text, Side) const override {
    auto chars = decode_utf8(text);
    // PreTrainedTokenizer.tokenize lower-cases the text before _tokenize when do_lower_case.
    if (do_lower_case_ && do_basic_tokenize_) chars = lower_each_char(chars);
    std::vector<std::string> pieces;
    if (!do_basic_tokenize_) {
      for (const auto& word : split_whitespace(chars)) wordpiece(encode_utf8(word), pieces);
      return pieces;
    }
    for (const auto& word : basic_tokenize(chars)) {
      if (config_never_split_.count(word))
        pieces.push_back(word);
      else
        wordpiece(word, pieces);
    }
    return pieces;
  }

  std::string tokens_to_text(const std::vector<std::string>& tokens, Side) const override {
    std::string joined;
    for (std::size_t i = 0; i < tokens.size(); ++i) joined += (i ? " " : "") + tokens[i];
    std::string out;
    for (std::size_t i = 0; i < joined.size();) {
      if (joined.compare(i, 3, " ##") == 0) {
        i += 3;
      } else {
        out.push_back(joined[i++]);
      }
    }
    return std::string(python_strip(out));
  }

  const Vocab& vocab(Side) const override { return vocab_; }
  const SpecialLayout& layout(Side) const override { return layout_; }
  std::size_t base_vocab_size() const override { return vocab_.size(); }

 private:
  // vocab.txt: one token per line, the line number is the id (Python text mode: universal newlines).
  void load_vocab(const TokenizerFiles& files) {
    auto text = files.read("vocab.txt", "the WordPiece vocabulary");
    std::int32_t id = 0;
    std::size_t start = 0;
    while (start < text.size()) {
      auto end = text.find_first_of("\r\n", start);
      if (end == std::string::npos) end = text.size();
      vocab_.add(text.substr(start, end - start), id++);
      start = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
    }
    if (id == 0) fail("{}: vocab.txt is empty", files.path());
  }

  // BasicTokenizer.tokenize.
  std::vector<std::string> basic_tokenize(const std::u32string& text) const {
    std::u32string cleaned;
    cleaned.reserve(text.size());
    for (char32_t c : text) {
      if (c == 0 || c == 0xFFFD || is_control(c)) continue;
      if (is_bert_whitespace(c)) {
        cleaned.push_back(U' ');
      } else if (tokenize_chinese_chars_ && is_cjk(c)) {
        cleaned.push_back(U' ');
        cleaned.push_back(c);
        cleaned.push_back(U' ');
      } else {
        cleaned.push_back(c);
      }
    }
    std::vector<std::string> out;
    for (auto& word : split_whitespace(cleaned)) {
      auto utf8 = encode_utf8(word);
      if (never_split_.count(utf8)) {
        out.push_back(std::move(utf8));
        continue;
      }
      if (do_lower_case_) {
        word = python_lower(word);
        if (strip_accents_ != false) word = strip_accents(word);
      } else if (strip_accents_ == true) {
        word = strip_accents(word);
      }
      // _run_split_on_punc: every punctuation character is a word of its own.
      std::u32string current;
      for (char32_t c : word) {
        if (is_punctuation(c)) {
          if (!current.empty()) out.push_back(encode_utf8(current));
          current.clear();
          out.push_back(encode_utf8(std::u32string(1, c)));
        } else {
          current.push_back(c);
        }
      }
      if (!current.empty()) out.push_back(encode_utf8(current));
    }
    return out;
  }

  // WordpieceTokenizer.tokenize on one word: greedy longest match, continuations prefixed "##";
  // a word with an unmatchable rest, or over 100 characters, becomes the unknown token.
  void wordpiece(const std::string& word, std::vector<std::string>& out) const {
    std::vector<std::size_t> offsets;  // byte offset of each character, then the end
    for (std::size_t i = 0; i < word.size(); ++i)
      if ((static_cast<unsigned char>(word[i]) & 0xC0) != 0x80) offsets.push_back(i);
    std::size_t n = offsets.size();
    offsets.push_back(word.size());
    if (n > kMaxCharsPerWord) {
      out.push_back(unk_);
      return;
    }
    std::vector<std::string> pieces;
    for (std::size_t start = 0; start < n;) {
      std::size_t end = n;
      std::string match;
      for (; end > start; --end) {
        auto piece = (start > 0 ? "##" : "") + word.substr(offsets[start], offsets[end] - offsets[start]);
        if (vocab_.find(piece)) {
          match = std::move(piece);
          break;
        }
      }
      if (end == start) {
        out.push_back(unk_);
        return;
      }
      pieces.push_back(std::move(match));
      start = end;
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
  }

  static constexpr std::size_t kMaxCharsPerWord = 100;

  Vocab vocab_;
  SpecialLayout layout_;
  bool do_lower_case_ = true;
  bool do_basic_tokenize_ = true;
  bool tokenize_chinese_chars_ = true;
  std::optional<bool> strip_accents_;
  std::set<std::string> never_split_;         // special tokens + config never_split
  std::set<std::string> config_never_split_;  // BasicTokenizer.never_split
  std::string unk_;
};

}  // namespace

std::unique_ptr<Tokenizer> make_wordpiece_tokenizer(const TokenizerFiles& files,
                                                    const TokenizerClass& tokenizer_class) {
  return std::make_unique<WordPieceTokenizer>(files, tokenizer_class);
}

}  // namespace invar
