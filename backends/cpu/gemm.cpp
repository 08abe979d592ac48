// The fixed-order matrix product of gemm.hpp. Both operands are brought to "k along rows" form
// (op(A) rows and op(B) columns as contiguous vectors of k floats), so each output element is a
// dot product of two contiguous vectors. An AVX2 kernel computes tiles of 3 × 4 such dot products
// with one 8-lane accumulator each; the portable kernel computes the same eight partial sums with
// std::fma. Both are exact-rounding fused multiply-adds in the same order, so their results agree
// bit for bit, and so do all tilings and thread splits.
#include "backends/cpu/gemm.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace invar::cpu {

namespace {

constexpr int kTileRows = 3;  // 3 × 4 accumulators + 3 A vectors + 1 B vector = the 16 AVX2 registers
constexpr int kTileCols = 4;
constexpr int kLanes = 8;

// A tile of R × C dot products of length k: rows of a (stride lda) with rows of b (stride ldb).
template <int R, int C>
void tile_portable(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, std::int64_t k,
                   float out[kTileRows][kTileCols]) {
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      std::array<float, kLanes> s{};
      const float* x = a + r * lda;
      const float* y = b + c * ldb;
      for (std::int64_t i = 0; i < k; ++i) s[i % kLanes] = std::fma(x[i], y[i], s[i % kLanes]);
      out[r][c] = combine_lanes(s.data());
    }
  }
}

__attribute__((target("avx2,fma"))) float combine_avx2(__m256 v) {
  alignas(32) float s[kLanes];
  _mm256_store_ps(s, v);
  return combine_lanes(s);
}

template <int R, int C>
__attribute__((target("avx2,fma"))) void tile_avx2(const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                                                   std::int64_t k, float out[kTileRows][kTileCols]) {
  __m256 acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  }
  std::int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes) {
    __m256 x[R];
    for (int r = 0; r < R; ++r) x[r] = _mm256_loadu_ps(a + r * lda + i);
    for (int c = 0; c < C; ++c) {
      const __m256 y = _mm256_loadu_ps(b + c * ldb + i);
      for (int r = 0; r < R; ++r) acc[r][c] = _mm256_fmadd_ps(x[r], y, acc[r][c]);
    }
  }
  if (i < k) {
    // Lanes past k load zeros, and fma(0, 0, s) = s exactly: the same sums as the portable kernel.
    alignas(32) std::int32_t lanes[kLanes];
    for (int l = 0; l < kLanes; ++l) lanes[l] = i + l < k ? -1 : 0;
    const __m256i mask = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
    __m256 x[R];
    for (int r = 0; r < R; ++r) x[r] = _mm256_maskload_ps(a + r * lda + i, mask);
    for (int c = 0; c < C; ++c) {
      const __m256 y = _mm256_maskload_ps(b + c * ldb + i, mask);
      for (int r = 0; r < R; ++r) acc[r][c] = _mm256_fmadd_ps(x[r], y, acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) out[r][c] = combine_avx2(acc[r][c]);
  }
}

using TileFn = void (*)(const float*, std::int64_t, const float*, std::int64_t, std::int64_t,
                        float[kTileRows][kTileCols]);
using TileTable = std::array<std::array<TileFn, kTileCols>, kTileRows>;

template <bool kAvx2, int R>
constexpr std::array<TileFn, kTileCols> tile_row() {
  if constexpr (kAvx2) return {tile_avx2<R, 1>, tile_avx2<R, 2>, tile_avx2<R, 3>, tile_avx2<R, 4>};
  else return {tile_portable<R, 1>, tile_portable<R, 2>, tile_portable<R, 3>, tile_portable<R, 4>};
}

template <bool kAvx2>
constexpr TileTable tile_table() {
  return {tile_row<kAvx2, 1>(), tile_row<kAvx2, 2>(), tile_row<kAvx2, 3>()};
}

const TileTable& tiles(GemmKernel kernel) {
  static constexpr TileTable portable = tile_table<false>();
  static const TileTable best =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? tile_table<true>() : portable;
  return kernel == GemmKernel::Portable ? portable : best;
}

// dst [cols, rows] = srcᵀ for src [rows, cols] with row stride ld.
const float* transposed(const MatrixRef& src, std::int64_t rows, std::int64_t cols, std::vector<float>& dst) {
  dst.resize(static_cast<std::size_t>(rows * cols));
  constexpr std::int64_t kBlock = 32;
  for (std::int64_t r0 = 0; r0 < rows; r0 += kBlock) {
    for (std::int64_t c0 = 0; c0 < cols; c0 += kBlock) {
      for (std::int64_t r = r0; r < std::min(rows, r0 + kBlock); ++r) {
        for (std::int64_t c = c0; c < std::min(cols, c0 + kBlock); ++c) dst[c * rows + r] = src.data[r * src.ld + c];
      }
    }
  }
  return dst.data();
}

}  // namespace

float combine_lanes(const float* s) {
  const float t0 = s[0] + s[4], t1 = s[1] + s[5], t2 = s[2] + s[6], t3 = s[3] + s[7];
  return (t0 + t2) + (t1 + t3);
}

void fixed_order_gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                      MatrixRef a, MatrixRef b, float beta, float* c, std::int64_t c_ld, GemmScratch& scratch,
                      ThreadPool& pool, GemmKernel kernel) {
  if (m == 0 || n == 0) return;
  // Rows of x: op(A)'s rows; rows of y: op(B)'s columns; both k long.
  const MatrixRef x = trans_a ? MatrixRef{transposed(a, k, m, scratch.a), k} : a;
  const MatrixRef y = trans_b ? b : MatrixRef{transposed(b, k, n, scratch.b), k};
  const TileTable& table = tiles(kernel);

  // A block of x rows sized to stay in L2 while 4 y rows at a time (in L1) pass over it.
  const std::int64_t block_rows = std::max<std::int64_t>(kTileRows, 98304 / std::max<std::int64_t>(k, 1) / kTileRows *
                                                                         kTileRows);
  constexpr std::int64_t kBlockCols = 16 * kTileCols;
  const std::int64_t row_blocks = (m + block_rows - 1) / block_rows, col_blocks = (n + kBlockCols - 1) / kBlockCols;
  pool.parallel_for(row_blocks * col_blocks, block_rows * kBlockCols * std::max<std::int64_t>(k, 1),
                    [&](std::int64_t begin, std::int64_t end) {
    float out[kTileRows][kTileCols];
    for (std::int64_t unit = begin; unit < end; ++unit) {
      const std::int64_t r0 = unit / col_blocks * block_rows, c0 = unit % col_blocks * kBlockCols;
      const std::int64_t r_end = std::min(m, r0 + block_rows), c_end = std::min(n, c0 + kBlockCols);
      for (std::int64_t j = c0; j < c_end; j += kTileCols) {
        const int cols = static_cast<int>(std::min<std::int64_t>(kTileCols, c_end - j));
        for (std::int64_t i = r0; i < r_end; i += kTileRows) {
          const int rows = static_cast<int>(std::min<std::int64_t>(kTileRows, r_end - i));
          table[rows - 1][cols - 1](x.data + i * x.ld, x.ld, y.data + j * y.ld, y.ld, k, out);
          for (int r = 0; r < rows; ++r) {
            float* row = c + (i + r) * c_ld + j;
            for (int s = 0; s < cols; ++s) {
              const float product = alpha * out[r][s];
              row[s] = beta == 0.0f ? product : std::fma(beta, row[s], product);
            }
          }
        }
      }
    }
  });
}

}  // namespace invar::cpu
