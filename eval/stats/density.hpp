#pragma once
// Summaries of a sample's distribution for plots: R's default sample quantile, the five numbers and
// outliers of ggplot2's box plots, and a two-dimensional Gaussian kernel density estimate with
// Scott's bandwidth, as scipy.stats.gaussian_kde computes it, and counts in a two-dimensional grid of
// bins, as numpy.histogram2d counts them.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace invar::stats {

// R's quantile(type = 7), numpy's default "linear": sorted[h] interpolated at h = (n − 1)·q.
// `sorted` must be sorted and non-empty; q in [0, 1].
double sample_quantile(const std::vector<double>& sorted, double q);

// ggplot2's stat_boxplot: quartiles by type 7; the whiskers reach the most extreme values within
// 1.5 × IQR of the box; values beyond them are outliers.
struct BoxStats {
  double lower_whisker = 0, lower_quartile = 0, median = 0, upper_quartile = 0, upper_whisker = 0;
  std::vector<double> outliers;  // ascending
  std::size_t n = 0;
};
// nullopt for no values.
std::optional<BoxStats> box_stats(std::vector<double> values);

// scipy.stats.gaussian_kde on points (x[i], y[i]) with Scott's factor n^(−1/6): the kernel's
// covariance is the sample covariance (ddof 1) times the factor squared. Evaluated on the
// nx × ny grid of the ranges' evenly spaced points (ends included); density[j * nx + i] is at
// (x_i, y_j). nullopt when the sample covariance is singular (scipy raises there): fewer than three
// points, or points on one line.
struct DensityGrid {
  std::size_t nx = 0, ny = 0;
  double x_low = 0, x_high = 1, y_low = 0, y_high = 1;
  std::vector<double> density;
};
std::optional<DensityGrid> gaussian_kde_2d(const std::vector<double>& x, const std::vector<double>& y,
                                           std::size_t nx, std::size_t ny, std::pair<double, double> x_range,
                                           std::pair<double, double> y_range);

// Counts of points (x[i], y[i]) in an nx × ny grid of equal bins over the ranges, as
// numpy.histogram2d counts them: each bin holds its lower edges, the last bin of each axis also its
// upper edge; points outside the ranges and non-finite ones are not counted.
// counts[j * nx + i] is the bin [x_i, x_i+1) × [y_j, y_j+1).
struct BinCounts {
  std::size_t nx = 0, ny = 0;
  double x_low = 0, x_high = 1, y_low = 0, y_high = 1;
  std::vector<std::size_t> counts;
};
BinCounts histogram_2d(const std::vector<double>& x, const std::vector<double>& y, std::size_t nx, std::size_t ny,
                       std::pair<double, double> x_range, std::pair<double, double> y_range);

}  // namespace invar::stats
