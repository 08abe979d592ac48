#pragma once
// A tokenizer.json pattern: {"String": "..."} (literal) or {"Regex": "..."} (Oniguruma syntax in
// `tokenizers`, compiled here with PCRE2, which reads the patterns these files use alike).
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/text/regex.hpp"
#include "engine/text/tokenizer_json/node.hpp"

namespace invar::tokenizer_json {

class Pattern {
 public:
  explicit Pattern(const Node& node);
  // The non-overlapping, non-empty matches, left to right, as byte ranges.
  std::vector<std::pair<std::size_t, std::size_t>> matches(std::string_view text) const;
  // Every match replaced by `content`, taken literally.
  std::string replace_all(std::string_view text, std::string_view content) const;

 private:
  std::string literal_;
  std::unique_ptr<Regex> regex_;
};

}  // namespace invar::tokenizer_json
