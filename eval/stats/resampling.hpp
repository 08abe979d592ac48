#pragma once
// Bootstrap resampling over segments, as sacrebleu's --confidence and --paired-bs do it: each
// resample draws n segment indices with replacement, sums the segments' sufficient statistics and
// recomputes the corpus score from the sums (so corpus BLEU/chrF/TER resample correctly; for a mean
// of sentence scores, use one statistic per segment and divide by n).
//
// The draws are sacrebleu's (eval/stats/numpy_random.hpp: np.random.default_rng(seed), default
// seed 12345 as SACREBLEU_SEED's default): rng.choice(n, size=(samples, n)) for the resamples and
// rng.integers(2, size=(trials, n), dtype=bool) for approximate randomization. As sacrebleu, the
// statistics are rounded to float32 and each resample's sums accumulate in float32 (float32_stats).
#include <cstdint>
#include <functional>
#include <vector>

namespace invar::stats {

// segment_stats[i] = the statistics of segment i (all rows the same width); score(summed row).
using StatsScore = std::function<double(const std::vector<double>& summed)>;

struct BootstrapOptions {
  int samples = 1000;           // sacrebleu's CLI default for --paired-bs-n and --confidence-n
  std::uint64_t seed = 12345;
  // Scores a resample's float32 sums (widened to double) where that differs from `score` (sacrebleu
  // computes them with numpy's float32 arithmetic); empty: `score`.
  StatsScore resampled_score;
  // The resampled scores are float32 values (sacrebleu's chrF and TER under numpy 2): their mean,
  // half-width and paired differences are then computed in float32, as numpy does.
  bool float32_scores = false;
  // Round the statistics to float32 and sum each resample in float32, as sacrebleu does.
  bool float32_stats = true;
};

// Mean of the resampled scores and sacrebleu's 95% half-width: (sorted[n − 1 − n/40] −
// sorted[n/40]) / 2, with lower/upper those two order statistics.
struct BootstrapInterval {
  double mean = 0;
  double half_width = 0;
  double lower = 0;
  double upper = 0;
};

// The resampled scores, one per sample.
std::vector<double> bootstrap_scores(const std::vector<std::vector<double>>& segment_stats, const StatsScore& score,
                                     const BootstrapOptions& options = {});
BootstrapInterval bootstrap_interval(std::vector<double> resampled_scores, bool float32_scores = false);
// The same with sacrebleu's Score.estimate_ci mean (--confidence of one system): statistics.mean,
// the exact mean, here the correctly rounded sum (math.fsum) divided by n.
BootstrapInterval bootstrap_interval_exact_mean(std::vector<double> resampled_scores, bool float32_scores = false);
BootstrapInterval bootstrap_ci(const std::vector<std::vector<double>>& segment_stats, const StatsScore& score,
                               const BootstrapOptions& options = {});
// Convenience: the mean of per-segment values (in double: float32_stats is ignored).
BootstrapInterval bootstrap_mean_ci(const std::vector<double>& values, const BootstrapOptions& options = {});

// sacrebleu's paired bootstrap test (Koehn 2004 as in Moses'
// bootstrap-hypothesis-difference-significance.pl): both systems resampled with the same indices;
// p = (1 + #{ |Δ_s| − mean|Δ| > |Δ_observed| }) / (samples + 1).
struct PairedBootstrap {
  double baseline_score = 0;
  double system_score = 0;
  double pvalue = 0;
  BootstrapInterval baseline;
  BootstrapInterval system;
};
PairedBootstrap paired_bootstrap(const std::vector<std::vector<double>>& baseline_stats,
                                 const std::vector<std::vector<double>>& system_stats, const StatsScore& score,
                                 const BootstrapOptions& options = {});

// sacrebleu's paired approximate randomization test (--paired-ar; Riezler & Maxwell 2005, the
// p-value of multeval's StratifiedApproximateRandomizationTest): in every trial each segment's
// statistics go to pseudo-system A from the baseline and to B from the system, or the other way
// round, with probability 1/2 each; p = (1 + #{ |score(A) − score(B)| > |Δ_observed| }) / (trials + 1).
// sacrebleu's defaults: 10,000 trials, seed 12345. The statistics are summed in double (sacrebleu's
// int64/float64 matrix products), and every score comes from `score`.
struct RandomizationOptions {
  int trials = 10000;
  std::uint64_t seed = 12345;
};
struct PairedRandomization {
  double baseline_score = 0;
  double system_score = 0;
  double pvalue = 0;
};
PairedRandomization paired_randomization(const std::vector<std::vector<double>>& baseline_stats,
                                         const std::vector<std::vector<double>>& system_stats, const StatsScore& score,
                                         const RandomizationOptions& options = {});

// Resample index matrix (samples × n), row-major: the draws every function above uses.
std::vector<std::uint32_t> bootstrap_indices(std::size_t n, const BootstrapOptions& options);

}  // namespace invar::stats
