#pragma once
// Results handed to C: plain structs whose arrays and strings the library allocates (new[]) and
// the matching invar_*_free releases. A result is built inside a Result<> so that a failure
// half-way frees what was already allocated.
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace invar::capi {

// A copy of `text` as a NUL-terminated array.
inline char* new_string(const std::string& text) {
  auto* out = new char[text.size() + 1];
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

template <typename T, typename From>
T* new_array(std::span<const From> values) {
  auto* out = new T[values.size()];
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
  return out;
}

template <typename T, typename From>
T* new_array(const std::vector<From>& values) {
  return new_array<T>(std::span<const From>(values));
}

inline void delete_strings(char** texts, std::size_t count) {
  if (texts == nullptr) return;
  for (std::size_t i = 0; i < count; ++i) delete[] texts[i];
  delete[] texts;
}

inline char** new_strings(const std::vector<std::string>& texts) {
  auto** out = new char*[texts.size()]();
  try {
    for (std::size_t i = 0; i < texts.size(); ++i) out[i] = new_string(texts[i]);
  } catch (...) {
    delete_strings(out, texts.size());
    throw;
  }
  return out;
}

// A zero-initialised result owned until release(); `Free` is its invar_*_free.
template <typename T, void (*Free)(T*)>
class Result {
 public:
  Result() : value_(new T{}) {}
  T* operator->() { return value_.get(); }
  T& operator*() { return *value_; }
  T* release() { return value_.release(); }

 private:
  struct Deleter {
    void operator()(T* value) const { Free(value); }
  };
  std::unique_ptr<T, Deleter> value_;
};

}  // namespace invar::capi
