#pragma once
// One exception type for every user-facing failure: the message is printed as-is by the CLI
// ("invar: error: <message>") and must name the file, line and field involved.
#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace invar {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

// A broken invariant of invar's own code: a bug, not bad input. The CLI prints it as it prints an
// Error; the C API reports it as INVAR_ERROR_INTERNAL, not as a refused input.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

template <typename... Args>
[[noreturn]] void fail_internal(fmt::format_string<Args...> format, Args&&... args) {
  throw InternalError("internal: " + fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace invar
