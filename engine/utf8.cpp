#include "engine/utf8.hpp"

#include <utf8proc.h>

namespace invar {

std::size_t find_invalid_utf8(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    utf8proc_int32_t cp = 0;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                              static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
    if (n <= 0) return pos;
    pos += static_cast<std::size_t>(n);
  }
  return std::string_view::npos;
}

}  // namespace invar
