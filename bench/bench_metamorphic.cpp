// Pairwise systematicity counting (eval/metamorphic/pairwise.hpp), scores given: the paper's
// workload of 10,605 sources × 6 transformations, the growth of one transformation's count from
// n = 1k to 1M, and the O(n²) reference of tests/support/pairwise_reference.hpp on small n.
// docs/performance.md (Metamorphic testing) records a run.
#include <benchmark/benchmark.h>

#include <random>

#include "eval/metamorphic/pairwise.hpp"
#include "tests/support/pairwise_reference.hpp"

namespace {

using namespace invar;

// Source scores and follow-ups that mostly keep their order (a follow-up is the source plus noise),
// rounded to 4 decimals so ties occur as they do in printed probabilities.
struct Scores {
  std::vector<double> source, follow_up;
};

Scores scores(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1), noise(-0.05, 0.05);
  Scores out;
  for (std::size_t i = 0; i < n; ++i) {
    const double s = unit(rng);
    out.source.push_back(std::round(s * 1e4) / 1e4);
    out.follow_up.push_back(std::round((s + noise(rng)) * 1e4) / 1e4);
  }
  return out;
}

void BM_PaperWorkload(benchmark::State& state) {
  constexpr std::size_t kSources = 10605;
  std::vector<Scores> transformations;
  for (std::uint64_t t = 0; t < 6; ++t) transformations.push_back(scores(kSources, t));
  for (auto _ : state)
    for (const auto& t : transformations) benchmark::DoNotOptimize(metamorphic::count_order_violations(t.source, t.follow_up));
  state.counters["pairs/s"] = benchmark::Counter(6.0 * kSources * (kSources - 1) / 2, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PaperWorkload)->Unit(benchmark::kMillisecond);

void BM_Order(benchmark::State& state) {
  const auto data = scores(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(metamorphic::count_order_violations(data.source, data.follow_up));
}
BENCHMARK(BM_Order)->Arg(1000)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_Similarity(benchmark::State& state) {
  const auto data = scores(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(metamorphic::count_similarity_violations(data.source, data.follow_up, 0.01));
}
BENCHMARK(BM_Similarity)->Arg(1000)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_OrderReference(benchmark::State& state) {
  const auto data = scores(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(test::reference_order(data.source, data.follow_up));
}
BENCHMARK(BM_OrderReference)->Arg(1000)->Arg(10000)->Arg(10605)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
