// row_kernels.hpp's AVX-512 variant; CMakeLists.txt builds this file alone with -mavx512f -mavx512bw
// -mavx512dq -mavx512vl -mfma.
#include "backends/cpu/row_kernels.hpp"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#include "backends/cpu/row_kernels_simd.hpp"
#define INVAR_ROW_KERNELS_AVX512 1
#endif

namespace invar::cpu {

const RowKernels* avx512_row_kernels() {
#ifdef INVAR_ROW_KERNELS_AVX512
  // The check comes first: everything else in this file may be compiled to AVX-512 instructions,
  // the table's initialization included.
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512vl"))
    return nullptr;
  static const RowKernels kernels = simd::table<Eigen::internal::Packet16f>("avx512");
  return &kernels;
#else
  return nullptr;
#endif
}

}  // namespace invar::cpu
