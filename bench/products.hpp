#pragma once
// How the CPU backend computes the weight products, as a benchmark argument: OpenBLAS on plain f32
// weights, oneDNN on f32 weights packed once (the default), int8 (--weights int8), or the
// fixed-order products of --deterministic.
#include <cstdint>

#include "kernels/backend.hpp"

namespace invar::bench {

enum class Products : std::int64_t { OpenBlas, Packed, Int8, FixedOrder };

inline BackendOptions options_for(Products products, int threads) {
  return {.threads = threads,
          .deterministic = products == Products::FixedOrder,
          .weights = products == Products::Int8 ? WeightType::Int8 : WeightType::F32,
          .pack_weights = products != Products::OpenBlas};
}

}  // namespace invar::bench
