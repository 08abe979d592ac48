#pragma once
// Unicode normalization and case mapping as Python computes them (through utf8proc).
#include <string>
#include <string_view>

namespace invar {

// unicodedata.normalize("NFD", text), or "NFKD" with `compatibility`. Fails on text utf8proc
// cannot map (invalid code points).
std::u32string unicode_decompose(std::u32string_view text, bool compatibility);

// Python's str.lower() of each character alone: what PreTrainedTokenizer.tokenize does for a
// tokenizer with do_lower_case (re.sub over "(.+?)", one character at a time), so Python's
// Final_Sigma rule never sees a context there.
std::u32string lower_each_char(std::u32string_view text);

}  // namespace invar
