#include "eval/stats/resampling.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.hpp"
#include "eval/stats/stats.hpp"

namespace invar::stats {

namespace {

// Lemire (2019), "Fast random integer generation in an interval": unbiased and, unlike
// std::uniform_int_distribution, specified, so every platform draws the same indices.
std::uint32_t bounded(std::mt19937_64& rng, std::uint32_t range) {
  std::uint64_t x = rng() >> 32;
  std::uint64_t m = x * range;
  auto low = static_cast<std::uint32_t>(m);
  if (low < range) {
    const std::uint32_t threshold = static_cast<std::uint32_t>(-range) % range;
    while (low < threshold) {
      x = rng() >> 32;
      m = x * range;
      low = static_cast<std::uint32_t>(m);
    }
  }
  return static_cast<std::uint32_t>(m >> 32);
}

void check_stats(const std::vector<std::vector<double>>& stats, const char* what) {
  if (stats.empty()) fail("{}: no segments to resample", what);
  for (std::size_t i = 1; i < stats.size(); ++i)
    if (stats[i].size() != stats[0].size())
      fail("{}: segment {} has {} statistics, segment 1 has {}", what, i + 1, stats[i].size(), stats[0].size());
}

void check_paired(const std::vector<std::vector<double>>& baseline, const std::vector<std::vector<double>>& system,
                  const char* what) {
  check_stats(baseline, what);
  check_stats(system, what);
  if (baseline.size() != system.size())
    fail("{}: the baseline has {} segments, the system {}", what, baseline.size(), system.size());
  if (baseline[0].size() != system[0].size())
    fail("{}: the baseline has {} statistics per segment, the system {}", what, baseline[0].size(), system[0].size());
}

std::vector<double> column_sums(const std::vector<std::vector<double>>& stats) {
  std::vector<double> sum(stats[0].size(), 0.0);
  for (const auto& row : stats)
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += row[k];
  return sum;
}

std::vector<double> resampled(const std::vector<std::vector<double>>& stats, const std::vector<std::uint32_t>& indices,
                              int samples, const StatsScore& score) {
  const std::size_t n = stats.size(), width = stats[0].size();
  std::vector<double> scores(static_cast<std::size_t>(samples));
  std::vector<double> sum(width);
  for (int s = 0; s < samples; ++s) {
    std::fill(sum.begin(), sum.end(), 0.0);
    const std::uint32_t* row = indices.data() + static_cast<std::size_t>(s) * n;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < width; ++k) sum[k] += stats[row[i]][k];
    scores[static_cast<std::size_t>(s)] = score(sum);
  }
  return scores;
}

}  // namespace

std::vector<std::uint32_t> bootstrap_indices(std::size_t n, const BootstrapOptions& options) {
  if (options.samples < 1) fail("bootstrap: the number of samples must be >= 1, got {}", options.samples);
  if (n == 0 || n > 0xFFFFFFFFu) fail("bootstrap: cannot resample {} segments", n);
  std::mt19937_64 rng(options.seed);
  std::vector<std::uint32_t> indices(static_cast<std::size_t>(options.samples) * n);
  for (auto& index : indices) index = bounded(rng, static_cast<std::uint32_t>(n));
  return indices;
}

std::vector<double> bootstrap_scores(const std::vector<std::vector<double>>& segment_stats, const StatsScore& score,
                                     const BootstrapOptions& options) {
  check_stats(segment_stats, "bootstrap");
  return resampled(segment_stats, bootstrap_indices(segment_stats.size(), options), options.samples, score);
}

BootstrapInterval bootstrap_interval(std::vector<double> scores) {
  if (scores.empty()) fail("bootstrap: no resampled scores");
  std::sort(scores.begin(), scores.end());
  const std::size_t n = scores.size(), lower = n / 40, upper = n - lower - 1;
  BootstrapInterval out;
  out.lower = scores[lower];
  out.upper = scores[upper];
  out.half_width = 0.5 * (out.upper - out.lower);
  out.mean = numpy_mean(scores);
  return out;
}

BootstrapInterval bootstrap_ci(const std::vector<std::vector<double>>& segment_stats, const StatsScore& score,
                               const BootstrapOptions& options) {
  return bootstrap_interval(bootstrap_scores(segment_stats, score, options));
}

BootstrapInterval bootstrap_mean_ci(const std::vector<double>& values, const BootstrapOptions& options) {
  std::vector<std::vector<double>> rows;
  rows.reserve(values.size());
  for (double v : values) rows.push_back({v});
  const double n = static_cast<double>(values.size());
  return bootstrap_ci(rows, [n](const std::vector<double>& sum) { return sum[0] / n; }, options);
}

PairedRandomization paired_randomization(const std::vector<std::vector<double>>& baseline_stats,
                                         const std::vector<std::vector<double>>& system_stats, const StatsScore& score,
                                         const RandomizationOptions& options) {
  check_paired(baseline_stats, system_stats, "paired approximate randomization");
  if (options.trials < 1) fail("paired approximate randomization: trials must be >= 1, got {}", options.trials);
  PairedRandomization out;
  out.baseline_score = score(column_sums(baseline_stats));
  out.system_score = score(column_sums(system_stats));
  const double observed = std::fabs(out.baseline_score - out.system_score);
  const std::size_t width = baseline_stats[0].size();
  std::mt19937_64 rng(options.seed);
  std::vector<double> a(width), b(width);
  std::size_t exceed = 0;
  for (int t = 0; t < options.trials; ++t) {
    std::fill(a.begin(), a.end(), 0.0);
    std::fill(b.begin(), b.end(), 0.0);
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < baseline_stats.size(); ++i) {
      if (i % 64 == 0) bits = rng();
      const bool keep = bits & 1u;
      bits >>= 1;
      const auto& to_a = keep ? baseline_stats[i] : system_stats[i];
      const auto& to_b = keep ? system_stats[i] : baseline_stats[i];
      for (std::size_t k = 0; k < width; ++k) {
        a[k] += to_a[k];
        b[k] += to_b[k];
      }
    }
    // multeval: "the != is important": a difference equal to the observed one does not count.
    if (std::fabs(score(a) - score(b)) > observed) ++exceed;
  }
  out.pvalue = static_cast<double>(exceed + 1) / static_cast<double>(options.trials + 1);
  return out;
}

PairedBootstrap paired_bootstrap(const std::vector<std::vector<double>>& baseline_stats,
                                 const std::vector<std::vector<double>>& system_stats, const StatsScore& score,
                                 const BootstrapOptions& options) {
  check_paired(baseline_stats, system_stats, "paired bootstrap");
  PairedBootstrap out;
  out.baseline_score = score(column_sums(baseline_stats));
  out.system_score = score(column_sums(system_stats));
  const auto indices = bootstrap_indices(baseline_stats.size(), options);
  const auto base = resampled(baseline_stats, indices, options.samples, score);
  const auto sys = resampled(system_stats, indices, options.samples, score);
  out.baseline = bootstrap_interval(base);
  out.system = bootstrap_interval(sys);
  std::vector<double> diffs(base.size());
  for (std::size_t s = 0; s < diffs.size(); ++s) diffs[s] = std::fabs(sys[s] - base[s]);
  const double mean_diff = numpy_mean(diffs);
  const double observed = std::fabs(out.baseline_score - out.system_score);
  std::size_t exceed = 0;
  for (double d : diffs)
    if (d - mean_diff > observed) ++exceed;
  out.pvalue = static_cast<double>(exceed + 1) / static_cast<double>(diffs.size() + 1);
  return out;
}

}  // namespace invar::stats
