#include "eval/stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.hpp"
#include "eval/stats/distributions.hpp"
#include "eval/stats/stats_common.hpp"

namespace invar::stats {

// ---- Chi-squared tests --------------------------------------------------------------------------

namespace {

// scipy.stats.power_divergence with lambda_ = 1 (Pearson's statistic).
ChiSquare pearson_chi2(const std::vector<double>& observed, const std::vector<double>& expected, double dof) {
  std::vector<double> terms(observed.size());
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double d = observed[i] - expected[i];
    terms[i] = d * d / expected[i];
  }
  ChiSquare result;
  result.statistic = numpy_sum(terms.data(), terms.size());
  result.dof = dof;
  result.pvalue = dist::chi2_sf(result.statistic, dof);
  return result;
}

}  // namespace

ChiSquare chisquare(const std::vector<double>& observed, const std::vector<double>& expected, int ddof) {
  if (observed.empty()) fail("chisquare: no observed counts");
  std::vector<double> exp_counts = expected;
  if (exp_counts.empty()) {
    exp_counts.assign(observed.size(), numpy_mean(observed));
  } else {
    require_same_length(observed, exp_counts, "chisquare");
    const double obs_sum = numpy_sum(observed.data(), observed.size());
    const double exp_sum = numpy_sum(exp_counts.data(), exp_counts.size());
    if (std::fabs(obs_sum - exp_sum) / std::min(obs_sum, exp_sum) > 1e-8)
      fail("chisquare: observed and expected counts must have the same sum (relative tolerance 1e-8); "
           "got {} and {}",
           obs_sum, exp_sum);
  }
  return pearson_chi2(observed, exp_counts, static_cast<double>(observed.size()) - 1 - ddof);
}

ChiSquare chi2_contingency(const std::vector<std::vector<double>>& table, bool correction) {
  const std::size_t rows = table.size();
  if (rows == 0 || table.front().empty()) fail("chi2_contingency: empty table");
  const std::size_t cols = table.front().size();
  std::vector<double> row_sum(rows, 0), col_sum(cols, 0);
  double total = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    if (table[i].size() != cols)
      fail("chi2_contingency: row {} has {} columns, row 1 has {}", i + 1, table[i].size(), cols);
    for (std::size_t j = 0; j < cols; ++j) {
      const double v = table[i][j];
      if (!(v >= 0)) fail("chi2_contingency: counts must be non-negative, got {} at row {}, column {}", v, i + 1, j + 1);
      row_sum[i] += v;
      col_sum[j] += v;
      total += v;
    }
  }
  std::vector<std::vector<double>> expected(rows, std::vector<double>(cols));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      expected[i][j] = row_sum[i] * col_sum[j] / total;
      if (expected[i][j] == 0)
        fail("chi2_contingency: the expected frequency at row {}, column {} is zero (an empty row or column)", i + 1,
             j + 1);
    }
  const double dof = static_cast<double>(rows * cols) - static_cast<double>(rows + cols) + 2 - 1;
  ChiSquare result;
  if (dof == 0) {
    result.statistic = 0;
    result.pvalue = 1;
  } else {
    std::vector<double> obs, exp;
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        double o = table[i][j];
        const double e = expected[i][j];
        if (dof == 1 && correction) {
          const double diff = e - o;
          o += std::min(0.5, std::fabs(diff)) * static_cast<double>((diff > 0) - (diff < 0));
        }
        obs.push_back(o);
        exp.push_back(e);
      }
    result = pearson_chi2(obs, exp, dof);
  }
  result.dof = dof;
  result.expected = std::move(expected);
  return result;
}

}  // namespace invar::stats
