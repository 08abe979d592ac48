#pragma once
// A tensor handle: element type, shape, and where the elements live. A Tensor owns nothing. Its
// storage belongs to a WeightStore or an Arena made by a Backend (for CPU weights, possibly the
// memory-mapped model file itself), and the handle is valid exactly as long as that owner is.
// Elements are dense and row-major (the last dimension varies fastest).
//
// Model code treats `handle` as opaque: only the Backend that made the tensor reads or writes
// its elements (the CPU backend's handle is a host pointer, the OpenCL backend's a cl_mem), so
// the same model code runs on every backend.
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "core/dtype.hpp"

namespace invar {

inline constexpr int kMaxRank = 4;

struct Shape {
  std::array<std::int64_t, kMaxRank> dims{};
  int rank = 0;

  Shape() = default;
  Shape(std::initializer_list<std::int64_t> sizes);  // 1 to kMaxRank non-negative sizes

  std::int64_t operator[](int axis) const { return dims[static_cast<std::size_t>(axis)]; }
  std::int64_t numel() const;
  bool operator==(const Shape& other) const;
  std::string str() const;  // "[2, 13, 768]"
};

struct Tensor {
  DType dtype = DType::F32;
  Shape shape;
  void* handle = nullptr;  // backend storage; nullptr = no tensor (an absent optional operand)
  std::size_t offset = 0;  // bytes from the start of `handle`'s storage to element 0

  bool empty() const { return handle == nullptr; }
  std::int64_t numel() const { return shape.numel(); }
  std::size_t nbytes() const;
  std::int64_t dim(int axis) const { return shape[axis]; }

  // Rows [begin, begin + count) along dimension 0, as a view of the same storage.
  Tensor rows(std::int64_t begin, std::int64_t count) const;
  // The same elements under another shape with the same number of elements.
  Tensor reshaped(Shape new_shape) const;
};

}  // namespace invar
