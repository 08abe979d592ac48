// sacrebleu's `intl` tokenizer (mteval-v14 international) on utf8proc's Unicode categories.
#include "eval/metrics/tokenizers/mt_tokenize.hpp"

#include <utf8proc.h>

#include "core/utf8.hpp"
#include "eval/metrics/tokenizers/scan.hpp"

namespace invar::metrics {

namespace {

bool is_punct_category(utf8proc_category_t c) { return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO; }
bool is_number_category(utf8proc_category_t c) { return c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO; }
bool is_symbol_category(utf8proc_category_t c) { return c >= UTF8PROC_CATEGORY_SM && c <= UTF8PROC_CATEGORY_SO; }
utf8proc_category_t category(char32_t c) { return utf8proc_category(static_cast<utf8proc_int32_t>(c)); }

}  // namespace

std::string tokenize_intl(std::string_view line) {
  const std::u32string text = decode_utf8(line);
  std::u32string a, b;
  a.reserve(text.size() * 2);
  // (\P{N})(\p{P}) → "\1 \2 "
  for (std::size_t i = 0; i < text.size();) {
    if (i + 1 < text.size() && !is_number_category(category(text[i])) && is_punct_category(category(text[i + 1]))) {
      a += text[i];
      a += U' ';
      a += text[i + 1];
      a += U' ';
      i += 2;
    } else {
      a += text[i++];
    }
  }
  // (\p{P})(\P{N}) → " \1 \2"
  b.reserve(a.size() * 2);
  for (std::size_t i = 0; i < a.size();) {
    if (i + 1 < a.size() && is_punct_category(category(a[i])) && !is_number_category(category(a[i + 1]))) {
      b += U' ';
      b += a[i];
      b += U' ';
      b += a[i + 1];
      i += 2;
    } else {
      b += a[i++];
    }
  }
  // (\p{S}) → " \1 "
  std::string out;
  out.reserve(b.size() * 2);
  for (char32_t c : b) {
    const bool symbol = is_symbol_category(category(c));
    if (symbol) out += ' ';
    append_utf8(out, c);
    if (symbol) out += ' ';
  }
  return scan::join_tokens(out);
}

}  // namespace invar::metrics
