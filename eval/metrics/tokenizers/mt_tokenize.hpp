#pragma once
// The tokenizers of sacrebleu 2.4.3, reproduced character for character (no regex engine: each
// regex substitution is a left-to-right, non-overlapping scan, exactly as Python's re.sub walks).
// Every function returns the tokenized line as sacrebleu does: tokens joined by single spaces.
//
// "Whitespace" is Python's str.split() set (core/utf8.hpp is_python_space), lowercase is Python's
// str.lower(). Categories for `intl` come from utf8proc (Unicode 15, as the `regex` module).
#include <string>
#include <string_view>
#include <vector>

namespace invar::metrics {

// mteval-v13a: drops "<skipped>", joins "-\n" hyphenation, turns "\n" into spaces, un-escapes
// &quot; &amp; &lt; &gt; (in that order), pads with spaces and splits ASCII punctuation off (keeping
// "." and "," between digits, splitting "-" after a digit).
std::string tokenize_13a(std::string_view line);

// mteval-v14 international: `(\P{N})(\p{P})` → "\1 \2 ", `(\p{P})(\P{N})` → " \1 \2",
// `(\p{S})` → " \1 " (so a sentence-final number keeps its period, as in mteval-v14.pl).
std::string tokenize_intl(std::string_view line);

// Chinese: strips, isolates the characters of sacrebleu's _UCODE_RANGES — including its quirk that
// the entries written '\u20000'/'\u2a6d6' and '\u2f800'/'\u2fa1d' are two-character strings and so
// compare as U+2001..U+2A6D and U+2F81..U+2FA1 — then applies the 13a punctuation rules.
std::string tokenize_zh(std::string_view line);
bool is_sacrebleu_zh_char(char32_t c);

// Every code point separated by a space (whitespace included; a later split drops it).
std::string tokenize_char(std::string_view line);

// TER's Tercom normaliser (sacrebleu.tokenizers.tokenizer_ter.TercomTokenizer).
struct TercomOptions {
  bool normalized = false;
  bool no_punct = false;
  bool asian_support = false;
  bool case_sensitive = false;
};
std::string tokenize_tercom(std::string_view line, const TercomOptions& options);

// Python's str.split() with no argument: runs of whitespace separate, no empty tokens. The views
// point into `text`.
std::vector<std::string_view> split_whitespace(std::string_view text);
void split_whitespace(std::string_view text, std::vector<std::string_view>& out);
// Python's str.rstrip() / str.strip() with no argument.
std::string_view rstrip_whitespace(std::string_view text);
std::string_view strip_whitespace(std::string_view text);

}  // namespace invar::metrics
