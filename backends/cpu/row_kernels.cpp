#include "backends/cpu/row_kernels.hpp"

#include <cstdlib>
#include <string_view>

#include "backends/cpu/kernels.hpp"
#include "backends/cpu/row_kernels_simd.hpp"
#include "core/error.hpp"
#include "core/exp_sum.hpp"

namespace invar::cpu {

// Defined by row_kernels_avx2.cpp and row_kernels_avx512.cpp: null where the build has no such
// variant (not x86-64) or the CPU cannot run it.
const RowKernels* avx2_row_kernels();
const RowKernels* avx512_row_kernels();

namespace {

// The portable variant is kernels.hpp's code itself: Order::Fast, but for the layer norm, whose
// Order::Fixed every variant computes bit for bit.
void portable_bias_gelu_erf(float* x, std::int64_t rows, std::int64_t cols, const float* bias) {
  if (bias) add_bias(x, rows, cols, bias);
  // Row by row: Eigen's vectorized loops start at the first aligned address.
  for (std::int64_t r = 0; r < rows; ++r) gelu_erf(x + r * cols, cols, Order::Fast);
}

void portable_bias_silu(float* x, std::int64_t rows, std::int64_t cols, const float* bias) {
  if (bias) add_bias(x, rows, cols, bias);
  for (std::int64_t r = 0; r < rows; ++r) silu(x + r * cols, cols, Order::Fast);
}

void portable_layer_norm(const float* x, const float* residual, const float* gamma, const float* beta, float eps,
                         float* out, std::int64_t rows, std::int64_t cols) {
  layer_norm(x, residual, gamma, beta, eps, out, rows, cols, Order::Fixed);
}

void portable_attention_softmax_row(float* s, std::int64_t n, float scale, const float* bias, const float* keep,
                                    std::int64_t limit) {
  attention_softmax_row(s, n, scale, bias, keep, limit, Order::Fast);
}

void portable_attend_query(const QueryAttention& a, float* s) {
  using Vector = Eigen::Map<const Eigen::VectorXf>;
  const auto row = [&](std::int64_t j) { return a.key_rows ? a.key_rows[j * a.key_rows_ld] : 0; };
  const auto key = [&](std::int64_t j) { return a.k + j * a.k_ld + row(j) * a.k_row; };
  const auto value = [&](std::int64_t j) { return a.v + j * a.v_ld + row(j) * a.v_row; };
  for (std::int64_t h = 0; h < a.heads; ++h) {
    const Vector q(a.q + h * a.q_head, a.head_dim);
    float* scores = s + h * a.keys;
    for (std::int64_t j = 0; j < a.keys; ++j) scores[j] = q.dot(Vector(key(j) + h * a.k_head, a.head_dim));
    attention_softmax_row(scores, a.keys, a.scale, a.bias ? a.bias + h * a.bias_head : nullptr, a.keep, a.limit,
                          Order::Fast);
    Eigen::Map<Eigen::VectorXf> out(a.out + h * a.out_head, a.head_dim);
    out.setZero();
    for (std::int64_t j = 0; j < a.keys; ++j) out += scores[j] * Vector(value(j) + h * a.v_head, a.head_dim);
  }
}

const RowKernels kPortable{"portable",
                           portable_bias_gelu_erf,
                           portable_bias_silu,
                           portable_layer_norm,
                           portable_attention_softmax_row,
                           portable_attend_query,
                           invar::exp_sum,
                           quantize_row_impl<range_with_zero>,
                           rescale_impl};

}  // namespace

std::vector<const RowKernels*> supported_row_kernels() {
  std::vector<const RowKernels*> kernels{&kPortable};
  for (const RowKernels* k : {avx2_row_kernels(), avx512_row_kernels()})
    if (k) kernels.push_back(k);
  return kernels;
}

const RowKernels& selected_row_kernels() {
  const std::vector<const RowKernels*> kernels = supported_row_kernels();
  const char* forced = std::getenv("INVAR_CPU_KERNELS");
  if (!forced || !*forced) return *kernels.back();
  for (const RowKernels* k : kernels)
    if (std::string_view(forced) == k->name) return *k;
  fail("INVAR_CPU_KERNELS={}: not a variant this build and CPU can run (portable, avx2 with AVX2 + FMA, avx512 with "
       "AVX-512 F/BW/DQ/VL)",
       forced);
}

}  // namespace invar::cpu
