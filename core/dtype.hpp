#pragma once
// Element types of stored and computed tensors, with the exact conversions between the floating
// ones (what torch's .half() / .bfloat16() / .float() do). I8 is a quantized matrix (core/quantize.hpp):
// stored only in .invar files, always with its per-row scales.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace invar {

enum class DType : std::uint8_t { F32, F16, BF16, I32, I64, I8 };

std::size_t dtype_size(DType dtype);
const char* dtype_name(DType dtype);  // "F32", "F16", "BF16", "I32", "I64", "I8" (safetensors' names)
std::optional<DType> parse_dtype_name(std::string_view name);
bool is_floating(DType dtype);

// The binary16 / bfloat16 value nearest to `value`, ties to even, as torch's .half() and
// .bfloat16() round; overflow gives infinity, NaN stays a (quiet) NaN.
std::uint16_t f32_to_f16_bits(float value);
std::uint16_t f32_to_bf16_bits(float value);
// The other way, exactly: every binary16 and bfloat16 value, subnormals included, is a float.
float f16_bits_to_f32(std::uint16_t bits);
float bf16_bits_to_f32(std::uint16_t bits);

}  // namespace invar
