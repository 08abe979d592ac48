#pragma once
// The CPU backend: OpenBLAS sgemm (or the fixed-order GEMM of kernels/cpu/gemm.hpp with
// BackendOptions::deterministic) for matrix products, kernels/cpu for the rest.
#include <memory>

#include "kernels/registry.hpp"

namespace invar {

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options);
BackendFactory cpu_backend_factory();

}  // namespace invar
