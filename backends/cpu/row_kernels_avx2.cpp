// row_kernels.hpp's AVX2 + FMA variant; CMakeLists.txt builds this file alone with -mavx2 -mfma.
#include "backends/cpu/row_kernels.hpp"

#if defined(__AVX2__) && defined(__FMA__)
#include "backends/cpu/row_kernels_simd.hpp"
#endif

namespace invar::cpu {

const RowKernels* avx2_row_kernels() {
#if defined(__AVX2__) && defined(__FMA__)
  // The check comes first: everything else in this file may be compiled to AVX instructions,
  // the table's initialization included.
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return nullptr;
  static const RowKernels kernels = simd::table<Eigen::internal::Packet8f>("avx2");
  return &kernels;
#else
  return nullptr;
#endif
}

}  // namespace invar::cpu
