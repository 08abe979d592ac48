#pragma once
// What the tokenizer algorithms read from a model: its parsed config.json (models/hf_config),
// tokenizer_config.json, special_tokens_map.json and the vocabulary files, with errors that name the
// folder and the file.
// Internal to engine/tokenizer*.cpp, wordpiece.cpp, sentencepiece_tokenizer.cpp, bpe_tokenizer.cpp, fsmt_tokenizer.cpp.
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/text/tokenizer.hpp"
#include "models/hf_config.hpp"

namespace invar {

class TokenizerFiles {
 public:
  TokenizerFiles(const ModelSource& source, const ModelConfig& model);

  const ModelConfig& model() const { return model_; }
  const nlohmann::json& tokenizer_config() const { return tokenizer_config_; }  // {} when absent
  bool has(const std::string& name) const;
  // The file's bytes; fails "<folder>: missing tokenizer file <name> (<why>)".
  std::string read(const std::string& name, std::string_view why) const;
  nlohmann::json read_json(const std::string& name, std::string_view why) const;
  // A {"token": id, ...} file (vocab.json and kin) of the `side`'s vocabulary added to `vocab`;
  // returns its number of entries (len(dict)). Fails naming the file and the token when an id is
  // not a non-negative integer below the model's vocabulary size on that side (config.json's
  // vocab_size, or the decoder's): such a token has no embedding row.
  std::size_t read_vocab(const std::string& name, std::string_view why, Vocab& vocab, Side side = Side::Source) const;
  // Hugging Face loads a folder whose tokenizer holds ids at or beyond config.json's vocab_size
  // (facebook/bart-large-cnn: vocab_size 50264, <mask> = 50264); invar warns and refuses only a
  // text that holds one. `beyond` lists them as "'token' = id".
  void warn_beyond_vocabulary(const std::string& name, const std::vector<std::string>& beyond, std::int64_t limit) const;
  const std::string& path() const;

  // tokenizer_config.json's value for key, or fallback when absent or null.
  bool flag(const char* key, bool fallback) const;
  std::optional<std::string> string(const char* key) const;
  // An integer in [0, limit]; fails naming the key when it is out of range.
  std::int64_t integer(const char* key, std::int64_t fallback, std::int64_t limit) const;

  // How a family's __init__ treats special tokens given as plain strings: RoBERTa-style
  // tokenizers wrap them in AddedToken(lstrip=False, rstrip=False), XLM-R-style ones only the mask
  // (lstrip=True); the rest keep plain strings (which strip whitespace on both sides).
  enum class Wrap { None, MaskOnly, All };
  // The family's defaults, overridden by tokenizer_config.json (through __init__) and then by
  // special_tokens_map.json (set on the tokenizer after __init__, as from_pretrained does).
  SpecialTokens special_tokens(SpecialTokens defaults, Wrap wrap) const;
  // added_tokens.json, or null.
  nlohmann::json added_tokens() const;

 private:
  const ModelSource& source_;
  ModelConfig model_;
  nlohmann::json tokenizer_config_;
  nlohmann::json special_tokens_map_;
};

// A special token written as a plain string in the family's defaults.
SpecialToken plain_token(std::string content);
// An AddedToken with explicit stripping.
SpecialToken added_token(std::string content, bool lstrip, bool rstrip);

// BPE merge ranks keyed "first second" (the two symbols joined by one space).
using BpeRanks = std::unordered_map<std::string, std::int32_t>;
// merges.txt as Hugging Face reads it: split("\n") without the text after the last newline,
// skip_lines header lines dropped, each line split on whitespace; a line of exactly two parts
// (with first_two, of at least two, the rest ignored) is a merge ranked by its line.
BpeRanks parse_bpe_merges(std::string_view text, std::size_t skip_lines, bool first_two);
// The BPE loop of GPT2Tokenizer.bpe / XLMTokenizer.bpe: merge every occurrence of the
// lowest-ranked adjacent pair, left to right, until no adjacent pair has a rank.
std::vector<std::string> apply_bpe_merges(std::vector<std::string> symbols, const BpeRanks& ranks);

std::unique_ptr<Tokenizer> make_wordpiece_tokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class);
std::unique_ptr<Tokenizer> make_sentencepiece_tokenizer(const TokenizerFiles& files,
                                                        const TokenizerClass& tokenizer_class);
std::unique_ptr<Tokenizer> make_bpe_tokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class);
std::unique_ptr<Tokenizer> make_fsmt_tokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class);

}  // namespace invar
