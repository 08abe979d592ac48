#pragma once
// tokenizer.json's "decoder": WordPiece, Metaspace, ByteLevel, ByteFallback, Fuse, Strip,
// Replace, BPEDecoder and Sequence, turning tokens back into text as `tokenizers` does.
#include <memory>
#include <string>
#include <vector>

#include "engine/text/tokenizer_json/node.hpp"

namespace invar::tokenizer_json {

class Decoder {
 public:
  virtual ~Decoder() = default;
  // decode_chain: each decoder maps the token list to a new one; the text is their concatenation.
  virtual std::vector<std::string> decode_chain(std::vector<std::string> tokens) const = 0;
};

// nullptr for a null decoder (the tokens joined by spaces, as `tokenizers` does without one).
std::unique_ptr<Decoder> make_decoder(const Node& node);

}  // namespace invar::tokenizer_json
