#pragma once
// The probability distributions behind invar's tests, from Boost.Math, with scipy's conventions at
// the edges: NaN in gives NaN out, ±inf arguments give the limits, never an exception.
namespace invar::stats::dist {

double t_cdf(double t, double df);           // scipy.special.stdtr
double normal_cdf(double z);                 // scipy.special.ndtr
double normal_sf(double z);
double chi2_sf(double x, double df);         // scipy.special.chdtrc
double beta_cdf(double x, double a, double b);
double beta_sf(double x, double a, double b);
double binomial_pmf(double k, double n, double p);
double binomial_cdf(double k, double n, double p);  // P(X <= k)
double binomial_sf(double k, double n, double p);   // P(X > k)
double beta_ppf(double q, double a, double b);       // quantile of Beta(a, b), for Clopper–Pearson
double beta_isf(double q, double a, double b);       // the x with P(X > x) = q

}  // namespace invar::stats::dist
