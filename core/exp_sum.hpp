#pragma once
// Σ exp(x_i − max) over n floats: a log-softmax's normalizer over a vocabulary-sized row (the search's
// log_softmax_terms, the CPU backend's portable top_k_rows and row kernel). Built without -march:
// Eigen's SSE2 exponentials; backends/cpu/row_kernels_simd.hpp has the wider ones.
#include <cstdint>

namespace invar {

// Eigen's vectorised float exp (a few ulp from libm's), written block by block into a buffer that
// stays in L1 (over the whole row as one expression, Eigen's cast to double turned it back into a
// scalar expf call per entry), summed in eight running double lanes (one sum's chain of dependent
// additions bounded the loop), combined as ((0+1)+(2+3))+((4+5)+(6+7)). A NaN spreads to the sum.
double exp_sum(const float* x, std::int64_t n, float max);

}  // namespace invar
