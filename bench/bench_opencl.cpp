// OpenCL backend against the CPU backend in one process: square sgemm (CLBlast vs OpenBLAS, as
// GFLOP/s counters), `linear` with F32 against F16 weights on OpenCL (the F16 weight widened
// before CLBlast's sgemm), a seq2seq forward pass (encoder + teacher-forced decoder logits of
// the Marian fixture, twelve sources in one batch), and the real-sized workloads of
// bench_encoder and bench_generate on both backends: XLM-R base embedding 32-token sentences at
// batch 1 and 32, an opus-mt-base-sized Marian generating 64 tokens, greedy and beam 5, batch 1
// and 16 (random weights). Device: opencl:0:0, whatever it is (on a machine with only PoCL, a CPU).
//   bench_opencl [--benchmark_filter=...] (run from the repository root, for the fixture path)
// Also, against what the device's sgemm reaches at the encoder's own shapes (BM_EncoderProducts:
// the linear layers of one XLM-R base pass, nothing else), the encoder with its attention fused or
// through the scores tensor, and generation reading each row's candidates (Backend::top_k_rows) or
// whole rows of logits, each pair in one process.
// INVAR_BENCH_THREADS sets the CPU backend's threads (default 2).
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "bench/forwarding_backend.hpp"
#include "bench/products.hpp"
#include "bench/random_marian.hpp"
#include "bench/random_model.hpp"
#include "engine/encoder.hpp"
#include "engine/seq2seq.hpp"
#include "backends/backend.hpp"
#include "backends/registry.hpp"

namespace invar {
namespace {

constexpr const char* kMarian = "tests/fixtures/core/marian";

std::unique_ptr<Backend> backend(std::int64_t which) {
  return make_backend(which == 0 ? "cpu" : "opencl", {.threads = bench::bench_threads(2)});
}
const char* label(std::int64_t which) { return which == 0 ? "cpu" : "opencl"; }

// The ways of running what the device backend fuses, for comparisons in one process: as the
// backend does (0), or as before it fused (1: attention through the scores tensor; search steps
// downloading whole rows of logits).
class Unfused final : public bench::ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;
  bool prefers_top_k_rows() const override { return false; }

 protected:
  // Callers allocate the scores the default's path goes through.
  bool attention_needs_scores(std::int64_t) const override { return true; }
  void do_attention(const AttentionOperands& a) override { Backend::do_attention(a); }
};

std::unique_ptr<Backend> backend(std::int64_t which, std::int64_t unfused) {
  auto b = backend(which);
  if (unfused == 0) return b;
  return std::make_unique<Unfused>(std::move(b));
}

// XLM-R base's product FLOPs per token: 12 layers of Q/K/V (768 → 2304), output (768 → 768) and
// the feed-forward (768 → 3072 → 768), 2 per multiply-add.
constexpr double kXlmrProductFlopsPerToken = 2.0 * 12 * (768.0 * 2304 + 768.0 * 768 + 2 * 768.0 * 3072);

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
BENCHMARK(BM_Sgemm)->ArgsProduct({{0, 1}, {256, 1024, 4096}})->Unit(benchmark::kMillisecond)->UseRealTime();

// y [M, N] = x [M, K] · wᵀ on OpenCL, w stored F32 (range(0) = 0) or F16 (1): what --weights f16
// costs in time. M = range(1): 1 row (a decoding step) or 64; N × K = an LM head's 8192 × 512.
void BM_LinearWeights(benchmark::State& state) {
  const WeightType weights = state.range(0) == 0 ? WeightType::F32 : WeightType::F16;
  const auto b = make_backend("opencl", {.threads = bench::bench_threads(2), .weights = weights});
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

// The linear layers of one XLM-R base pass over range(1) sentences of 32 tokens (y = x·Wᵀ, no
// bias, random weights), nothing between them: what the device's products reach at the encoder's
// shapes. "GFLOP/s" counts the same FLOPs as BM_EncoderXlmrBase's "product GFLOP/s".
void BM_EncoderProducts(benchmark::State& state) {
  const auto b = backend(state.range(0));
  const std::int64_t rows = 32 * state.range(1);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-0.05f, 0.05f);
  const auto random = [&](std::int64_t n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v) x = dist(rng);
    return v;
  };
  auto store = b->make_weight_store();
  const std::array<std::array<std::int64_t, 2>, 4> shapes{{{2304, 768}, {768, 768}, {3072, 768}, {768, 3072}}};
  std::vector<Tensor> weights;
  for (const auto& [n, k] : shapes) weights.push_back(store->add(random(n * k), {n, k}, WeightUse::Matrix));
  auto arena = b->make_arena();
  const Tensor x = arena->alloc(DType::F32, {rows, 768}), wide = arena->alloc(DType::F32, {rows, 3072}),
               qkv = arena->alloc(DType::F32, {rows, 2304}), y = arena->alloc(DType::F32, {rows, 768});
  b->upload(random(rows * 768).data(), x);
  b->upload(random(rows * 3072).data(), wide);
  const auto pass = [&] {
    for (int layer = 0; layer < 12; ++layer) {
      b->linear(x, weights[0], {}, Activation::None, qkv);
      b->linear(x, weights[1], {}, Activation::None, y);
      b->linear(x, weights[2], {}, Activation::None, wide);
      b->linear(wide, weights[3], {}, Activation::None, y);
    }
    std::vector<float> one(768);
    b->download(y.rows(0, 1), one.data());  // waits for the queue
  };
  pass();  // compiles the kernels outside the timing
  for (auto _ : state) pass();
  state.counters["GFLOP/s"] = benchmark::Counter(kXlmrProductFlopsPerToken * double(rows) * double(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
  state.SetLabel(label(state.range(0)));
}
BENCHMARK(BM_EncoderProducts)->ArgsProduct({{0, 1}, {1, 32}})->Unit(benchmark::kMillisecond)->UseRealTime();

// One loaded model per backend, kept across the benchmark's repeated calls.
template <typename Model>
struct Loaded {
  std::unique_ptr<ModelSource> source;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Model> model;
};

// XLM-R base (random weights, written once under $TMPDIR) embedding `batch` sentences of 32
// random ids, mean pooled; range(0) = backend, range(1) = batch, range(2) = 1 for attention
// through the scores tensor (see Unfused).
void BM_EncoderXlmrBase(benchmark::State& state) {
  static bench::TempDir root;
  static std::map<std::int64_t, Loaded<EncoderModel>> loaded;
  const auto& preset = bench::random_model_preset("xlmr-base");
  auto& m = loaded[state.range(0) * 2 + state.range(2)];
  if (!m.model) {
    const std::string dir = root.path + "/xlmr-base";
    if (!std::filesystem::exists(dir)) bench::write_random_model(preset, dir, "tests/fixtures/core");
    m.source = ModelSource::open(dir);
    m.backend = backend(state.range(0), state.range(2));
    m.model = std::make_unique<EncoderModel>(*m.source, *m.backend);
  }
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::int32_t> token(5, static_cast<std::int32_t>(preset.vocab) - 1);
  std::vector<Encoding> inputs(static_cast<std::size_t>(state.range(1)));
  for (auto& e : inputs) {
    e.ids.resize(32);
    for (auto& id : e.ids) id = token(rng);
    e.type_ids.assign(32, 0);
  }
  const std::vector<Pooling> mean{Pooling::Mean};
  m.model->embed(inputs, mean, false, preset.layers);  // warm-up: kernels and arenas
  for (auto _ : state) benchmark::DoNotOptimize(m.model->embed(inputs, mean, false, preset.layers));
  state.counters["sentences/s"] =
      benchmark::Counter(static_cast<double>(state.range(1) * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["product GFLOP/s"] =
      benchmark::Counter(kXlmrProductFlopsPerToken * 32.0 * double(state.range(1) * state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
  state.SetLabel(label(state.range(0)));
}
BENCHMARK(BM_EncoderXlmrBase)
    ->ArgNames({"opencl", "batch", "unfused"})
    ->ArgsProduct({{0, 1}, {1, 32}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The opus-mt-base-sized Marian generating exactly 64 tokens (min_length = max_length) from
// 20-token sources; range(0) = backend, range(1) = batch, range(2) = beams, range(3) = 1 for
// steps that download whole rows of logits (see Unfused).
void BM_GenerateMarianBase(benchmark::State& state) {
  static std::map<std::int64_t, Loaded<Seq2SeqModel>> loaded;
  auto& m = loaded[state.range(0) * 2 + state.range(3)];
  if (!m.model) {
    m.source = std::make_unique<bench::RandomMarian>();
    m.backend = backend(state.range(0), state.range(3));
    m.model = std::make_unique<Seq2SeqModel>(*m.source, *m.backend);
  }
  SearchSettings settings = m.model->default_settings();
  settings.num_beams = static_cast<int>(state.range(2));
  settings.max_length = settings.min_length = 64;
  const auto input = bench::random_marian_sources(state.range(1));
  m.model->generate(input, settings);  // warm-up: kernels and arenas
  std::int64_t tokens = 0;
  for (auto _ : state) {
    const auto hyps = m.model->generate(input, settings);
    for (const auto& h : hyps) tokens += static_cast<std::int64_t>(h.front().ids.size()) - 1;
  }
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsRate);
  state.SetLabel(label(state.range(0)));
}
BENCHMARK(BM_GenerateMarianBase)
    ->ArgNames({"opencl", "batch", "beams", "unfused"})
    ->ArgsProduct({{0, 1}, {1, 16}, {1, 5}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

}  // namespace
}  // namespace invar

BENCHMARK_MAIN();
