#include "eval/stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/error.hpp"
#include "eval/stats/distributions.hpp"

namespace invar::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

void require_same_length(const std::vector<double>& x, const std::vector<double>& y, const char* what) {
  if (x.size() != y.size()) fail("{}: the two inputs differ in length ({} and {})", what, x.size(), y.size());
}

bool is_constant(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&](double value) { return value == v.front(); });
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

}  // namespace

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

// numpy/core/src/umath/loops_utils.h: blocks of 8 partial sums below 128 values, halves above.
double numpy_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double sum = 0.;
    for (std::size_t i = 0; i < n; ++i) sum += a[i];
    return sum;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += a[i];
    return sum;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return numpy_sum(a, half) + numpy_sum(a + half, n - half);
}

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

// ---- Correlation --------------------------------------------------------------------------------

Correlation pearson(const std::vector<double>& x, const std::vector<double>& y, Alternative alternative) {
  require_same_length(x, y, "pearson");
  const std::size_t n = x.size();
  if (n < 2) fail("pearson: needs at least 2 values, got {}", n);
  if (is_constant(x) || is_constant(y)) return {kNaN, kNaN};
  if (n == 2) {
    auto sign = [](double d) { return static_cast<double>((d > 0) - (d < 0)); };
    return {sign(x[1] - x[0]) * sign(y[1] - y[0]), 1.0};
  }
  // scipy: r = dot(xm / |xm|, ym / |ym|) on mean-centred data.
  std::vector<double> xm(n), ym(n);
  const double x_mean = numpy_mean(x), y_mean = numpy_mean(y);
  double x_norm = 0, y_norm = 0;
  for (std::size_t i = 0; i < n; ++i) {
    xm[i] = x[i] - x_mean;
    ym[i] = y[i] - y_mean;
    x_norm += xm[i] * xm[i];
    y_norm += ym[i] * ym[i];
  }
  x_norm = std::sqrt(x_norm);
  y_norm = std::sqrt(y_norm);
  double r = 0;
  for (std::size_t i = 0; i < n; ++i) r += (xm[i] / x_norm) * (ym[i] / y_norm);
  r = std::clamp(r, -1.0, 1.0);
  // Under H0, (r + 1) / 2 follows Beta(n/2 − 1, n/2 − 1).
  const double ab = static_cast<double>(n) / 2 - 1;
  double p = 0;
  switch (alternative) {
    case Alternative::TwoSided: p = 2 * dist::beta_sf((std::fabs(r) + 1) / 2, ab, ab); break;
    case Alternative::Greater: p = dist::beta_sf((r + 1) / 2, ab, ab); break;
    case Alternative::Less: p = dist::beta_cdf((r + 1) / 2, ab, ab); break;
  }
  return {r, p};
}

TTest correlation_t_test(double r, std::size_t n) {
  const double df = static_cast<double>(n) - 2;
  const double t = r * std::sqrt(df / (1 - r * r));
  return {t, df, std::isnan(t) ? kNaN : dist::t_cdf(-t, df)};
}

std::optional<std::string> schober_strength(double r) {
  if (std::isnan(r)) return std::nullopt;
  const double a = std::fabs(r);
  if (a < 0.1) return "negligible";
  if (a < 0.4) return "weak";
  if (a < 0.7) return "moderate";
  if (a < 0.9) return "strong";
  return "very strong";
}

std::vector<double> average_ranks(const std::vector<double>& values) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(n);
  for (std::size_t start = 0; start < n;) {
    std::size_t end = start + 1;
    while (end < n && values[order[end]] == values[order[start]]) ++end;
    // Ranks start+1 .. end share their mean, computed as scipy does: 0.5 * (end + start + 1).
    const double rank = 0.5 * static_cast<double>(end + start + 1);
    for (std::size_t i = start; i < end; ++i) ranks[order[i]] = rank;
    start = end;
  }
  return ranks;
}

Correlation spearman(const std::vector<double>& x, const std::vector<double>& y, Alternative alternative) {
  require_same_length(x, y, "spearman");
  const std::size_t n = x.size();
  if (n < 2) fail("spearman: needs at least 2 values, got {}", n);
  if (is_constant(x) || is_constant(y)) return {kNaN, kNaN};
  // np.corrcoef of the ranks: covariance scaled by 1/(n−1), divided by each standard deviation.
  auto rx = average_ranks(x), ry = average_ranks(y);
  const double mx = numpy_mean(rx), my = numpy_mean(ry);
  double sxx = 0, syy = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = rx[i] - mx, dy = ry[i] - my;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  const double f = 1.0 / static_cast<double>(n - 1);
  double rho = sxy * f / std::sqrt(sxx * f) / std::sqrt(syy * f);
  rho = std::clamp(rho, -1.0, 1.0);
  const double df = static_cast<double>(n) - 2;
  double ratio = df / ((rho + 1.0) * (1.0 - rho));
  if (ratio < 0) ratio = 0;  // numpy clip(0); NaN stays NaN
  const double t = rho * std::sqrt(ratio);
  return {rho, t_pvalue(t, df, alternative)};
}

namespace {

// Exact null distribution of the number of concordant pairs c for n values without ties
// (Kendall 1970), scipy.stats._mstats_basic._kendall_p_exact.
double kendall_p_exact(long long n, long long c, Alternative alternative) {
  const long long pairs = n * (n - 1) / 2;
  const bool in_right_tail = c >= pairs - c;
  c = std::min(c, pairs - c);
  double p = 1.0, mass_at_c = 0;
  // Python divides by the exact integer k!, rounded once to a double.
  auto factorial = [](long long k) {
    if (k <= 34) {
      unsigned __int128 f = 1;
      for (long long i = 2; i <= k; ++i) f *= static_cast<unsigned>(i);
      return static_cast<double>(f);
    }
    return std::tgamma(static_cast<double>(k) + 1);
  };
  if (n == 1) {
    mass_at_c = 1;
  } else if (n == 2) {
    mass_at_c = 0.5;
  } else if (c == 0) {
    p = n < 171 ? 2.0 / factorial(n) : 0.0;
    mass_at_c = p / 2;
  } else if (c == 1) {
    p = n < 172 ? 2.0 / factorial(n - 1) : 0.0;
    mass_at_c = static_cast<double>(n - 1) / factorial(n);
  } else if (4 * c == n * (n - 1) && alternative == Alternative::TwoSided) {
    p = 1.0;
  } else {
    // new[k] = number of permutations of j items with k inversions, built up for j = 3..n
    // (divided by j each step when n! would overflow).
    const bool scaled = n >= 171;
    std::vector<double> counts(static_cast<std::size_t>(c) + 1, 0.0), previous;
    counts[0] = 1.0;
    counts[1] = 1.0;
    for (long long j = 3; j <= n; ++j) {
      for (std::size_t k = 1; k < counts.size(); ++k) counts[k] += counts[k - 1];
      if (scaled)
        for (auto& v : counts) v /= static_cast<double>(j);
      if (j <= c) {
        previous = counts;
        for (std::size_t k = static_cast<std::size_t>(j); k < counts.size(); ++k) counts[k] -= previous[k - j];
      }
    }
    const double total = numpy_sum(counts.data(), counts.size());
    if (scaled) {
      p = total;
      mass_at_c = counts.back() / 2;
    } else {
      p = 2.0 * total / factorial(n);
      mass_at_c = counts.back() / factorial(n);
    }
  }
  if (alternative != Alternative::TwoSided) {
    if (in_right_tail == (alternative == Alternative::Greater))
      p /= 2;
    else
      p = 1 - p / 2 + mass_at_c;
  }
  return std::clamp(p, 0.0, 1.0);
}

// Dense ranks 1..k of the values (equal values share a rank).
std::vector<std::size_t> dense_ranks(const std::vector<double>& values) {
  std::vector<double> sorted(values);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<std::size_t> ranks(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    ranks[i] = static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), values[i]) - sorted.begin()) + 1;
  return ranks;
}

struct TieCounts {
  long long pairs = 0;  // Σ t(t−1)/2
  double v0 = 0;        // Σ t(t−1)(t−2)
  double v1 = 0;        // Σ t(t−1)(2t+5)
};

TieCounts tie_counts(const std::vector<std::size_t>& ranks, std::size_t levels) {
  std::vector<long long> count(levels + 1, 0);
  for (auto r : ranks) ++count[r];
  TieCounts ties;
  for (auto t : count) {
    if (t < 2) continue;
    const double d = static_cast<double>(t);
    ties.pairs += t * (t - 1) / 2;
    ties.v0 += d * (d - 1.) * (d - 2);
    ties.v1 += d * (d - 1.) * (2 * d + 5);
  }
  return ties;
}

}  // namespace

KendallTau kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y, Alternative alternative) {
  require_same_length(x, y, "kendall");
  const std::size_t n = x.size();
  KendallTau result;
  result.total = static_cast<long long>(n) * static_cast<long long>(n - (n > 0)) / 2;
  if (std::any_of(x.begin(), x.end(), [](double v) { return std::isnan(v); }) ||
      std::any_of(y.begin(), y.end(), [](double v) { return std::isnan(v); })) {
    result.tau = result.pvalue = kNaN;
    return result;
  }
  const auto rx = dense_ranks(x), ry = dense_ranks(y);
  const std::size_t levels_x = n ? *std::max_element(rx.begin(), rx.end()) : 0;
  const std::size_t levels_y = n ? *std::max_element(ry.begin(), ry.end()) : 0;

  // Sort by (x, y); a pair i < j in that order is discordant when x_i < x_j and y_i > y_j. A
  // Fenwick tree over y ranks counts, for each element, earlier elements of smaller x with larger y.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return rx[a] != rx[b] ? rx[a] < rx[b] : ry[a] < ry[b]; });
  std::vector<long long> tree(levels_y + 1, 0);
  long long inserted = 0;
  for (std::size_t start = 0; start < n;) {
    std::size_t end = start;
    while (end < n && rx[order[end]] == rx[order[start]]) ++end;
    for (std::size_t i = start; i < end; ++i) {
      long long at_most = 0;
      for (std::size_t k = ry[order[i]]; k > 0; k -= k & (~k + 1)) at_most += tree[k];
      result.discordant += inserted - at_most;
    }
    for (std::size_t i = start; i < end; ++i) {
      for (std::size_t k = ry[order[i]]; k <= levels_y; k += k & (~k + 1)) ++tree[k];
      ++inserted;
    }
    for (std::size_t i = start; i < end;) {
      std::size_t same = i;
      while (same < end && ry[order[same]] == ry[order[i]]) ++same;
      const long long t = static_cast<long long>(same - i);
      result.ties_joint += t * (t - 1) / 2;
      i = same;
    }
    start = end;
  }
  const auto tx = tie_counts(rx, levels_x), ty = tie_counts(ry, levels_y);
  result.ties_x = tx.pairs;
  result.ties_y = ty.pairs;
  const long long tot = result.total, dis = result.discordant;
  result.concordant = tot - dis - tx.pairs - ty.pairs + result.ties_joint;
  if (tx.pairs == tot || ty.pairs == tot) {
    result.tau = result.pvalue = kNaN;
    return result;
  }
  const long long con_minus_dis = tot - tx.pairs - ty.pairs + result.ties_joint - 2 * dis;
  const double tau = static_cast<double>(con_minus_dis) / std::sqrt(static_cast<double>(tot - tx.pairs)) /
                     std::sqrt(static_cast<double>(tot - ty.pairs));
  result.tau = std::clamp(tau, -1.0, 1.0);

  const bool no_ties = tx.pairs == 0 && ty.pairs == 0;
  result.method = no_ties && (n <= 33 || std::min(dis, tot - dis) <= 1) ? KendallMethod::Exact
                                                                         : KendallMethod::Asymptotic;
  if (result.method == KendallMethod::Exact) {
    result.pvalue = kendall_p_exact(static_cast<long long>(n), tot - dis, alternative);
  } else {
    const double size = static_cast<double>(n);
    const double m = size * (size - 1.);
    const double var = (m * (2 * size + 5) - tx.v1 - ty.v1) / 18 +
                       static_cast<double>(2 * tx.pairs * ty.pairs) / m + tx.v0 * ty.v0 / (9 * m * (size - 2));
    const double z = static_cast<double>(con_minus_dis) / std::sqrt(var);
    switch (alternative) {
      case Alternative::TwoSided: result.pvalue = 2 * dist::normal_sf(std::fabs(z)); break;
      case Alternative::Greater: result.pvalue = dist::normal_sf(z); break;
      case Alternative::Less: result.pvalue = dist::normal_cdf(z); break;
    }
  }
  return result;
}

const char* kendall_method_name(KendallMethod method) {
  return method == KendallMethod::Exact ? "exact" : "asymptotic";
}

// ---- Divergence and entropy ---------------------------------------------------------------------

namespace {

std::vector<double> normalised(const std::vector<double>& values, double smoothing, const char* what) {
  std::vector<double> out(values);
  for (auto& v : out) {
    if (!(v >= 0) || std::isinf(v)) fail("{}: values must be finite and non-negative, got {}", what, v);
    v += smoothing;
  }
  const double sum = numpy_sum(out.data(), out.size());
  if (!(sum > 0)) fail("{}: values sum to {}, expected a positive total", what, sum);
  for (auto& v : out) v = 1.0 * v / sum;
  return out;
}

double log_base_divisor(double base) { return base == 0 ? 1.0 : std::log(base); }

}  // namespace

double kl_divergence(const std::vector<double>& p, const std::vector<double>& q, const KlOptions& options) {
  require_same_length(p, q, "kl divergence");
  if (p.empty()) fail("kl divergence: empty distributions");
  if (options.smoothing < 0) fail("kl divergence: smoothing must be >= 0, got {}", options.smoothing);
  const auto pn = normalised(p, options.smoothing, "kl divergence (p)");
  const auto qn = normalised(q, options.smoothing, "kl divergence (q)");
  // scipy.special.rel_entr: p·ln(p/q), 0 when p = 0, +inf when q = 0 < p.
  std::vector<double> terms(pn.size());
  for (std::size_t i = 0; i < pn.size(); ++i)
    terms[i] = pn[i] == 0 ? 0.0 : qn[i] == 0 ? kInf : pn[i] * std::log(pn[i] / qn[i]);
  return numpy_sum(terms.data(), terms.size()) / log_base_divisor(options.base);
}

double entropy(const std::vector<double>& p, double base) {
  if (p.empty()) fail("entropy: empty distribution");
  const auto pn = normalised(p, 0, "entropy");
  std::vector<double> terms(pn.size());
  for (std::size_t i = 0; i < pn.size(); ++i) terms[i] = pn[i] == 0 ? 0.0 : -pn[i] * std::log(pn[i]);
  return numpy_sum(terms.data(), terms.size()) / log_base_divisor(base);
}

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

// ---- Votes and modes ----------------------------------------------------------------------------

Mode scipy_mode(const std::vector<double>& values) {
  if (values.empty()) fail("mode: empty input");
  std::map<double, std::size_t> counts;
  for (double v : values) ++counts[v];
  Mode best{counts.begin()->first, 0};
  for (const auto& [value, count] : counts)
    if (count > best.count) best = {value, count};
  return best;
}

std::vector<double> multimode(const std::vector<double>& values) {
  std::vector<std::pair<double, std::size_t>> seen;  // value, count in first-seen order
  for (double v : values) {
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == v; });
    if (it == seen.end())
      seen.emplace_back(v, 1);
    else
      ++it->second;
  }
  std::size_t most = 0;
  for (const auto& s : seen) most = std::max(most, s.second);
  std::vector<double> modes;
  for (const auto& s : seen)
    if (s.second == most) modes.push_back(s.first);
  return modes;
}

const char* agreement_name(Agreement agreement) {
  switch (agreement) {
    case Agreement::All: return "all";
    case Agreement::Two: return "two";
    case Agreement::None: break;
  }
  return "none";
}

PairMode mode_of_pairs(const std::vector<std::pair<int, int>>& detectors) {
  if (detectors.empty()) fail("mode of pairs: no detectors");
  const auto vote = majority_vote(detectors);
  return {vote.winner, vote.agreement, vote.count};
}

}  // namespace invar::stats
