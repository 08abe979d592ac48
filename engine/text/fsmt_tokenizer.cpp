// FSMT (FAIR's WMT19 models) as transformers 4.19's FSMTTokenizer defines it: Moses
// preprocessing and tokenization in the source language, XLM-style BPE with "</w>" word ends over
// merges.txt, source ids and tokens from vocab-src.json, output ids and tokens from vocab-tgt.json,
// text + </s>, and decoding by joining the BPE pieces and Moses-detokenizing in the target language.
#include <algorithm>
#include <array>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "engine/text/moses.hpp"
#include "engine/text/tokenizer_files.hpp"

namespace invar {
namespace {

const std::string kWordEnd = "</w>";

// FSMTTokenizer's langs: tokenizer_config.json's, else config.json's [source, target] (checked by
// models/hf_config).
std::array<std::string, 2> read_languages(const TokenizerFiles& files) {
  const auto it = files.tokenizer_config().find("langs");
  if (it == files.tokenizer_config().end()) {
    if (files.model().langs) return *files.model().langs;
    fail("{}: FSMT needs 'langs' ([source, target]) in tokenizer_config.json or config.json", files.path());
  }
  if (!it->is_array() || it->size() != 2 || !(*it)[0].is_string() || !(*it)[1].is_string())
    fail("{}: tokenizer_config.json: 'langs' must be a list of two language codes, e.g. [\"en\", \"de\"]",
         files.path());
  return {(*it)[0].get<std::string>(), (*it)[1].get<std::string>()};
}

class FsmtTokenizer final : public Tokenizer {
 public:
  FsmtTokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class) {
    auto [source, target] = read_languages(files);
    try {
      source_moses_ = std::make_unique<MosesPipeline>(source);
      target_moses_ = std::make_unique<MosesPipeline>(target);
    } catch (const Error& e) {
      fail("{}: FSMT languages {} -> {}: {}", files.path(), source, target, e.what());
    }
    source_size_ = files.read_vocab("vocab-src.json", "the FSMT vocabulary", source_vocab_);
    target_size_ = files.read_vocab("vocab-tgt.json", "the FSMT vocabulary", target_vocab_, Side::Target);
    // FSMTTokenizer keeps the text after merges.txt's last newline out and reads every line
    // before it (no "#version" header), taking its first two fields.
    ranks_ = parse_bpe_merges(files.read("merges.txt", "the FSMT BPE merges"), 0, true);
    lower_case_ = files.flag("do_lower_case", false);

    SpecialTokens defaults;
    defaults.unk = plain_token("<unk>");
    defaults.bos = plain_token("<s>");
    defaults.sep = plain_token("</s>");
    defaults.pad = plain_token("<pad>");
    init_base(tokenizer_class, files.special_tokens(defaults, TokenizerFiles::Wrap::None), files);
    // build_inputs_with_special_tokens: no <s> in fairseq; A </s>, or A </s> B </s> with token
    // type 1 on B </s>.
    auto sep = require_special(specials().sep, "separator (sep)");
    layout_.middle = {sep};
    layout_.suffix = {sep};
    layout_.segment_type_ids = true;
  }

  std::string_view algorithm() const override { return "moses-bpe"; }

 protected:
  // FSMTTokenizer._tokenize always uses the source language; the target side (labels, which
  // Hugging Face 4.19 has no mode for) uses the target language and vocab-tgt.json, as the
  // decoder was trained on them.
  std::vector<std::string> split_text(std::string_view text, Side side) const override {
    const std::string prepared = lower_case_ ? python_lower(text) : std::string(text);
    std::vector<std::string> pieces;
    for (const auto& word : pipeline(side).tokenize(prepared)) {
      auto merged = bpe(word);
      pieces.insert(pieces.end(), std::make_move_iterator(merged.begin()), std::make_move_iterator(merged.end()));
    }
    return pieces;
  }

  // convert_tokens_to_string: "</w>" ends a word, the words are Moses-detokenized.
  std::string tokens_to_text(const std::vector<std::string>& tokens, Side side) const override {
    std::string joined;
    for (const auto& token : tokens) {
      for (std::size_t i = 0; i < token.size();) {
        if (token.compare(i, kWordEnd.size(), kWordEnd) == 0) {
          joined.push_back(' ');
          i += kWordEnd.size();
        } else {
          if (token[i] != ' ') joined.push_back(token[i]);
          ++i;
        }
      }
    }
    std::vector<std::string> words;
    for (auto word : python_split(joined)) words.emplace_back(word);
    return pipeline(side).detokenize(words);
  }

  // Source ids show source pieces: FSMTTokenizer._convert_id_to_token reads vocab-tgt.json whatever
  // the side, which names source ids with unrelated target pieces (the seq2seq/fsmt golden's
  // `tokens` are vocab-src.json's, as its README says).
  const Vocab& vocab(Side side) const override { return side == Side::Target ? target_vocab_ : source_vocab_; }
  const SpecialLayout& layout(Side) const override { return layout_; }
  std::size_t base_vocab_size() const override { return source_size_; }  // HF: vocab_size = src_vocab_size
  std::size_t decodable_ids(Side side) const override {
    return side == Side::Target ? std::max(vocab_size(), target_size_) : vocab_size();
  }

 private:
  const MosesPipeline& pipeline(Side side) const { return side == Side::Target ? *target_moses_ : *source_moses_; }

  // XLMTokenizer.bpe: the word's characters, the last one carrying "</w>", merged by rank. Hugging
  // Face caches results per word; the function is pure, so nothing is cached here.
  std::vector<std::string> bpe(const std::string& word) const {
    std::vector<std::string> symbols;
    for (char32_t c : decode_utf8(word)) {
      symbols.emplace_back();
      append_utf8(symbols.back(), c);
    }
    if (symbols.empty()) return symbols;
    symbols.back() += kWordEnd;
    return apply_bpe_merges(std::move(symbols), ranks_);
  }

  std::unique_ptr<MosesPipeline> source_moses_, target_moses_;
  Vocab source_vocab_, target_vocab_;
  std::size_t source_size_ = 0, target_size_ = 0;
  BpeRanks ranks_;
  bool lower_case_ = false;
  SpecialLayout layout_;
};

}  // namespace

std::unique_ptr<Tokenizer> make_fsmt_tokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class) {
  return std::make_unique<FsmtTokenizer>(files, tokenizer_class);
}

}  // namespace invar
