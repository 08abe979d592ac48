// sacrebleu's `zh` tokenizer: Chinese characters isolated, then 13a's punctuation rules.
#include "eval/metrics/tokenizers/mt_tokenize.hpp"

#include "eval/metrics/tokenizers/mteval.hpp"
#include "eval/metrics/tokenizers/scan.hpp"

namespace invar::metrics {

bool is_sacrebleu_zh_char(char32_t c) {
  // _UCODE_RANGES in order; the two "astral" entries are really U+2001..U+2A6D and U+2F81..U+2FA1.
  return (c >= 0x3400 && c <= 0x4DB5) || (c >= 0x4E00 && c <= 0x9FA5) || (c >= 0x9FA6 && c <= 0x9FBB) ||
         (c >= 0xF900 && c <= 0xFA2D) || (c >= 0xFA30 && c <= 0xFA6A) || (c >= 0xFA70 && c <= 0xFAD9) ||
         (c >= 0x2001 && c <= 0x2A6D) || (c >= 0x2F81 && c <= 0x2FA1) || (c >= 0xFF00 && c <= 0xFFEF) ||
         (c >= 0x2E80 && c <= 0x2EFF) || (c >= 0x3000 && c <= 0x303F) || (c >= 0x31C0 && c <= 0x31EF) ||
         (c >= 0x2F00 && c <= 0x2FDF) || (c >= 0x2FF0 && c <= 0x2FFF) || (c >= 0x3100 && c <= 0x312F) ||
         (c >= 0x31A0 && c <= 0x31BF) || (c >= 0xFE10 && c <= 0xFE1F) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0x2600 && c <= 0x26FF) || (c >= 0x2700 && c <= 0x27BF) || (c >= 0x3200 && c <= 0x32FF) ||
         (c >= 0x3300 && c <= 0x33FF);
}

std::string tokenize_zh(std::string_view line) {
  line = strip_whitespace(line);
  std::string spaced;
  spaced.reserve(line.size() * 2);
  for (std::size_t pos = 0; pos < line.size();) {
    const std::size_t start = pos;
    const char32_t c = scan::next_code_point(line, pos);
    const bool chinese = is_sacrebleu_zh_char(c);
    if (chinese) spaced += ' ';
    spaced.append(line.substr(start, pos - start));
    if (chinese) spaced += ' ';
  }
  return mteval::mteval_regexp(spaced);
}

}  // namespace invar::metrics
