// TER's Tercom normaliser (sacrebleu.tokenizers.tokenizer_ter.TercomTokenizer).
#include "eval/metrics/tokenizers/mt_tokenize.hpp"

#include "core/utf8.hpp"
#include "eval/metrics/tokenizers/mteval.hpp"
#include "eval/metrics/tokenizers/scan.hpp"

namespace invar::metrics {

namespace {

// Tercom's ASIAN_PUNCT and FULL_WIDTH_PUNCT classes.
bool is_tercom_asian_punct(char32_t c) {
  return c == 0x3001 || c == 0x3002 || (c >= 0x3008 && c <= 0x3011) || (c >= 0x3014 && c <= 0x301F) ||
         (c >= 0xFF61 && c <= 0xFF65) || c == 0x30FB || c == 0xFF0E || c == 0xFF0C || c == 0xFF1F || c == 0xFF1A ||
         c == 0xFF1B || c == 0xFF01 || c == 0xFF02 || c == 0xFF08 || c == 0xFF09;
}

// The character classes _normalize_asian pads with spaces. Its kana rules are anchored with `^`
// on a string that always starts with the space the Western step padded, so they never match.
bool is_tercom_asian_split(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x31C0 && c <= 0x31EF) ||
         (c >= 0x2E80 && c <= 0x2EFF) || (c >= 0x3300 && c <= 0x33FF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0x3200 && c <= 0x3F22) || is_tercom_asian_punct(c);
}

bool is_tercom_punct(char32_t c) {
  return c == '.' || c == ',' || c == '?' || c == ':' || c == ';' || c == '!' || c == '"' || c == '(' || c == ')';
}

// Tercom's _normalize_general_and_western (Normalizer.java).
std::string tercom_western(std::string s) {
  python_replace(s, "\n-", "");
  python_replace(s, "\n", " ");
  mteval::unescape_xml(s);
  s = mteval::pad_mteval_punct(" " + s + " ");
  // `'s ` → ` 's `; the `'s$` rule cannot match a string that ends with the padding space.
  python_replace(s, "'s ", " 's ");
  return std::string(mteval::split_periods_commas_dashes(s));
}

}  // namespace

std::string tokenize_tercom(std::string_view line, const TercomOptions& options) {
  if (line.empty()) return "";
  std::string s = options.case_sensitive ? std::string(line) : python_lower(line);
  const bool asian_split = options.normalized && options.asian_support;
  const bool asian_remove = options.no_punct && options.asian_support;
  if (options.normalized) s = tercom_western(std::move(s));
  if (asian_split || options.no_punct) {
    std::string out;
    out.reserve(s.size() * 2);
    for (std::size_t pos = 0; pos < s.size();) {
      const std::size_t start = pos;
      const char32_t c = scan::next_code_point(s, pos);
      const bool pad = asian_split && is_tercom_asian_split(c);
      if (options.no_punct && (is_tercom_punct(c) || (asian_remove && is_tercom_asian_punct(c)))) {
        if (pad) out += ' ';  // the padding added before the removal stays
        continue;
      }
      if (pad) out += ' ';
      out.append(s, start, pos - start);
      if (pad) out += ' ';
    }
    s = std::move(out);
  }
  return scan::join_tokens(s);
}

}  // namespace invar::metrics
