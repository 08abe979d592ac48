#include "core/tensor_data.hpp"

#include <cstring>

#include "core/error.hpp"
#include "core/quantize.hpp"

namespace invar {

namespace {

std::int64_t product(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (std::int64_t size : shape) count *= size;
  return count;
}

}  // namespace

std::int64_t TensorData::numel() const { return product(shape); }

std::int64_t TensorInfo::numel() const { return product(shape); }

std::vector<float> to_f32(const TensorData& tensor) {
  const std::size_t count = tensor.nbytes / dtype_size(tensor.dtype);
  std::vector<float> values(count);
  switch (tensor.dtype) {
    case DType::F32:
      // An empty tensor may have no bytes at all (data null), which memcpy must not be given.
      if (count > 0) std::memcpy(values.data(), tensor.data, count * sizeof(float));
      break;
    case DType::F16:
    case DType::BF16:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, tensor.data + 2 * i, 2);
        values[i] = tensor.dtype == DType::F16 ? f16_bits_to_f32(bits) : bf16_bits_to_f32(bits);
      }
      break;
    case DType::I8:
      if (!tensor.scales || tensor.shape.size() != 2) fail("cannot dequantize an I8 tensor without its scales");
      dequantize_rows_int8(reinterpret_cast<const std::int8_t*>(tensor.data), tensor.scales, tensor.shape[0],
                           tensor.shape[1], values.data());
      break;
    case DType::I32:
    case DType::I64:
      fail("cannot convert an integer tensor ({}) to float32", dtype_name(tensor.dtype));
  }
  return values;
}

}  // namespace invar
