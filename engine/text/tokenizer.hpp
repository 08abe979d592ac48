#pragma once
// Text to token ids and back, exactly as the slow (Python) Hugging Face tokenizers of transformers
// 4.19 do it: special-token splitting with AddedToken whitespace stripping, each family's framing
// of one or two sequences (build_inputs_with_special_tokens), longest_first truncation, padding,
// and decode() with clean_up_tokenization_spaces. The algorithms (WordPiece, SentencePiece with
// each family's id mapping, byte-level BPE) fill in the model-specific hooks.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/family.hpp"

namespace invar {

class ModelSource;
class TokenizerFiles;

// One encoded sequence (or pair) with the model's special tokens.
struct Encoding {
  std::vector<std::int32_t> ids;
  std::vector<std::string> tokens;           // convert_ids_to_tokens(ids)
  std::vector<std::int32_t> type_ids;        // token_type_ids: 1 on BERT's second segment, else 0
  std::vector<std::uint8_t> special_mask;    // 1 where the tokenizer added a special token
};

// Several encodings padded on the right to the longest one (Hugging Face's padding=True).
struct BatchEncoding {
  std::vector<std::vector<std::int32_t>> ids;
  std::vector<std::vector<std::int32_t>> attention_mask;  // 1 = token, 0 = padding
  std::vector<std::vector<std::int32_t>> type_ids;
  std::vector<std::size_t> lengths;                       // unpadded length of each row
};

// A special token as Hugging Face's AddedToken describes it: whether it swallows the whitespace
// on its left / right when found in text. A special token given as a plain string strips both.
struct SpecialToken {
  std::string content;
  bool lstrip = true;
  bool rstrip = true;
};

// Which vocabulary a call works on. Only Marian (target.spm, target_vocab.json) and the
// language-code families (target-language framing) differ; elsewhere both sides are one.
enum class Side { Source, Target };

// How build_inputs_with_special_tokens frames its sequences: prefix A middle B suffix, or
// prefix A suffix for one sequence.
struct SpecialLayout {
  std::vector<std::int32_t> prefix;
  std::vector<std::int32_t> middle;
  std::vector<std::int32_t> suffix;
  bool eos_if_absent = false;    // T5: middle/suffix (= eos) only where the sequence lacks it
  bool segment_type_ids = false; // BERT: type id 1 from B to the end
};

// A token <-> id table with Hugging Face's dict semantics: the first id given for a token wins
// for token -> id, the first token given for an id wins for id -> token.
class Vocab {
 public:
  void add(const std::string& token, std::int32_t id);
  std::optional<std::int32_t> find(std::string_view token) const;
  const std::string* token(std::int32_t id) const;
  std::size_t size() const { return end_; }  // largest id + 1

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  std::unordered_map<std::string, std::int32_t, Hash, std::equal_to<>> token_to_id_;
  // By id, without room for the ids no token has: a file of a few tokens with one huge id takes
  // no more memory than its tokens.
  std::unordered_map<std::int32_t, std::string> id_to_token_;
  std::size_t end_ = 0;
};

// Everything the base class needs to know about a model's special tokens.
struct SpecialTokens {
  std::optional<SpecialToken> bos, eos, unk, sep, pad, cls, mask;
  std::vector<SpecialToken> additional;
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // What the factory found: "wordpiece", "sentencepiece", "bpe" or "moses-bpe"; the tokenizer class
  // of models/family it implements (the model family's, unless the folder names another).
  virtual std::string_view algorithm() const = 0;
  const TokenizerClass& tokenizer_class() const { return *class_; }

  // Hugging Face's tokenize(): pieces of the text, special tokens found in it kept whole, no
  // special tokens added. (tokenizer.json's tokenizer finds its added tokens its own way.)
  virtual std::vector<std::string> tokenize(std::string_view text, Side side = Side::Source) const;

  // encode / encode_pair: ids with the model's special tokens; max_length > 0 truncates the text
  // part longest_first so the result has at most max_length ids (fails when the special tokens
  // alone do not fit). encode_target frames the text as the decoder's labels (Marian target.spm,
  // mBART/M2M100 target language).
  Encoding encode(std::string_view text, std::size_t max_length = 0) const;
  Encoding encode_pair(std::string_view a, std::string_view b, std::size_t max_length = 0) const;
  Encoding encode_target(std::string_view text, std::size_t max_length = 0) const;
  BatchEncoding encode_batch(std::span<const std::string> texts, std::size_t max_length = 0) const;
  // Pads encodings to the longest with pad_id() (Hugging Face pads on the right for all families).
  BatchEncoding pad(std::span<const Encoding> encodings) const;

  // Hugging Face's decode(ids, skip_special_tokens, clean_up_tokenization_spaces=True); the target
  // side is what generate() produces. Ids outside the vocabulary fail.
  std::string decode(std::span<const std::int32_t> ids, bool skip_special_tokens = true,
                     Side side = Side::Target) const;

  // Token lookups. token_to_id gives unk_id() for unknown tokens, as Hugging Face does.
  std::int32_t token_to_id(std::string_view token, Side side = Side::Source) const;
  std::optional<std::int32_t> find_token(std::string_view token, Side side = Side::Source) const;
  std::string id_to_token(std::int32_t id, Side side = Side::Source) const;
  // len(tokenizer): the base vocabulary plus added tokens.
  std::size_t vocab_size() const;
  bool is_special(std::int32_t id) const;

  std::optional<std::int32_t> pad_id() const { return special_id(specials_.pad); }
  std::optional<std::int32_t> eos_id() const { return special_id(specials_.eos); }
  std::optional<std::int32_t> bos_id() const { return special_id(specials_.bos); }
  std::optional<std::int32_t> unk_id() const { return special_id(specials_.unk); }
  std::optional<std::int32_t> mask_id() const { return special_id(specials_.mask); }
  std::optional<std::int32_t> cls_id() const { return special_id(specials_.cls); }
  std::optional<std::int32_t> sep_id() const { return special_id(specials_.sep); }
  // tokenizer_config.json's model_max_length, when given.
  std::optional<std::size_t> model_max_length() const { return model_max_length_; }

  // Language codes (mBART "en_XX", M2M100 "en", Marian multilingual "fr" for >>fr<<). lang_id
  // fails for a model without them or for an unknown code, listing some valid ones.
  virtual std::vector<std::string> language_codes() const { return {}; }
  virtual std::int32_t lang_id(std::string_view code) const;
  // The languages encode() / encode_target() frame with (mBART, M2M100); fails for others.
  virtual void set_source_language(std::string_view code);
  virtual void set_target_language(std::string_view code);

 protected:
  // Hugging Face's _tokenize: one stretch of text without special tokens -> pieces.
  virtual std::vector<std::string> split_text(std::string_view text, Side side) const = 0;
  // convert_tokens_to_string.
  virtual std::string tokens_to_text(const std::vector<std::string>& tokens, Side side) const = 0;
  // prepare_for_tokenization (RoBERTa's add_prefix_space).
  virtual std::string prepare_text(std::string_view text) const { return std::string(text); }
  // The token <-> id table of a side.
  virtual const Vocab& vocab(Side side) const = 0;
  virtual const SpecialLayout& layout(Side side) const = 0;
  // Ids the base vocabulary has room for (HF's vocab_size property); ids in vocab() beyond it are
  // added tokens.
  virtual std::size_t base_vocab_size() const = 0;
  // How many ids decode() accepts on a side: len(tokenizer), unless a target vocabulary is larger.
  virtual std::size_t decodable_ids(Side) const { return vocab_size(); }

  // Subclasses call this once their vocabularies exist: adds added_tokens.json, gives special
  // tokens missing from the vocabulary new ids (HF's sanitize_special_tokens), resolves special
  // tokens to ids and reads model_max_length.
  void init_base(const TokenizerClass& tokenizer_class, SpecialTokens specials, const TokenizerFiles& files);
  std::optional<std::int32_t> special_id(const std::optional<SpecialToken>& token) const;
  const SpecialTokens& specials() const { return specials_; }
  // Where the tokenizer files were read from, for error messages.
  const std::string& files_path() const { return files_path_; }
  // HF's all_special_tokens_extended: the attributes in order, then the additional ones, unique.
  const std::vector<SpecialToken>& all_special_tokens() const { return all_specials_; }
  bool is_special_token(std::string_view token) const;
  std::int32_t require_special(const std::optional<SpecialToken>& token, std::string_view name) const;

 private:
  std::vector<std::int32_t> text_ids(std::string_view text, Side side) const;
  Encoding frame(std::vector<std::int32_t> a, const std::vector<std::int32_t>* b, std::size_t max_length,
                 Side side) const;

  const TokenizerClass* class_ = nullptr;
  std::string files_path_;
  SpecialTokens specials_;
  std::vector<SpecialToken> all_specials_;
  std::vector<SpecialToken> no_split_;          // special tokens, longest first
  std::array<bool, 256> no_split_starts_{};     // first bytes of no_split_, to skip the rest fast
  std::unordered_map<std::string, std::int32_t> added_;  // special tokens missing from the vocabulary
  std::vector<std::string> added_by_id_;
  std::vector<std::int32_t> special_ids_;       // sorted
  std::optional<std::size_t> model_max_length_;
};

// Chooses the tokenizer class from tokenizer_config.json's tokenizer_class, else config.json's,
// else the model family's (config.json read through models/hf_config), then reads
// special_tokens_map.json and the files present; fails naming the folder and the file expected
// when a tokenizer file is missing, and naming the file and field for a tokenizer_class invar does
// not implement.
std::unique_ptr<Tokenizer> make_tokenizer(const ModelSource& source);

// Hugging Face's clean_up_tokenization: " ." -> "." and the other English contractions.
std::string clean_up_tokenization(std::string text);

}  // namespace invar
