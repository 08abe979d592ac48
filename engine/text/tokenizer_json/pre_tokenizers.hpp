#pragma once
// tokenizer.json's "pre_tokenizer": BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation,
// Metaspace, ByteLevel, Split (a string or a PCRE2 regex, every delimiter behaviour) and
// Sequence, as the `tokenizers` library splits text into the words its model sees.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text/tokenizer_json/node.hpp"

namespace invar::tokenizer_json {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Appends the words of `piece` to `out`; `at_start`: the piece begins the text (Metaspace's
  // prepend_scheme "first").
  virtual void split(std::string_view piece, bool at_start, std::vector<std::string>& out) const = 0;
};

// nullptr for a null pre-tokenizer; fails naming the JSON path of anything not implemented.
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const Node& node);

// GPT-2's byte-to-character table (bytes_to_unicode) and its inverse, for ByteLevel.
const std::vector<std::string>& byte_level_chars();

}  // namespace invar::tokenizer_json
