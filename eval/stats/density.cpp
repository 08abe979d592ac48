#include "eval/stats/density.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.hpp"

namespace invar::stats {

double sample_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) fail("sample_quantile: no values");
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto below = static_cast<std::size_t>(std::floor(h));
  const auto above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (h - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

std::optional<BoxStats> box_stats(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  BoxStats box;
  box.n = values.size();
  box.lower_quartile = sample_quantile(values, 0.25);
  box.median = sample_quantile(values, 0.5);
  box.upper_quartile = sample_quantile(values, 0.75);
  const double reach = 1.5 * (box.upper_quartile - box.lower_quartile);
  const double low = box.lower_quartile - reach, high = box.upper_quartile + reach;
  box.lower_whisker = *std::lower_bound(values.begin(), values.end(), low);
  box.upper_whisker = *std::prev(std::upper_bound(values.begin(), values.end(), high));
  for (double v : values)
    if (v < low || v > high) box.outliers.push_back(v);
  return box;
}

namespace {

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double covariance(const std::vector<double>& a, double mean_a, const std::vector<double>& b, double mean_b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - mean_a) * (b[i] - mean_b);
  return sum / static_cast<double>(a.size() - 1);
}

double grid_point(std::pair<double, double> range, std::size_t i, std::size_t n) {
  return n == 1 ? range.first : range.first + (range.second - range.first) * static_cast<double>(i) / static_cast<double>(n - 1);
}

}  // namespace

std::optional<DensityGrid> gaussian_kde_2d(const std::vector<double>& x, const std::vector<double>& y,
                                           std::size_t nx, std::size_t ny, std::pair<double, double> x_range,
                                           std::pair<double, double> y_range) {
  if (x.size() != y.size()) fail("gaussian_kde_2d: {} x and {} y values", x.size(), y.size());
  const std::size_t n = x.size();
  if (n < 3) return std::nullopt;
  const double mx = mean(x), my = mean(y);
  // Scott's rule for d = 2 dimensions: n^(−1/(d + 4)).
  const double factor2 = std::pow(static_cast<double>(n), -2.0 / 6.0);
  const double sxx = covariance(x, mx, x, mx) * factor2, syy = covariance(y, my, y, my) * factor2,
               sxy = covariance(x, mx, y, my) * factor2;
  const double det = sxx * syy - sxy * sxy;
  if (!(det > 1e-14 * sxx * syy) || !(sxx > 0) || !(syy > 0)) return std::nullopt;
  // The inverse covariance [[a, b], [b, c]] and the Gaussian's normalisation 1 / (2π sqrt(det)).
  const double a = syy / det, b = -sxy / det, c = sxx / det;
  const double norm = 1.0 / (2 * std::numbers::pi * std::sqrt(det) * static_cast<double>(n));
  DensityGrid grid{nx, ny, x_range.first, x_range.second, y_range.first, y_range.second, std::vector<double>(nx * ny, 0.0)};
  for (std::size_t j = 0; j < ny; ++j) {
    const double gy = grid_point(y_range, j, ny);
    for (std::size_t i = 0; i < nx; ++i) {
      const double gx = grid_point(x_range, i, nx);
      double sum = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const double dx = gx - x[k], dy = gy - y[k];
        sum += std::exp(-0.5 * (a * dx * dx + 2 * b * dx * dy + c * dy * dy));
      }
      grid.density[j * nx + i] = sum * norm;
    }
  }
  return grid;
}

BinCounts histogram_2d(const std::vector<double>& x, const std::vector<double>& y, std::size_t nx, std::size_t ny,
                       std::pair<double, double> x_range, std::pair<double, double> y_range) {
  if (x.size() != y.size()) fail_internal("histogram_2d: {} x and {} y values", x.size(), y.size());
  if (nx == 0 || ny == 0 || !(x_range.second > x_range.first) || !(y_range.second > y_range.first))
    fail_internal("histogram_2d: {} × {} bins over [{}, {}] × [{}, {}]", nx, ny, x_range.first, x_range.second,
                  y_range.first, y_range.second);
  BinCounts bins{nx, ny, x_range.first, x_range.second, y_range.first, y_range.second, std::vector<std::size_t>(nx * ny, 0)};
  // numpy's edges (linspace: low + k · (high − low) / n, the last one exactly high) and its search
  // (the last edge ≤ v), so that a value on an edge lands where numpy puts it, rounding included.
  auto edges = [](std::size_t n, std::pair<double, double> range) {
    std::vector<double> out(n + 1);
    const double step = (range.second - range.first) / static_cast<double>(n);
    for (std::size_t k = 0; k < n; ++k) out[k] = static_cast<double>(k) * step + range.first;
    out[n] = range.second;
    return out;
  };
  const auto x_edges = edges(nx, x_range), y_edges = edges(ny, y_range);
  auto bin = [](double v, const std::vector<double>& e) -> std::optional<std::size_t> {
    if (!(v >= e.front() && v <= e.back())) return std::nullopt;
    const auto k = static_cast<std::size_t>(std::upper_bound(e.begin(), e.end(), v) - e.begin()) - 1;
    return std::min(k, e.size() - 2);
  };
  for (std::size_t k = 0; k < x.size(); ++k) {
    const auto i = bin(x[k], x_edges), j = bin(y[k], y_edges);
    if (i && j) ++bins.counts[*j * nx + *i];
  }
  return bins;
}

}  // namespace invar::stats
