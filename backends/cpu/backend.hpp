#pragma once
// The CPU backend: OpenBLAS sgemm (or the fixed-order GEMM of backends/cpu/gemm.hpp with
// BackendOptions::deterministic) for matrix products, backends/cpu for the rest.
#include <memory>

#include "backends/factory.hpp"

namespace invar {

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options);
BackendFactory cpu_backend_factory();

}  // namespace invar
