// Byte-level BPE as transformers 4.19's GPT2Tokenizer / RobertaTokenizer / BartTokenizer: GPT-2's
// pre-tokenization regex (PCRE2 with Unicode properties), every byte of a word mapped to a
// printable character (bytes_to_unicode), merges applied by rank, results cached per word.
#include <array>
#include <mutex>
#include <unordered_map>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "engine/text/regex.hpp"
#include "engine/text/tokenizer_files.hpp"

namespace invar {
namespace {

// GPT-2's pattern. Python's `regex` module takes \s as Unicode White_Space; PCRE2's UCP \s is
// Z + \t\n\v\f\r, which lacks only NEL (U+0085), added here.
constexpr const char* kPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\x{85}\p{L}\p{N}]+|[\s\x{85}]+(?![^\s\x{85}])|[\s\x{85}]+)";

// bytes_to_unicode: printable Latin-1 bytes stand for themselves, the rest map to U+0100 upwards.
std::array<char32_t, 256> byte_to_char_table() {
  std::array<char32_t, 256> table{};
  std::array<bool, 256> printable{};
  for (int b = '!'; b <= '~'; ++b) printable[b] = true;
  for (int b = 0xA1; b <= 0xAC; ++b) printable[b] = true;
  for (int b = 0xAE; b <= 0xFF; ++b) printable[b] = true;
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) table[b] = printable[b] ? static_cast<char32_t>(b) : next++;
  return table;
}

// bytes.decode("utf-8", errors="replace"): each maximal ill-formed subsequence becomes one U+FFFD.
std::string decode_utf8_replacing(const std::string& bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < bytes.size()) {
    auto b = static_cast<unsigned char>(bytes[i]);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (b < 0x80) length = 1;
    else if (b >= 0xC2 && b <= 0xDF) length = 2;
    else if (b >= 0xE0 && b <= 0xEF) {
      length = 3;
      if (b == 0xE0) low = 0xA0;
      if (b == 0xED) high = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      length = 4;
      if (b == 0xF0) low = 0x90;
      if (b == 0xF4) high = 0x8F;
    }
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    std::size_t good = 1;
    for (; good < length && i + good < bytes.size(); ++good) {
      auto c = static_cast<unsigned char>(bytes[i + good]);
      if (c < (good == 1 ? low : 0x80) || c > (good == 1 ? high : 0xBF)) break;
    }
    if (good == length) {
      out.append(bytes, i, length);
    } else {
      out += "\xEF\xBF\xBD";
    }
    i += good;
  }
  return out;
}

}  // namespace

BpeRanks parse_bpe_merges(std::string_view text, std::size_t skip_lines, bool first_two) {
  std::vector<std::string_view> lines;
  for (auto end = text.find('\n'); end != std::string_view::npos; end = text.find('\n')) {
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  // The text after the last newline is dropped (split("\n")[...:-1]).
  BpeRanks ranks;
  for (std::size_t i = skip_lines; i < lines.size(); ++i) {
    std::vector<std::string> parts;
    std::string part;
    for (char32_t c : decode_utf8(lines[i])) {
      if (is_python_space(c)) {
        if (!part.empty()) parts.push_back(std::move(part));
        part.clear();
      } else {
        append_utf8(part, c);
      }
    }
    if (!part.empty()) parts.push_back(std::move(part));
    if (first_two && parts.size() > 2) parts.resize(2);
    // dict(zip(merges, range(...))): a line that is not a pair never matches; a repeated pair
    // keeps its last rank.
    if (parts.size() == 2) ranks[parts[0] + ' ' + parts[1]] = static_cast<std::int32_t>(i - skip_lines);
  }
  return ranks;
}

std::vector<std::string> apply_bpe_merges(std::vector<std::string> symbols, const BpeRanks& ranks) {
  std::string key;
  while (symbols.size() > 1) {
    std::int32_t best_rank = INT32_MAX;
    std::size_t best = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      key.assign(symbols[i]).append(1, ' ').append(symbols[i + 1]);
      auto it = ranks.find(key);
      if (it != ranks.end() && it->second < best_rank) {
        best_rank = it->second;
        best = i;
      }
    }
    if (best_rank == INT32_MAX) break;
    std::string first = symbols[best], second = symbols[best + 1];
    std::vector<std::string> merged;
    merged.reserve(symbols.size());
    for (std::size_t i = 0; i < symbols.size();) {
      if (i + 1 < symbols.size() && symbols[i] == first && symbols[i + 1] == second) {
        merged.push_back(first + second);
        i += 2;
      } else {
        merged.push_back(symbols[i++]);
      }
    }
    symbols = std::move(merged);
  }
  return symbols;
}

namespace {

class BpeTokenizer final : public Tokenizer {
 public:
  BpeTokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class) {
    base_vocab_size_ = files.read_vocab("vocab.json", "the byte-level BPE vocabulary", vocab_);
    load_merges(files);
    add_prefix_space_ = files.flag("add_prefix_space", false);
    auto table = byte_to_char_table();
    for (int b = 0; b < 256; ++b) {
      std::string encoded;
      append_utf8(encoded, table[b]);
      byte_chars_[b] = encoded;
      char_bytes_.emplace(table[b], static_cast<char>(b));
    }

    // RobertaTokenizer.__init__ wraps string special tokens in AddedToken (no stripping, the
    // mask token strips on its left).
    SpecialTokens defaults;
    defaults.bos = defaults.cls = added_token("<s>", false, false);
    defaults.eos = defaults.sep = added_token("</s>", false, false);
    defaults.unk = added_token("<unk>", false, false);
    defaults.pad = added_token("<pad>", false, false);
    defaults.mask = added_token("<mask>", true, false);
    init_base(tokenizer_class, files.special_tokens(defaults, TokenizerFiles::Wrap::All), files);
    auto cls = require_special(specials().cls, "classification (cls)");
    auto sep = require_special(specials().sep, "separator (sep)");
    layout_.prefix = {cls};
    layout_.middle = {sep, sep};
    layout_.suffix = {sep};
  }

  std::string_view algorithm() const override { return "bpe"; }

 protected:
  std::string prepare_text(std::string_view text) const override {
    // RobertaTokenizer.prepare_for_tokenization: a space before text not starting with one.
    std::string prepared;
    prepared.reserve(text.size() + 1);
    if (add_prefix_space_ && !text.empty() && python_lstrip(text).size() == text.size()) prepared.push_back(' ');
    prepared.append(text.data(), text.size());
    return prepared;
  }

  std::vector<std::string> split_text(std::string_view text, Side) const override {
    std::vector<std::string> pieces;
    for (auto word : regex().find_all(text)) {
      std::string mapped;
      for (char byte : word) mapped += byte_chars_[static_cast<unsigned char>(byte)];
      auto merged = bpe(mapped);
      pieces.insert(pieces.end(), merged.begin(), merged.end());
    }
    return pieces;
  }

  std::string tokens_to_text(const std::vector<std::string>& tokens, Side) const override {
    std::string bytes;
    for (const auto& token : tokens) {
      for (char32_t c : decode_utf8(token)) {
        auto it = char_bytes_.find(c);
        if (it != char_bytes_.end())
          bytes.push_back(it->second);
        else
          append_utf8(bytes, c);  // not a byte character: keep it as text
      }
    }
    return decode_utf8_replacing(bytes);
  }

  const Vocab& vocab(Side) const override { return vocab_; }
  const SpecialLayout& layout(Side) const override { return layout_; }
  std::size_t base_vocab_size() const override { return base_vocab_size_; }

 private:
  static const Regex& regex() {
    static const Regex instance(kPattern);
    return instance;
  }

  // merges.txt: a "#version" line, then "first second" per line; Hugging Face drops the first and
  // the last line (split("\n")[1:-1]), so a file without a final newline loses its last merge.
  void load_merges(const TokenizerFiles& files) {
    ranks_ = parse_bpe_merges(files.read("merges.txt", "the byte-level BPE merges"), 1, false);
  }

  // GPT2Tokenizer.bpe: merge the lowest-ranked adjacent pair, everywhere, until none is known.
  std::vector<std::string> bpe(const std::string& word) const {
    {
      std::lock_guard lock(cache_mutex_);
      if (auto it = cache_.find(word); it != cache_.end()) return it->second;
    }
    std::vector<std::string> symbols;
    for (char32_t c : decode_utf8(word)) {
      std::string symbol;
      append_utf8(symbol, c);
      symbols.push_back(std::move(symbol));
    }
    symbols = apply_bpe_merges(std::move(symbols), ranks_);
    std::lock_guard lock(cache_mutex_);
    if (cache_.size() >= kCacheLimit) cache_.clear();
    cache_.emplace(word, symbols);
    return symbols;
  }

  static constexpr std::size_t kCacheLimit = 1 << 16;

  Vocab vocab_;
  std::size_t base_vocab_size_ = 0;
  BpeRanks ranks_;
  std::array<std::string, 256> byte_chars_;
  std::unordered_map<char32_t, char> char_bytes_;
  bool add_prefix_space_ = false;
  SpecialLayout layout_;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<std::string>> cache_;
};

}  // namespace

std::unique_ptr<Tokenizer> make_bpe_tokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class) {
  return std::make_unique<BpeTokenizer>(files, tokenizer_class);
}

}  // namespace invar
