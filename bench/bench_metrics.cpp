// Corpus and sentence-level BLEU, chrF, chrF++ and TER over a synthetic corpus of 3,000 lines of about
// 25 words (bench/synthetic_text.hpp): time per corpus and lines per second, single-threaded and on
// every core. docs/performance.md (Metrics) records a run and the sacrebleu command to compare with.
#include <benchmark/benchmark.h>

#include <thread>

#include "bench/synthetic_text.hpp"
#include "eval/metrics/corpus/bleu.hpp"
#include "eval/metrics/corpus/chrf.hpp"
#include "eval/metrics/corpus/ter.hpp"

namespace {

using namespace invar;

constexpr std::size_t kLines = 3000;

struct Data {
  std::vector<std::string> hyps;
  std::vector<std::vector<std::string>> refs;
};

const Data& data() {
  static const Data d = [] {
    auto corpus = bench::synthetic_corpus(kLines);
    Data out{std::move(corpus.hyps), {}};
    for (auto& r : corpus.refs) out.refs.push_back({std::move(r)});
    return out;
  }();
  return d;
}

int threads_of(const benchmark::State& state) { return static_cast<int>(state.range(0)); }

void count_lines(benchmark::State& state) {
  state.counters["lines/s"] =
      benchmark::Counter(static_cast<double>(kLines), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_CorpusBleu(benchmark::State& state) {
  const metrics::Bleu bleu;
  for (auto _ : state) benchmark::DoNotOptimize(bleu.corpus_score(data().hyps, data().refs, threads_of(state)));
  count_lines(state);
}

void BM_CorpusChrf(benchmark::State& state) {
  const metrics::ChrF chrf;
  for (auto _ : state) benchmark::DoNotOptimize(chrf.corpus_score(data().hyps, data().refs, threads_of(state)));
  count_lines(state);
}

void BM_CorpusChrfPlusPlus(benchmark::State& state) {
  const metrics::ChrF chrf({.word_order = 2});
  for (auto _ : state) benchmark::DoNotOptimize(chrf.corpus_score(data().hyps, data().refs, threads_of(state)));
  count_lines(state);
}

void BM_CorpusTer(benchmark::State& state) {
  const metrics::Ter ter;
  for (auto _ : state) benchmark::DoNotOptimize(ter.corpus_score(data().hyps, data().refs, threads_of(state)));
  count_lines(state);
}

void BM_SentenceBleu(benchmark::State& state) {
  const metrics::Bleu bleu({.effective_order = true});
  for (auto _ : state) benchmark::DoNotOptimize(bleu.sentence_scores(data().hyps, data().refs, threads_of(state)));
  count_lines(state);
}

void BM_SentenceChrf(benchmark::State& state) {
  const metrics::ChrF chrf;
  for (auto _ : state) benchmark::DoNotOptimize(chrf.sentence_scores(data().hyps, data().refs, threads_of(state)));
  count_lines(state);
}

// Argument: threads (1, then every core).
void thread_counts(benchmark::internal::Benchmark* b) {
  b->Arg(1);
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  if (cores > 1) b->Arg(cores);
  b->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_CorpusBleu)->Apply(thread_counts);
BENCHMARK(BM_CorpusChrf)->Apply(thread_counts);
BENCHMARK(BM_CorpusChrfPlusPlus)->Apply(thread_counts);
BENCHMARK(BM_CorpusTer)->Apply(thread_counts);
BENCHMARK(BM_SentenceBleu)->Apply(thread_counts);
BENCHMARK(BM_SentenceChrf)->Apply(thread_counts);

}  // namespace

BENCHMARK_MAIN();
