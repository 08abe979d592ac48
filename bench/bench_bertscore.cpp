// BERTScore throughput against sentence length, in one process: 64 synthetic hypothesis/reference
// pairs (bench/synthetic_text.hpp) of 4 to 64 words, scored with metrics::BertScorer on the
// random-weight all-minilm-l6 preset (6 layers, hidden 384; its WordPiece vocabulary is the small
// test fixture's, so words split into several pieces), layer 6, batch 64, one thread. Times are
// process CPU time, so that a shared, loaded machine still gives comparable rows. Each row reports
// pairs/s, tokens per sentence, and the share of the time that computing the hidden states alone
// takes (the rest is tokenization, normalisation and the greedy matching).
//
//   build/bench/bench_bertscore   (from the source root: tokenizer files come from tests/fixtures/core)
#include <benchmark/benchmark.h>

#include <ctime>
#include <filesystem>
#include <memory>

#include "bench/random_model.hpp"
#include "bench/synthetic_text.hpp"
#include "eval/metrics/bertscore/bertscore.hpp"
#include "backends/cpu/backend.hpp"

namespace {

constexpr int kThreads = 1;
constexpr std::size_t kPairs = 64;

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

struct Model {
  std::string dir;
  std::unique_ptr<invar::ModelSource> source;
  std::unique_ptr<invar::Backend> backend;
  std::unique_ptr<invar::TextEncoder> encoder;

  Model() {
    std::string pattern = (std::filesystem::temp_directory_path() / "invar-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    dir = pattern;
    invar::bench::write_random_model(invar::bench::random_model_preset("all-minilm-l6"), dir, "tests/fixtures/core");
    source = invar::ModelSource::open(dir);
    backend = invar::make_cpu_backend({.threads = kThreads});
    encoder = std::make_unique<invar::TextEncoder>(*source, *backend);
  }
  ~Model() {
    encoder.reset();
    std::filesystem::remove_all(dir);
  }
};

Model& model() {
  static Model m;
  return m;
}

void bertscore(benchmark::State& state) {
  const auto words = static_cast<std::size_t>(state.range(0));
  const auto corpus = invar::bench::synthetic_corpus(kPairs, words);
  std::vector<std::vector<std::string>> refs;
  for (const auto& r : corpus.refs) refs.push_back({r});
  Model& m = model();
  const std::int64_t layer = m.encoder->model().spec().layers;
  invar::metrics::BertScorer scorer(*m.encoder, {.layer = layer, .batch_size = 64});

  std::vector<invar::Encoding> encodings;
  std::size_t tokens = 0;
  for (const auto* texts : {&corpus.hyps, &corpus.refs})
    for (const auto& t : *texts) {
      encodings.push_back(scorer.encode(t));
      tokens += encodings.back().ids.size();
    }
  scorer.score(corpus.hyps, refs);  // warm-up: the model's arena grows to this length once
  double total = 0, hidden = 0;
  for (auto _ : state) {
    double start = cpu_seconds();
    benchmark::DoNotOptimize(scorer.score(corpus.hyps, refs));
    const double seconds = cpu_seconds() - start;
    state.SetIterationTime(seconds);  // the row's time is the scoring alone
    total += seconds;
    start = cpu_seconds();
    benchmark::DoNotOptimize(m.encoder->batched<std::vector<float>>(
        encodings, {64, {}}, [&](std::span<const invar::Encoding> batch) {
          return m.encoder->model().hidden_states(batch, layer);
        }));
    hidden += cpu_seconds() - start;
  }
  state.counters["pairs/s"] = static_cast<double>(kPairs * state.iterations()) / total;
  state.counters["tokens/sentence"] = static_cast<double>(tokens) / static_cast<double>(encodings.size());
  state.counters["hidden_share"] = hidden / total;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("bertscore/words", bertscore)
      ->Arg(4)
      ->Arg(8)
      ->Arg(16)
      ->Arg(32)
      ->Arg(64)
      ->Unit(benchmark::kMillisecond)
      ->UseManualTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
