#pragma once
// Symmetric int8 quantization of weights: the one routine behind `--weights int8`'s matrices on the
// CPU (backends/cpu/packed_matmul.hpp) and the I8 tensors `invar convert --dtype int8` stores in
// .invar files (docs/model-format.md), so that both give the same q and scales bit for bit.
//
// A row v is stored as scale · q with q in [-127, 127]: scale = max|v| / 127 (1 for a row of zeros)
// and q = round(v / scale), halves away from zero.
#include <cstdint>

namespace invar {

inline constexpr float kInt8Max = 127.0f;

// Quantizes `count` values into `out` and returns their scale. A NaN, or an infinity with its
// 0 · ∞, becomes 0 rather than an undefined conversion; the infinite scale then carries it on.
float quantize_int8(const float* values, std::int64_t count, std::int8_t* out);

// Every row of a row-major [rows, cols] matrix on its own (per output channel of nn.Linear's
// [out, in]): w[j, :] ≈ scales[j] · q[j, :].
void quantize_rows_int8(const float* w, std::int64_t rows, std::int64_t cols, std::int8_t* q, float* scales);

// The values an int8 matrix stands for: out[j, i] = scales[j] · q[j, i].
void dequantize_rows_int8(const std::int8_t* q, const float* scales, std::int64_t rows, std::int64_t cols, float* out);

}  // namespace invar
