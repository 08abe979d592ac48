#pragma once
// PCRE2 patterns in UTF-8 + Unicode-property mode (UCP), JIT-compiled where available, with the
// Python `re` operations the tokenizers port: findall, sub and search. Text that is not UTF-8
// fails. A compiled Regex is immutable and safe to share between threads.
#include <string>
#include <string_view>
#include <vector>

struct pcre2_real_code_8;

namespace invar {

class Regex {
 public:
  // Fails naming the pattern when PCRE2 rejects it.
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // re.findall without groups: the successive non-overlapping, non-empty matches.
  std::vector<std::string_view> find_all(std::string_view text) const;
  // re.sub(pattern, replacement, text): every non-overlapping match replaced, left to right;
  // the replacement uses PCRE2's syntax ($1 for a group).
  std::string replace_all(std::string_view text, std::string_view replacement) const;
  // re.search(...) is not None.
  bool found_in(std::string_view text) const;

 private:
  pcre2_real_code_8* code_ = nullptr;
  std::string pattern_;
};

}  // namespace invar
