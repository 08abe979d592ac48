// OpenCL backend against the CPU backend in one process: square sgemm (CLBlast vs OpenBLAS, as
// GFLOP/s counters) and a seq2seq forward pass (encoder + teacher-forced decoder logits of the
// Marian fixture, twelve sources in one batch). Device: opencl:0:0, whatever it is (on a machine
// with only PoCL, a CPU).
//   bench_opencl [--benchmark_filter=...] (run from the repository root, for the fixture path)
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <random>

#include "engine/backend.hpp"
#include "engine/seq2seq.hpp"

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
