#pragma once
// tokenizer.json's "normalizer": BertNormalizer, the Unicode forms (NFC, NFD, NFKC, NFKD),
// Lowercase, StripAccents, Strip, Replace (a string or a PCRE2 regex), Prepend, Precompiled
// (SentencePiece's character map) and Sequence, as the `tokenizers` library applies them.
#include <memory>
#include <string>

#include "engine/text/tokenizer_json/node.hpp"

namespace invar::tokenizer_json {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual std::string apply(std::string text) const = 0;
};

// nullptr for a null normalizer; fails naming the JSON path of anything not implemented.
std::unique_ptr<Normalizer> make_normalizer(const Node& node);

}  // namespace invar::tokenizer_json
