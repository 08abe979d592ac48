// libFuzzer target: the safetensors header parser must accept or reject any bytes with an
// invar::Error, never crash, hang or throw anything else.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "loaders/safetensors.hpp"

// The parser never reads tensor data, only checks ranges against the file size. The input is the
// start of a file (the seeds are the fixtures' headers) followed by this many zero bytes, so that
// offsets in mutated headers land inside the file as often as past its end.
constexpr std::size_t kDataBytes = 512 * 1024;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::vector<std::byte> file;
  file.assign(size + kDataBytes, std::byte{0});
  if (size > 0) std::memcpy(file.data(), data, size);
  try {
    const auto header = invar::parse_safetensors_header(file.data(), file.size(), "fuzz");
    for (const auto& tensor : header.tensors)
      if (tensor.end < tensor.begin || header.data_start + tensor.end > file.size()) __builtin_trap();
  } catch (const invar::Error&) {
  }
  return 0;
}
