// Encoder throughput against the machine's own sgemm peak, measured in one process: OpenBLAS
// sgemm on the feed-forward shape of a 32×32-token batch (the best case for the GEMMs the encoder
// is made of), then `embed` (all layers + mean pooling) on random-weight models of real sizes at
// batch 1 and 32, 32 tokens per sentence, 2 threads, with the linear layers on OpenBLAS (products
// 0), on oneDNN with packed f32 weights (1, the default) and in int8 (2). Each encoder row reports
// sentences/s, achieved GFLOP/s, achieved/peak, and resident memory against the model file's size.
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

#include "bench/products.hpp"
#include "bench/random_model.hpp"
#include "engine/encoder.hpp"
#include "backends/cpu/backend.hpp"

namespace {

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

// One model at a time is loaded, so each preset's memory is its own.
struct Loaded {
  std::string name;
  Products products = Products::Packed;
  std::unique_ptr<invar::ModelSource> source;
  std::unique_ptr<invar::Backend> backend;
  std::unique_ptr<invar::EncoderModel> model;
  double file_mib = 0.0;
};

Loaded& load(const RandomModelPreset& preset, Products products) {
  static invar::bench::TempDir root;
  static Loaded loaded;
  if (loaded.name == preset.name && loaded.products == products && loaded.model) return loaded;
  loaded.model.reset();  // before the backend and source it uses
  loaded.backend.reset();
  loaded.source.reset();
  const std::string dir = root.path + "/" + preset.name;
  if (!std::filesystem::exists(dir)) invar::bench::write_random_model(preset, dir, "tests/fixtures/core");
  loaded.name = preset.name;
  loaded.products = products;
  loaded.source = invar::ModelSource::open(dir);
  loaded.backend = invar::make_cpu_backend(invar::bench::options_for(products, kThreads));
  loaded.model = std::make_unique<invar::EncoderModel>(*loaded.source, *loaded.backend);
  loaded.file_mib = static_cast<double>(std::filesystem::file_size(dir + "/model.safetensors")) / (1024.0 * 1024.0);
  return loaded;
}

// `batch` sentences of kTokens random ids, the same for the same batch size.
std::vector<invar::Encoding> random_inputs(const RandomModelPreset& preset, std::int64_t batch) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::int32_t> token(5, static_cast<std::int32_t>(preset.vocab) - 1);
  std::vector<invar::Encoding> inputs(static_cast<std::size_t>(batch));
  for (auto& e : inputs) {
    e.ids.resize(kTokens);
    for (auto& id : e.ids) id = token(rng);
    e.type_ids.assign(kTokens, 0);
  }
  return inputs;
}

const std::vector<invar::Pooling> mean{invar::Pooling::Mean};

void encoder(benchmark::State& state, const RandomModelPreset& preset) {
  const std::int64_t batch = state.range(0);
  Loaded& m = load(preset, static_cast<Products>(state.range(1)));
  const auto inputs = random_inputs(preset, batch);
  double elapsed = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(m.model->embed(inputs, mean, false, preset.layers));
    elapsed += seconds_since(start);
  }
  const double iterations = static_cast<double>(state.iterations());
  const double gflops = invar::bench::encoder_flops(preset, batch, kTokens) * iterations / elapsed / 1e9;
  state.counters["sentences/s"] = static_cast<double>(batch) * iterations / elapsed;
  state.counters["GFLOP/s"] = gflops;
  state.counters["sgemm_peak"] = sgemm_peak();
  state.counters["of_peak"] = gflops / sgemm_peak();
  state.counters["rss_MiB"] = rss_mib();
  state.counters["file_MiB"] = m.file_mib;
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
        ->ArgNames({"batch", "products"})
        ->ArgsProduct({{1, 32}, {0, 1, 2}})
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
