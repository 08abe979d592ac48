// Word Mover's Distance cost against sentence length: pairs of synthetic sentences
// (bench/synthetic_text.hpp) of about L words, every token in vocabulary with a random
// 300-dimensional vector (fastText's size), scored by the exact solver (LEMON network simplex over
// the n1 × n2 complete bipartite graph); the mean-vector cosine and METEOR (NLTK 3.8, WordNet from
// /usr/share/wordnet) on the same pairs for comparison. docs/performance.md (Word-vector metrics
// and METEOR) records a run.
#include <benchmark/benchmark.h>

#include <map>

#include "bench/synthetic_text.hpp"
#include "eval/metrics/lexical/meteor.hpp"
#include "eval/metrics/vectors/wmd.hpp"

namespace {

using namespace invar;

constexpr std::size_t kPairs = 50;
constexpr std::size_t kDimension = 300;

struct Pairs {
  bench::SyntheticCorpus corpus;
  metrics::WordVectors vectors{"random", kDimension};
};

// Sentences of about `length` words and a random vector for every token they contain.
const Pairs& pairs(std::size_t length) {
  static std::map<std::size_t, Pairs> cache;
  auto [it, added] = cache.try_emplace(length);
  if (!added) return it->second;
  auto& p = it->second;
  p.corpus = bench::synthetic_corpus(kPairs, length);
  bench::XorShift rng(length);
  std::vector<float> v(kDimension);
  for (const auto* side : {&p.corpus.hyps, &p.corpus.refs})
    for (const auto& line : *side)
      for (auto& token : metrics::word_vector_tokens(line)) {
        for (float& x : v) x = static_cast<float>(rng.below(2001)) / 1000.0f - 1.0f;
        p.vectors.add(token, v.data());
      }
  return p;
}

void count_pairs(benchmark::State& state) {
  state.counters["pairs/s"] = benchmark::Counter(static_cast<double>(kPairs), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Wmd(benchmark::State& state) {
  const auto& p = pairs(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state)
    for (std::size_t i = 0; i < kPairs; ++i)
      benchmark::DoNotOptimize(metrics::word_movers_distance(p.vectors, p.corpus.hyps[i], p.corpus.refs[i]));
  count_pairs(state);
}

void BM_MeanVectorCosine(benchmark::State& state) {
  const auto& p = pairs(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state)
    for (std::size_t i = 0; i < kPairs; ++i)
      benchmark::DoNotOptimize(metrics::mean_vector_cosine(p.vectors, p.corpus.hyps[i], p.corpus.refs[i]));
  count_pairs(state);
}

void BM_Meteor(benchmark::State& state) {
  static const metrics::WordNet wordnet;
  const metrics::Meteor meteor(wordnet);
  const auto& p = pairs(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state)
    for (std::size_t i = 0; i < kPairs; ++i)
      benchmark::DoNotOptimize(meteor.score(p.corpus.hyps[i], {p.corpus.refs[i]}));
  count_pairs(state);
}

void lengths(benchmark::internal::Benchmark* b) {
  for (int length : {8, 16, 32, 64, 128, 256}) b->Arg(length);
  b->ArgName("words")->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Wmd)->Apply(lengths);
BENCHMARK(BM_MeanVectorCosine)->Apply(lengths);
BENCHMARK(BM_Meteor)->Apply(lengths);

}  // namespace

BENCHMARK_MAIN();
