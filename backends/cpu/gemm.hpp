#pragma once
// A matrix product whose every output element is summed in one fixed order, so that its bits
// depend only on the two input vectors it combines — never on the thread count, on how the
// output is split into tiles, on the other rows of a batch, or on the CPU's vector width.
// OpenBLAS gives none of this: its sgemm rounds differently with the thread count and even
// single-threaded for the same element computed inside a different block (edge tiles use other
// micro-kernels, and the k dimension is cut where the shapes say). The order (see gemm.cpp):
// eight partial sums, partial l taking k ≡ l (mod 8) in increasing k with fused multiply-adds,
// then the pairwise tree (0+4, 1+5, 2+6, 3+7), (0+2, 1+3), (0+1).
#include <cstdint>
#include <vector>

#include "backends/cpu/thread_pool.hpp"

namespace invar::cpu {

// A dense row-major operand: element (r, c) at data[r * ld + c].
struct MatrixRef {
  const float* data = nullptr;
  std::int64_t ld = 0;
};

// Scratch space of one caller (a backend), reused across calls so that steady state allocates
// nothing: operands stored with k along columns are transposed into it.
struct GemmScratch {
  std::vector<float> a, b;
};

// The fixed order's last step: partial sums s[0..7] combined by the tree above. The batch-invariant
// row reductions (kernels.hpp, Order::Fixed) end with it too.
float combine_lanes(const float* s);

// Which code computes the order: the fastest this CPU runs (AVX2 + FMA where present), or the
// portable one (std::fma). Both give the same bits.
enum class GemmKernel { Best, Portable };

// C [m, n] = alpha · op(A) · op(B) + beta · C, op(A) [m, k], op(B) [k, n]; with beta = 0, C is not
// read. c_ld is C's row stride. Rows of op(A) and columns of op(B) are split across the pool.
void fixed_order_gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                      MatrixRef a, MatrixRef b, float beta, float* c, std::int64_t c_ld, GemmScratch& scratch,
                      ThreadPool& pool, GemmKernel kernel = GemmKernel::Best);

}  // namespace invar::cpu
