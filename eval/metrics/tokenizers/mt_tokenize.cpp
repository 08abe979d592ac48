#include "eval/metrics/tokenizers/mt_tokenize.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <array>

#include "core/utf8.hpp"

namespace invar::metrics {

namespace {

// Decodes the code point at `pos` and advances past it; an invalid byte reads as U+FFFD.
char32_t next_code_point(std::string_view text, std::size_t& pos) {
  const auto byte = static_cast<unsigned char>(text[pos]);
  if (byte < 0x80) {
    ++pos;
    return byte;
  }
  utf8proc_int32_t cp = 0;
  auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                            static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
  if (n <= 0) {
    ++pos;
    return U'\uFFFD';
  }
  pos += static_cast<std::size_t>(n);
  return static_cast<char32_t>(cp);
}

// Python whitespace among the ASCII bytes.
bool is_ascii_space(unsigned char byte) {
  return byte == ' ' || (byte >= 0x09 && byte <= 0x0D) || (byte >= 0x1C && byte <= 0x1F);
}

// is_python_space at `pos`, advancing past the code point; ASCII (nearly every byte of most
// text) is decided here without decoding or a call.
bool space_at(std::string_view text, std::size_t& pos) {
  const auto byte = static_cast<unsigned char>(text[pos]);
  if (byte < 0x80) {
    ++pos;
    return is_ascii_space(byte);
  }
  return is_python_space(next_code_point(text, pos));
}

// The next run of non-whitespace from `pos` (empty at the end), leaving `pos` just after it.
// ASCII bytes are classified in place; only a byte >= 0x80 is decoded.
inline std::string_view next_token(std::string_view text, std::size_t& pos) {
  const std::size_t n = text.size();
  while (pos < n) {
    const auto byte = static_cast<unsigned char>(text[pos]);
    if (byte < 0x80) {
      if (!is_ascii_space(byte)) break;
      ++pos;
      continue;
    }
    std::size_t next = pos;
    if (!space_at(text, next)) break;
    pos = next;
  }
  const std::size_t start = pos;
  while (pos < n) {
    // Every ASCII whitespace byte is <= ' ': the common bytes of a token pass this test alone.
    const auto byte = static_cast<unsigned char>(text[pos]);
    if (byte > ' ' && byte < 0x80) {
      ++pos;
      continue;
    }
    std::size_t next = pos;
    if (space_at(text, next)) break;
    pos = next;
  }
  return text.substr(start, pos - start);
}
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// mteval's `[\{-\~\[-\` -\&\(-\+\:-\@\/]`: ASCII punctuation and symbols (and space) except
// apostrophe, comma, hyphen and period.
constexpr bool is_mteval_punct(unsigned char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
         (c >= ':' && c <= '@') || c == '/';
}

// The substitutions below only involve ASCII characters, so scanning UTF-8 bytes matches what
// Python's re does on code points: a multi-byte character never matches `[.,]`, `[0-9]` or `-`,
// and each of its bytes matches `[^0-9]` just as the whole character does.

// The next occurrence of any byte of `set` (one or two bytes) at or after a position, found with
// memchr; each byte's last position is kept until passed, so a whole scan stays linear.
class NextOf {
 public:
  NextOf(std::string_view text, std::string_view set) : text_(text), set_(set) {}
  std::size_t at_or_after(std::size_t from) {
    std::size_t best = text_.size();
    for (std::size_t k = 0; k < set_.size(); ++k) {
      if (next_[k] < from || next_[k] == kUnknown) next_[k] = std::min(text_.find(set_[k], from), text_.size());
      best = std::min(best, next_[k]);
    }
    return best;
  }

 private:
  static constexpr std::size_t kUnknown = std::string_view::npos;
  std::string_view text_, set_;
  std::size_t next_[2] = {kUnknown, kUnknown};
};

// `(A)(B)` → "\1 \2 " (space_before = false) or " \1 \2" (space_before = true), as re.sub scans:
// the leftmost match from the current position, then on after it. One class of each rule is a
// few rare bytes (`rare`: ".," or "-", standing first or second in the pair), so the scan jumps
// from one rare byte to the next and copies the text between in one piece.
template <typename First, typename Second>
void substitute_pairs(std::string_view s, First first, Second second, std::string_view rare, bool rare_first,
                      bool space_before, std::string& out) {
  out.clear();
  NextOf next(s, rare);
  std::size_t copied = 0;  // s[0, copied) is written (or consumed by a match)
  for (std::size_t k = next.at_or_after(rare_first ? 0 : 1); k < s.size(); k = next.at_or_after(k + 1)) {
    const std::size_t pair = rare_first ? k : k - 1;
    if (pair < copied || pair + 1 >= s.size()) continue;
    if (!first(static_cast<unsigned char>(s[pair])) || !second(static_cast<unsigned char>(s[pair + 1]))) continue;
    out.append(s, copied, pair - copied);
    if (space_before) out += ' ';
    out += s[pair];
    out += ' ';
    out += s[pair + 1];
    if (!space_before) out += ' ';
    copied = pair + 2;
  }
  out.append(s, copied);
}

bool is_period_or_comma(unsigned char c) { return c == '.' || c == ','; }
bool not_digit(unsigned char c) { return !is_digit(c); }
bool is_hyphen(unsigned char c) { return c == '-'; }

std::string pad_mteval_punct(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 2);
  for (char c : s) {
    if (is_mteval_punct(static_cast<unsigned char>(c))) {
      out += ' ';
      out += c;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// The period/comma/dash rules shared by 13a, zh and Tercom's normaliser.
// The result lives in a per-thread buffer (valid until the thread's next call), so a line costs
// no allocations here once the buffers have grown.
std::string_view split_periods_commas_dashes(std::string_view s) {
  thread_local std::string a, b, c;
  substitute_pairs(s, not_digit, is_period_or_comma, ".,", false, false, a);
  substitute_pairs(a, is_period_or_comma, not_digit, ".,", true, true, b);
  substitute_pairs(b, is_digit, is_hyphen, "-", false, false, c);
  return c;
}

// What pad_punct_and_join does with a byte.
enum class ByteKind : unsigned char { kToken, kSpace, kPunct, kMultiByte };

constexpr std::array<ByteKind, 256> byte_kinds() {
  std::array<ByteKind, 256> kinds{};
  for (int c = 0; c < 256; ++c) {
    const auto byte = static_cast<unsigned char>(c);
    kinds[c] = c >= 0x80                                                              ? ByteKind::kMultiByte
               : byte == ' ' || (byte >= 0x09 && byte <= 0x0D) || (byte >= 0x1C && byte <= 0x1F) ? ByteKind::kSpace
               : is_mteval_punct(byte)                                                 ? ByteKind::kPunct
                                                                                       : ByteKind::kToken;
  }
  return kinds;
}

// pad_mteval_punct, then ' '.join(text.split()), in one pass: a punctuation byte becomes a token
// of its own. Writes through a pointer into room for the worst case (every byte a token).
std::string pad_punct_and_join(std::string_view text) {
  static constexpr auto kinds = byte_kinds();
  const auto kind_at = [&](std::size_t pos) { return kinds[static_cast<unsigned char>(text[pos])]; };
  std::string out(2 * text.size(), '\0');
  char* const first = out.data();
  char* o = first;
  bool gap = false;  // a token boundary since the last byte written
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t start = pos;
    switch (kind_at(pos)) {
      case ByteKind::kSpace:
        ++pos;
        gap = true;
        continue;
      case ByteKind::kPunct:
        if (o != first) *o++ = ' ';
        *o++ = text[pos++];
        gap = true;
        continue;
      case ByteKind::kToken:
        while (++pos < text.size() && kind_at(pos) == ByteKind::kToken) {
        }
        break;
      case ByteKind::kMultiByte:
        if (space_at(text, pos)) {
          gap = true;
          continue;
        }
        break;
    }
    if (gap && o != first) *o++ = ' ';
    gap = false;
    o = std::copy(text.data() + start, text.data() + pos, o);
  }
  out.resize(static_cast<std::size_t>(o - first));
  return out;
}

// ' '.join(text.split()) without the list.
std::string join_tokens(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  for (auto token = next_token(text, pos); !token.empty(); token = next_token(text, pos)) {
    if (!out.empty()) out += ' ';
    out.append(token);
  }
  return out;
}

// sacrebleu.tokenizers.tokenizer_re.TokenizerRegexp: the punctuation padding, the period/comma/dash
// rules, then the whitespace split. The padding is applied last here, which gives the same tokens:
// it only puts spaces around punctuation bytes, and for the three pair rules a space and a
// punctuation byte are alike (neither a digit nor one of ".,-"), so every rule matches at the same
// bytes of [.,0-9-] and differs at most in whitespace, which the split removes.
std::string mteval_regexp(std::string_view line) { return pad_punct_and_join(split_periods_commas_dashes(line)); }

void unescape_xml(std::string& s) {
  python_replace(s, "&quot;", "\"");
  python_replace(s, "&amp;", "&");
  python_replace(s, "&lt;", "<");
  python_replace(s, "&gt;", ">");
}

bool is_punct_category(utf8proc_category_t c) { return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO; }
bool is_number_category(utf8proc_category_t c) { return c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO; }
bool is_symbol_category(utf8proc_category_t c) { return c >= UTF8PROC_CATEGORY_SM && c <= UTF8PROC_CATEGORY_SO; }
utf8proc_category_t category(char32_t c) { return utf8proc_category(static_cast<utf8proc_int32_t>(c)); }

// Tercom's ASIAN_PUNCT and FULL_WIDTH_PUNCT classes.
bool is_tercom_asian_punct(char32_t c) {
  return c == 0x3001 || c == 0x3002 || (c >= 0x3008 && c <= 0x3011) || (c >= 0x3014 && c <= 0x301F) ||
         (c >= 0xFF61 && c <= 0xFF65) || c == 0x30FB || c == 0xFF0E || c == 0xFF0C || c == 0xFF1F || c == 0xFF1A ||
         c == 0xFF1B || c == 0xFF01 || c == 0xFF02 || c == 0xFF08 || c == 0xFF09;
}

// The character classes _normalize_asian pads with spaces. Its kana rules are anchored with `^`
// on a string that always starts with the space the Western step padded, so they never match.
bool is_tercom_asian_split(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x31C0 && c <= 0x31EF) ||
         (c >= 0x2E80 && c <= 0x2EFF) || (c >= 0x3300 && c <= 0x33FF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0x3200 && c <= 0x3F22) || is_tercom_asian_punct(c);
}

bool is_tercom_punct(char32_t c) {
  return c == '.' || c == ',' || c == '?' || c == ':' || c == ';' || c == '!' || c == '"' || c == '(' || c == ')';
}

// Tercom's _normalize_general_and_western (Normalizer.java).
std::string tercom_western(std::string s) {
  python_replace(s, "\n-", "");
  python_replace(s, "\n", " ");
  unescape_xml(s);
  s = pad_mteval_punct(" " + s + " ");
  // `'s ` → ` 's `; the `'s$` rule cannot match a string that ends with the padding space.
  python_replace(s, "'s ", " 's ");
  return std::string(split_periods_commas_dashes(s));
}

}  // namespace

void split_whitespace(std::string_view text, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t pos = 0;
  for (auto token = next_token(text, pos); !token.empty(); token = next_token(text, pos)) out.push_back(token);
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
  std::vector<std::string_view> out;
  split_whitespace(text, out);
  return out;
}

std::string_view rstrip_whitespace(std::string_view text) {
  // From the end while the bytes are ASCII (a byte < 0x80 is always a whole code point); a line
  // ending in a multi-byte character takes the forward scan.
  std::size_t last = text.size();
  while (last > 0 && static_cast<unsigned char>(text[last - 1]) < 0x80) {
    std::size_t at = last - 1;
    if (!space_at(text, at)) return text.substr(0, last);
    --last;
  }
  if (last == 0) return {};
  std::size_t pos = 0, end = 0;
  while (pos < text.size())
    if (!space_at(text, pos)) end = pos;
  return text.substr(0, end);
}

std::string_view strip_whitespace(std::string_view text) {
  text = rstrip_whitespace(text);
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t here = pos;
    if (!space_at(text, pos)) return text.substr(here);
  }
  return {};
}

std::string tokenize_13a(std::string_view line) {
  // The replacements see the padding spaces too; none of their patterns holds a space, so that
  // changes nothing. A per-thread buffer: no allocation per line once it has grown.
  thread_local std::string s;
  s.assign(1, ' ').append(line).append(1, ' ');
  python_replace(s, "<skipped>", "");
  python_replace(s, "-\n", "");
  python_replace(s, "\n", " ");
  if (s.find('&') != std::string::npos) unescape_xml(s);
  return mteval_regexp(s);
}

std::string tokenize_intl(std::string_view line) {
  const std::u32string text = decode_utf8(line);
  std::u32string a, b;
  a.reserve(text.size() * 2);
  // (\P{N})(\p{P}) → "\1 \2 "
  for (std::size_t i = 0; i < text.size();) {
    if (i + 1 < text.size() && !is_number_category(category(text[i])) && is_punct_category(category(text[i + 1]))) {
      a += text[i];
      a += U' ';
      a += text[i + 1];
      a += U' ';
      i += 2;
    } else {
      a += text[i++];
    }
  }
  // (\p{P})(\P{N}) → " \1 \2"
  b.reserve(a.size() * 2);
  for (std::size_t i = 0; i < a.size();) {
    if (i + 1 < a.size() && is_punct_category(category(a[i])) && !is_number_category(category(a[i + 1]))) {
      b += U' ';
      b += a[i];
      b += U' ';
      b += a[i + 1];
      i += 2;
    } else {
      b += a[i++];
    }
  }
  // (\p{S}) → " \1 "
  std::string out;
  out.reserve(b.size() * 2);
  for (char32_t c : b) {
    const bool symbol = is_symbol_category(category(c));
    if (symbol) out += ' ';
    append_utf8(out, c);
    if (symbol) out += ' ';
  }
  return join_tokens(out);
}

bool is_sacrebleu_zh_char(char32_t c) {
  // _UCODE_RANGES in order; the two "astral" entries are really U+2001..U+2A6D and U+2F81..U+2FA1.
  return (c >= 0x3400 && c <= 0x4DB5) || (c >= 0x4E00 && c <= 0x9FA5) || (c >= 0x9FA6 && c <= 0x9FBB) ||
         (c >= 0xF900 && c <= 0xFA2D) || (c >= 0xFA30 && c <= 0xFA6A) || (c >= 0xFA70 && c <= 0xFAD9) ||
         (c >= 0x2001 && c <= 0x2A6D) || (c >= 0x2F81 && c <= 0x2FA1) || (c >= 0xFF00 && c <= 0xFFEF) ||
         (c >= 0x2E80 && c <= 0x2EFF) || (c >= 0x3000 && c <= 0x303F) || (c >= 0x31C0 && c <= 0x31EF) ||
         (c >= 0x2F00 && c <= 0x2FDF) || (c >= 0x2FF0 && c <= 0x2FFF) || (c >= 0x3100 && c <= 0x312F) ||
         (c >= 0x31A0 && c <= 0x31BF) || (c >= 0xFE10 && c <= 0xFE1F) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0x2600 && c <= 0x26FF) || (c >= 0x2700 && c <= 0x27BF) || (c >= 0x3200 && c <= 0x32FF) ||
         (c >= 0x3300 && c <= 0x33FF);
}

std::string tokenize_zh(std::string_view line) {
  line = strip_whitespace(line);
  std::string spaced;
  spaced.reserve(line.size() * 2);
  for (std::size_t pos = 0; pos < line.size();) {
    const std::size_t start = pos;
    const char32_t c = next_code_point(line, pos);
    const bool chinese = is_sacrebleu_zh_char(c);
    if (chinese) spaced += ' ';
    spaced.append(line.substr(start, pos - start));
    if (chinese) spaced += ' ';
  }
  return mteval_regexp(spaced);
}

std::string tokenize_char(std::string_view line) {
  std::string out;
  out.reserve(line.size() * 2);
  for (std::size_t pos = 0; pos < line.size();) {
    const std::size_t start = pos;
    next_code_point(line, pos);
    if (!out.empty()) out += ' ';
    out.append(line.substr(start, pos - start));
  }
  return out;
}

std::string tokenize_tercom(std::string_view line, const TercomOptions& options) {
  if (line.empty()) return "";
  std::string s = options.case_sensitive ? std::string(line) : python_lower(line);
  const bool asian_split = options.normalized && options.asian_support;
  const bool asian_remove = options.no_punct && options.asian_support;
  if (options.normalized) s = tercom_western(std::move(s));
  if (asian_split || options.no_punct) {
    std::string out;
    out.reserve(s.size() * 2);
    for (std::size_t pos = 0; pos < s.size();) {
      const std::size_t start = pos;
      const char32_t c = next_code_point(s, pos);
      const bool pad = asian_split && is_tercom_asian_split(c);
      if (options.no_punct && (is_tercom_punct(c) || (asian_remove && is_tercom_asian_punct(c)))) {
        if (pad) out += ' ';  // the padding added before the removal stays
        continue;
      }
      if (pad) out += ' ';
      out.append(s, start, pos - start);
      if (pad) out += ' ';
    }
    s = std::move(out);
  }
  return join_tokens(s);
}

}  // namespace invar::metrics
