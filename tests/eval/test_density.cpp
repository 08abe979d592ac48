// Distribution summaries for plots: R's type-7 quantile, ggplot2's box statistics, and the 2-D
// Gaussian KDE with Scott's bandwidth (scipy.stats.gaussian_kde), each checked on values worked out
// by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "eval/stats/density.hpp"

using namespace invar;

TEST(SampleQuantile, IsRsTypeSeven) {
  // R: quantile(c(1, 2, 3, 4), c(0, 0.25, 0.5, 0.9, 1)) = 1, 1.75, 2.5, 3.7, 4.
  const std::vector<double> v{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(stats::sample_quantile(v, 0), 1);
  EXPECT_DOUBLE_EQ(stats::sample_quantile(v, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(stats::sample_quantile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(stats::sample_quantile(v, 0.9), 3.7);
  EXPECT_DOUBLE_EQ(stats::sample_quantile(v, 1), 4);
  EXPECT_DOUBLE_EQ(stats::sample_quantile({7}, 0.3), 7);
}

TEST(BoxStats, WhiskersReachTheLastValueWithinOneAndAHalfIqr) {
  // 1..10 and 100: quartiles 3.5 and 8.5 (type 7 on 11 values), IQR 5, fences −4 and 16.
  std::vector<double> v{100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const auto box = stats::box_stats(v);
  ASSERT_TRUE(box.has_value());
  EXPECT_EQ(box->n, 11u);
  EXPECT_DOUBLE_EQ(box->lower_quartile, 3.5);
  EXPECT_DOUBLE_EQ(box->median, 6);
  EXPECT_DOUBLE_EQ(box->upper_quartile, 8.5);
  EXPECT_DOUBLE_EQ(box->lower_whisker, 1);
  EXPECT_DOUBLE_EQ(box->upper_whisker, 10);
  EXPECT_EQ(box->outliers, (std::vector<double>{100}));
  EXPECT_FALSE(stats::box_stats({}).has_value());
}

TEST(GaussianKde2d, ScottsBandwidthOnTheSampleCovariance) {
  // Points (0,0), (1,0), (0,1): mean (1/3, 1/3); sample covariance (ddof 1) var = 1/3, cov = −1/6.
  // Scott: the kernel's covariance is that times n^(−2/6) = 3^(−1/3).
  const std::vector<double> x{0, 1, 0}, y{0, 0, 1};
  const auto grid = stats::gaussian_kde_2d(x, y, 3, 2, {0, 1}, {0, 1});
  ASSERT_TRUE(grid.has_value());
  ASSERT_EQ(grid->density.size(), 6u);
  const double f = std::pow(3.0, -1.0 / 3), sxx = f / 3, sxy = -f / 6, det = sxx * sxx - sxy * sxy;
  auto kde = [&](double gx, double gy) {
    double sum = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      const double dx = gx - x[k], dy = gy - y[k];
      // (d^T Σ^{-1} d) with Σ^{-1} = [[sxx, −sxy], [−sxy, sxx]] / det.
      sum += std::exp(-0.5 * (sxx * dx * dx - 2 * sxy * dx * dy + sxx * dy * dy) / det);
    }
    return sum / (3 * 2 * std::numbers::pi * std::sqrt(det));
  };
  // Grid points: x in {0, 0.5, 1}, y in {0, 1}; density[j * nx + i] at (x_i, y_j).
  EXPECT_NEAR(grid->density[0], kde(0, 0), 1e-12);
  EXPECT_NEAR(grid->density[1], kde(0.5, 0), 1e-12);
  EXPECT_NEAR(grid->density[5], kde(1, 1), 1e-12);
  // The sample is symmetric in x and y.
  EXPECT_NEAR(grid->density[2], grid->density[3], 1e-15);
}

TEST(GaussianKde2d, IntegratesToOneAndRefusesASingularSample) {
  const std::vector<double> x{0.1, 0.4, 0.35, 0.8, 0.5}, y{0.2, 0.1, 0.6, 0.7, 0.45};
  const std::size_t n = 301;
  const auto grid = stats::gaussian_kde_2d(x, y, n, n, {-3, 4}, {-3, 4});
  ASSERT_TRUE(grid.has_value());
  double sum = 0;
  for (double v : grid->density) sum += v;
  const double cell = 7.0 / static_cast<double>(n - 1);
  EXPECT_NEAR(sum * cell * cell, 1.0, 1e-3);
  // Points on one line have a singular covariance (scipy raises there).
  EXPECT_FALSE(stats::gaussian_kde_2d({0, 1, 2}, {0, 2, 4}, 5, 5, {0, 1}, {0, 1}).has_value());
  EXPECT_FALSE(stats::gaussian_kde_2d({0, 1}, {0, 2}, 5, 5, {0, 1}, {0, 1}).has_value());
}
