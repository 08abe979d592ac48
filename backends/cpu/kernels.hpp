#pragma once
// CPU kernels on dense row-major float arrays: the element-wise and row work of the CPU backend
// (backends/cpu/backend.cpp), vectorized through Eigen. Each function handles the rows it is given,
// so the backend can split rows across threads; every row is computed the same way whatever the
// split. Semantics are those of the matching op in backends/backend.hpp.
#include <cstdint>

namespace invar::cpu {

// How the functions below evaluate transcendental functions and sums. Fast: Eigen's, whose
// vectorized loops start at the first aligned address and finish with scalar code, so an element's
// exp/erf/tanh and a row's sum depend on where the row sits in memory and on its length (a padded
// attention row is longer). Fixed (BackendOptions::deterministic): every element by the same
// vector code (exp, erf and tanh on an aligned copy of the row padded to a multiple of eight), and
// every sum over the row's own elements in one order, partial sum l taking the
// indices ≡ l (mod 8) in increasing order, then gemm.hpp's tree (combine_lanes); trailing
// zeros (dropped keys) leave such a sum unchanged. A row's results then depend on its values only:
// not on the other rows of a batch, its position, or the padding.
enum class Order : std::uint8_t { Fast, Fixed };

// x[r, c] += bias[c] for r < rows.
void add_bias(float* x, std::int64_t rows, std::int64_t cols, const float* bias);

// In-place activations over n contiguous values.
void gelu_erf(float* x, std::int64_t n, Order order);
void gelu_tanh(float* x, std::int64_t n, Order order);
void relu(float* x, std::int64_t n);
void silu(float* x, std::int64_t n, Order order);
void tanh(float* x, std::int64_t n, Order order);

// out[i] = a[i] + b[i] / a[i] · b[i]; out may alias a or b.
void add(const float* a, const float* b, float* out, std::int64_t n);
void mul(const float* a, const float* b, float* out, std::int64_t n);

// out = LayerNorm(x + residual) per row; residual may be null; out may alias x or residual.
void layer_norm(const float* x, const float* residual, const float* gamma, const float* beta, float eps, float* out,
                std::int64_t rows, std::int64_t cols, Order order);
// out = x / sqrt(mean(x²) + eps) · weight per row; out may alias x.
void rms_norm(const float* x, const float* weight, float eps, float* out, std::int64_t rows, std::int64_t cols,
              Order order);

// One attention row of n scores in place: s = scale·s + bias (bias may be null); keys with
// keep[j] == 0 (keep may be null) or j ≥ limit are dropped (probability 0); softmax over the rest;
// all zeros when none is left.
void attention_softmax_row(float* s, std::int64_t n, float scale, const float* bias, const float* keep,
                           std::int64_t limit, Order order);

// out = log_softmax(x) per row; out may alias x.
void log_softmax(const float* x, float* out, std::int64_t rows, std::int64_t cols, Order order);

// Backend::top_k_rows over `rows` rows: values and ids [rows, k], terms [rows, 2], the sum of
// exponentials by `exp_sum` (a row kernel's).
void top_k_rows(const float* x, std::int64_t rows, std::int64_t cols, std::int64_t k, std::int64_t exclude,
                double (*exp_sum)(const float*, std::int64_t, float), float* values, std::int32_t* ids, float* terms);

// Each row divided by max(‖row‖₂, 1e-12).
void l2_normalize(float* x, std::int64_t rows, std::int64_t cols, Order order);

// Pooling of one sequence: x [length, cols], mask [length] (1 = token) into out [cols].
void mean_pool(const float* x, const float* mask, std::int64_t length, std::int64_t cols, bool sqrt_len, float* out);
void max_pool(const float* x, const float* mask, std::int64_t length, std::int64_t cols, float* out);

}  // namespace invar::cpu
