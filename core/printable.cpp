#include "core/printable.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/utf8.hpp"

namespace invar {

namespace {

// The length of the valid UTF-8 sequence starting at text[i], or 0.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t n = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size() || !is_valid_utf8(text.substr(i, n))) return 0;
  return n;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t n = sequence_length(text, i);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", byte);
      ++i;
    } else if (byte == '\n') {
      out += "\\n", ++i;
    } else if (byte == '\r') {
      out += "\\r", ++i;
    } else if (byte == '\t') {
      out += "\\t", ++i;
    } else if (byte < 0x20 || byte == 0x7F) {
      out += fmt::format("\\x{:02x}", byte), ++i;
    } else if (byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {  // U+0080–U+009F
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1])), i += 2;
    } else {
      out.append(text.substr(i, n)), i += n;
    }
  }
  return out;
}

std::string one_line(std::string text) {
  std::replace_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return text;
}

}  // namespace invar
