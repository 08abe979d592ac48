#include "capi/guard.hpp"

#include "core/printable.hpp"

namespace invar::capi {
namespace {
thread_local std::string last_error;
}

invar_status failed(invar_status status, const char* message) {
  try {
    // As the command line prints it: one line, control characters escaped (messages quote files).
    last_error = printable(message);
  } catch (...) {
    last_error.clear();  // out of memory for the message itself: the status still says what failed
  }
  return status;
}

void require(const void* pointer, const char* name) {
  if (pointer == nullptr) throw ArgumentError(fmt::format("{} is NULL", name));
}

void require_texts(const char* const* texts, std::size_t count, const char* name) {
  if (count == 0) return;
  require(texts, name);
  for (std::size_t i = 0; i < count; ++i)
    if (texts[i] == nullptr) throw ArgumentError(fmt::format("{}[{}] is NULL", name, i));
}

}  // namespace invar::capi

extern "C" {

const char* invar_last_error(void) { return invar::capi::last_error.c_str(); }

}  // extern "C"
