#include "eval/stats/stats.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "eval/stats/distributions.hpp"
#include "eval/stats/stats_common.hpp"

namespace invar::stats {

void require_same_length(const std::vector<double>& x, const std::vector<double>& y, const char* what) {
  if (x.size() != y.size()) fail("{}: the two inputs differ in length ({} and {})", what, x.size(), y.size());
}

// scipy's _ttest_finish: p-value of a t statistic with df degrees of freedom.
double t_pvalue(double t, double df, Alternative alternative) {
  switch (alternative) {
    case Alternative::Less: return dist::t_cdf(t, df);
    case Alternative::Greater: return dist::t_cdf(-t, df);
    case Alternative::TwoSided: break;
  }
  return 2 * dist::t_cdf(-std::fabs(t), df);
}

std::optional<Alternative> parse_alternative(std::string_view name) {
  if (name == "two-sided") return Alternative::TwoSided;
  if (name == "greater") return Alternative::Greater;
  if (name == "less") return Alternative::Less;
  return std::nullopt;
}

const char* alternative_name(Alternative alternative) {
  switch (alternative) {
    case Alternative::Greater: return "greater";
    case Alternative::Less: return "less";
    case Alternative::TwoSided: break;
  }
  return "two-sided";
}

namespace {

// numpy/core/src/umath/loops_utils.h: blocks of 8 partial sums below 128 values, halves above; in
// the array's own type (float32 arrays sum in float32).
template <typename T>
T pairwise_sum(const T* a, std::size_t n) {
  if (n < 8) {
    T sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += a[i];
    return sum;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    T sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += a[i];
    return sum;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

}  // namespace

double numpy_sum(const double* a, std::size_t n) { return pairwise_sum(a, n); }
float numpy_sum(const float* a, std::size_t n) { return pairwise_sum(a, n); }

double numpy_mean(const std::vector<double>& values) {
  return numpy_sum(values.data(), values.size()) / static_cast<double>(values.size());
}

MeanStd mean_std(const std::vector<double>& values) {
  if (values.empty()) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  MeanStd result{numpy_mean(values), 0};
  if (values.size() < 2) return result;
  std::vector<double> squares;
  for (double v : values) squares.push_back((v - result.mean) * (v - result.mean));
  result.std = std::sqrt(numpy_sum(squares.data(), squares.size()) / static_cast<double>(values.size() - 1));
  return result;
}

}  // namespace invar::stats
