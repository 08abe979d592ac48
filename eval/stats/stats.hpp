#pragma once
// Statistics that match scipy 1.10 (and Python's `statistics`) on the same inputs: correlations,
// divergences, chi-squared tests, votes. Plain vectors in, small structs out; invalid input
// (length mismatch, too few values, negative counts, ...) throws invar::Error.
//
// NaN follows scipy: a constant input gives NaN correlations and p-values rather than an error.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace invar::stats {

// The alternative hypothesis of a test, as scipy's `alternative=` argument.
enum class Alternative { TwoSided, Greater, Less };
// "two-sided", "greater", "less"; nullopt for anything else.
std::optional<Alternative> parse_alternative(std::string_view name);
const char* alternative_name(Alternative alternative);

// numpy's pairwise summation (np.sum / np.mean on a 1-D float64 array), so that means and sums
// round exactly as scipy's do.
double numpy_sum(const double* values, std::size_t n);
// The same on a float32 array, in float32 (np.float32 arrays' sum; their mean divides it in float32).
float numpy_sum(const float* values, std::size_t n);
double numpy_mean(const std::vector<double>& values);

// Mean and sample standard deviation, as np.mean and np.std(ddof=1): 0 for a single value; NaN
// for both when there are none.
struct MeanStd {
  double mean = 0;
  double std = 0;
};
MeanStd mean_std(const std::vector<double>& values);

// ---- Correlation --------------------------------------------------------------------------------

struct Correlation {
  double statistic = 0;  // r, rho or tau
  double pvalue = 0;
};

// scipy.stats.pearsonr: r clipped to [-1, 1]; p from the exact beta distribution of r under H0.
// n = 2 gives r = ±1 and p = 1; a constant input gives NaN, NaN. Needs n >= 2.
Correlation pearson(const std::vector<double>& x, const std::vector<double>& y,
                    Alternative alternative = Alternative::TwoSided);

// The one-tailed test of r used by isometry studies: t = r·sqrt((n−2)/(1−r²)) with n−2 degrees of
// freedom and p = t.sf(t, n−2) (H1: r > 0). t = ±inf when |r| = 1; t and p are NaN when n = 2.
struct TTest {
  double t = 0;
  double df = 0;
  double pvalue = 0;
};
TTest correlation_t_test(double r, std::size_t n);

// Schober, Boer & Schwarte (2018): |r| < 0.1 "negligible", < 0.4 "weak", < 0.7 "moderate",
// < 0.9 "strong", else "very strong"; nullopt for NaN.
std::optional<std::string> schober_strength(double r);

// scipy.stats.spearmanr: Pearson's r on average ranks (ties share their mean rank); p from the
// t distribution with n−2 df (NaN when n = 2).
Correlation spearman(const std::vector<double>& x, const std::vector<double>& y,
                     Alternative alternative = Alternative::TwoSided);

// Ranks 1..n, tied values sharing the average of their ranks (scipy.stats.rankdata "average").
std::vector<double> average_ranks(const std::vector<double>& values);

// scipy.stats.kendalltau (tau-b, method="auto"): the exact null distribution when there are no
// ties and n <= 33 or min(discordant, total − discordant) <= 1; otherwise the normal
// approximation with the tie-corrected variance.
enum class KendallMethod { Exact, Asymptotic };
struct KendallTau {
  double tau = 0;
  double pvalue = 0;
  KendallMethod method = KendallMethod::Exact;
  long long concordant = 0;
  long long discordant = 0;
  long long ties_x = 0;      // pairs tied in x (including those tied in both)
  long long ties_y = 0;      // pairs tied in y (including those tied in both)
  long long ties_joint = 0;  // pairs tied in both
  long long total = 0;       // n(n−1)/2
};
KendallTau kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y,
                         Alternative alternative = Alternative::TwoSided);
const char* kendall_method_name(KendallMethod method);  // "exact", "asymptotic"

// ---- Divergence and entropy ---------------------------------------------------------------------

struct KlOptions {
  double base = 0;       // 0 = natural log; 2 = bits
  double smoothing = 0;  // added to every bin of p and q before normalising (for zero bins)
};
// scipy.stats.entropy(p, q, base): Σ p·ln(p/q) after normalising both inputs to sum 1. A bin with
// p = 0 contributes 0; p > 0 with q = 0 gives +inf. Values must be >= 0 with a positive sum.
double kl_divergence(const std::vector<double>& p, const std::vector<double>& q, const KlOptions& options = {});
// scipy.stats.entropy(p, base): Shannon entropy −Σ p·ln p of the normalised p.
double entropy(const std::vector<double>& p, double base = 0);

// ---- Chi-squared tests --------------------------------------------------------------------------

struct ChiSquare {
  double statistic = 0;
  double pvalue = 0;
  double dof = 0;
  std::vector<std::vector<double>> expected;  // chi2_contingency only
};
// scipy.stats.chisquare(observed, expected, ddof): empty `expected` = uniform (the mean count);
// the two sums must agree to 1e-8 relative, as scipy demands. dof = k − 1 − ddof.
ChiSquare chisquare(const std::vector<double>& observed, const std::vector<double>& expected = {}, int ddof = 0);
// scipy.stats.chi2_contingency(table, correction): expected = row sum × column sum / total; Yates'
// correction (|O−E| reduced by min(0.5, |O−E|)) applies only when dof = 1; dof = 0 gives
// statistic 0, p 1. A zero expected count is an error. The table must be rectangular, >= 0.
ChiSquare chi2_contingency(const std::vector<std::vector<double>>& table, bool correction = true);

// ---- t-tests and the binomial test -------------------------------------------------------------

// scipy.stats.ttest_1samp(a, popmean, alternative): t = (mean − popmean) / sqrt(var₁ / n), df = n − 1.
// A constant sample gives t = ±inf (p = 0) or NaN, as scipy does. Needs n >= 2.
TTest ttest_1samp(const std::vector<double>& a, double popmean, Alternative alternative = Alternative::TwoSided);
// scipy.stats.ttest_ind(a, b, equal_var, alternative): pooled variance (df = n₁ + n₂ − 2) or Welch's
// test (Welch–Satterthwaite df).
TTest ttest_ind(const std::vector<double>& a, const std::vector<double>& b, bool equal_var = true,
                Alternative alternative = Alternative::TwoSided);
// scipy.stats.ttest_rel(a, b, alternative): the one-sample test of the differences a − b.
TTest ttest_rel(const std::vector<double>& a, const std::vector<double>& b,
                Alternative alternative = Alternative::TwoSided);

// scipy.stats.binomtest(k, n, p, alternative) with .proportion_ci(confidence, method="exact")
// (Clopper–Pearson, from beta quantiles). Two-sided p sums the outcomes no more likely than k
// (relative tolerance 1e-7, as scipy).
struct BinomTest {
  std::size_t k = 0, n = 0;
  double statistic = 0;  // k / n
  double pvalue = 0;
  double ci_low = 0, ci_high = 1;
};
BinomTest binomtest(std::size_t k, std::size_t n, double p = 0.5, Alternative alternative = Alternative::TwoSided,
                    double confidence = 0.95);

// ---- Votes and modes ----------------------------------------------------------------------------

// The value held by more than half of the voters; nullopt ("no majority") otherwise. With three
// binary detectors this is the usual majority vote and always exists.
template <typename T>
std::optional<T> strict_majority(const std::vector<T>& votes) {
  std::map<T, std::size_t> counts;
  for (const auto& v : votes)
    if (2 * ++counts[v] > votes.size()) return v;
  return std::nullopt;
}

// scipy.stats.mode(v, keepdims=False): the smallest of the most frequent values and its count.
struct Mode {
  double value = 0;
  std::size_t count = 0;
};
Mode scipy_mode(const std::vector<double>& values);

// statistics.multimode: every most frequent value, in order of first appearance.
std::vector<double> multimode(const std::vector<double>& values);

// The statistical mode over paraphrase detectors of their [S_X, S_Y] judgements (isometry
// studies): the pair chosen by a strict majority of detectors, or nullopt (Ø) when there is none.
// With three detectors: all three agree (All), two agree (Two), or all differ (None); with more,
// Two stands for any strict majority short of unanimity.
enum class Agreement { All, Two, None };
const char* agreement_name(Agreement agreement);  // "all", "two", "none"

// A strict-majority vote with its agreement: the winner (nullopt = no majority), All when every
// voter holds it, Two for any other strict majority, and how many voters hold it.
template <typename T>
struct Vote {
  std::optional<T> winner;
  Agreement agreement = Agreement::None;
  std::size_t count = 0;  // voters holding the winner (0 when there is none)
};
template <typename T>
Vote<T> majority_vote(const std::vector<T>& votes) {
  Vote<T> result;
  result.winner = strict_majority(votes);
  if (!result.winner) return result;
  for (const auto& v : votes) result.count += v == *result.winner;
  result.agreement = result.count == votes.size() ? Agreement::All : Agreement::Two;
  return result;
}

struct PairMode {
  std::optional<std::pair<int, int>> mode;
  Agreement agreement = Agreement::None;
  std::size_t count = 0;  // detectors holding the mode (0 when there is none)
};
PairMode mode_of_pairs(const std::vector<std::pair<int, int>>& detectors);

}  // namespace invar::stats
