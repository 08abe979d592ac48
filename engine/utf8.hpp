#pragma once
#include <cstddef>
#include <string_view>

namespace invar {

// Returns the byte offset of the first invalid UTF-8 sequence, or npos when the text is valid.
std::size_t find_invalid_utf8(std::string_view text);

inline bool is_valid_utf8(std::string_view text) { return find_invalid_utf8(text) == std::string_view::npos; }

}  // namespace invar
