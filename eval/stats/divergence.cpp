#include "eval/stats/stats.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "eval/stats/stats_common.hpp"

namespace invar::stats {

// ---- Divergence and entropy ---------------------------------------------------------------------

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

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

}  // namespace invar::stats
