#pragma once
// The CPU backend's hottest row kernels in several builds, one per x86-64 instruction set, chosen
// once per backend by what the CPU supports. The library is built without -march so that one
// binary runs on every x86-64 CPU; its Eigen code (kernels.hpp) then runs on 4-float SSE2 packets.
// row_kernels_avx2.cpp and row_kernels_avx512.cpp compile the same template code
// (row_kernels_simd.hpp) with their own -m flags (CMakeLists.txt) on 8- and 16-float packets, with
// fused multiply-adds; nothing else in the library is built with those flags, and those files
// instantiate no template another file instantiates (their packet types are their own; the only
// other inline copies, at -O0, are two empty constructors of Eigen's constants), so no AVX
// instruction can reach a CPU without AVX through a shared inline function.
//
// Variants and their bits:
// - bias_gelu_erf, bias_silu, attention_softmax_row and exp_sum compute what kernels.hpp's
//   Order::Fast ones (and core/exp_sum.hpp) do with Eigen's same erf and exp approximations, on wider packets and with fused multiply-adds: within
//   a few ulps of the portable results (tests/backends/test_row_kernels.cpp states the bounds), not
//   bit-equal. A row's results depend only on its values and length. --deterministic does not use
//   them: its GELU and softmax stay Order::Fixed's portable code, whose bits are the same on every
//   x86-64 machine.
// - attend_query sums its dot products in each variant's own packets (the portable one: Eigen's),
//   so its variants agree within float rounding of the attention in double (the test's bound), not
//   to a few ulps; --deterministic does not use it either.
// - layer_norm is Order::Fixed's layer norm in every variant, bit for bit (its sums in kernels.hpp's
//   order, every other step exact per element), and quantize_row and rescale (int8 products) give
//   the same bits in every variant (a row's range is exact whatever the grouping; the rest is one
//   source compiled for each instruction set): --deterministic uses them too.
// The files with AVX flags are built with -ffp-contract=off: no product contracted into a fused
// multiply-add but those Eigen's packet functions write out.
//
// INVAR_CPU_KERNELS=portable|avx2|avx512 forces a variant (tests, comparisons); one the CPU cannot
// run is an error. Unset: the widest the CPU supports.
#include <cstdint>
#include <vector>

namespace invar::cpu {

// An int8 product's input row: v ≈ scale · (q − zero) (packed_matmul.hpp).
struct RowScale {
  float scale, zero;
};

// What attend_query reads and writes: head h's query at q + h · q_head, its key j at
// k + j · k_ld + h · k_head, value j at v + j · v_ld + h · v_head, its context at out + h · out_head,
// its position bias (null: none) at bias + h · bias_head; keep (null: none) and limit as
// attention_softmax_row's, for every head. With key_rows (null: none), key j is further
// key_rows[j · key_rows_ld] · k_row along (value j: · v_row): Backend::attention's key_rows.
struct QueryAttention {
  const float *q, *k, *v, *bias, *keep;
  float* out;
  std::int64_t heads, head_dim, keys, limit;
  std::int64_t q_head, k_head, v_head, out_head, bias_head, k_ld, v_ld;
  float scale;
  const std::int32_t* key_rows = nullptr;
  std::int64_t key_rows_ld = 0, k_row = 0, v_row = 0;
};

struct RowKernels {
  const char* name;  // "portable", "avx2", "avx512"
  // x[r, c] = gelu_erf(x[r, c] + bias[c]) for r < rows (bias may be null).
  void (*bias_gelu_erf)(float* x, std::int64_t rows, std::int64_t cols, const float* bias);
  // The same with silu (swish: Marian's, BART's, T5 v1.1's feed-forward) for gelu_erf.
  void (*bias_silu)(float* x, std::int64_t rows, std::int64_t cols, const float* bias);
  // kernels.hpp's layer_norm, Order::Fixed (the same bits in every variant).
  void (*layer_norm)(const float* x, const float* residual, const float* gamma, const float* beta, float eps,
                     float* out, std::int64_t rows, std::int64_t cols);
  // kernels.hpp's attention_softmax_row, Order::Fast.
  void (*attention_softmax_row)(float* s, std::int64_t n, float scale, const float* bias, const float* keep,
                                std::int64_t limit);
  // One query row's attention in every head (a decoding step's problems, without a BLAS call per
  // head): for head h, s_h [keys] (s: heads × keys floats of scratch) = q_h · k_hj, through
  // attention_softmax_row, then out_h [head_dim] = Σ_j s_hj · v_hj.
  void (*attend_query)(const QueryAttention& a, float* s);
  // Σ exp(x_i − max) over n values: core/exp_sum.hpp's (portable) on wider packets (a decoding
  // step's log-softmax over the vocabulary, Backend::top_k_rows).
  double (*exp_sum)(const float* x, std::int64_t n, float max);
  // Asymmetric u8 quantization of one row over [min(v, 0), max(v, 0)] (packed_matmul.hpp has why).
  RowScale (*quantize_row)(const float* values, std::int64_t count, std::uint8_t* out);
  // y [m, n] of exact int32 sums (as f32) to the product: (y − zero_r · sums_j) · scale_r ·
  // channel_scales_j (+ bias_j; bias may be null).
  void (*rescale)(float* y, std::int64_t m, std::int64_t n, const RowScale* rows, const float* channel_scales,
                  const float* sums, const float* bias);
};

// Every variant this build has and this CPU can run, portable first.
std::vector<const RowKernels*> supported_row_kernels();
// INVAR_CPU_KERNELS's choice, or the last of supported_row_kernels().
const RowKernels& selected_row_kernels();

}  // namespace invar::cpu
