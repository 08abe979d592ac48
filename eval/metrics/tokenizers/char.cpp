// sacrebleu's `char` tokenizer: every code point a token.
#include "eval/metrics/tokenizers/mt_tokenize.hpp"

#include "eval/metrics/tokenizers/scan.hpp"

namespace invar::metrics {

std::string tokenize_char(std::string_view line) {
  std::string out;
  out.reserve(line.size() * 2);
  for (std::size_t pos = 0; pos < line.size();) {
    const std::size_t start = pos;
    scan::next_code_point(line, pos);
    if (!out.empty()) out += ' ';
    out.append(line.substr(start, pos - start));
  }
  return out;
}

}  // namespace invar::metrics
