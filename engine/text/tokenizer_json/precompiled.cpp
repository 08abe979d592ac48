#include "engine/text/tokenizer_json/precompiled.hpp"

#include <cstring>

#include "core/error.hpp"

namespace invar::tokenizer_json {
namespace {

// darts-clone's unit layout.
bool has_leaf(std::uint32_t unit) { return (unit >> 8) & 1; }
std::uint32_t value_of(std::uint32_t unit) { return unit & ((1U << 31) - 1); }
std::uint32_t label_of(std::uint32_t unit) { return unit & ((1U << 31) | 0xFF); }
std::uint32_t offset_of(std::uint32_t unit) { return (unit >> 10) << ((unit & (1U << 9)) >> 6); }

// Length of the UTF-8 character starting text, or 0 when it is not a valid one.
std::size_t utf8_length(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  std::size_t n = lead < 0x80 ? 1 : (lead >> 5) == 6 ? 2 : (lead >> 4) == 14 ? 3 : (lead >> 3) == 30 ? 4 : 0;
  if (n == 0 || n > text.size()) return 0;
  for (std::size_t i = 1; i < n; ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string decode_base64(std::string_view text, const std::string& where) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    int value;
    if (c >= 'A' && c <= 'Z') value = c - 'A';
    else if (c >= 'a' && c <= 'z') value = c - 'a' + 26;
    else if (c >= '0' && c <= '9') value = c - '0' + 52;
    else if (c == '+') value = 62;
    else if (c == '/') value = 63;
    else if (c == '=') break;
    else fail("{}: not base64 (character {:#04x})", where, static_cast<unsigned char>(c));
    buffer = (buffer << 6) | static_cast<std::uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

CharsMap::CharsMap(std::string_view blob, const std::string& where) {
  // A little-endian uint32 with the trie's size in bytes, the trie, then the replacement strings.
  if (blob.size() < 4) fail("{}: the character map is {} bytes, too short for its header", where, blob.size());
  std::uint32_t trie_bytes = 0;
  for (int i = 3; i >= 0; --i) trie_bytes = (trie_bytes << 8) | static_cast<unsigned char>(blob[static_cast<std::size_t>(i)]);
  if (trie_bytes % 4 != 0 || trie_bytes == 0 || trie_bytes > blob.size() - 4)
    fail("{}: the character map's trie size {} does not fit its {} bytes", where, trie_bytes, blob.size());
  units_.resize(trie_bytes / 4);
  for (std::size_t i = 0; i < units_.size(); ++i) {
    const auto* p = reinterpret_cast<const unsigned char*>(blob.data() + 4 + 4 * i);
    units_[i] = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
  }
  replacements_ = std::string(blob.substr(4 + trie_bytes));
  // Every replacement must end within the map: the lookups below then never read past it.
  if (!replacements_.empty() && replacements_.back() != '\0') replacements_.push_back('\0');
}

std::pair<std::size_t, std::uint32_t> CharsMap::longest_prefix(std::string_view text) const {
  std::pair<std::size_t, std::uint32_t> best{0, 0};
  std::size_t node = offset_of(units_[0]);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    node ^= c;
    if (node >= units_.size()) break;
    const auto unit = units_[node];
    if (label_of(unit) != c) break;
    node ^= offset_of(unit);
    if (node >= units_.size()) break;
    if (has_leaf(unit)) best = {i + 1, value_of(units_[node])};
  }
  return best;
}

std::string CharsMap::normalize(std::string_view text) const {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    auto [length, value] = longest_prefix(text);
    if (length > 0 && value < replacements_.size()) {
      out += replacements_.c_str() + value;
    } else {
      length = utf8_length(text);
      if (length == 0) {
        out += "\xEF\xBF\xBD";
        length = 1;
      } else {
        out.append(text.substr(0, length));
      }
    }
    text.remove_prefix(length);
  }
  return out;
}

}  // namespace invar::tokenizer_json
