#pragma once
// The C API's boundary: every entry point runs its body through guarded(), which turns every C++
// exception into an invar_status and a message in this thread's last error, so none crosses into C.
#include <exception>
#include <new>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "invar/invar.h"

namespace invar::capi {

// A NULL or out-of-range argument (INVAR_ERROR_ARGUMENT).
class ArgumentError : public Error {
 public:
  using Error::Error;
};

// A call the model cannot serve (INVAR_ERROR_MODEL_KIND).
class KindError : public Error {
 public:
  using Error::Error;
};

// A file job's progress callback asked it to stop (INVAR_ERROR_STOPPED).
class Stopped : public Error {
 public:
  using Error::Error;
};

// Sets this thread's last error and returns `status`.
invar_status failed(invar_status status, const char* message);

// Fails with an ArgumentError naming `name` when `pointer` is NULL.
void require(const void* pointer, const char* name);
// Fails naming the first NULL entry of texts[0 .. count) (and `texts` itself, when count > 0).
void require_texts(const char* const* texts, std::size_t count, const char* name);

// Runs body(); INVAR_OK, or the status and message of what it threw.
template <typename Body>
invar_status guarded(Body&& body) noexcept {
  try {
    std::forward<Body>(body)();
    return INVAR_OK;
  } catch (const ArgumentError& e) {
    return failed(INVAR_ERROR_ARGUMENT, e.what());
  } catch (const KindError& e) {
    return failed(INVAR_ERROR_MODEL_KIND, e.what());
  } catch (const Stopped& e) {
    return failed(INVAR_ERROR_STOPPED, e.what());
  } catch (const Error& e) {
    return failed(INVAR_ERROR_INPUT, e.what());
  } catch (const std::bad_alloc&) {
    return failed(INVAR_ERROR_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return failed(INVAR_ERROR_INTERNAL, e.what());
  } catch (...) {
    return failed(INVAR_ERROR_INTERNAL, "unknown exception");
  }
}

}  // namespace invar::capi
