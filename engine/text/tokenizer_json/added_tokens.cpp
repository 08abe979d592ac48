#include "engine/text/tokenizer_json/added_tokens.hpp"

#include <algorithm>

#include "core/utf8.hpp"
#include "engine/text/char_classes.hpp"

namespace invar::tokenizer_json {
namespace {

// The last / first character of text (0 when empty).
char32_t last_char(std::string_view text) {
  if (text.empty()) return 0;
  std::size_t start = text.size() - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  auto chars = decode_utf8(text.substr(start));
  return chars.empty() ? 0 : chars[0];
}

char32_t first_char(std::string_view text) {
  if (text.empty()) return 0;
  std::size_t end = 1;
  while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  auto chars = decode_utf8(text.substr(0, end));
  return chars.empty() ? 0 : chars[0];
}

bool is_word_char(char32_t c) { return c == U'_' || is_alphanumeric(c); }

std::size_t char_bytes(char32_t c) {
  std::string bytes;
  append_utf8(bytes, c);
  return bytes.size();
}

}  // namespace

AddedTokens::AddedTokens(const Node& list, std::int64_t max_ids) {
  for (const auto& entry : list.elements()) {
    AddedToken token;
    token.id = static_cast<std::int32_t>(entry["id"].integer(0, max_ids - 1));
    token.content = entry.string("content");
    if (token.content.empty()) entry.fail_here("content must not be empty");
    token.single_word = entry.boolean("single_word", false);
    token.lstrip = entry.boolean("lstrip", false);
    token.rstrip = entry.boolean("rstrip", false);
    token.normalized = entry.boolean("normalized", true);
    token.special = entry.boolean("special", false);
    tokens_.push_back(std::move(token));
  }
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    by_length_[tokens_[i].normalized ? 1 : 0].push_back(i);
    starts_[tokens_[i].normalized ? 1 : 0][static_cast<unsigned char>(tokens_[i].content[0])] = true;
  }
  for (auto& order : by_length_)
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return tokens_[a].content.size() > tokens_[b].content.size(); });
}

std::vector<Piece> AddedTokens::split(std::string_view text, bool normalized) const {
  const auto& order = by_length_[normalized ? 1 : 0];
  const auto& starts = starts_[normalized ? 1 : 0];
  if (order.empty()) return {{text}};
  std::vector<Piece> pieces;
  std::size_t done = 0;  // text before this is in pieces
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (!starts[static_cast<unsigned char>(text[pos])]) {
      ++pos;
      continue;
    }
    const AddedToken* match = nullptr;
    for (auto index : order)
      if (text.compare(pos, tokens_[index].content.size(), tokens_[index].content) == 0) {
        match = &tokens_[index];
        break;
      }
    if (!match) {
      ++pos;
      continue;
    }
    std::size_t start = pos, stop = pos + match->content.size();
    if (match->single_word &&
        (is_word_char(last_char(text.substr(0, start))) || is_word_char(first_char(text.substr(stop))))) {
      pos = stop;  // `tokenizers` discards the match and searches on after it
      continue;
    }
    if (match->lstrip)
      while (start > done && is_unicode_whitespace(last_char(text.substr(done, start - done))))
        start -= char_bytes(last_char(text.substr(done, start - done)));
    if (match->rstrip)
      while (stop < text.size() && is_unicode_whitespace(first_char(text.substr(stop))))
        stop += char_bytes(first_char(text.substr(stop)));
    if (start > done) pieces.push_back({text.substr(done, start - done)});
    pieces.push_back({text.substr(start, stop - start), match});
    done = pos = stop;
  }
  if (done < text.size()) pieces.push_back({text.substr(done)});
  return pieces;
}

}  // namespace invar::tokenizer_json
