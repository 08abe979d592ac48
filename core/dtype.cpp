#include "core/dtype.hpp"

#include <bit>
#include <cmath>

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
    case DType::I8:
      return 1;
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
    case DType::I8:
      return "I8";
  }
  return "?";
}

std::optional<DType> parse_dtype_name(std::string_view name) {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::I32, DType::I64, DType::I8})
    if (name == dtype_name(dtype)) return dtype;
  return std::nullopt;
}

bool is_floating(DType dtype) { return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16; }

float f16_bits_to_f32(std::uint16_t half) {
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

float bf16_bits_to_f32(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

}  // namespace invar
