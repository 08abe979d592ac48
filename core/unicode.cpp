#include "core/unicode.hpp"

#include <utf8proc.h>

#include <cstdlib>

#include "core/error.hpp"
#include "core/utf8.hpp"

namespace invar {

std::u32string unicode_decompose(std::u32string_view text, bool compatibility) {
  const std::string utf8 = encode_utf8(text);
  utf8proc_uint8_t* decomposed = nullptr;
  const int options = UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | (compatibility ? UTF8PROC_COMPAT : 0);
  const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(utf8.data()),
                              static_cast<utf8proc_ssize_t>(utf8.size()), &decomposed,
                              static_cast<utf8proc_option_t>(options));
  if (n < 0) fail("cannot normalize text: {}", utf8proc_errmsg(n));
  auto chars = decode_utf8(std::string_view(reinterpret_cast<const char*>(decomposed), static_cast<std::size_t>(n)));
  std::free(decomposed);
  return chars;
}

std::u32string lower_each_char(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) out += python_lower(std::u32string_view(&c, 1));
  return out;
}

}  // namespace invar
