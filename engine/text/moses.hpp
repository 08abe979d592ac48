#pragma once
// The Moses tokenizer, detokenizer and punctuation normalizer, as sacremoses ports them from Moses'
// Perl scripts and as Hugging Face's FSMTTokenizer calls them (transformers 4.19):
//   text -> replace_unicode_punctuation -> MosesPunctNormalizer(lang).normalize
//        -> remove_non_printing -> MosesTokenizer(lang).tokenize(aggressive_dash_splits, escape)
// and MosesDetokenizer(lang).detokenize(tokens) back. The rules are sacremoses' regular
// expressions, run by PCRE2 in Unicode mode; sacremoses' Perl character sets map to Unicode
// properties (IsAlpha = Alphabetic, IsAlnum = Alphabetic + Nd, IsN = N, IsLower = Lowercase,
// IsSc = Sc, IsSo = So).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace invar {

class RuleList;

// Hugging Face's replace_unicode_punct (Moses' replace-unicode-punctuation.perl): fullwidth and
// CJK punctuation and digits to ASCII.
std::string replace_unicode_punctuation(std::string_view text);
// Hugging Face's remove_non_printing_char: drops every character of a Unicode category C*.
std::string remove_non_printing(std::string_view text);

// The nonbreaking-prefix list compiled in for a language (engine/text/moses/), or nullopt.
std::optional<std::string_view> embedded_nonbreaking_prefixes(std::string_view language);

// MosesPunctNormalizer(lang) with sacremoses' defaults (penn, quote/comma and number rules).
class MosesPunctNormalizer {
 public:
  explicit MosesPunctNormalizer(std::string_view language);
  std::string normalize(std::string_view text) const;

 private:
  std::vector<const RuleList*> groups_;  // compiled once per process, applied in order
};

// MosesTokenizer(lang).tokenize(text, aggressive_dash_splits, escape=True). Fails for a language
// without compiled-in nonbreaking prefixes.
class MosesTokenizer {
 public:
  explicit MosesTokenizer(std::string_view language);
  std::vector<std::string> tokenize(std::string_view text, bool aggressive_dash_splits = false,
                                    bool escape = true) const;

 private:
  std::string protect_nonbreaking_prefixes(std::string_view text) const;

  std::string language_;
  std::vector<std::string> nonbreaking_;   // whole lines, "#NUMERIC_ONLY#" ones included
  std::vector<std::string> numeric_only_;  // the words of the "#NUMERIC_ONLY#" lines
};

// MosesDetokenizer(lang).detokenize(tokens, unescape=True). Czech and Finnish rules are not
// ported: those languages fail.
class MosesDetokenizer {
 public:
  explicit MosesDetokenizer(std::string_view language);
  std::string detokenize(std::span<const std::string> tokens) const;

 private:
  std::string language_;
};

// The Moses steps of one language as Hugging Face's FSMTTokenizer runs them (moses_pipeline,
// moses_tokenize, moses_detokenize): tokenize() is replace_unicode_punctuation, normalize,
// remove_non_printing, then tokenization with aggressive dash splits and XML escaping;
// detokenize() unescapes.
class MosesPipeline {
 public:
  explicit MosesPipeline(std::string_view language);
  std::vector<std::string> tokenize(std::string_view text) const;
  std::string detokenize(std::span<const std::string> words) const { return detokenizer_.detokenize(words); }

 private:
  MosesPunctNormalizer normalizer_;
  MosesTokenizer tokenizer_;
  MosesDetokenizer detokenizer_;
};

}  // namespace invar
