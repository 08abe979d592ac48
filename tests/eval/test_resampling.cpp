#include <gtest/gtest.h>

#include <numeric>

#include "core/error.hpp"
#include "eval/metaeval/metaeval.hpp"
#include "eval/metrics/corpus/bleu.hpp"
#include "eval/stats/numpy_random.hpp"
#include "eval/stats/resampling.hpp"

using namespace invar;
using namespace invar::stats;

// The values numpy 1.24 prints for these calls (np.random.default_rng(seed); the generator and
// these draws are unchanged since numpy 1.17).
TEST(NumpyGenerator, DrawsWhatNumpyDraws) {
  NumpyGenerator raw(12345);  // .bit_generator.random_raw(3)
  EXPECT_EQ(raw.next64(), 0x3a32b18db2ffc19dULL);
  EXPECT_EQ(raw.next64(), 0x51171315c9e4c4deULL);
  EXPECT_EQ(raw.next64(), 0xcc2024823444efd9ULL);
  NumpyGenerator choice(12345);  // .choice(12, size=(2, 12), replace=True)
  std::vector<std::uint64_t> drawn;
  for (int i = 0; i < 24; ++i) drawn.push_back(choice.below(12));
  EXPECT_EQ(drawn, (std::vector<std::uint64_t>{8, 2, 9, 3, 2, 9, 7, 8, 11, 4, 10, 3,
                                               6, 7, 2, 2, 2, 8, 7, 11, 8, 2, 10, 11}));
  NumpyGenerator bits(12345);  // .integers(2, size=(2, 40), dtype=bool)
  NumpyGenerator::Bools bools(bits);
  std::string row;
  for (int i = 0; i < 80; ++i) row += bools.next() ? '1' : '0';
  EXPECT_EQ(row, "1011100110000011111111110100110110110001"
                 "1000110101001100010111000111101100100011");
  NumpyGenerator wide((1ULL << 40) + 7);  // .choice(5000000000, size=3), then .choice(3, size=5)
  EXPECT_EQ(wide.below(5000000000ULL), 4149064459ULL);
  EXPECT_EQ(wide.below(5000000000ULL), 1276525791ULL);
  EXPECT_EQ(wide.below(5000000000ULL), 768953579ULL);
  std::vector<std::uint64_t> small;
  for (int i = 0; i < 5; ++i) small.push_back(wide.below(3));
  EXPECT_EQ(small, (std::vector<std::uint64_t>{1, 2, 2, 2, 0}));
  // The resamples are those draws, row by row.
  const auto indices = bootstrap_indices(12, {.samples = 2, .seed = 12345});
  EXPECT_EQ(std::vector<std::uint64_t>(indices.begin(), indices.end()), drawn);
}

TEST(Bootstrap, IndicesAreSeededAndInRange) {
  const auto a = bootstrap_indices(7, {.samples = 50, .seed = 1});
  EXPECT_EQ(a, bootstrap_indices(7, {.samples = 50, .seed = 1}));
  EXPECT_NE(a, bootstrap_indices(7, {.samples = 50, .seed = 2}));
  ASSERT_EQ(a.size(), 350u);
  for (auto i : a) EXPECT_LT(i, 7u);
  // Every index turns up: the draws cover the range.
  for (std::uint32_t v = 0; v < 7; ++v) EXPECT_NE(std::find(a.begin(), a.end(), v), a.end());
  EXPECT_THROW(bootstrap_indices(0, {}), Error);
}

TEST(Bootstrap, IntervalUsesSacrebleuOrderStatistics) {
  std::vector<double> scores(1000);
  std::iota(scores.begin(), scores.end(), 1.0);
  std::reverse(scores.begin(), scores.end());
  auto ci = bootstrap_interval(scores);
  EXPECT_EQ(ci.lower, 26);   // sorted[1000 / 40]
  EXPECT_EQ(ci.upper, 975);  // sorted[1000 − 25 − 1]
  EXPECT_EQ(ci.half_width, 474.5);
  EXPECT_EQ(ci.mean, 500.5);
  auto constant = bootstrap_mean_ci({2.5, 2.5, 2.5, 2.5}, {.samples = 100});
  EXPECT_EQ(constant.mean, 2.5);
  EXPECT_EQ(constant.half_width, 0);
}

TEST(Bootstrap, PairedTestOnCorpusBleu) {
  const metrics::Bleu bleu;
  std::vector<std::string> refs_flat, good, bad;
  std::vector<std::vector<std::string>> refs;
  for (int i = 0; i < 40; ++i) {
    const std::string ref = "the quick brown fox number " + std::to_string(i) + " jumps over the lazy dog";
    refs.push_back({ref});
    good.push_back(i % 4 ? ref : "the quick brown fox jumps over a lazy dog");
    bad.push_back(i % 4 ? "a slow red fox " + std::to_string(i) + " walks past the dog" : ref);
  }
  const auto base_rows = metrics::segment_rows(bleu, bad, refs);
  const auto sys_rows = metrics::segment_rows(bleu, good, refs);
  auto score = [&](const std::vector<double>& sum) { return bleu.score_row(sum); };
  auto result = paired_bootstrap(base_rows, sys_rows, score, {.samples = 200});
  EXPECT_EQ(result.system_score, bleu.corpus_score(good, refs).score);
  EXPECT_EQ(result.baseline_score, bleu.corpus_score(bad, refs).score);
  EXPECT_LT(result.pvalue, 0.01);
  EXPECT_LT(result.system.lower, result.system_score);
  EXPECT_GT(result.system.upper, result.system_score);
  // A system against itself: no resample difference exceeds the observed 0, p = 1 / (samples + 1).
  auto same = paired_bootstrap(sys_rows, sys_rows, score, {.samples = 99});
  EXPECT_EQ(same.pvalue, 0.01);
}

// ---- Meta-evaluation --------------------------------------------------------------------------

TEST(MetaEval, PairwiseConventions) {
  // A > B > C for humans; the metric ties B and C: one metric-only tie, two correct pairs.
  auto p = metaeval::pairwise_accuracy({0.5, 0.3, 0.3}, {3, 2, 1});
  EXPECT_EQ(p.pairs, 3u);
  EXPECT_EQ(p.correct, 2u);
  EXPECT_EQ(p.metric_ties_only, 1u);
  EXPECT_EQ(p.human_ties, 0u);
  EXPECT_DOUBLE_EQ(p.accuracy, 2.0 / 3);
  // Lower is better (e.g. TER): the metric's signs flip.
  EXPECT_EQ(metaeval::pairwise_accuracy({0.1, 0.2, 0.3}, {3, 2, 1}, false).correct, 3u);
  // A human tie is never correct and leaves the denominator.
  auto ties = metaeval::pairwise_accuracy({1, 2, 3}, {1, 1, 2});
  EXPECT_EQ(ties.human_ties, 1u);
  EXPECT_EQ(ties.correct, 2u);
  EXPECT_DOUBLE_EQ(ties.accuracy, 1.0);
}

TEST(MetaEval, SystemAndSegmentLevels) {
  std::vector<metaeval::Segment> segments = {
      {"A", "de", 0.9, 5}, {"B", "de", 0.4, 3}, {"A", "fr", 0.7, 4}, {"C", "fr", 0.1, 1},
      {"B", "fr", 0.5, 2}, {"C", "de", 0.2, 2}, {"A", "de", 0.8, 5}, {"B", "de", 0.6, 3},
  };
  auto r = metaeval::meta_evaluate(segments);
  EXPECT_EQ(r.systems, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(r.groups, (std::vector<std::string>{"de", "fr"}));
  EXPECT_DOUBLE_EQ(r.system_metric[0], (0.9 + 0.7 + 0.8) / 3);
  EXPECT_DOUBLE_EQ(r.system_human[1], (3.0 + 2 + 3) / 3);
  EXPECT_EQ(r.pairwise.correct, 3u);
  EXPECT_DOUBLE_EQ(r.system_level.spearman.statistic,
                   pearson(average_ranks(r.system_metric), average_ranks(r.system_human)).statistic);
  // Pooled segments, concatenated system by system.
  const std::vector<double> m{0.9, 0.7, 0.8, 0.4, 0.5, 0.6, 0.1, 0.2}, h{5, 4, 5, 3, 2, 3, 1, 2};
  EXPECT_EQ(r.segment_pooled.pearson.statistic, pearson(m, h).statistic);
  EXPECT_EQ(r.segment_pooled.kendall.tau, kendall_tau_b(m, h).tau);
  EXPECT_EQ(r.per_group[1].n, 3u);
  EXPECT_EQ(r.per_group[1].spearman.statistic, spearman({0.7, 0.1, 0.5}, {4, 1, 2}).statistic);
  // A corpus-level score per system replaces the segment mean.
  auto with_corpus = metaeval::meta_evaluate(segments, {.system_metric = {{"C", 0.95}}});
  EXPECT_EQ(with_corpus.system_metric[2], 0.95);
  EXPECT_EQ(with_corpus.pairwise.correct, 1u);
  EXPECT_THROW(metaeval::meta_evaluate(segments, {.system_metric = {{"Z", 1}}}), Error);
}
