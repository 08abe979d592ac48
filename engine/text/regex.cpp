#include "engine/text/regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <cstdint>
#include <memory>

#include "core/error.hpp"

namespace invar {
namespace {

struct MatchDataDeleter {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};
using MatchData = std::unique_ptr<pcre2_match_data, MatchDataDeleter>;

std::string error_message(int code) {
  PCRE2_UCHAR message[256];
  pcre2_get_error_message(code, message, sizeof message);
  return reinterpret_cast<const char*>(message);
}

}  // namespace

Regex::Regex(std::string_view pattern) : pattern_(pattern) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &error,
                        &offset, nullptr);
  if (!code_) fail("cannot compile the pattern {} at offset {}: {}", pattern_, offset, error_message(error));
  pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE);  // falls back to the interpreter when JIT is unavailable
}

Regex::~Regex() { pcre2_code_free(code_); }

std::vector<std::string_view> Regex::find_all(std::string_view text) const {
  std::vector<std::string_view> matches;
  MatchData data(pcre2_match_data_create_from_pattern(code_, nullptr));
  PCRE2_SIZE pos = 0;
  std::uint32_t checked = 0;  // the first call checks the text is UTF-8, the later ones need not
  while (pos < text.size()) {
    int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), pos, checked, data.get(),
                         nullptr);
    checked = PCRE2_NO_UTF_CHECK;
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) fail("matching the pattern {} failed: {}", pattern_, error_message(rc));
    PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
    if (ovector[1] <= ovector[0]) break;  // only patterns that never match empty text are used here
    matches.push_back(text.substr(ovector[0], ovector[1] - ovector[0]));
    pos = ovector[1];
  }
  return matches;
}

std::string Regex::replace_all(std::string_view text, std::string_view replacement) const {
  std::string out(text.size() + text.size() / 2 + 16, '\0');
  for (;;) {
    PCRE2_SIZE length = out.size();
    int rc = pcre2_substitute(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0,
                              PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH, nullptr,
                              nullptr, reinterpret_cast<PCRE2_SPTR>(replacement.data()), replacement.size(),
                              reinterpret_cast<PCRE2_UCHAR*>(out.data()), &length);
    if (rc == PCRE2_ERROR_NOMEMORY) {
      out.resize(length);  // the length needed, as PCRE2_SUBSTITUTE_OVERFLOW_LENGTH reports it
      continue;
    }
    if (rc < 0) fail("substituting with the pattern {} failed: {}", pattern_, error_message(rc));
    out.resize(length);
    return out;
  }
}

bool Regex::found_in(std::string_view text) const {
  MatchData data(pcre2_match_data_create_from_pattern(code_, nullptr));
  int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, data.get(), nullptr);
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc < 0) fail("matching the pattern {} failed: {}", pattern_, error_message(rc));
  return true;
}

}  // namespace invar
