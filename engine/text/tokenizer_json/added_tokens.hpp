#pragma once
// tokenizer.json's "added_tokens" and how `tokenizers`' AddedVocabulary finds them in text: the
// tokens with normalized=false in the raw text, those with normalized=true in each normalized
// stretch between them; leftmost, longest first; single_word only between non-word characters;
// lstrip / rstrip swallowing the whitespace on that side.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text/tokenizer_json/node.hpp"

namespace invar::tokenizer_json {

struct AddedToken {
  std::string content;
  std::int32_t id = 0;
  bool single_word = false, lstrip = false, rstrip = false, normalized = true, special = false;
};

// One stretch of text: an added token (token != nullptr) or text for the model.
struct Piece {
  std::string_view text;
  const AddedToken* token = nullptr;
};

class AddedTokens {
 public:
  AddedTokens() = default;
  // Ids must be below max_ids.
  AddedTokens(const Node& list, std::int64_t max_ids);

  const std::vector<AddedToken>& all() const { return tokens_; }
  // Splits `text` on the added tokens whose `normalized` flag equals `normalized`.
  std::vector<Piece> split(std::string_view text, bool normalized) const;

 private:
  std::vector<AddedToken> tokens_;
  // Indices into tokens_ per pass (raw, normalized), longest content first.
  std::vector<std::size_t> by_length_[2];
  std::array<bool, 256> starts_[2]{};  // first bytes of each pass's tokens, to skip the rest fast
};

}  // namespace invar::tokenizer_json
