#include "core/utf8.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace invar {

namespace {

// Whether none of the eight bytes at `p` has its high bit set.
bool eight_ascii(const char* p) {
  std::uint64_t bytes = 0;
  std::memcpy(&bytes, p, 8);
  return (bytes & 0x8080808080808080ull) == 0;
}

}  // namespace

std::size_t find_invalid_utf8(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    // ASCII is valid: skipped eight bytes at a time, then one by one.
    if (pos + 8 <= text.size() && eight_ascii(text.data() + pos)) {
      pos += 8;
      continue;
    }
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    utf8proc_int32_t cp = 0;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                              static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
    if (n <= 0) return pos;
    pos += static_cast<std::size_t>(n);
  }
  return std::string_view::npos;
}

std::u32string decode_utf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    utf8proc_int32_t cp = 0;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                              static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
    if (n <= 0) {
      out.push_back(U'\uFFFD');
      ++pos;
      continue;
    }
    out.push_back(static_cast<char32_t>(cp));
    pos += static_cast<std::size_t>(n);
  }
  return out;
}

void append_utf8(std::string& out, char32_t code_point) {
  utf8proc_uint8_t buffer[4];
  auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(code_point), buffer);
  out.append(reinterpret_cast<const char*>(buffer), static_cast<std::size_t>(n));
}

std::string encode_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) append_utf8(out, c);
  return out;
}

bool is_python_space(char32_t c) {
  if (c == U' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return true;
  if (c < 0x85) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

namespace {

// The code point that starts at text[pos] (U+FFFD when invalid) and its length in bytes.
char32_t code_point_at(std::string_view text, std::size_t pos, std::size_t& length) {
  utf8proc_int32_t cp = 0;
  auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                            static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
  length = n > 0 ? static_cast<std::size_t>(n) : 1;
  return n > 0 ? static_cast<char32_t>(cp) : U'\uFFFD';
}

}  // namespace

std::string_view python_lstrip(std::string_view text) {
  std::size_t pos = 0, length = 0;
  while (pos < text.size() && is_python_space(code_point_at(text, pos, length))) pos += length;
  return text.substr(pos);
}

std::string_view python_rstrip(std::string_view text) {
  std::size_t end = text.size(), length = 0;
  while (end > 0) {
    std::size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    if (!is_python_space(code_point_at(text, start, length)) || start + length != end) break;
    end = start;
  }
  return text.substr(0, end);
}

std::string_view python_strip(std::string_view text) { return python_rstrip(python_lstrip(text)); }

std::vector<std::string_view> python_split(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t pos = 0, length = 0;
  while (pos < text.size()) {
    while (pos < text.size() && is_python_space(code_point_at(text, pos, length))) pos += length;
    std::size_t start = pos;
    while (pos < text.size() && !is_python_space(code_point_at(text, pos, length))) pos += length;
    if (pos > start) words.push_back(text.substr(start, pos - start));
  }
  return words;
}

namespace {

// Unicode's Cased and Case_Ignorable properties, which decide the Final_Sigma context. utf8proc
// has no direct query: Cased = has a case mapping or is titlecase; Case_Ignorable = the
// categories Mn, Me, Cf, Lm, Sk plus the Word_Break MidLetter / MidNumLet / Single_Quote marks.
bool is_cased(char32_t c) {
  auto cp = static_cast<utf8proc_int32_t>(c);
  return utf8proc_islower(cp) || utf8proc_isupper(cp) || utf8proc_category(cp) == UTF8PROC_CATEGORY_LT;
}

bool is_case_ignorable(char32_t c) {
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_SK:
      return true;
    default:
      break;
  }
  switch (c) {
    case 0x27: case 0x2E: case 0x3A: case 0xB7: case 0x387: case 0x5F4: case 0x2018: case 0x2019:
    case 0x2024: case 0x2027: case 0xFE13: case 0xFE52: case 0xFE55: case 0xFF07: case 0xFF0E: case 0xFF1A:
      return true;
    default:
      return false;
  }
}

// Python's rule: a cased letter before Σ (skipping case-ignorables) and none after it.
bool is_final_sigma(std::u32string_view text, std::size_t at) {
  std::size_t i = at;
  bool cased_before = false;
  while (i > 0) {
    char32_t c = text[--i];
    if (is_case_ignorable(c)) continue;
    cased_before = is_cased(c);
    break;
  }
  if (!cased_before) return false;
  for (std::size_t j = at + 1; j < text.size(); ++j) {
    if (is_case_ignorable(text[j])) continue;
    return !is_cased(text[j]);
  }
  return true;
}

}  // namespace

std::u32string python_lower(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char32_t c = text[i];
    if (c == 0x130) {
      out += U"i\u0307";
    } else if (c == 0x3A3) {
      out.push_back(is_final_sigma(text, i) ? U'\u03C2' : U'\u03C3');
    } else {
      out.push_back(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
    }
  }
  return out;
}

std::string python_lower(std::string_view text) {
  // ASCII text (most MT output) lowers byte by byte: only A-Z change, as in Python.
  const bool ascii = std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (!ascii) return encode_utf8(python_lower(decode_utf8(text)));
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

void python_replace(std::string& text, std::string_view from, std::string_view to) {
  std::size_t at = text.find(from);
  if (at == std::string::npos) return;
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  for (; at != std::string::npos; at = text.find(from, start)) {
    out.append(text, start, at - start).append(to);
    start = at + from.size();
  }
  out.append(text, start);
  text = std::move(out);
}

}  // namespace invar
