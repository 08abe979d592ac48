// Generation speed of an opus-mt-base-sized Marian model (vocab 58101, d_model 512, 6+6 layers,
// 8 heads, FFN 2048) with random weights built in memory: generated tokens per second for greedy
// and beam 5 search at batch 1 and 16, and the share of the time spent in the weight GEMMs
// (projections, FFN, LM head), in attention (score/context GEMMs and softmax) and in the rest
// (log-softmax and top-k over the vocabulary, the beam cache reorder where rows move, norms,
// activations). Every hypothesis runs to max_length (min_length = max_length), so lengths are exact.
//
//   build/bench/bench_generate --benchmark_counters_tabular=true
//
// BM_Generate's CPU column is the whole process's CPU time (every thread, spinning ones included),
// which a machine shared with other work disturbs less than wall time; rates are per wall second.
//
// The Length benchmarks run greedy batch 1 to 16, 64 and 256 tokens: the time per step and the
// GEMM time per step stay flat, only attention grows with the length generated so far. (Per step
// includes the one encoder pass, amortised over the steps.)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>

#include "bench/forwarding_backend.hpp"
#include "bench/products.hpp"
#include "bench/random_marian.hpp"
#include "engine/seq2seq.hpp"
#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"

namespace invar {
namespace {

using bench::Products;

// The CPU backend, with the time spent in weight GEMMs and in attention added up.
class TimedBackend final : public bench::ForwardingBackend {
 public:
  explicit TimedBackend(Products products)
      : ForwardingBackend(make_cpu_backend(bench::options_for(products, bench::bench_threads(1)))) {}
  double gemm_seconds = 0.0, gemm_flops = 0.0, attention_seconds = 0.0;

 protected:
  void do_gemm(bool ta, bool tb, float alpha, const Tensor& a, const Tensor& b, float beta, const Tensor& c) override {
    timed(gemm_seconds, [&] { inner_->gemm(ta, tb, alpha, a, b, beta, c); });
    // op(a) is [M, K] and c [M, N]: 2·M·N·K = 2 · |c| · |a| / M, with M = |c| / N.
    const double m = static_cast<double>(c.numel()) / static_cast<double>(c.dim(c.shape.rank - 1));
    gemm_flops += 2.0 * static_cast<double>(c.numel()) * static_cast<double>(a.numel()) / m;
  }
  void do_linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y) override {
    timed(gemm_seconds, [&] { inner_->linear(x, w, bias, act, y); });
    gemm_flops += 2.0 * static_cast<double>(y.numel()) * static_cast<double>(w.dim(1));
  }
  void do_gemm_batched(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const Tensor& a,
                       const MatrixView& av, const Tensor& b, const MatrixView& bv, float beta, const Tensor& c,
                       const MatrixView& cv, std::int64_t outer, std::int64_t inner) override {
    timed(attention_seconds,
          [&] { inner_->gemm_batched(ta, tb, m, n, k, alpha, a, av, b, bv, beta, c, cv, outer, inner); });
  }
  void do_attention_softmax(const Tensor& scores, float scale, const Tensor& mask, const Tensor& bias, bool causal,
                            std::int64_t offset) override {
    timed(attention_seconds, [&] { inner_->attention_softmax(scores, scale, mask, bias, causal, offset); });
  }
  void do_attention(const AttentionOperands& a) override {
    timed(attention_seconds, [&] { inner_->attention(a); });
  }

 private:
  template <typename F>
  static void timed(double& total, F f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

// OpenBLAS sgemm's rate on this machine, in this process, at the threads the model uses: a
// [512, 2048] · [2048, 2048]ᵀ product (an FFN-sized GEMM with many rows), best of 5.
double sgemm_peak_gflops(Backend& backend) {
  auto store = backend.make_weight_store();
  const std::int64_t m = 512, k = 2048, n = 2048;
  const Tensor a = store->add(std::vector<float>(static_cast<std::size_t>(m * k), 0.5f), Shape{m, k}, WeightUse::Any);
  const Tensor b = store->add(std::vector<float>(static_cast<std::size_t>(n * k), 0.25f), Shape{n, k}, WeightUse::Any);
  const Tensor c = store->add(std::vector<float>(static_cast<std::size_t>(m * n), 0.0f), Shape{m, n}, WeightUse::Any);
  double best = 0.0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    backend.gemm(false, true, 1.0f, a, b, 0.0f, c);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, 2.0 * m * n * k / seconds * 1e-9);
  }
  return best;
}

struct Fixture {
  explicit Fixture(Products products) : backend(products) {}
  bench::RandomMarian source;
  TimedBackend backend;
  Seq2SeqModel model{source, backend};
  double peak_gflops = sgemm_peak_gflops(backend);
};

// One model per backend setting, built on first use.
Fixture& fixture(Products products) {
  static std::map<Products, std::unique_ptr<Fixture>> instances;
  auto& instance = instances[products];
  if (!instance) instance = std::make_unique<Fixture>(products);
  return *instance;
}

// Arguments: batch, beams, max_length, products (0 OpenBLAS on plain f32 weights, 1 oneDNN on
// packed f32 weights, 2 int8, 3 fixed-order as --deterministic).
void BM_Generate(benchmark::State& state) {
  Fixture& f = fixture(static_cast<Products>(state.range(3)));
  const std::int64_t batch = state.range(0);
  SearchSettings settings = f.model.default_settings();
  settings.num_beams = static_cast<int>(state.range(1));
  settings.max_length = static_cast<int>(state.range(2));
  settings.min_length = settings.max_length;
  const auto input = bench::random_marian_sources(batch);
  f.backend.gemm_seconds = f.backend.gemm_flops = f.backend.attention_seconds = 0.0;
  double seconds = 0.0;
  std::int64_t tokens = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const auto hyps = f.model.generate(input, settings);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const auto& h : hyps) tokens += static_cast<std::int64_t>(h.front().ids.size()) - 1;
    benchmark::DoNotOptimize(hyps.data());
  }
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsRate);
  // A step appends one token to every sequence (every beam) of the batch.
  const double steps = static_cast<double>(tokens) / static_cast<double>(batch);
  state.counters["ms/step"] = 1e3 * seconds / steps;
  state.counters["gemm_ms/step"] = 1e3 * f.backend.gemm_seconds / steps;
  state.counters["attn_ms/step"] = 1e3 * f.backend.attention_seconds / steps;
  state.counters["gemm_share"] = f.backend.gemm_seconds / seconds;
  state.counters["attn_share"] = f.backend.attention_seconds / seconds;
  // Everything else: log-softmax and top-k over the vocabulary, the cache's rows moved, norms, activations.
  const double rest_seconds = seconds - f.backend.gemm_seconds - f.backend.attention_seconds;
  state.counters["rest_ms/step"] = 1e3 * rest_seconds / steps;
  state.counters["rest_share"] = rest_seconds / seconds;
  // The weight GEMMs' achieved rate as a share of sgemm's rate on a large product, same process.
  state.counters["gemm_vs_peak"] = f.backend.gemm_flops / f.backend.gemm_seconds * 1e-9 / f.peak_gflops;
}

// int8 against packed f32 on the same random model: the share of sources whose best hypothesis has
// the same ids, and the largest difference of the teacher-forced logits relative to the largest
// f32 logit of the batch. Arguments: sources, beams, max_length.
void BM_Int8Agreement(benchmark::State& state) {
  Fixture &f32 = fixture(Products::Packed), &int8 = fixture(Products::Int8);
  SearchSettings settings = f32.model.default_settings();
  settings.num_beams = static_cast<int>(state.range(1));
  settings.max_length = static_cast<int>(state.range(2));
  const auto input = bench::random_marian_sources(state.range(0));
  double same = 0.0, logit_error = 0.0;
  for (auto _ : state) {
    const auto want = f32.model.generate(input, settings), got = int8.model.generate(input, settings);
    same = 0.0;
    for (std::size_t s = 0; s < input.size(); ++s) same += got[s].front().ids == want[s].front().ids ? 1.0 : 0.0;
    std::vector<TokenIds> targets;
    for (const auto& hyps : want) targets.push_back(hyps.front().ids);
    const auto want_logits = f32.model.decoder_logits(input, targets);
    const auto got_logits = int8.model.decoder_logits(input, targets);
    double peak = 0.0, error = 0.0;
    for (std::size_t i = 0; i < want_logits.size(); ++i) {
      peak = std::max(peak, static_cast<double>(std::fabs(want_logits[i])));
      error = std::max(error, static_cast<double>(std::fabs(got_logits[i] - want_logits[i])));
    }
    logit_error = error / peak;
  }
  state.counters["same_best"] = same / static_cast<double>(input.size());
  state.counters["logit_err/peak"] = logit_error;
}

BENCHMARK(BM_Int8Agreement)
    ->ArgNames({"sources", "beams", "max_len"})
    ->Args({32, 1, 32})
    ->Args({32, 5, 32})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_Generate)
    ->ArgNames({"batch", "beams", "max_len", "products"})
    ->ArgsProduct({{1, 16}, {1, 5}, {64}, {0, 1, 2, 3}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->MinTime(2.0);

// Per-token cost against the length generated: greedy, batch 1.
BENCHMARK(BM_Generate)
    ->Name("Length")
    ->ArgNames({"batch", "beams", "max_len", "products"})
    ->Args({1, 1, 16, 1})
    ->Args({1, 1, 64, 1})
    ->Args({1, 1, 256, 1})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

}  // namespace
}  // namespace invar

BENCHMARK_MAIN();
