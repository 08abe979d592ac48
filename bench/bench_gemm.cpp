// The matrix products of a linear layer on the shapes the models run, in one process: OpenBLAS
// sgemm, oneDNN matmul on the weight packed once (backends/cpu/packed_matmul.hpp, what the CPU
// backend runs), the same in int8 (--weights int8: the row quantization included) and the
// fixed-order product (backends/cpu/gemm.hpp, used with --deterministic). Each row times all four
// on the same operands, alternating, and reports GFLOP/s of each and their ratios to OpenBLAS
// (int8 / packed too: what --weights int8 gains over the default).
//
//   build/bench/bench_gemm [--benchmark_filter=...]
// Rows are M×N×K of C = A·Bᵀ (nn.Linear's layout) and a thread count.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <chrono>
#include <random>
#include <vector>

#include "backends/cpu/gemm.hpp"
#include "backends/cpu/packed_matmul.hpp"

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
  invar::cpu::PackedMatmul matmul;
  const auto packed_b = matmul.pack(b.data(), n, k);
  const auto int8_b = matmul.pack_int8(b.data(), n, k);
  double blas = 0.0, packed = 0.0, int8 = 0.0, fixed = 0.0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                1.0f, a.data(), static_cast<int>(k), b.data(), static_cast<int>(k), 0.0f, c.data(), static_cast<int>(n));
    blas += seconds_since(start);
    start = std::chrono::steady_clock::now();
    matmul.linear(a.data(), m, *packed_b, nullptr, c.data(), 0);
    packed += seconds_since(start);
    start = std::chrono::steady_clock::now();
    matmul.linear(a.data(), m, *int8_b, nullptr, c.data(), 0);
    int8 += seconds_since(start);
    start = std::chrono::steady_clock::now();
    invar::cpu::fixed_order_gemm(false, true, m, n, k, 1.0f, {a.data(), k}, {b.data(), k}, 0.0f, c.data(), n, scratch,
                                 pool);
    fixed += seconds_since(start);
    benchmark::DoNotOptimize(c.data());
  }
  const double flops = 2.0 * static_cast<double>(m * n * k) * static_cast<double>(state.iterations());
  state.counters["openblas_GFLOP/s"] = flops / blas / 1e9;
  state.counters["packed_GFLOP/s"] = flops / packed / 1e9;
  state.counters["int8_GOP/s"] = flops / int8 / 1e9;
  state.counters["fixed_GFLOP/s"] = flops / fixed / 1e9;
  state.counters["packed/openblas"] = blas / packed;
  state.counters["int8/packed"] = packed / int8;
  state.counters["fixed/openblas"] = blas / fixed;
}

// The shape classes of a linear layer, one thread: 1 row (a greedy decoding step), 16 (a beam
// step), 80 (batch 16 × beam 5), 1024 (an encoder batch of 32×32 tokens) against the weights of
// Marian (512×512, 512×2048), BERT-base (768×768, 768×3072, 3072×768) and Marian's 58101-word
// output layer (decoding only, so without the encoder's 1024 rows).
void linear_shapes(benchmark::internal::Benchmark* bench) {
  const std::int64_t weights[][2] = {{512, 512}, {2048, 512}, {768, 768}, {3072, 768}, {768, 3072}, {58101, 512}};
  for (const auto& [n, k] : weights) {
    for (const std::int64_t m : {1, 16, 80, 1024}) {
      if (n != 58101 || m != 1024) bench->Args({m, n, k, 1});
    }
  }
}

}  // namespace

// Then two threads on the encoder's feed-forward and attention output at 32 tokens and a decoder
// step of batch 16 × beam 5 with its output layer.
BENCHMARK(gemm)
    ->ArgNames({"m", "n", "k", "threads"})
    ->Apply(linear_shapes)
    ->Args({1024, 3072, 768, 2})
    ->Args({1024, 768, 3072, 2})
    ->Args({32, 768, 768, 2})
    ->Args({80, 512, 512, 2})
    ->Args({80, 58101, 512, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
