#include "eval/stats/resampling.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "eval/stats/numpy_random.hpp"
#include "eval/stats/stats.hpp"

namespace invar::stats {

namespace {

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

// sacrebleu: np.array(stats, dtype='float32')[idxs], each resample's .sum(0) in float32 (row by
// row), scored by options.resampled_score or `score`.
std::vector<double> resampled(const std::vector<std::vector<double>>& stats, const std::vector<std::uint32_t>& indices,
                              const BootstrapOptions& options, const StatsScore& score) {
  const std::size_t n = stats.size(), width = stats[0].size();
  const StatsScore& scorer = options.resampled_score ? options.resampled_score : score;
  std::vector<double> scores(static_cast<std::size_t>(options.samples));
  const auto resample = [&]<typename T>(T zero) {
    std::vector<std::vector<T>> narrow(n, std::vector<T>(width));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < width; ++k) narrow[i][k] = static_cast<T>(stats[i][k]);
    std::vector<T> sum(width);
    std::vector<double> wide(width);
    for (int s = 0; s < options.samples; ++s) {
      std::fill(sum.begin(), sum.end(), zero);
      const std::uint32_t* row = indices.data() + static_cast<std::size_t>(s) * n;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < width; ++k) sum[k] += narrow[row[i]][k];
      std::copy(sum.begin(), sum.end(), wide.begin());
      scores[static_cast<std::size_t>(s)] = scorer(wide);
    }
  };
  if (options.float32_stats)
    resample(0.0F);
  else
    resample(0.0);
  return scores;
}

std::vector<float> as_float32(const std::vector<double>& values) { return {values.begin(), values.end()}; }

// Python's math.fsum (Shewchuk's exact partials), correctly rounded.
double exact_sum(const std::vector<double>& values) {
  std::vector<double> partials;
  for (double x : values) {
    std::size_t used = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double high = x + y, low = y - (high - x);
      if (low != 0) partials[used++] = low;
      x = high;
    }
    partials.resize(used);
    partials.push_back(x);
  }
  double high = 0;
  if (!partials.empty()) {
    std::size_t i = partials.size() - 1;
    high = partials[i];
    double low = 0;
    while (i > 0) {
      const double x = high, y = partials[--i];
      high = x + y;
      low = y - (high - x);
      if (low != 0) break;
    }
    // Half-way cases: round as the remaining partials say.
    if (i > 0 && ((low < 0 && partials[i - 1] < 0) || (low > 0 && partials[i - 1] > 0))) {
      const double y = low * 2, x = high + y;
      if (y == x - high) high = x;
    }
  }
  return high;
}

// np.sort, the 1/40 order statistics and 0.5 * (upper - lower), in float32 for float32 scores.
BootstrapInterval order_statistics(std::vector<double>& scores, bool float32_scores) {
  if (scores.empty()) fail("bootstrap: no resampled scores");
  std::sort(scores.begin(), scores.end());
  const std::size_t n = scores.size(), lower = n / 40, upper = n - lower - 1;
  BootstrapInterval out;
  out.lower = scores[lower];
  out.upper = scores[upper];
  out.half_width = float32_scores ? 0.5F * (static_cast<float>(out.upper) - static_cast<float>(out.lower))
                                  : 0.5 * (out.upper - out.lower);
  return out;
}

}  // namespace

std::vector<std::uint32_t> bootstrap_indices(std::size_t n, const BootstrapOptions& options) {
  if (options.samples < 1) fail("bootstrap: the number of samples must be >= 1, got {}", options.samples);
  if (n == 0 || n > 0xFFFFFFFFu) fail("bootstrap: cannot resample {} segments", n);
  NumpyGenerator rng(options.seed);
  std::vector<std::uint32_t> indices(static_cast<std::size_t>(options.samples) * n);
  for (auto& index : indices) index = static_cast<std::uint32_t>(rng.below(n));
  return indices;
}

std::vector<double> bootstrap_scores(const std::vector<std::vector<double>>& segment_stats, const StatsScore& score,
                                     const BootstrapOptions& options) {
  check_stats(segment_stats, "bootstrap");
  return resampled(segment_stats, bootstrap_indices(segment_stats.size(), options), options, score);
}

BootstrapInterval bootstrap_interval(std::vector<double> scores, bool float32_scores) {
  auto out = order_statistics(scores, float32_scores);
  if (float32_scores) {
    const auto narrow = as_float32(scores);
    out.mean = numpy_sum(narrow.data(), narrow.size()) / static_cast<float>(narrow.size());
  } else {
    out.mean = numpy_mean(scores);
  }
  return out;
}

BootstrapInterval bootstrap_interval_exact_mean(std::vector<double> scores, bool float32_scores) {
  auto out = order_statistics(scores, float32_scores);
  out.mean = exact_sum(scores) / static_cast<double>(scores.size());
  if (float32_scores) out.mean = static_cast<float>(out.mean);
  return out;
}

BootstrapInterval bootstrap_ci(const std::vector<std::vector<double>>& segment_stats, const StatsScore& score,
                               const BootstrapOptions& options) {
  return bootstrap_interval(bootstrap_scores(segment_stats, score, options), options.float32_scores);
}

BootstrapInterval bootstrap_mean_ci(const std::vector<double>& values, const BootstrapOptions& options) {
  std::vector<std::vector<double>> rows;
  rows.reserve(values.size());
  for (double v : values) rows.push_back({v});
  const double n = static_cast<double>(values.size());
  auto in_double = options;
  in_double.float32_stats = false;
  return bootstrap_ci(rows, [n](const std::vector<double>& sum) { return sum[0] / n; }, in_double);
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
  NumpyGenerator rng(options.seed);
  // pos_sel: one draw for the whole trials × segments matrix, row by row.
  NumpyGenerator::Bools keep_baseline(rng);
  std::vector<double> a(width), b(width);
  std::size_t exceed = 0;
  for (int t = 0; t < options.trials; ++t) {
    std::fill(a.begin(), a.end(), 0.0);
    std::fill(b.begin(), b.end(), 0.0);
    for (std::size_t i = 0; i < baseline_stats.size(); ++i) {
      const bool keep = keep_baseline.next();
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
  const auto base = resampled(baseline_stats, indices, options, score);
  const auto sys = resampled(system_stats, indices, options, score);
  out.baseline = bootstrap_interval(base, options.float32_scores);
  out.system = bootstrap_interval(sys, options.float32_scores);
  // np.abs(scores_sys - scores_bl) - its mean > delta, in the scores' type (numpy compares a
  // float32 array with the Python float delta in float32).
  const double observed = std::fabs(out.baseline_score - out.system_score);
  std::size_t exceed = 0;
  const std::size_t samples = base.size();
  if (options.float32_scores) {
    std::vector<float> diffs(samples);
    for (std::size_t s = 0; s < samples; ++s)
      diffs[s] = std::fabs(static_cast<float>(sys[s]) - static_cast<float>(base[s]));
    const float mean_diff = numpy_sum(diffs.data(), samples) / static_cast<float>(samples);
    for (float d : diffs)
      if (d - mean_diff > static_cast<float>(observed)) ++exceed;
  } else {
    std::vector<double> diffs(samples);
    for (std::size_t s = 0; s < samples; ++s) diffs[s] = std::fabs(sys[s] - base[s]);
    const double mean_diff = numpy_mean(diffs);
    for (double d : diffs)
      if (d - mean_diff > observed) ++exceed;
  }
  out.pvalue = static_cast<double>(exceed + 1) / static_cast<double>(samples + 1);
  return out;
}

}  // namespace invar::stats
