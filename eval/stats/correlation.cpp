#include "eval/stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/error.hpp"
#include "eval/stats/distributions.hpp"
#include "eval/stats/stats_common.hpp"

namespace invar::stats {

// ---- Correlation --------------------------------------------------------------------------------

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool is_constant(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&](double value) { return value == v.front(); });
}

}  // namespace

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

}  // namespace invar::stats
