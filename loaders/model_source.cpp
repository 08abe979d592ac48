#include "loaders/model_source.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "loaders/sources.hpp"
#include "loaders/tensor_set.hpp"

namespace invar {

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::F32:
    case DType::I32:
      return 4;
    case DType::F16:
    case DType::BF16:
      return 2;
    case DType::I64:
      return 8;
  }
  return 0;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return "F32";
    case DType::F16:
      return "F16";
    case DType::BF16:
      return "BF16";
    case DType::I32:
      return "I32";
    case DType::I64:
      return "I64";
  }
  return "?";
}

std::optional<DType> parse_dtype_name(std::string_view name) {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64})
    if (name == dtype_name(dtype)) return dtype;
  return std::nullopt;
}

bool is_floating(DType dtype) { return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16; }

std::int64_t TensorData::numel() const {
  std::int64_t count = 1;
  for (std::int64_t size : shape) count *= size;
  return count;
}

namespace {

// IEEE binary16 to binary32; every half value, subnormals included, is exactly representable.
float half_to_float(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1Fu;
  std::uint32_t mantissa = half & 0x3FFu;
  std::uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal: shift the mantissa up until its leading one becomes the implicit bit.
    std::uint32_t shifted_exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --shifted_exponent;
    }
    bits = sign | (shifted_exponent << 23) | ((mantissa & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(bits);
}

}  // namespace

std::uint16_t f32_to_f16_bits(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  bits &= 0x7FFFFFFFu;
  if (bits > 0x7F800000u) return sign | 0x7E00u;   // NaN
  if (bits >= 0x477FF000u) return sign | 0x7C00u;  // 65520 and up round to infinity
  if (bits < 0x38800000u) {
    // Below 2^-14 the result is subnormal, a multiple of 2^-24: scaling by 2^24 is exact and
    // nearbyint rounds ties to even (the default rounding mode). 1024 is the smallest normal.
    return sign | static_cast<std::uint16_t>(std::nearbyint(std::bit_cast<float>(bits) * 16777216.0f));
  }
  // Rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest, ties to even.
  bits += 0xC8000FFFu + ((bits >> 13) & 1u);
  return sign | static_cast<std::uint16_t>(bits >> 13);
}

std::uint16_t f32_to_bf16_bits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  return static_cast<std::uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

std::vector<float> to_f32(const TensorData& tensor) {
  const std::size_t count = tensor.nbytes / dtype_size(tensor.dtype);
  std::vector<float> values(count);
  switch (tensor.dtype) {
    case DType::F32:
      std::memcpy(values.data(), tensor.data, count * sizeof(float));
      break;
    case DType::F16:
    case DType::BF16:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, tensor.data + 2 * i, 2);
        values[i] = tensor.dtype == DType::F16 ? half_to_float(bits)
                                               : std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
      }
      break;
    case DType::I32:
    case DType::I64:
      fail("cannot convert an integer tensor ({}) to float32", dtype_name(tensor.dtype));
  }
  return values;
}

void TensorSet::add(const std::string& name, TensorData tensor, const std::string& where) {
  if (tensors_.count(name)) fail("{}: tensor '{}' is stored twice", where, name);
  const std::size_t alignment = dtype_size(tensor.dtype);
  if (tensor.nbytes > 0 && reinterpret_cast<std::uintptr_t>(tensor.data) % alignment != 0) {
    auto copy = std::make_shared<std::vector<std::uint64_t>>((tensor.nbytes + 7) / 8);
    std::memcpy(copy->data(), tensor.data, tensor.nbytes);
    tensor.data = reinterpret_cast<const std::byte*>(copy->data());
    keep(std::move(copy));
  }
  tensors_.emplace(name, std::move(tensor));
}

const TensorData& TensorSet::get(const std::string& name, const std::string& where) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) fail("{}: no tensor named '{}'", where, name);
  return it->second;
}

std::vector<std::string> TensorSet::names() const {
  std::vector<std::string> names;
  names.reserve(tensors_.size());
  for (const auto& [name, tensor] : tensors_) names.push_back(name);
  return names;
}

std::size_t checked_nbytes(const std::vector<std::int64_t>& shape, DType dtype, const std::string& where,
                           const std::string& what) {
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 62;
  std::uint64_t bytes = dtype_size(dtype);
  for (std::int64_t size : shape) {
    if (size < 0) fail("{}: {} has a negative dimension ({})", where, what, size);
    if (size != 0 && bytes > kLimit / static_cast<std::uint64_t>(size))
      fail("{}: {} is impossibly large (its shape overflows)", where, what);
    bytes *= static_cast<std::uint64_t>(size);
  }
  return static_cast<std::size_t>(bytes);
}

std::unique_ptr<ModelSource> ModelSource::open(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status)) fail("{}: no such model folder or file", path);
  if (std::filesystem::is_directory(status)) return open_hf_folder(path);
  return open_invar_file(path);
}

}  // namespace invar
