#pragma once
// Order::Fixed's row sum (kernels.hpp): partial sum l takes the indices ≡ l (mod 8) in increasing
// order, then gemm.hpp's combine_lanes. Of internal linkage, for kernels.cpp and for the
// instruction-set builds of row_kernels_simd.hpp: each file compiles its own copy with its own
// flags, none contracts a product into a fused multiply-add, so every copy gives the same bits.
#include <cstdint>

#include "backends/cpu/gemm.hpp"

namespace invar::cpu {
namespace {

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

}  // namespace
}  // namespace invar::cpu
