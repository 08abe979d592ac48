// The fixed-order matrix product (kernels/cpu/gemm.hpp, used with --deterministic) against
// OpenBLAS sgemm on the shapes the models run, in one process: each row times both on the same
// operands, alternating, and reports GFLOP/s of each and their ratio (fixed / OpenBLAS).
//
//   build/bench/bench_gemm [--benchmark_filter=...]
// Rows are M×N×K of C = A·Bᵀ (nn.Linear's layout) and a thread count.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <chrono>
#include <random>
#include <vector>

#include "kernels/cpu/gemm.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void gemm(benchmark::State& state) {
  const std::int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(n * k)),
      c(static_cast<std::size_t>(m * n));
  for (auto& v : a) v = value(rng);
  for (auto& v : b) v = value(rng);
  openblas_set_num_threads(threads);
  invar::cpu::ThreadPool pool(threads);
  invar::cpu::GemmScratch scratch;
  double blas = 0.0, fixed = 0.0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                1.0f, a.data(), static_cast<int>(k), b.data(), static_cast<int>(k), 0.0f, c.data(), static_cast<int>(n));
    blas += seconds_since(start);
    start = std::chrono::steady_clock::now();
    invar::cpu::fixed_order_gemm(false, true, m, n, k, 1.0f, {a.data(), k}, {b.data(), k}, 0.0f, c.data(), n, scratch,
                                 pool);
    fixed += seconds_since(start);
    benchmark::DoNotOptimize(c.data());
  }
  const double flops = 2.0 * static_cast<double>(m * n * k) * static_cast<double>(state.iterations());
  state.counters["openblas_GFLOP/s"] = flops / blas / 1e9;
  state.counters["fixed_GFLOP/s"] = flops / fixed / 1e9;
  state.counters["fixed/openblas"] = blas / fixed;
}

}  // namespace

// Encoder feed-forward at 32×32 tokens, attention output at 32 tokens, a decoder step of batch 16 ×
// beam 5 and Marian's 58101-word output layer for it; then 1, 4, 16 and 64 rows of a decoder
// feed-forward (where OpenBLAS's per-call packing of B stops dominating) and the output layer of
// one sentence with beam 5.
BENCHMARK(gemm)
    ->ArgNames({"m", "n", "k", "threads"})
    ->Args({1024, 3072, 768, 1})
    ->Args({1024, 3072, 768, 2})
    ->Args({1024, 768, 3072, 2})
    ->Args({32, 768, 768, 2})
    ->Args({80, 512, 512, 2})
    ->Args({80, 58101, 512, 2})
    ->Args({1, 2048, 512, 1})
    ->Args({4, 2048, 512, 1})
    ->Args({16, 2048, 512, 1})
    ->Args({64, 2048, 512, 1})
    ->Args({5, 58101, 512, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
