#include "engine/text/char_classes.hpp"

#include <utf8proc.h>

#include <cstdlib>
#include <initializer_list>

#include "core/error.hpp"
#include "core/unicode.hpp"
#include "core/utf8.hpp"

namespace invar {
namespace {

bool is_category(char32_t c, std::initializer_list<utf8proc_category_t> categories) {
  auto category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  for (auto candidate : categories)
    if (category == candidate) return true;
  return false;
}

}  // namespace

bool is_control(char32_t c) {
  if (c == U'\t' || c == U'\n' || c == U'\r') return false;
  return is_category(c, {UTF8PROC_CATEGORY_CC, UTF8PROC_CATEGORY_CF, UTF8PROC_CATEGORY_CS, UTF8PROC_CATEGORY_CO,
                         UTF8PROC_CATEGORY_CN});
}

bool is_bert_whitespace(char32_t c) {
  return c == U' ' || c == U'\t' || c == U'\n' || c == U'\r' || is_category(c, {UTF8PROC_CATEGORY_ZS});
}

bool is_unicode_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool is_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  return is_category(c, {UTF8PROC_CATEGORY_PC, UTF8PROC_CATEGORY_PD, UTF8PROC_CATEGORY_PS, UTF8PROC_CATEGORY_PE,
                         UTF8PROC_CATEGORY_PI, UTF8PROC_CATEGORY_PF, UTF8PROC_CATEGORY_PO});
}

bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_nonspacing_mark(char32_t c) { return is_category(c, {UTF8PROC_CATEGORY_MN}); }

bool is_alphanumeric(char32_t c) {
  return is_category(c, {UTF8PROC_CATEGORY_LU, UTF8PROC_CATEGORY_LL, UTF8PROC_CATEGORY_LT, UTF8PROC_CATEGORY_LM,
                         UTF8PROC_CATEGORY_LO, UTF8PROC_CATEGORY_ND, UTF8PROC_CATEGORY_NL, UTF8PROC_CATEGORY_NO});
}

std::u32string strip_accents(std::u32string_view text) {
  std::u32string out;
  for (char32_t c : unicode_decompose(text, false))
    if (!is_nonspacing_mark(c)) out.push_back(c);
  return out;
}

}  // namespace invar
