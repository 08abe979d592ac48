#pragma once
// Unicode normalization as Python's unicodedata computes it (through utf8proc).
#include <string>
#include <string_view>

namespace invar {

// unicodedata.normalize("NFD", text), or "NFKD" with `compatibility`. Fails on text utf8proc
// cannot map (invalid code points).
std::u32string unicode_decompose(std::u32string_view text, bool compatibility);

}  // namespace invar
