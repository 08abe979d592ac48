// OpenCL backend against the CPU backend in one process: square sgemm (CLBlast vs OpenBLAS, as
// GFLOP/s counters), `linear` with F32 against F16 weights on OpenCL (the F16 weight widened
// before CLBlast's sgemm), and a seq2seq forward pass (encoder + teacher-forced decoder logits of
// the Marian fixture, twelve sources in one batch). Device: opencl:0:0, whatever it is (on a
// machine with only PoCL, a CPU).
//   bench_opencl [--benchmark_filter=...] (run from the repository root, for the fixture path)
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <random>

#include "engine/seq2seq.hpp"
#include "kernels/backend.hpp"
#include "kernels/registry.hpp"

namespace invar {
namespace {

constexpr const char* kMarian = "tests/fixtures/core/marian";

std::unique_ptr<Backend> backend(std::int64_t which) {
  return make_backend(which == 0 ? "cpu" : "opencl", {.threads = 2});
}
const char* label(std::int64_t which) { return which == 0 ? "cpu" : "opencl"; }

void BM_Sgemm(benchmark::State& state) {
  const auto b = backend(state.range(0));
  const std::int64_t n = state.range(1);
  auto arena = b->make_arena();
  const Tensor x = arena->alloc(DType::F32, {n, n}), y = arena->alloc(DType::F32, {n, n}),
               z = arena->alloc(DType::F32, {n, n});
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(static_cast<std::size_t>(n * n));
  for (float& v : values) v = dist(rng);
  b->upload(values.data(), x);
  b->upload(values.data(), y);
  b->gemm(false, true, 1.0f, x, y, 0.0f, z);  // compiles the kernels outside the timing
  b->download_f32(z);
  for (auto _ : state) {
    b->gemm(false, true, 1.0f, x, y, 0.0f, z);
    b->download(z.rows(0, 1), values.data());  // waits for the queue
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * double(n) * n * n * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(label(state.range(0)));
}
BENCHMARK(BM_Sgemm)->ArgsProduct({{0, 1}, {256, 512, 1024}})->Unit(benchmark::kMillisecond)->UseRealTime();

// y [M, N] = x [M, K] · wᵀ on OpenCL, w stored F32 (range(0) = 0) or F16 (1): what --weights f16
// costs in time. M = range(1): 1 row (a decoding step) or 64; N × K = an LM head's 8192 × 512.
void BM_LinearWeights(benchmark::State& state) {
  const WeightType weights = state.range(0) == 0 ? WeightType::F32 : WeightType::F16;
  const auto b = make_backend("opencl", {.threads = 2, .weights = weights});
  const std::int64_t m = state.range(1), n = 8192, k = 512;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(static_cast<std::size_t>(n * k));
  for (float& v : values) v = dist(rng);
  auto store = b->make_weight_store();
  const Tensor w = store->add(values, {n, k}, WeightUse::Matrix);
  auto arena = b->make_arena();
  const Tensor x = arena->alloc(DType::F32, {m, k}), y = arena->alloc(DType::F32, {m, n});
  b->upload(values.data(), x);
  b->linear(x, w, {}, Activation::None, y);  // compiles the kernels outside the timing
  b->download_f32(y);
  for (auto _ : state) {
    b->linear(x, w, {}, Activation::None, y);
    b->download(y.rows(0, 1), values.data());  // waits for the queue
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * double(m) * n * k * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(weight_type_name(weights));
}
BENCHMARK(BM_LinearWeights)->ArgsProduct({{0, 1}, {1, 64}})->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Seq2SeqForward(benchmark::State& state) {
  const auto b = backend(state.range(0));
  const auto source = ModelSource::open(kMarian);
  Seq2SeqModel model(*source, *b);
  std::ifstream golden_file(std::string(kMarian) + "/golden.json");
  const nlohmann::json golden = nlohmann::json::parse(golden_file);
  std::vector<TokenIds> sources, decoder_inputs;
  for (const auto& c : golden.at("cases")) {
    sources.push_back(c.at("input_ids").get<TokenIds>());
    decoder_inputs.push_back(c.at("decoder_input_ids").get<TokenIds>());
  }
  model.decoder_logits(sources, decoder_inputs);  // warm-up: kernels and arenas
  for (auto _ : state) benchmark::DoNotOptimize(model.decoder_logits(sources, decoder_inputs));
  state.SetLabel(label(state.range(0)));
}
BENCHMARK(BM_Seq2SeqForward)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace invar

BENCHMARK_MAIN();
