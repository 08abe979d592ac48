#include "eval/metrics/tokenizers/mteval.hpp"

#include <algorithm>
#include <array>

#include "core/utf8.hpp"
#include "eval/metrics/tokenizers/scan.hpp"

namespace invar::metrics::mteval {

namespace {

using scan::space_at;

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

}  // namespace

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

namespace {

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

}  // namespace

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
}  // namespace invar::metrics::mteval
