#pragma once
// The row kernels of row_kernels.hpp as templates over an Eigen packet type, for the files that
// build one instruction set each (row_kernels_avx2.cpp: Packet8f, row_kernels_avx512.cpp:
// Packet16f), and the int8 row code, which row_kernels.cpp compiles for the portable variant too.
// Everything here has internal linkage: each including file gets its own copy, built with its own
// flags. Include it from those three files only.
#include <Eigen/Core>
#include <cstdint>
#include <unsupported/Eigen/SpecialFunctions>

#include "backends/cpu/gemm.hpp"
#include "backends/cpu/row_kernels.hpp"

namespace invar::cpu {
namespace {

// No std:: helpers below (std::min, std::isfinite, …): an inline function of a header compiled here
// with AVX flags could be the copy the linker keeps for the portable code as well.
inline float smaller(float a, float b) { return b < a ? b : a; }  // std::min's choice, NaN included
inline float larger(float a, float b) { return a < b ? b : a; }   // std::max's

constexpr float kUint8Max = 255.0f;

// The least and the greatest of `count` values and 0 (NaNs skipped), in 16 lanes (the portable
// variant's; the wider ones take packets, below). Min and max are exact and a NaN never wins, so any
// grouping finds the same two values: every variant gives the same bits.
inline void range_with_zero(const float* values, std::int64_t count, float& low_out, float& high_out) {
  constexpr std::int64_t kLanes = 16;
  float low[kLanes] = {}, high[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (std::int64_t l = 0; l < kLanes; ++l) {
      low[l] = smaller(low[l], values[i + l]);
      high[l] = larger(high[l], values[i + l]);
    }
  }
  for (; i < count; ++i) {
    low[0] = smaller(low[0], values[i]);
    high[0] = larger(high[0], values[i]);
  }
  low_out = low[0];
  high_out = high[0];
  for (std::int64_t l = 1; l < kLanes; ++l) {
    low_out = smaller(low_out, low[l]);
    high_out = larger(high_out, high[l]);
  }
}

// Rounding as core/quantize.hpp's (q + 0.5 truncated, q ≥ 0); NaN becomes 0, and an infinite range
// gives an infinite scale and zero point 0, which the rescaling carries on. Built with
// -ffp-contract=off (and without FMA in the portable build): the same bits in every variant.
template <void (*Range)(const float*, std::int64_t, float&, float&)>
RowScale quantize_row_impl(const float* values, std::int64_t count, std::uint8_t* out) {
  float low = 0.0f, high = 0.0f;
  Range(values, count, low, high);
  const float range = high - low;
  const float scale = range > 0.0f ? range / kUint8Max : 1.0f;
  const float inverse = 1.0f / scale;
  const float zero = __builtin_isfinite(scale) ? __builtin_nearbyintf(-low * inverse) : 0.0f;
  for (std::int64_t i = 0; i < count; ++i) {
    const float rounded = smaller(values[i] * inverse + zero + 0.5f, kUint8Max);
    out[i] = rounded >= 0.0f ? static_cast<std::uint8_t>(static_cast<std::int32_t>(rounded)) : 0;
  }
  return {scale, zero};
}

void rescale_impl(float* y, std::int64_t m, std::int64_t n, const RowScale* rows, const float* channel_scales,
                  const float* sums, const float* bias) {
  for (std::int64_t r = 0; r < m; ++r) {
    float* row = y + r * n;
    const float scale = rows[r].scale, zero = rows[r].zero;
    if (bias) {
      for (std::int64_t j = 0; j < n; ++j) row[j] = (row[j] - zero * sums[j]) * (scale * channel_scales[j]) + bias[j];
    } else {
      for (std::int64_t j = 0; j < n; ++j) row[j] = (row[j] - zero * sums[j]) * (scale * channel_scales[j]);
    }
  }
}

// The packet kernels: each row from its first element, whole packets, then the rest through a
// padded packet (the same vector code for every element, no scalar tail). AVX builds only (the
// portable variant takes the int8 code above).
#ifdef __AVX2__
namespace simd {
using namespace Eigen::internal;

template <typename P>
constexpr std::int64_t kWidth = unpacket_traits<P>::size;

// count (< kWidth) values, the rest of the packet `pad`.
template <typename P>
P load_part(const float* from, std::int64_t count, float pad) {
  alignas(64) float buffer[kWidth<P>];
  for (std::int64_t i = 0; i < kWidth<P>; ++i) buffer[i] = i < count ? from[i] : pad;
  return ploadu<P>(buffer);
}
template <typename P>
P load(const float* from, std::int64_t count, float pad) {
  return count == kWidth<P> ? ploadu<P>(from) : load_part<P>(from, count, pad);
}
template <typename P>
void store(float* to, const P& v, std::int64_t count) {
  if (count == kWidth<P>) {
    pstoreu(to, v);
    return;
  }
  alignas(64) float buffer[kWidth<P>];
  pstoreu(buffer, v);
  for (std::int64_t i = 0; i < count; ++i) to[i] = buffer[i];
}
template <typename P>
float max_lanes(const P& v) {
  alignas(64) float lanes[kWidth<P>];
  pstoreu(lanes, v);
  float best = lanes[0];
  for (std::int64_t i = 1; i < kWidth<P>; ++i) best = larger(best, lanes[i]);
  return best;
}
// The softmax's normalizer, in eight lanes of doubles (the compiler vectorizes them), rounded once:
// its rounding moves every probability of a row the same way, which random-weight models amplify.
// With a float sum (any order) the wider variants failed a seq2seq metamorphic test
// (test_seq2seq_asymmetric, 1.2e-4 against its 1e-4); with this one they differ less than the
// portable code there.
inline float sum_in_double(const float* x, std::int64_t n) {
  double lanes[8] = {};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int l = 0; l < 8; ++l) lanes[l] += x[i + l];
  }
  for (int l = 0; i + l < n; ++l) lanes[l] += x[i + l];
  double total = 0.0;
  for (double lane : lanes) total += lane;
  return static_cast<float>(total);
}
inline std::int64_t part(std::int64_t i, std::int64_t n, std::int64_t width) { return n - i < width ? n - i : width; }

// x[r, c] = f(x[r, c] + bias[c]) on packets.
template <typename P, typename F>
void bias_activation(float* x, std::int64_t rows, std::int64_t cols, const float* bias, F f) {
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = x + r * cols;
    for (std::int64_t i = 0; i < cols; i += kWidth<P>) {
      const std::int64_t count = part(i, cols, kWidth<P>);
      P v = load<P>(row + i, count, 0.0f);
      if (bias) v = padd(v, load<P>(bias + i, count, 0.0f));
      store(row + i, f(v), count);
    }
  }
}

template <typename P>
void bias_gelu_erf(float* x, std::int64_t rows, std::int64_t cols, const float* bias) {
  // HF "gelu": x/2 · (1 + erf(x/√2)), as kernels.cpp's gelu_erf.
  const P half = pset1<P>(0.5f), one = pset1<P>(1.0f), root_half = pset1<P>(float(M_SQRT1_2));
  bias_activation<P>(x, rows, cols, bias, [&](const P& v) { return pmul(pmul(half, v), padd(one, perf(pmul(v, root_half)))); });
}

template <typename P>
void bias_silu(float* x, std::int64_t rows, std::int64_t cols, const float* bias) {
  // v / (1 + exp(−v)), as kernels.cpp's silu.
  const P one = pset1<P>(1.0f);
  bias_activation<P>(x, rows, cols, bias, [&](const P& v) { return pdiv(v, padd(one, pexp(pnegate(v)))); });
}

// Eight running sums in Order::Fixed's lanes (kernels.hpp), fed whole packets: lane l takes the
// indices ≡ l (mod 8) in increasing order, a 16-float packet's low half before its high half, then
// gemm.hpp's combine_lanes. Padding adds +0, which leaves a lane (never −0: it starts at +0)
// unchanged.
template <typename P>
struct FixedLanes {
  __m256 sums = _mm256_setzero_ps();
  void add(const P& v) {
    if constexpr (kWidth<P> == 8) {
      sums = _mm256_add_ps(sums, v);
    } else {
#ifdef __AVX512DQ__
      sums = _mm256_add_ps(sums, _mm512_castps512_ps256(v));
      sums = _mm256_add_ps(sums, _mm512_extractf32x8_ps(v, 1));
#endif
    }
  }
  float total() const {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, sums);
    return combine_lanes(lanes);
  }
};

// Order::Fixed's layer norm (kernels.cpp) on wider packets: every step is exact per element or in
// FixedLanes' order, so the bits are the portable code's on every CPU.
template <typename P>
void layer_norm(const float* x, const float* residual, const float* gamma, const float* beta, float eps, float* out,
                std::int64_t rows, std::int64_t cols) {
  const float n = static_cast<float>(cols);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float* rr = residual ? residual + r * cols : nullptr;
    float* o = out + r * cols;
    FixedLanes<P> sum;
    for (std::int64_t i = 0; i < cols; i += kWidth<P>) {
      const std::int64_t count = part(i, cols, kWidth<P>);
      P v = load<P>(xr + i, count, 0.0f);
      if (rr) v = padd(v, load<P>(rr + i, count, 0.0f));
      sum.add(v);
      store(o + i, v, count);
    }
    // Two passes (mean, then centred variance), as accurate as torch's Welford in float.
    const float mean = sum.total() / n;
    const P centre = pset1<P>(mean);
    FixedLanes<P> squares;
    for (std::int64_t i = 0; i < cols; i += kWidth<P>) {
      const std::int64_t count = part(i, cols, kWidth<P>);
      const P d = psub(load<P>(o + i, count, mean), centre);  // padding: 0
      squares.add(pmul(d, d));
      store(o + i, d, count);
    }
    const P inv = pset1<P>(1.0f / __builtin_sqrtf(squares.total() / n + eps));
    for (std::int64_t i = 0; i < cols; i += kWidth<P>) {
      const std::int64_t count = part(i, cols, kWidth<P>);
      const P scaled = pmul(pmul(load<P>(o + i, count, 0.0f), inv), load<P>(gamma + i, count, 0.0f));
      store(o + i, padd(scaled, load<P>(beta + i, count, 0.0f)), count);
    }
  }
}

template <typename P>
void attention_softmax_row(float* s, std::int64_t n, float scale, const float* bias, const float* keep,
                           std::int64_t limit) {
  const float dropped = -__builtin_huge_valf();
  const P factor = pset1<P>(scale), zero = pset1<P>(0.0f), minus_infinity = pset1<P>(dropped);
  const std::int64_t end = limit < 0 ? 0 : (limit > n ? n : limit);
  P best = minus_infinity;
  for (std::int64_t i = 0; i < n; i += kWidth<P>) {
    const std::int64_t count = part(i, n, kWidth<P>);
    P v = pmul(load<P>(s + i, count, 0.0f), factor);
    if (bias) v = padd(v, load<P>(bias + i, count, 0.0f));
    if (keep) v = pselect(pcmp_eq(load<P>(keep + i, count, 1.0f), zero), minus_infinity, v);
    store(s + i, v, count);
    if (count == kWidth<P> && i + count <= end) {
      best = pmax(best, v);
    } else {  // a partial packet (its padding is not a score), or the one holding `end`: j ≥ limit is dropped
      for (std::int64_t j = (i > end ? i : end); j < i + count; ++j) s[j] = dropped;
      best = pmax(best, load<P>(s + i, count, dropped));
    }
  }
  const float max = max_lanes(best);
  if (max == dropped) {
    for (std::int64_t j = 0; j < n; ++j) s[j] = 0.0f;
    return;
  }
  const P shift = pset1<P>(max);
  for (std::int64_t i = 0; i < n; i += kWidth<P>) {
    const std::int64_t count = part(i, n, kWidth<P>);
    store(s + i, pexp(psub(load<P>(s + i, count, dropped), shift)), count);
  }
  const P sum = pset1<P>(sum_in_double(s, n));
  for (std::int64_t i = 0; i < n; i += kWidth<P>) {
    const std::int64_t count = part(i, n, kWidth<P>);
    store(s + i, pdiv(load<P>(s + i, count, 0.0f), sum), count);
  }
}

// Key by key, every head at that key: a decoding cache holds a position's heads side by side, so
// each step reads one contiguous block per key (head by head, the reads jumped a cache row at every
// key and were slower than OpenBLAS's sgemv per head). Each score is a dot product along the head in
// packets, reduced once; the context is summed over the keys in order, in `out`. The keys ahead are
// prefetched: the hardware prefetcher does not follow a cache's row stride.
template <typename P>
void attend_query(const QueryAttention& a, float* s) {
  constexpr std::int64_t kAhead = 4;
  const auto prefetch = [&](const float* first, std::int64_t head_stride) {
    for (std::int64_t h = 0; h < a.heads; ++h)
      for (std::int64_t d = 0; d < a.head_dim; d += 16) __builtin_prefetch(first + h * head_stride + d);
  };
  // Row j's key and value (no helper shared with the portable kernel: code built with AVX flags
  // shares no inline function with code built without them).
  const auto row = [&](std::int64_t j) { return a.key_rows ? a.key_rows[j * a.key_rows_ld] : 0; };
  const auto key = [&](std::int64_t j) { return a.k + j * a.k_ld + row(j) * a.k_row; };
  const auto value = [&](std::int64_t j) { return a.v + j * a.v_ld + row(j) * a.v_row; };
  for (std::int64_t j = 0; j < a.keys; ++j) {
    if (j + kAhead < a.keys) prefetch(key(j + kAhead), a.k_head);
    for (std::int64_t h = 0; h < a.heads; ++h) {
      const float *q = a.q + h * a.q_head, *k = key(j) + h * a.k_head;
      P dot = pset1<P>(0.0f);
      for (std::int64_t d = 0; d < a.head_dim; d += kWidth<P>) {
        const std::int64_t count = part(d, a.head_dim, kWidth<P>);
        dot = pmadd(load<P>(q + d, count, 0.0f), load<P>(k + d, count, 0.0f), dot);
      }
      s[h * a.keys + j] = predux(dot);
    }
  }
  for (std::int64_t h = 0; h < a.heads; ++h) {
    attention_softmax_row<P>(s + h * a.keys, a.keys, a.scale, a.bias ? a.bias + h * a.bias_head : nullptr, a.keep,
                             a.limit);
    for (std::int64_t d = 0; d < a.head_dim; ++d) a.out[h * a.out_head + d] = 0.0f;
  }
  for (std::int64_t j = 0; j < a.keys; ++j) {
    if (j + kAhead < a.keys) prefetch(value(j + kAhead), a.v_head);
    for (std::int64_t h = 0; h < a.heads; ++h) {
      const P weight = pset1<P>(s[h * a.keys + j]);
      const float* v = value(j) + h * a.v_head;
      float* out = a.out + h * a.out_head;
      for (std::int64_t d = 0; d < a.head_dim; d += kWidth<P>) {
        const std::int64_t count = part(d, a.head_dim, kWidth<P>);
        store(out + d, pmadd(weight, load<P>(v + d, count, 0.0f), load<P>(out + d, count, 0.0f)), count);
      }
    }
  }
}

// Blocks of exponentials in an L1-sized buffer, each block's sum added in eight double lanes.
template <typename P>
double exp_sum(const float* x, std::int64_t n, float max) {
  constexpr std::int64_t kBlock = 1024;
  alignas(64) float block[kBlock];
  const P shift = pset1<P>(max);
  double lanes[8] = {};
  for (std::int64_t begin = 0; begin < n; begin += kBlock) {
    const std::int64_t count = part(begin, n, kBlock);
    for (std::int64_t i = 0; i < count; i += kWidth<P>) {
      const std::int64_t c = part(i, count, kWidth<P>);
      store(block + i, pexp(psub(load<P>(x + begin + i, c, max), shift)), c);
    }
    std::int64_t i = 0;
    for (; i + 8 <= count; i += 8)
      for (int l = 0; l < 8; ++l) lanes[l] += block[i + l];
    for (int l = 0; i + l < count; ++l) lanes[l] += block[i + l];
  }
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// range_with_zero on packets (GCC keeps the 16-lane loop's lanes in scalar registers).
template <typename P>
void range_with_zero(const float* values, std::int64_t count, float& low, float& high) {
  P lows = pset1<P>(0.0f), highs = lows;
  for (std::int64_t i = 0; i < count; i += kWidth<P>) {
    const P v = load<P>(values + i, part(i, count, kWidth<P>), 0.0f);  // padding: 0 is in the range
    lows = pmin(lows, v);  // std::min(lows, v): v < lows ? v : lows, so a NaN v is skipped
    highs = pmax(highs, v);
  }
  alignas(64) float lanes[2][kWidth<P>];
  pstoreu(lanes[0], lows);
  pstoreu(lanes[1], highs);
  low = lanes[0][0];
  high = lanes[1][0];
  for (std::int64_t l = 1; l < kWidth<P>; ++l) {
    low = smaller(low, lanes[0][l]);
    high = larger(high, lanes[1][l]);
  }
}

// The table of one packet type.
template <typename P>
RowKernels table(const char* name) {
  return {name,
          bias_gelu_erf<P>,
          bias_silu<P>,
          layer_norm<P>,
          attention_softmax_row<P>,
          attend_query<P>,
          exp_sum<P>,
          quantize_row_impl<range_with_zero<P>>,
          rescale_impl};
}

}  // namespace simd
#endif
}  // namespace
}  // namespace invar::cpu
