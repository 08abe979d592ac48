#include "backends/cpu/kernels.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include <unsupported/Eigen/SpecialFunctions>

#include "backends/cpu/gemm.hpp"

namespace invar::cpu {

namespace {

using Array = Eigen::Map<Eigen::ArrayXf>;
using ConstArray = Eigen::Map<const Eigen::ArrayXf>;
using RowMajor = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Rows = Eigen::Map<RowMajor>;

// Activations run in blocks that stay in L1 between their passes.
constexpr std::int64_t kBlock = 1024;

// Order::Fixed's vector code: values copied into a 16-byte aligned buffer padded to a multiple of
// eight, where Eigen computes every one with packets (no scalar head or tail), whatever the row's
// address and length. One buffer per thread, reused.
using Aligned = Eigen::Map<Eigen::ArrayXf, Eigen::Aligned16>;

Aligned aligned_copy(const float* x, std::int64_t n, float pad) {
  thread_local std::vector<float> buffer;  // malloc aligns it to 16 bytes
  const std::int64_t padded = (n + 7) / 8 * 8;
  buffer.assign(static_cast<std::size_t>(padded), pad);
  std::copy_n(x, n, buffer.data());
  return Aligned(buffer.data(), padded);
}

// f(v) in place on x's n values.
template <typename F>
void blocked(float* x, std::int64_t n, Order order, F f) {
  if (order == Order::Fixed) {
    Aligned v = aligned_copy(x, n, 0.0f);
    f(v);
    std::copy_n(v.data(), n, x);
    return;
  }
  for (std::int64_t i = 0; i < n; i += kBlock) {
    Array block(x + i, std::min(kBlock, n - i));
    f(block);
  }
}

// Σ value(x[i]) in Order::Fixed's order.
template <typename F>
float lane_sum(const float* x, std::int64_t n, F value) {
  float lanes[8] = {};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int l = 0; l < 8; ++l) lanes[l] += value(x[i + l]);
  }
  for (int l = 0; i + l < n; ++l) lanes[l] += value(x[i + l]);
  return combine_lanes(lanes);
}

float sum(const float* x, std::int64_t n, Order order) {
  if (order == Order::Fixed) return lane_sum(x, n, [](float v) { return v; });
  return ConstArray(x, n).sum();
}

float sum_of_squares(const float* x, std::int64_t n, Order order) {
  if (order == Order::Fixed) return lane_sum(x, n, [](float v) { return v * v; });
  return ConstArray(x, n).square().sum();
}

}  // namespace

void add_bias(float* x, std::int64_t rows, std::int64_t cols, const float* bias) {
  Rows(x, rows, cols).rowwise() += ConstArray(bias, cols).transpose();
}

void gelu_erf(float* x, std::int64_t n, Order order) {
  // HF "gelu" (torch.nn.functional.gelu): x/2 · (1 + erf(x/√2)).
  blocked(x, n, order, [](auto&& v) { v = 0.5f * v * (1.0f + (v * float(M_SQRT1_2)).erf()); });
}

void gelu_tanh(float* x, std::int64_t n, Order order) {
  // HF "gelu_new" (NewGELUActivation): x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³))).
  const float k = std::sqrt(2.0f / float(M_PI));
  blocked(x, n, order, [k](auto&& v) { v = 0.5f * v * (1.0f + (k * (v + 0.044715f * v.cube())).tanh()); });
}

void relu(float* x, std::int64_t n) { Array(x, n) = Array(x, n).max(0.0f); }

void silu(float* x, std::int64_t n, Order order) {
  blocked(x, n, order, [](auto&& v) { v = v / (1.0f + (-v).exp()); });
}

void tanh(float* x, std::int64_t n, Order order) {
  if (order == Order::Fixed)
    blocked(x, n, order, [](auto&& v) { v = v.tanh(); });
  else
    Array(x, n) = Array(x, n).tanh();
}

void add(const float* a, const float* b, float* out, std::int64_t n) {
  Array(out, n) = ConstArray(a, n) + ConstArray(b, n);
}

void mul(const float* a, const float* b, float* out, std::int64_t n) {
  Array(out, n) = ConstArray(a, n) * ConstArray(b, n);
}

void layer_norm(const float* x, const float* residual, const float* gamma, const float* beta, float eps, float* out,
                std::int64_t rows, std::int64_t cols, Order order) {
  const ConstArray g(gamma, cols), b(beta, cols);
  for (std::int64_t r = 0; r < rows; ++r) {
    Array o(out + r * cols, cols);
    if (residual)
      o = ConstArray(x + r * cols, cols) + ConstArray(residual + r * cols, cols);
    else
      o = ConstArray(x + r * cols, cols);
    // Two passes (mean, then centred variance), as accurate as torch's Welford in float.
    const float mean = sum(o.data(), cols, order) / static_cast<float>(cols);
    o -= mean;
    const float inv = 1.0f / std::sqrt(sum_of_squares(o.data(), cols, order) / static_cast<float>(cols) + eps);
    o = o * inv * g + b;
  }
}

void rms_norm(const float* x, const float* weight, float eps, float* out, std::int64_t rows, std::int64_t cols,
              Order order) {
  const ConstArray w(weight, cols);
  for (std::int64_t r = 0; r < rows; ++r) {
    const ConstArray v(x + r * cols, cols);
    const float inv = 1.0f / std::sqrt(sum_of_squares(v.data(), cols, order) / static_cast<float>(cols) + eps);
    Array(out + r * cols, cols) = v * inv * w;
  }
}

void attention_softmax_row(float* s, std::int64_t n, float scale, const float* bias, const float* keep,
                           std::int64_t limit, Order order) {
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
  // Eigen's exp clamps its argument, so a dropped key's exp(−∞) is ≈ 1e-38, not 0: a weight that
  // vanishes beside the row's largest, exp(0) = 1.
  if (order == Order::Fixed)
    blocked(s, n, order, [max](auto&& v) { v = (v - max).exp(); });
  else
    row = (row - max).exp();
  row /= sum(s, n, order);
}

void log_softmax(const float* x, float* out, std::int64_t rows, std::int64_t cols, Order order) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const ConstArray v(x + r * cols, cols);
    const float max = v.maxCoeff();
    float exp_sum = 0.0f;
    if (order == Order::Fixed) {
      // Padded with −∞, whose exp (Eigen's, clamped: ≈ 1e-38) adds nothing visible to a sum ≥ 1.
      Aligned e = aligned_copy(v.data(), cols, -std::numeric_limits<float>::infinity());
      e = (e - max).exp();
      exp_sum = sum(e.data(), e.size(), order);
    } else {
      exp_sum = (v - max).exp().sum();
    }
    Array(out + r * cols, cols) = v - (max + std::log(exp_sum));
  }
}

namespace {

struct Candidate {
  float value;
  std::int32_t id;
};

constexpr std::int64_t kTopKChunk = 256;

// The largest number of each kTopKChunk columns of a row (NaN skipped; NaN where a chunk has none),
// and of the whole row but `exclude` (−∞ where it has none).
float chunk_maxima(const float* row, std::int64_t cols, std::int64_t exclude, std::vector<float>& maxima) {
  const auto numbers_max = [row](std::int64_t begin, std::int64_t end) {
    return begin < end ? ConstArray(row + begin, end - begin).maxCoeff<Eigen::PropagateNumbers>()
                       : -std::numeric_limits<float>::infinity();
  };
  float max = -std::numeric_limits<float>::infinity();
  maxima.clear();
  for (std::int64_t first = 0; first < cols; first += kTopKChunk) {
    const std::int64_t last = std::min(cols, first + kTopKChunk);
    maxima.push_back(numbers_max(first, last));
    const float counted = exclude >= first && exclude < last
                              ? std::max(numbers_max(first, exclude), numbers_max(exclude + 1, last))
                              : maxima.back();
    if (counted > max) max = counted;  // a NaN (no number in the chunk) is skipped
  }
  return max;
}

// The k best of one row (NaN and `exclude` as −∞) into `best`, largest first, equal values in column
// order: one pass, chunk by chunk; once k are kept, a chunk whose largest number (chunk_maxima's)
// does not beat the last kept one is skipped: nothing in it could enter (its NaNs and `exclude`
// count as −∞).
void row_top_k(const float* row, std::int64_t cols, std::int64_t k, std::int64_t exclude,
               const std::vector<float>& maxima, std::vector<Candidate>& best) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  best.clear();
  for (std::int64_t first = 0; first < cols; first += kTopKChunk) {
    const std::int64_t last = std::min(cols, first + kTopKChunk);
    if (static_cast<std::int64_t>(best.size()) == k && !(maxima[static_cast<std::size_t>(first / kTopKChunk)] >
                                                          best.back().value))
      continue;
    for (std::int64_t c = first; c < last; ++c) {
      const float v = c == exclude || std::isnan(row[c]) ? kNegInf : row[c];
      if (static_cast<std::int64_t>(best.size()) == k && !(v > best.back().value)) continue;
      const auto at = std::upper_bound(best.begin(), best.end(), v,
                                       [](float value, const Candidate& kept) { return value > kept.value; });
      best.insert(at, {v, static_cast<std::int32_t>(c)});
      if (static_cast<std::int64_t>(best.size()) > k) best.pop_back();
    }
  }
}

}  // namespace

void top_k_rows(const float* x, std::int64_t rows, std::int64_t cols, std::int64_t k, std::int64_t exclude,
                double (*exp_sum)(const float*, std::int64_t, float), float* values, std::int32_t* ids, float* terms) {
  thread_local std::vector<Candidate> best;
  thread_local std::vector<float> maxima;
  // The columns before and after `exclude` (all of them when there is none).
  const std::int64_t head = exclude >= 0 ? exclude : cols, tail = exclude >= 0 ? exclude + 1 : cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    // The max of the numbers (NaN skipped, as the search's log_softmax_terms).
    const float max = chunk_maxima(row, cols, exclude, maxima);
    const bool finite = std::isfinite(max);
    const double sum = finite ? exp_sum(row, head, max) + exp_sum(row + tail, cols - tail, max) : 0.0;
    terms[2 * r] = finite ? max : 0.0f;
    terms[2 * r + 1] = finite ? static_cast<float>(std::log(sum)) : 0.0f;
    row_top_k(row, cols, k, exclude, maxima, best);
    for (std::int64_t j = 0; j < k; ++j) {
      values[r * k + j] = best[static_cast<std::size_t>(j)].value;
      ids[r * k + j] = best[static_cast<std::size_t>(j)].id;
    }
  }
}

void l2_normalize(float* x, std::int64_t rows, std::int64_t cols, Order order) {
  for (std::int64_t r = 0; r < rows; ++r) {
    Array v(x + r * cols, cols);
    v /= std::max(std::sqrt(sum_of_squares(v.data(), cols, order)), 1e-12f);
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
