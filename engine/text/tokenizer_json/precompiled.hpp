#pragma once
// SentencePiece's precompiled character map (a Precompiled normalizer's precompiled_charsmap,
// normalizer_spec.precompiled_charsmap in a .model file): a darts-clone double-array trie over
// UTF-8 byte strings whose values index NUL-terminated replacement strings. Normalization is
// SentencePiece's Normalizer::NormalizePrefix at each position: the longest prefix in the trie is
// replaced, otherwise one UTF-8 character is kept (an invalid byte becomes U+FFFD).
// libsentencepiece 0.1.97 (Debian 12) does not install its normalizer.h, so its Normalizer cannot
// be driven with a bare charsmap.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace invar::tokenizer_json {

class CharsMap {
 public:
  // `blob` is the decoded map; fails naming `where` when it is malformed.
  CharsMap(std::string_view blob, const std::string& where);
  std::string normalize(std::string_view text) const;

 private:
  // The longest trie key that prefixes text: its length and value, or length 0.
  std::pair<std::size_t, std::uint32_t> longest_prefix(std::string_view text) const;

  std::vector<std::uint32_t> units_;
  std::string replacements_;
};

// RFC 4648 base64 (with padding); fails naming `where` on a character outside the alphabet.
std::string decode_base64(std::string_view text, const std::string& where);

}  // namespace invar::tokenizer_json
