#include "eval/learn/lbfgs_logreg.hpp"

#include <lbfgs.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/error.hpp"

namespace invar::learn {

namespace {

// The variables: R rows of d weights, then R intercepts (R = 1 for two classes, K otherwise).
struct Layout {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::size_t size() const { return rows * cols + rows; }
  std::size_t weight(std::size_t row, std::size_t col) const { return row * cols + col; }
  std::size_t intercept(std::size_t row) const { return rows * cols + row; }
};

double softplus(double z) { return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }

struct Problem {
  const SparseMatrix& features;
  const std::vector<int>& labels;
  const std::vector<double>& sample_weights;
  Layout layout;
  double C = 1;
  bool fit_intercept = true;
  std::vector<double> scores;  // per sample, one per row: scratch space

  void score(const double* x, std::size_t i) {
    for (std::size_t r = 0; r < layout.rows; ++r) {
      double z = fit_intercept ? x[layout.intercept(r)] : 0.0;
      for (std::size_t e = features.row_offsets[i]; e < features.row_offsets[i + 1]; ++e)
        z += x[layout.weight(r, features.indices[e])] * features.values[e];
      scores[r] = z;
    }
  }

  // Loss of sample i at the current scores; with `slopes`, d loss / d z_r.
  double loss(std::size_t i, std::vector<double>* slopes) const {
    const auto y = static_cast<std::size_t>(labels[i]);
    if (layout.rows == 1) {
      const double sign = y == 1 ? 1.0 : -1.0;
      if (slopes) (*slopes)[0] = -sign / (1.0 + std::exp(sign * scores[0]));
      return softplus(-sign * scores[0]);
    }
    const double top = *std::max_element(scores.begin(), scores.end());
    double total = 0;
    for (double z : scores) total += std::exp(z - top);
    const double log_normaliser = top + std::log(total);
    if (slopes)
      for (std::size_t r = 0; r < layout.rows; ++r)
        (*slopes)[r] = std::exp(scores[r] - log_normaliser) - (r == y ? 1.0 : 0.0);
    return log_normaliser - scores[y];
  }

  // F / (C n) and its gradient.
  double evaluate(const double* x, double* gradient, std::size_t padded) {
    const double n = static_cast<double>(features.rows());
    const double penalty = 1.0 / (C * n);
    double value = 0;
    std::fill(gradient, gradient + padded, 0.0);
    for (std::size_t k = 0; k < layout.rows * layout.cols; ++k) {
      value += 0.5 * penalty * x[k] * x[k];
      gradient[k] = penalty * x[k];
    }
    std::vector<double> slopes(layout.rows);
    for (std::size_t i = 0; i < features.rows(); ++i) {
      score(x, i);
      const double weight = sample_weights[i] / n;
      value += weight * loss(i, &slopes);
      for (std::size_t r = 0; r < layout.rows; ++r) {
        const double slope = weight * slopes[r];
        for (std::size_t e = features.row_offsets[i]; e < features.row_offsets[i + 1]; ++e)
          gradient[layout.weight(r, features.indices[e])] += slope * features.values[e];
        if (fit_intercept) gradient[layout.intercept(r)] += slope;
      }
    }
    return value;
  }
};

struct Evaluation {
  Problem* problem;
  std::size_t padded;
  int iterations = 0;
};

lbfgsfloatval_t evaluate(void* instance, const lbfgsfloatval_t* x, lbfgsfloatval_t* g, const int, const lbfgsfloatval_t) {
  auto* e = static_cast<Evaluation*>(instance);
  return e->problem->evaluate(x, g, e->padded);
}

int count_iterations(void* instance, const lbfgsfloatval_t*, const lbfgsfloatval_t*, const lbfgsfloatval_t,
                     const lbfgsfloatval_t, const lbfgsfloatval_t, const lbfgsfloatval_t, int, int k, int) {
  static_cast<Evaluation*>(instance)->iterations = k;
  return 0;
}

struct LbfgsFree {
  void operator()(lbfgsfloatval_t* x) const { lbfgs_free(x); }
};

void check_inputs(const SparseMatrix& features, const std::vector<int>& labels, std::size_t num_classes,
                  const std::vector<double>& sample_weights, double C) {
  if (labels.size() != features.rows() || sample_weights.size() != features.rows())
    fail("logistic regression: {} feature rows, {} labels, {} sample weights", features.rows(), labels.size(),
         sample_weights.size());
  if (num_classes < 2) fail("logistic regression needs at least two classes, got {}", num_classes);
  if (!(C > 0)) fail("logistic regression: C must be positive, got {}", C);
  for (int label : labels)
    if (label < 0 || static_cast<std::size_t>(label) >= num_classes)
      fail("logistic regression: label {} outside [0, {})", label, num_classes);
}

}  // namespace

LinearScores fit_logistic_lbfgs(const SparseMatrix& features, const std::vector<int>& labels,
                                std::size_t num_classes, const std::vector<double>& sample_weights, double C,
                                bool fit_intercept, double tolerance) {
  check_inputs(features, labels, num_classes, sample_weights, C);
  Layout layout{num_classes == 2 ? 1 : num_classes, features.cols};
  Problem problem{features, labels, sample_weights, layout, C, fit_intercept, std::vector<double>(layout.rows)};
  // liblbfgs built with SSE wants a multiple of 16 variables in aligned memory: the padding variables
  // have zero gradient and stay 0.
  const std::size_t padded = (layout.size() + 15) / 16 * 16;
  std::unique_ptr<lbfgsfloatval_t, LbfgsFree> x(lbfgs_malloc(static_cast<int>(padded)));
  if (!x) fail("logistic regression: cannot allocate {} variables", padded);
  std::fill(x.get(), x.get() + padded, 0.0);

  lbfgs_parameter_t parameters;
  lbfgs_parameter_init(&parameters);
  parameters.epsilon = tolerance;
  parameters.max_iterations = 100000;
  Evaluation instance{&problem, padded};
  lbfgsfloatval_t value = 0;
  const int status =
      lbfgs(static_cast<int>(padded), x.get(), &value, evaluate, count_iterations, &instance, &parameters);

  // A line search that cannot improve any more (rounding) near a tiny gradient is the optimum to machine
  // precision; anything else is a failure to report.
  std::vector<double> gradient(padded);
  problem.evaluate(x.get(), gradient.data(), padded);
  double gradient_norm = 0, x_norm = 0;
  for (std::size_t k = 0; k < padded; ++k) {
    gradient_norm += gradient[k] * gradient[k];
    x_norm += x.get()[k] * x.get()[k];
  }
  gradient_norm = std::sqrt(gradient_norm);
  x_norm = std::sqrt(x_norm);
  if (status < 0 && gradient_norm > std::max(tolerance, 1e-6) * std::max(1.0, x_norm))
    fail("logistic regression (L-BFGS) stopped with liblbfgs status {} at gradient norm {:.3g}", status,
         gradient_norm);

  LinearScores result;
  result.iterations = instance.iterations;
  result.weights.assign(layout.rows, std::vector<double>(layout.cols));
  result.intercepts.assign(layout.rows, 0.0);
  for (std::size_t r = 0; r < layout.rows; ++r) {
    for (std::size_t c = 0; c < layout.cols; ++c) result.weights[r][c] = x.get()[layout.weight(r, c)];
    if (fit_intercept) result.intercepts[r] = x.get()[layout.intercept(r)];
  }
  return result;
}

double logistic_objective(const SparseMatrix& features, const std::vector<int>& labels, std::size_t num_classes,
                          const std::vector<double>& sample_weights, double C, const LinearScores& solution) {
  check_inputs(features, labels, num_classes, sample_weights, C);
  Layout layout{solution.weights.size(), features.cols};
  std::vector<double> x(layout.size());
  for (std::size_t r = 0; r < layout.rows; ++r) {
    std::copy(solution.weights[r].begin(), solution.weights[r].end(), x.begin() + static_cast<std::ptrdiff_t>(r * layout.cols));
    x[layout.intercept(r)] = solution.intercepts[r];
  }
  Problem problem{features, labels, sample_weights, layout, C, true, std::vector<double>(layout.rows)};
  double value = 0, squares = 0;
  for (std::size_t i = 0; i < features.rows(); ++i) {
    problem.score(x.data(), i);
    value += sample_weights[i] * problem.loss(i, nullptr);
  }
  for (std::size_t k = 0; k < layout.rows * layout.cols; ++k) squares += x[k] * x[k];
  return C * value + 0.5 * squares;
}

}  // namespace invar::learn
