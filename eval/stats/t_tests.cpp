#include "eval/stats/stats.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "eval/stats/distributions.hpp"
#include "eval/stats/stats_common.hpp"

namespace invar::stats {

// ---- t-tests and the binomial test -------------------------------------------------------------

namespace {

// scipy.stats._stats_py._var(a, ddof=1): the mean squared deviation times n / (n − 1).
double sample_variance(const std::vector<double>& a) {
  const double mean = numpy_mean(a);
  std::vector<double> squares(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) squares[i] = (a[i] - mean) * (a[i] - mean);
  const double n = static_cast<double>(a.size());
  return numpy_mean(squares) * (n / (n - 1));
}

void require_values(const std::vector<double>& a, const char* what) {
  if (a.empty()) fail("{}: empty sample", what);
}

}  // namespace

TTest ttest_1samp(const std::vector<double>& a, double popmean, Alternative alternative) {
  require_values(a, "ttest_1samp");
  const double n = static_cast<double>(a.size());
  const double t = (numpy_mean(a) - popmean) / std::sqrt(sample_variance(a) / n);
  return {t, n - 1, t_pvalue(t, n - 1, alternative)};
}

TTest ttest_ind(const std::vector<double>& a, const std::vector<double>& b, bool equal_var, Alternative alternative) {
  require_values(a, "ttest_ind");
  require_values(b, "ttest_ind");
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  double v1 = sample_variance(a), v2 = sample_variance(b);
  double df = 0, denom = 0;
  if (equal_var) {
    // A single observation has no variance of its own but contributes nothing to the pooled one.
    if (a.size() == 1) v1 = 0;
    if (b.size() == 1) v2 = 0;
    df = n1 + n2 - 2.0;
    const double pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / df;
    denom = std::sqrt(pooled * (1.0 / n1 + 1.0 / n2));
  } else {
    const double vn1 = v1 / n1, vn2 = v2 / n2;
    df = (vn1 + vn2) * (vn1 + vn2) / (vn1 * vn1 / (n1 - 1) + vn2 * vn2 / (n2 - 1));
    if (std::isnan(df)) df = 1;  // both variances zero: any df gives the same p
    denom = std::sqrt(vn1 + vn2);
  }
  const double t = (numpy_mean(a) - numpy_mean(b)) / denom;
  return {t, df, t_pvalue(t, df, alternative)};
}

TTest ttest_rel(const std::vector<double>& a, const std::vector<double>& b, Alternative alternative) {
  require_same_length(a, b, "ttest_rel");
  require_values(a, "ttest_rel");
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return ttest_1samp(d, 0.0, alternative);
}

namespace {

// scipy's _binary_search_for_binom_tst: the i in [lo, hi] with a(i) <= d < a(i + 1).
template <typename F>
long long binary_search_binom(F a, double d, long long lo, long long hi) {
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    const double value = a(mid);
    if (value < d)
      lo = mid + 1;
    else if (value > d)
      hi = mid - 1;
    else
      return mid;
  }
  return a(lo) <= d ? lo : lo - 1;
}

}  // namespace

BinomTest binomtest(std::size_t k, std::size_t n, double p, Alternative alternative, double confidence) {
  if (n < 1) fail("binomtest: n must be >= 1, got {}", n);
  if (k > n) fail("binomtest: k ({}) must be <= n ({})", k, n);
  if (!(p >= 0 && p <= 1)) fail("binomtest: p must be in [0, 1], got {}", p);
  if (!(confidence > 0 && confidence < 1)) fail("binomtest: the confidence level must be in (0, 1), got {}", confidence);
  const double kd = static_cast<double>(k), nd = static_cast<double>(n);
  BinomTest result;
  result.k = k;
  result.n = n;
  result.statistic = kd / nd;
  if (alternative == Alternative::Less) {
    result.pvalue = dist::binomial_cdf(kd, nd, p);
  } else if (alternative == Alternative::Greater) {
    result.pvalue = dist::binomial_sf(kd - 1, nd, p);
  } else {
    const double d = dist::binomial_pmf(kd, nd, p);
    const double rerr = 1 + 1e-7;
    auto pmf = [&](long long x) { return dist::binomial_pmf(static_cast<double>(x), nd, p); };
    double pvalue = 1.0;
    if (kd == p * nd) {
      pvalue = 1.0;
    } else if (kd < p * nd) {
      const long long ix = binary_search_binom([&](long long x) { return -pmf(x); }, -d * rerr,
                                               static_cast<long long>(std::ceil(p * nd)), static_cast<long long>(n));
      const long long y = static_cast<long long>(n) - ix + (d * rerr == pmf(ix) ? 1 : 0);
      pvalue = dist::binomial_cdf(kd, nd, p) + dist::binomial_sf(static_cast<double>(static_cast<long long>(n) - y), nd, p);
    } else {
      const long long ix = binary_search_binom(pmf, d * rerr, 0, static_cast<long long>(std::floor(p * nd)));
      const long long y = ix + 1;
      pvalue = dist::binomial_cdf(static_cast<double>(y - 1), nd, p) + dist::binomial_sf(kd - 1, nd, p);
    }
    result.pvalue = std::min(1.0, pvalue);
  }
  // Clopper–Pearson from beta quantiles (scipy's _binom_exact_conf_int).
  const bool two_sided = alternative == Alternative::TwoSided;
  const double alpha = two_sided ? (1 - confidence) / 2 : 1 - confidence;
  if (alternative != Alternative::Less) result.ci_low = k == 0 ? 0.0 : dist::beta_ppf(alpha, kd, nd - kd + 1);
  if (alternative != Alternative::Greater) result.ci_high = k == n ? 1.0 : dist::beta_isf(alpha, kd + 1, nd - kd);
  return result;
}

}  // namespace invar::stats
