#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace invar {

// Returns the byte offset of the first invalid UTF-8 sequence, or npos when the text is valid.
std::size_t find_invalid_utf8(std::string_view text);

inline bool is_valid_utf8(std::string_view text) { return find_invalid_utf8(text) == std::string_view::npos; }

// Code points of valid UTF-8 text (invalid bytes become U+FFFD), and back.
std::u32string decode_utf8(std::string_view text);
std::string encode_utf8(std::u32string_view text);
void append_utf8(std::string& out, char32_t code_point);

// Python's str.isspace() / the `\s` of Python's re on str patterns: Unicode White_Space-like set
// (space, \t\n\v\f\r, \x1c-\x1f, \x85, NBSP, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
// U+3000) — but not the zero-width space U+200B nor U+FEFF.
bool is_python_space(char32_t c);

// Python's str.lstrip() / rstrip() / strip() without arguments, on UTF-8 text.
std::string_view python_lstrip(std::string_view text);
std::string_view python_rstrip(std::string_view text);
std::string_view python_strip(std::string_view text);
// Python's str.split() without arguments: the runs of non-whitespace.
std::vector<std::string_view> python_split(std::string_view text);
// text = text.replace(from, to) for a non-empty `from`: every non-overlapping occurrence, left to
// right (text is left untouched, without a copy, when `from` does not occur).
void python_replace(std::string& text, std::string_view from, std::string_view to);

// Python's str.lower(): full Unicode lowercase mapping, i.e. utf8proc's simple mapping plus the
// special cases Python applies: U+0130 (İ) becomes "i\u0307" and capital sigma becomes final sigma
// ς at the end of a word (Final_Sigma context of Unicode SpecialCasing).
std::u32string python_lower(std::u32string_view text);
std::string python_lower(std::string_view text);

}  // namespace invar
