#include "core/tensor.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace invar {

Shape::Shape(std::initializer_list<std::int64_t> sizes) {
  if (sizes.size() == 0 || sizes.size() > static_cast<std::size_t>(kMaxRank)) {
    fail("tensor rank {} is outside 1..{}", sizes.size(), kMaxRank);
  }
  for (std::int64_t size : sizes) {
    if (size < 0) fail("negative tensor dimension {}", size);
    dims[static_cast<std::size_t>(rank++)] = size;
  }
}

std::int64_t Shape::numel() const {
  if (rank == 0) return 0;
  std::int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= dims[static_cast<std::size_t>(i)];
  return n;
}

bool Shape::operator==(const Shape& other) const {
  if (rank != other.rank) return false;
  for (int i = 0; i < rank; ++i) {
    if ((*this)[i] != other[i]) return false;
  }
  return true;
}

std::string Shape::str() const {
  std::string out = "[";
  for (int i = 0; i < rank; ++i) out += fmt::format("{}{}", i ? ", " : "", (*this)[i]);
  return out + "]";
}

std::size_t Tensor::nbytes() const { return static_cast<std::size_t>(numel()) * dtype_size(dtype); }

Tensor Tensor::rows(std::int64_t begin, std::int64_t count) const {
  if (shape.rank == 0 || begin < 0 || count < 0 || begin + count > shape[0]) {
    fail("rows [{}, {}) outside tensor {}", begin, begin + count, shape.str());
  }
  Tensor view = *this;
  const std::int64_t row_elements = shape[0] == 0 ? 0 : numel() / shape[0];
  view.offset += static_cast<std::size_t>(begin * row_elements) * dtype_size(dtype);
  view.shape.dims[0] = count;
  return view;
}

Tensor Tensor::reshaped(Shape new_shape) const {
  if (new_shape.numel() != numel()) fail("cannot view tensor {} as {}", shape.str(), new_shape.str());
  Tensor view = *this;
  view.shape = new_shape;
  return view;
}

}  // namespace invar
