// libFuzzer target: the restricted unpickler of pytorch_model.bin must accept or reject any bytes
// with an invar::Error, never crash, hang, leak or throw anything else.
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "loaders/pytorch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto tensors = invar::parse_state_dict_pickle(reinterpret_cast<const std::byte*>(data), size, "fuzz");
    for (const auto& tensor : tensors)
      if (tensor.shape.size() != tensor.stride.size() || tensor.offset < 0 || tensor.storage_numel < 0)
        __builtin_trap();
  } catch (const invar::Error&) {
  }
  return 0;
}
