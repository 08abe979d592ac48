#pragma once
// How the CPU backend computes the weight products, as a benchmark argument: OpenBLAS on plain f32
// weights, oneDNN on f32 weights packed once (the default), int8 (--weights int8), or the
// fixed-order products of --deterministic.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "backends/backend.hpp"
#include "core/error.hpp"

namespace invar::bench {

enum class Products : std::int64_t { OpenBlas, Packed, Int8, FixedOrder };

// The CPU threads a benchmark runs on: INVAR_BENCH_THREADS when set, else the benchmark's own
// default (the figures in docs/performance.md name the count they were taken with).
inline int bench_threads(int fallback) {
  const char* threads = std::getenv("INVAR_BENCH_THREADS");
  return threads ? std::max(1, std::atoi(threads)) : fallback;
}

// The tools' --products values: openblas, packed, int8, fixed.
inline Products products_named(const std::string& name) {
  if (name == "openblas") return Products::OpenBlas;
  if (name == "packed") return Products::Packed;
  if (name == "int8") return Products::Int8;
  if (name == "fixed") return Products::FixedOrder;
  fail("--products: unknown value {}", name);
}

inline BackendOptions options_for(Products products, int threads) {
  return {.threads = threads,
          .deterministic = products == Products::FixedOrder,
          .weights = products == Products::Int8 ? WeightType::Int8 : WeightType::F32,
          .linear = products == Products::OpenBlas ? LinearKernel::OpenBlas : LinearKernel::OneDnn};
}

}  // namespace invar::bench
