#include "core/quantize.hpp"

#include <algorithm>
#include <cmath>

namespace invar {

// The rounding is a truncating conversion of v / scale ± 0.5, which vectorizes where nearbyint does
// not; |v / scale| ≤ 127 needs no clamp.
float quantize_int8(const float* values, std::int64_t count, std::int8_t* out) {
  float peak = 0.0f;
  for (std::int64_t i = 0; i < count; ++i) peak = std::max(peak, std::fabs(values[i]));
  const float scale = peak > 0.0f ? peak / kInt8Max : 1.0f;
  const float inverse = 1.0f / scale;
  for (std::int64_t i = 0; i < count; ++i) {
    const float v = values[i] * inverse;
    const float rounded = v + (v < 0.0f ? -0.5f : 0.5f);
    out[i] = rounded == rounded ? static_cast<std::int8_t>(static_cast<std::int32_t>(rounded)) : 0;
  }
  return scale;
}

void quantize_rows_int8(const float* w, std::int64_t rows, std::int64_t cols, std::int8_t* q, float* scales) {
  for (std::int64_t j = 0; j < rows; ++j) scales[j] = quantize_int8(w + j * cols, cols, q + j * cols);
}

void dequantize_rows_int8(const std::int8_t* q, const float* scales, std::int64_t rows, std::int64_t cols, float* out) {
  for (std::int64_t j = 0; j < rows; ++j)
    for (std::int64_t i = 0; i < cols; ++i) out[j * cols + i] = scales[j] * static_cast<float>(q[j * cols + i]);
}

}  // namespace invar
