// Python's str.split(), rstrip() and strip() without arguments.
#include "eval/metrics/tokenizers/mt_tokenize.hpp"

#include "eval/metrics/tokenizers/scan.hpp"

namespace invar::metrics {

void split_whitespace(std::string_view text, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t pos = 0;
  for (auto token = scan::next_token(text, pos); !token.empty(); token = scan::next_token(text, pos)) out.push_back(token);
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
  std::vector<std::string_view> out;
  split_whitespace(text, out);
  return out;
}

std::string_view rstrip_whitespace(std::string_view text) {
  // From the end while the bytes are ASCII (a byte < 0x80 is always a whole code point); a line
  // ending in a multi-byte character takes the forward scan.
  std::size_t last = text.size();
  while (last > 0 && static_cast<unsigned char>(text[last - 1]) < 0x80) {
    std::size_t at = last - 1;
    if (!scan::space_at(text, at)) return text.substr(0, last);
    --last;
  }
  if (last == 0) return {};
  std::size_t pos = 0, end = 0;
  while (pos < text.size())
    if (!scan::space_at(text, pos)) end = pos;
  return text.substr(0, end);
}

std::string_view strip_whitespace(std::string_view text) {
  text = rstrip_whitespace(text);
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t here = pos;
    if (!scan::space_at(text, pos)) return text.substr(here);
  }
  return {};
}

}  // namespace invar::metrics
