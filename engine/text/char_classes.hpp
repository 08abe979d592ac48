#pragma once
// The character classes and case/accent rules BERT's tokenizers share: the slow BasicTokenizer
// (wordpiece.cpp) and tokenizer.json's BertNormalizer / BertPreTokenizer (tokenizer_json/).
#include <string>
#include <string_view>

#include "core/unicode.hpp"  // lower_each_char

namespace invar {

// tokenization_utils._is_control: category C*, except \t \n \r (treated as whitespace).
bool is_control(char32_t c);
// tokenization_utils._is_whitespace: space, \t \n \r and category Zs.
bool is_bert_whitespace(char32_t c);
// Unicode's White_Space property (Rust's char::is_whitespace).
bool is_unicode_whitespace(char32_t c);
// tokenization_utils._is_punctuation: all non-alphanumeric ASCII, and category P*.
bool is_punctuation(char32_t c);
// BasicTokenizer._is_chinese_char: the CJK Unified Ideographs blocks (not Hangul, Kana).
bool is_cjk(char32_t c);
// Category Mn (nonspacing mark).
bool is_nonspacing_mark(char32_t c);
// Letters and numbers (categories L*, N*).
bool is_alphanumeric(char32_t c);
// BasicTokenizer._run_strip_accents: NFD, then drop nonspacing marks (Mn).
std::u32string strip_accents(std::u32string_view text);

}  // namespace invar
