#pragma once
// How the sacrebleu tokenizers walk UTF-8 text as Python walks code points: decoding, Python's
// whitespace, ' '.join(text.split()). Shared by the tokenizers of this folder only; inline because
// they run on every byte.
#include <utf8proc.h>

#include <string>
#include <string_view>

#include "core/utf8.hpp"

namespace invar::metrics::scan {

// Decodes the code point at `pos` and advances past it; an invalid byte reads as U+FFFD.
inline char32_t next_code_point(std::string_view text, std::size_t& pos) {
  const auto byte = static_cast<unsigned char>(text[pos]);
  if (byte < 0x80) {
    ++pos;
    return byte;
  }
  utf8proc_int32_t cp = 0;
  auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                            static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
  if (n <= 0) {
    ++pos;
    return U'\uFFFD';
  }
  pos += static_cast<std::size_t>(n);
  return static_cast<char32_t>(cp);
}

// Python whitespace among the ASCII bytes.
inline bool is_ascii_space(unsigned char byte) {
  return byte == ' ' || (byte >= 0x09 && byte <= 0x0D) || (byte >= 0x1C && byte <= 0x1F);
}

// is_python_space at `pos`, advancing past the code point; ASCII (nearly every byte of most
// text) is decided here without decoding or a call.
inline bool space_at(std::string_view text, std::size_t& pos) {
  const auto byte = static_cast<unsigned char>(text[pos]);
  if (byte < 0x80) {
    ++pos;
    return is_ascii_space(byte);
  }
  return is_python_space(next_code_point(text, pos));
}

// The next run of non-whitespace from `pos` (empty at the end), leaving `pos` just after it.
// ASCII bytes are classified in place; only a byte >= 0x80 is decoded.
inline std::string_view next_token(std::string_view text, std::size_t& pos) {
  const std::size_t n = text.size();
  while (pos < n) {
    const auto byte = static_cast<unsigned char>(text[pos]);
    if (byte < 0x80) {
      if (!is_ascii_space(byte)) break;
      ++pos;
      continue;
    }
    std::size_t next = pos;
    if (!space_at(text, next)) break;
    pos = next;
  }
  const std::size_t start = pos;
  while (pos < n) {
    // Every ASCII whitespace byte is <= ' ': the common bytes of a token pass this test alone.
    const auto byte = static_cast<unsigned char>(text[pos]);
    if (byte > ' ' && byte < 0x80) {
      ++pos;
      continue;
    }
    std::size_t next = pos;
    if (space_at(text, next)) break;
    pos = next;
  }
  return text.substr(start, pos - start);
}

// ' '.join(text.split()) without the list.
inline std::string join_tokens(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  for (auto token = next_token(text, pos); !token.empty(); token = next_token(text, pos)) {
    if (!out.empty()) out += ' ';
    out.append(token);
  }
  return out;
}

}  // namespace invar::metrics::scan
