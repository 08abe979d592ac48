#pragma once
// What a backend and a model-file reader exchange: a read-only view of one stored tensor's bytes,
// in the file's dtype. Kept in core/ so that the backends' contract (backends/backend.hpp) needs
// nothing from loaders/.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dtype.hpp"

namespace invar {

// A read-only view of one stored tensor. `data` points into a memory-mapped file (or a buffer the
// source owns) and stays valid for the source's lifetime.
struct TensorData {
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  const std::byte* data = nullptr;
  std::size_t nbytes = 0;
  // I8 only (a quantized [rows, cols] matrix, core/quantize.hpp): its `rows` scales, validated
  // (finite, ≥ 0) by the reader; the matrix stands for scales[j] · q[j, :].
  const float* scales = nullptr;

  std::int64_t numel() const;
};

// What a stored tensor is, without its bytes.
struct TensorInfo {
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;

  std::int64_t numel() const;
};

// Converts any floating dtype to float32 (F16 and BF16 exactly; F32 copied) and dequantizes I8.
std::vector<float> to_f32(const TensorData& tensor);

}  // namespace invar
