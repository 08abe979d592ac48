#include "eval/stats/distributions.hpp"

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <limits>

namespace invar::stats::dist {

namespace {

namespace bm = boost::math;
// Errors become NaN / inf instead of exceptions; doubles stay doubles, as in scipy's Boost build.
using Policy = bm::policies::policy<bm::policies::domain_error<bm::policies::ignore_error>,
                                    bm::policies::pole_error<bm::policies::ignore_error>,
                                    bm::policies::overflow_error<bm::policies::ignore_error>,
                                    bm::policies::evaluation_error<bm::policies::ignore_error>,
                                    bm::policies::promote_double<false>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool any_nan(double a, double b = 0, double c = 0) { return std::isnan(a) || std::isnan(b) || std::isnan(c); }

}  // namespace

double t_cdf(double t, double df) {
  if (any_nan(t, df) || !(df > 0)) return kNaN;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  return bm::cdf(bm::students_t_distribution<double, Policy>(df), t);
}

double normal_cdf(double z) {
  if (std::isnan(z)) return kNaN;
  if (std::isinf(z)) return z > 0 ? 1.0 : 0.0;
  return bm::cdf(bm::normal_distribution<double, Policy>(), z);
}

double normal_sf(double z) {
  if (std::isnan(z)) return kNaN;
  if (std::isinf(z)) return z > 0 ? 0.0 : 1.0;
  return bm::cdf(bm::complement(bm::normal_distribution<double, Policy>(), z));
}

double chi2_sf(double x, double df) {
  if (any_nan(x, df) || !(df > 0)) return kNaN;
  if (x <= 0) return 1.0;
  if (std::isinf(x)) return 0.0;
  return bm::cdf(bm::complement(bm::chi_squared_distribution<double, Policy>(df), x));
}

double beta_cdf(double x, double a, double b) {
  if (any_nan(x, a, b)) return kNaN;
  if (x <= 0) return 0.0;
  if (x >= 1) return 1.0;
  return bm::cdf(bm::beta_distribution<double, Policy>(a, b), x);
}

double beta_sf(double x, double a, double b) {
  if (any_nan(x, a, b)) return kNaN;
  if (x <= 0) return 1.0;
  if (x >= 1) return 0.0;
  return bm::cdf(bm::complement(bm::beta_distribution<double, Policy>(a, b), x));
}

double beta_ppf(double q, double a, double b) {
  if (any_nan(q, a, b) || q < 0 || q > 1) return kNaN;
  return bm::quantile(bm::beta_distribution<double, Policy>(a, b), q);
}

double beta_isf(double q, double a, double b) {
  if (any_nan(q, a, b) || q < 0 || q > 1) return kNaN;
  return bm::quantile(bm::complement(bm::beta_distribution<double, Policy>(a, b), q));
}

double binomial_pmf(double k, double n, double p) {
  if (any_nan(k, n, p)) return kNaN;
  if (k < 0 || k > n) return 0.0;
  return bm::pdf(bm::binomial_distribution<double, Policy>(n, p), k);
}

double binomial_cdf(double k, double n, double p) {
  if (any_nan(k, n, p)) return kNaN;
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  return bm::cdf(bm::binomial_distribution<double, Policy>(n, p), std::floor(k));
}

double binomial_sf(double k, double n, double p) {
  if (any_nan(k, n, p)) return kNaN;
  if (k < 0) return 1.0;
  if (k >= n) return 0.0;
  return bm::cdf(bm::complement(bm::binomial_distribution<double, Policy>(n, p), std::floor(k)));
}

}  // namespace invar::stats::dist
