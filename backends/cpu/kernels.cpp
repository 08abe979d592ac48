#include "backends/cpu/kernels.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <unsupported/Eigen/SpecialFunctions>

namespace invar::cpu {

namespace {

using Array = Eigen::Map<Eigen::ArrayXf>;
using ConstArray = Eigen::Map<const Eigen::ArrayXf>;
using RowMajor = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Rows = Eigen::Map<RowMajor>;

// Activations run in blocks that stay in L1 between their passes.
constexpr std::int64_t kBlock = 1024;

template <typename F>
void blocked(float* x, std::int64_t n, F f) {
  for (std::int64_t i = 0; i < n; i += kBlock) {
    Array block(x + i, std::min(kBlock, n - i));
    f(block);
  }
}

}  // namespace

void add_bias(float* x, std::int64_t rows, std::int64_t cols, const float* bias) {
  Rows(x, rows, cols).rowwise() += ConstArray(bias, cols).transpose();
}

void gelu_erf(float* x, std::int64_t n) {
  // HF "gelu" (torch.nn.functional.gelu): x/2 · (1 + erf(x/√2)).
  blocked(x, n, [](Array v) { v = 0.5f * v * (1.0f + (v * float(M_SQRT1_2)).erf()); });
}

void gelu_tanh(float* x, std::int64_t n) {
  // HF "gelu_new" (NewGELUActivation): x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³))).
  const float k = std::sqrt(2.0f / float(M_PI));
  blocked(x, n, [k](Array v) { v = 0.5f * v * (1.0f + (k * (v + 0.044715f * v.cube())).tanh()); });
}

void relu(float* x, std::int64_t n) { Array(x, n) = Array(x, n).max(0.0f); }

void silu(float* x, std::int64_t n) {
  blocked(x, n, [](Array v) { v = v / (1.0f + (-v).exp()); });
}

void tanh(float* x, std::int64_t n) { Array(x, n) = Array(x, n).tanh(); }

void add(const float* a, const float* b, float* out, std::int64_t n) {
  Array(out, n) = ConstArray(a, n) + ConstArray(b, n);
}

void mul(const float* a, const float* b, float* out, std::int64_t n) {
  Array(out, n) = ConstArray(a, n) * ConstArray(b, n);
}

void layer_norm(const float* x, const float* residual, const float* gamma, const float* beta, float eps, float* out,
                std::int64_t rows, std::int64_t cols) {
  const ConstArray g(gamma, cols), b(beta, cols);
  for (std::int64_t r = 0; r < rows; ++r) {
    Array o(out + r * cols, cols);
    if (residual)
      o = ConstArray(x + r * cols, cols) + ConstArray(residual + r * cols, cols);
    else
      o = ConstArray(x + r * cols, cols);
    // Two passes (mean, then centred variance), as accurate as torch's Welford in float.
    const float mean = o.mean();
    o -= mean;
    const float inv = 1.0f / std::sqrt(o.square().mean() + eps);
    o = o * inv * g + b;
  }
}

void rms_norm(const float* x, const float* weight, float eps, float* out, std::int64_t rows, std::int64_t cols) {
  const ConstArray w(weight, cols);
  for (std::int64_t r = 0; r < rows; ++r) {
    const ConstArray v(x + r * cols, cols);
    const float inv = 1.0f / std::sqrt(v.square().mean() + eps);
    Array(out + r * cols, cols) = v * inv * w;
  }
}

void attention_softmax_row(float* s, std::int64_t n, float scale, const float* bias, const float* keep,
                           std::int64_t limit) {
  Array row(s, n);
  row *= scale;
  if (bias) row += ConstArray(bias, n);
  const float dropped = -std::numeric_limits<float>::infinity();
  const std::int64_t end = std::clamp<std::int64_t>(limit, 0, n);
  for (std::int64_t j = end; j < n; ++j) s[j] = dropped;
  if (keep) {
    for (std::int64_t j = 0; j < end; ++j) {
      if (keep[j] == 0.0f) s[j] = dropped;
    }
  }
  const float max = row.maxCoeff();
  if (max == dropped) {
    row.setZero();
    return;
  }
  row = (row - max).exp();  // exp(−∞) = 0 exactly
  row /= row.sum();
}

void log_softmax(const float* x, float* out, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const ConstArray v(x + r * cols, cols);
    const float max = v.maxCoeff();
    const float log_sum = std::log((v - max).exp().sum());
    Array(out + r * cols, cols) = v - (max + log_sum);
  }
}

void l2_normalize(float* x, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    Array v(x + r * cols, cols);
    v /= std::max(std::sqrt(v.square().sum()), 1e-12f);
  }
}

void mean_pool(const float* x, const float* mask, std::int64_t length, std::int64_t cols, bool sqrt_len, float* out) {
  Array sum(out, cols);
  sum.setZero();
  float count = 0.0f;
  for (std::int64_t t = 0; t < length; ++t) {
    if (mask[t] == 0.0f) continue;
    sum += mask[t] * ConstArray(x + t * cols, cols);
    count += mask[t];
  }
  // sentence-transformers clamps the token count at 1e-9.
  count = std::max(count, 1e-9f);
  sum /= sqrt_len ? std::sqrt(count) : count;
}

void max_pool(const float* x, const float* mask, std::int64_t length, std::int64_t cols, float* out) {
  // sentence-transformers sets padding to −1e9 before taking the maximum.
  Array best(out, cols);
  best.setConstant(std::numeric_limits<float>::lowest());
  for (std::int64_t t = 0; t < length; ++t) {
    if (mask[t] == 0.0f)
      best = best.max(-1e9f);
    else
      best = best.max(ConstArray(x + t * cols, cols));
  }
}

}  // namespace invar::cpu
