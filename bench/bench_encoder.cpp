// Encoder throughput against the machine's own sgemm peak, measured in one process: OpenBLAS
// sgemm on the feed-forward shape of a 32×32-token batch (the best case for the GEMMs the encoder
// is made of), then `embed` (all layers + mean pooling) on random-weight models of real sizes at
// batch 1 and 32 of 32 tokens per sentence (and batch 8 of 256 tokens), 2 threads, with the linear
// layers on OpenBLAS (products 0), on oneDNN with packed f32 weights (1, the default) and in int8
// (2). Each encoder row reports sentences/s, achieved GFLOP/s, achieved/peak, and resident memory
// against the model file's size.
// Their CPU time counts every thread of the process.
// encoder_ops rows run the same forward pass on a backend that times each kind of op (wall time,
// and CPU time of all the process's threads) and report each kind's share of the pass: what is
// left over ("host") is the model code between the ops.
//
//   build/bench/bench_encoder   (from the source root: the models, written under $TMPDIR and removed
//                                at exit, borrow tokenizer files from tests/fixtures/core; the
//                                benchmark itself feeds random token ids)
#include <benchmark/benchmark.h>
#include <cblas.h>


#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>

#include "bench/cpu_time.hpp"
#include "bench/forwarding_backend.hpp"
#include "bench/products.hpp"
#include "bench/random_model.hpp"
#include "engine/encoder.hpp"
#include "backends/cpu/backend.hpp"

namespace {

using invar::bench::cpu_seconds;
using invar::bench::Products;
using invar::bench::RandomModelPreset;
const int kThreads = invar::bench::bench_threads(2);
constexpr std::int64_t kTokens = 32;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// GFLOP/s of the best of several sgemm calls of [1024 × 768] · [768 × 3072].
double sgemm_gflops(int repeats) {
  const int m = 1024, k = 768, n = 3072;
  std::vector<float> a(static_cast<std::size_t>(m) * k, 0.5f), b(static_cast<std::size_t>(k) * n, 0.25f),
      c(static_cast<std::size_t>(m) * n);
  openblas_set_num_threads(kThreads);
  double best = 0.0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);
    best = std::max(best, 2.0 * m * n * k / seconds_since(start) / 1e9);
  }
  return best;
}

double sgemm_peak() {
  static const double peak = sgemm_gflops(20);
  return peak;
}

// Resident set size now (VmRSS) in MiB.
double rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0.0;
}

struct OpTime {
  double wall = 0.0, cpu = 0.0;
};

// The CPU backend with each op's time added to its kind's. A linear layer's activation is timed
// apart from its product, run as the CPU backend runs it after a packed product (bias_act in place).
class OpTimedBackend final : public invar::bench::ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;
  std::map<std::string, OpTime> times;

 protected:
  void do_linear(const invar::Tensor& x, const invar::Tensor& w, const invar::Tensor& bias, invar::Activation act,
                 const invar::Tensor& y) override {
    timed("products", [&] { inner_->linear(x, w, bias, invar::Activation::None, y); });
    if (act != invar::Activation::None) timed("activation", [&] { inner_->bias_act(y, {}, act); });
  }
  void do_bias_act(const invar::Tensor& x, const invar::Tensor& bias, invar::Activation act) override {
    timed("activation", [&] { inner_->bias_act(x, bias, act); });
  }
  void do_gemm_batched(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                       const invar::Tensor& a, const invar::MatrixView& av, const invar::Tensor& b,
                       const invar::MatrixView& bv, float beta, const invar::Tensor& c, const invar::MatrixView& cv,
                       std::int64_t outer, std::int64_t inner) override {
    timed("attention products", [&] { inner_->gemm_batched(ta, tb, m, n, k, alpha, a, av, b, bv, beta, c, cv, outer, inner); });
  }
  void do_attention_softmax(const invar::Tensor& scores, float scale, const invar::Tensor& mask,
                            const invar::Tensor& bias, bool causal, std::int64_t offset) override {
    timed("attention softmax", [&] { inner_->attention_softmax(scores, scale, mask, bias, causal, offset); });
  }
  void do_attention(const invar::AttentionOperands& a) override {
    timed("attention", [&] { inner_->attention(a); });
  }
  void do_layer_norm(const invar::Tensor& x, const invar::Tensor& residual, const invar::Tensor& gamma,
                     const invar::Tensor& beta, float eps, const invar::Tensor& out) override {
    timed("layer norm", [&] { inner_->layer_norm(x, residual, gamma, beta, eps, out); });
  }
  void do_gather_rows(const invar::Tensor& table, const invar::Tensor& ids, float scale, bool accumulate,
                      const invar::Tensor& out) override {
    timed("embeddings", [&] { inner_->gather_rows(table, ids, scale, accumulate, out); });
  }

 private:
  template <typename F>
  void timed(const std::string& kind, F f) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu = cpu_seconds();
    f();
    OpTime& t = times[kind];
    t.cpu += cpu_seconds() - cpu;
    t.wall += seconds_since(start);
  }
};

// One model at a time is loaded, so each preset's memory is its own.
struct Loaded {
  std::string name;
  Products products = Products::Packed;
  bool timed = false;
  std::unique_ptr<invar::ModelSource> source;
  std::unique_ptr<invar::Backend> backend;
  std::unique_ptr<invar::EncoderModel> model;
  double file_mib = 0.0;
};

Loaded& load(const RandomModelPreset& preset, Products products, bool timed = false) {
  static invar::bench::TempDir root;
  static Loaded loaded;
  if (loaded.name == preset.name && loaded.products == products && loaded.timed == timed && loaded.model) return loaded;
  loaded.model.reset();  // before the backend and source it uses
  loaded.backend.reset();
  loaded.source.reset();
  const std::string dir = root.path + "/" + preset.name;
  if (!std::filesystem::exists(dir)) invar::bench::write_random_model(preset, dir, "tests/fixtures/core");
  loaded.name = preset.name;
  loaded.products = products;
  loaded.timed = timed;
  loaded.source = invar::ModelSource::open(dir);
  loaded.backend = invar::make_cpu_backend(invar::bench::options_for(products, kThreads));
  if (timed) loaded.backend = std::make_unique<OpTimedBackend>(std::move(loaded.backend));
  loaded.model = std::make_unique<invar::EncoderModel>(*loaded.source, *loaded.backend);
  loaded.file_mib = static_cast<double>(std::filesystem::file_size(dir + "/model.safetensors")) / (1024.0 * 1024.0);
  return loaded;
}

// `batch` sentences of `tokens` random ids, the same for the same sizes.
std::vector<invar::Encoding> random_inputs(const RandomModelPreset& preset, std::int64_t batch,
                                           std::int64_t tokens = kTokens) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::int32_t> token(5, static_cast<std::int32_t>(preset.vocab) - 1);
  std::vector<invar::Encoding> inputs(static_cast<std::size_t>(batch));
  for (auto& e : inputs) {
    e.ids.resize(static_cast<std::size_t>(tokens));
    for (auto& id : e.ids) id = token(rng);
    e.type_ids.assign(e.ids.size(), 0);
  }
  return inputs;
}

const std::vector<invar::Pooling> mean{invar::Pooling::Mean};

void encoder(benchmark::State& state, const RandomModelPreset& preset) {
  const std::int64_t batch = state.range(0), tokens = state.range(2);
  Loaded& m = load(preset, static_cast<Products>(state.range(1)));
  const auto inputs = random_inputs(preset, batch, tokens);
  double elapsed = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(m.model->embed(inputs, mean, false, preset.layers));
    elapsed += seconds_since(start);
  }
  const double iterations = static_cast<double>(state.iterations());
  const double gflops = invar::bench::encoder_flops(preset, batch, tokens) * iterations / elapsed / 1e9;
  state.counters["sentences/s"] = static_cast<double>(batch) * iterations / elapsed;
  state.counters["GFLOP/s"] = gflops;
  state.counters["sgemm_peak"] = sgemm_peak();
  state.counters["of_peak"] = gflops / sgemm_peak();
  state.counters["rss_MiB"] = rss_mib();
  state.counters["file_MiB"] = m.file_mib;
}

void encoder_ops(benchmark::State& state, const RandomModelPreset& preset) {
  Loaded& m = load(preset, static_cast<Products>(state.range(1)), true);
  auto& times = static_cast<OpTimedBackend&>(*m.backend).times;
  const auto inputs = random_inputs(preset, state.range(0), state.range(2));
  m.model->embed(inputs, mean, false, preset.layers);  // primitives made, pages touched
  times.clear();
  OpTime total;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu = cpu_seconds();
    benchmark::DoNotOptimize(m.model->embed(inputs, mean, false, preset.layers));
    total.cpu += cpu_seconds() - cpu;
    total.wall += seconds_since(start);
  }
  OpTime ops;
  for (const auto& [kind, t] : times) {
    state.counters[kind + " %wall"] = 100.0 * t.wall / total.wall;
    state.counters[kind + " %cpu"] = 100.0 * t.cpu / total.cpu;
    ops.wall += t.wall;
    ops.cpu += t.cpu;
  }
  state.counters["host %wall"] = 100.0 * (total.wall - ops.wall) / total.wall;
  state.counters["host %cpu"] = 100.0 * (total.cpu - ops.cpu) / total.cpu;
  state.counters["cpu/wall"] = total.cpu / total.wall;
}

// int8 against packed f32 on the same model: the lowest cosine between the two embeddings of a
// sentence, over `batch` random sentences.
void int8_cosine(benchmark::State& state, const RandomModelPreset& preset) {
  const auto inputs = random_inputs(preset, state.range(0));
  double lowest = 1.0;
  for (auto _ : state) {
    const auto want = load(preset, Products::Packed).model->embed(inputs, mean, false, preset.layers);
    const auto got = load(preset, Products::Int8).model->embed(inputs, mean, false, preset.layers);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      double dot = 0.0, ww = 0.0, gg = 0.0;
      for (std::size_t j = 0; j < want[i].size(); ++j) {
        dot += double{want[i][j]} * got[i][j];
        ww += double{want[i][j]} * want[i][j];
        gg += double{got[i][j]} * got[i][j];
      }
      lowest = std::min(lowest, dot / std::sqrt(ww * gg));
    }
  }
  state.counters["lowest_cosine"] = lowest;
}

void sgemm(benchmark::State& state) {
  for (auto _ : state) state.counters["GFLOP/s"] = sgemm_gflops(1);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("sgemm_1024x3072x768", sgemm)->Unit(benchmark::kMillisecond)->UseRealTime();
  // Smallest model first: rss_MiB of each row then includes no bigger model's pages.
  const auto& presets = invar::bench::random_model_presets();
  for (auto it = presets.rbegin(); it != presets.rend(); ++it)
    benchmark::RegisterBenchmark(("encoder/" + it->name).c_str(), encoder, *it)
        ->ArgNames({"batch", "products", "tokens"})
        ->ArgsProduct({{1, 32}, {0, 1, 2}, {kTokens}})
        ->Args({8, 1, 256})  // long sentences, where attention's share grows with the length
        ->Args({8, 2, 256})
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime()
        ->UseRealTime();
  for (auto it = presets.rbegin(); it != presets.rend(); ++it)
    benchmark::RegisterBenchmark(("encoder_ops/" + it->name).c_str(), encoder_ops, *it)
        ->ArgNames({"batch", "products", "tokens"})
        ->ArgsProduct({{1, 32}, {1, 2}, {kTokens}})
        ->Args({8, 1, 256})
        ->Args({8, 2, 256})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  for (auto it = presets.rbegin(); it != presets.rend(); ++it)
    benchmark::RegisterBenchmark(("int8_cosine/" + it->name).c_str(), int8_cosine, *it)
        ->ArgName("batch")
        ->Arg(32)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
