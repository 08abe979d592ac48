// What --deterministic's batch invariance costs in the CPU backend's row work
// (backends/cpu/kernels.hpp): each row op in Order::Fast (Eigen, the default) and Order::Fixed
// (transcendental functions on an aligned copy of the row, sums in one order; what --deterministic
// runs), alternating on the same rows in one process, one thread. The matrix products' share of the cost is bench_gemm's.
//
// The variants/ rows time the row kernels built per instruction set (backends/cpu/row_kernels.hpp):
// each variant this CPU runs (portable, avx2, avx512) alternately on the same rows, the int8
// products' row quantization and rescaling included; counters are µs per variant and each one's
// time over the portable one's.
//
//   build/bench/bench_row_ops [--benchmark_filter=...]
// Rows: attention softmax over 128 keys (one BERT layer's 12 heads × 128 queries), layer norm of
// 1024 × 768 (an encoder batch of 32 × 32 tokens), GELU over 1024 × 3072 (its feed-forward), and
// log-softmax over Marian's 58101-word vocabulary for 80 rows (batch 16 × beam 5).
#include <benchmark/benchmark.h>

#include <chrono>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/kernels.hpp"
#include "backends/cpu/row_kernels.hpp"

namespace {

using invar::cpu::Order;

std::vector<float> random_values(std::size_t count) {
  std::mt19937 rng(7);
  std::normal_distribution<float> value(0.0f, 2.0f);
  std::vector<float> values(count);
  for (auto& v : values) v = value(rng);
  return values;
}

// Times op(Fast) and op(Fixed) alternately, each on a fresh copy of the same input.
void compare(benchmark::State& state, const std::vector<float>& input, std::vector<float>& work,
             const std::function<void(Order)>& op) {
  double fast = 0.0, fixed = 0.0;
  for (auto _ : state) {
    for (const Order order : {Order::Fast, Order::Fixed}) {
      work = input;
      const auto start = std::chrono::steady_clock::now();
      op(order);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      (order == Order::Fast ? fast : fixed) += seconds;
      benchmark::DoNotOptimize(work.data());
    }
  }
  const double runs = static_cast<double>(state.iterations());
  state.counters["fast_us"] = fast / runs * 1e6;
  state.counters["fixed_us"] = fixed / runs * 1e6;
  state.counters["fixed/fast"] = fixed / fast;
}

void attention_softmax(benchmark::State& state) {
  const std::int64_t rows = 12 * 128, keys = 128;
  const auto input = random_values(static_cast<std::size_t>(rows * keys));
  std::vector<float> work, keep(static_cast<std::size_t>(keys), 1.0f);
  for (std::int64_t j = 100; j < keys; ++j) keep[static_cast<std::size_t>(j)] = 0.0f;  // padding
  compare(state, input, work, [&](Order order) {
    for (std::int64_t r = 0; r < rows; ++r)
      invar::cpu::attention_softmax_row(work.data() + r * keys, keys, 0.125f, nullptr, keep.data(), keys, order);
  });
}

void layer_norm(benchmark::State& state) {
  const std::int64_t rows = 1024, cols = 768;
  const auto input = random_values(static_cast<std::size_t>(rows * cols));
  const std::vector<float> gamma(cols, 1.0f), beta(cols, 0.0f);
  std::vector<float> work;
  compare(state, input, work, [&](Order order) {
    invar::cpu::layer_norm(work.data(), nullptr, gamma.data(), beta.data(), 1e-12f, work.data(), rows, cols, order);
  });
}

void gelu(benchmark::State& state) {
  const std::int64_t count = 1024 * 3072;
  const auto input = random_values(static_cast<std::size_t>(count));
  std::vector<float> work;
  compare(state, input, work, [&](Order order) {
    for (std::int64_t r = 0; r < 1024; ++r) invar::cpu::gelu_erf(work.data() + r * 3072, 3072, order);
  });
}

void log_softmax(benchmark::State& state) {
  const std::int64_t rows = 80, cols = 58101;
  const auto input = random_values(static_cast<std::size_t>(rows * cols));
  std::vector<float> work;
  compare(state, input, work, [&](Order order) { invar::cpu::log_softmax(work.data(), work.data(), rows, cols, order); });
}

// Times op(variant) for every variant alternately, each on a fresh copy of the same input.
void compare_variants(benchmark::State& state, const std::vector<float>& input, std::vector<float>& work,
                      const std::function<void(const invar::cpu::RowKernels&)>& op) {
  const auto variants = invar::cpu::supported_row_kernels();
  std::vector<double> seconds(variants.size(), 0.0);
  for (auto _ : state) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      work = input;
      const auto start = std::chrono::steady_clock::now();
      op(*variants[v]);
      seconds[v] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      benchmark::DoNotOptimize(work.data());
    }
  }
  const double runs = static_cast<double>(state.iterations());
  for (std::size_t v = 0; v < variants.size(); ++v) {
    state.counters[std::string(variants[v]->name) + "_us"] = seconds[v] / runs * 1e6;
    if (v > 0) state.counters[std::string(variants[v]->name) + "/portable"] = seconds[v] / seconds[0];
  }
}

void variants_attention_softmax(benchmark::State& state) {
  const std::int64_t rows = 12 * 128, keys = 128;
  const auto input = random_values(static_cast<std::size_t>(rows * keys));
  std::vector<float> work, keep(static_cast<std::size_t>(keys), 1.0f);
  for (std::int64_t j = 100; j < keys; ++j) keep[static_cast<std::size_t>(j)] = 0.0f;  // padding
  compare_variants(state, input, work, [&](const invar::cpu::RowKernels& k) {
    for (std::int64_t r = 0; r < rows; ++r)
      k.attention_softmax_row(work.data() + r * keys, keys, 0.125f, nullptr, keep.data(), keys);
  });
}

void variants_layer_norm(benchmark::State& state) {
  const std::int64_t rows = 1024, cols = 768;
  const auto input = random_values(static_cast<std::size_t>(rows * cols)), residual = input;
  const std::vector<float> gamma(cols, 1.0f), beta(cols, 0.0f);
  std::vector<float> work;
  compare_variants(state, input, work, [&](const invar::cpu::RowKernels& k) {
    k.layer_norm(residual.data(), work.data(), gamma.data(), beta.data(), 1e-5f, work.data(), rows, cols);
  });
}

void variants_bias_gelu(benchmark::State& state) {
  const std::int64_t rows = 1024, cols = 3072;
  const auto input = random_values(static_cast<std::size_t>(rows * cols)), bias = random_values(cols);
  std::vector<float> work;
  compare_variants(state, input, work,
                   [&](const invar::cpu::RowKernels& k) { k.bias_gelu_erf(work.data(), rows, cols, bias.data()); });
}

// An int8 product's input (1024 × 3072, the feed-forward's hidden layer) quantized, and its output
// (1024 × 768) rescaled.
void variants_int8_rows(benchmark::State& state) {
  const std::int64_t rows = 1024, k = 3072, n = 768;
  const auto input = random_values(static_cast<std::size_t>(rows * n)), x = random_values(static_cast<std::size_t>(rows * k));
  const auto channel_scales = random_values(n), sums = random_values(n);
  std::vector<std::uint8_t> quantized(static_cast<std::size_t>(rows * k));
  std::vector<invar::cpu::RowScale> scales(static_cast<std::size_t>(rows));
  std::vector<float> work;
  compare_variants(state, input, work, [&](const invar::cpu::RowKernels& kernels) {
    for (std::int64_t r = 0; r < rows; ++r)
      scales[static_cast<std::size_t>(r)] = kernels.quantize_row(x.data() + r * k, k, quantized.data() + r * k);
    kernels.rescale(work.data(), rows, n, scales.data(), channel_scales.data(), sums.data(), channel_scales.data());
  });
}

}  // namespace

BENCHMARK(variants_attention_softmax)->Unit(benchmark::kMicrosecond);
BENCHMARK(variants_layer_norm)->Unit(benchmark::kMicrosecond);
BENCHMARK(variants_bias_gelu)->Unit(benchmark::kMicrosecond);
BENCHMARK(variants_int8_rows)->Unit(benchmark::kMicrosecond);
BENCHMARK(attention_softmax)->Unit(benchmark::kMicrosecond);
BENCHMARK(layer_norm)->Unit(benchmark::kMicrosecond);
BENCHMARK(gelu)->Unit(benchmark::kMicrosecond);
BENCHMARK(log_softmax)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
