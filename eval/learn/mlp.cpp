#include "eval/learn/mlp.hpp"

#include <Eigen/Dense>
#include <lbfgs.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "core/error.hpp"

namespace invar::learn {

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;
using VectorMap = Eigen::Map<Eigen::RowVectorXd>;
using ConstVectorMap = Eigen::Map<const Eigen::RowVectorXd>;

struct Shape {
  std::size_t inputs, hidden, classes;
  std::size_t w1() const { return 0; }
  std::size_t b1() const { return hidden * inputs; }
  std::size_t w2() const { return b1() + hidden; }
  std::size_t b2() const { return w2() + classes * hidden; }
  std::size_t size() const { return b2() + classes; }
};

Matrix to_matrix(const std::vector<std::vector<float>>& rows, std::size_t width) {
  Matrix x(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(width));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() != width) fail("MLP head: feature row {} has {} values, expected {}", i, rows[i].size(), width);
    for (std::size_t j = 0; j < width; ++j) x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  }
  return x;
}

// The output scores of every row (n × classes); `hidden` receives the pre-activations (n × hidden).
Matrix forward(const Shape& s, const double* w, const Matrix& x, Matrix& hidden) {
  const auto rows = static_cast<Eigen::Index>(s.hidden), cols = static_cast<Eigen::Index>(s.inputs);
  const ConstMatrixMap w1(w + s.w1(), rows, cols);
  const ConstVectorMap b1(w + s.b1(), rows);
  const ConstMatrixMap w2(w + s.w2(), static_cast<Eigen::Index>(s.classes), rows);
  const ConstVectorMap b2(w + s.b2(), static_cast<Eigen::Index>(s.classes));
  hidden = (x * w1.transpose()).rowwise() + b1;
  return (hidden.cwiseMax(0.0) * w2.transpose()).rowwise() + b2;
}

// Mean cross-entropy + penalty; with `gradient`, its gradient.
double evaluate(const Shape& s, double alpha, const double* w, const Matrix& x, const std::vector<int>& labels,
                double* gradient) {
  const double n = static_cast<double>(labels.size());
  Matrix hidden;
  Matrix scores = forward(s, w, x, hidden);
  double loss = 0;
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const double top = scores.row(i).maxCoeff();
    const double log_normaliser = top + std::log((scores.row(i).array() - top).exp().sum());
    loss += log_normaliser - scores(i, labels[static_cast<std::size_t>(i)]);
    // d loss_i / d z_i = softmax − one-hot, scaled by 1/n.
    scores.row(i) = ((scores.row(i).array() - log_normaliser).exp() / n).matrix();
    scores(i, labels[static_cast<std::size_t>(i)]) -= 1.0 / n;
  }
  const auto rows = static_cast<Eigen::Index>(s.hidden), cols = static_cast<Eigen::Index>(s.inputs);
  const ConstMatrixMap w1(w + s.w1(), rows, cols);
  const ConstMatrixMap w2(w + s.w2(), static_cast<Eigen::Index>(s.classes), rows);
  const double penalty = alpha / n;
  loss = loss / n + 0.5 * penalty * (w1.squaredNorm() + w2.squaredNorm());
  if (!gradient) return loss;
  const Matrix active = hidden.cwiseMax(0.0);
  MatrixMap(gradient + s.w2(), static_cast<Eigen::Index>(s.classes), rows) = scores.transpose() * active + penalty * w2;
  VectorMap(gradient + s.b2(), static_cast<Eigen::Index>(s.classes)) = scores.colwise().sum();
  const Matrix back = ((scores * w2).array() * (hidden.array() > 0.0).cast<double>()).matrix();
  MatrixMap(gradient + s.w1(), rows, cols) = back.transpose() * x + penalty * w1;
  VectorMap(gradient + s.b1(), rows) = back.colwise().sum();
  return loss;
}

struct Problem {
  Shape shape;
  double alpha;
  const Matrix& x;
  const std::vector<int>& labels;
  std::size_t padded;
  int iterations = 0;
};

lbfgsfloatval_t evaluate_lbfgs(void* instance, const lbfgsfloatval_t* w, lbfgsfloatval_t* g, const int,
                               const lbfgsfloatval_t) {
  auto* p = static_cast<Problem*>(instance);
  std::fill(g + p->shape.size(), g + p->padded, 0.0);
  return evaluate(p->shape, p->alpha, w, p->x, p->labels, g);
}

int count_iterations(void* instance, const lbfgsfloatval_t*, const lbfgsfloatval_t*, const lbfgsfloatval_t,
                     const lbfgsfloatval_t, const lbfgsfloatval_t, const lbfgsfloatval_t, int, int k, int) {
  static_cast<Problem*>(instance)->iterations = k;
  return 0;
}

struct LbfgsFree {
  void operator()(lbfgsfloatval_t* x) const { lbfgs_free(x); }
};

// scikit-learn's _init_coef for ReLU: weights and biases uniform in ±sqrt(6 / (fan_in + fan_out)).
void initialise(const Shape& s, std::uint64_t seed, double* w) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](double bound) { return -bound + 2 * bound * static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  const double first = std::sqrt(6.0 / static_cast<double>(s.inputs + s.hidden));
  const double second = std::sqrt(6.0 / static_cast<double>(s.hidden + s.classes));
  for (std::size_t k = s.w1(); k < s.w2(); ++k) w[k] = uniform(first);
  for (std::size_t k = s.w2(); k < s.size(); ++k) w[k] = uniform(second);
}

}  // namespace

void MlpClassifier::fit(const std::vector<std::vector<float>>& rows, const std::vector<int>& labels,
                        std::size_t num_classes, const MlpOptions& options) {
  if (rows.empty()) fail("MLP head: no training rows");
  if (labels.size() != rows.size()) fail("MLP head: {} feature rows, {} labels", rows.size(), labels.size());
  if (num_classes < 2) fail("MLP head needs at least two classes, got {}", num_classes);
  if (options.hidden == 0) fail("MLP head: the hidden layer needs at least one unit");
  if (!(options.alpha >= 0)) fail("MLP head: alpha must be >= 0, got {}", options.alpha);
  if (options.max_iterations < 1) fail("MLP head: max iterations must be >= 1, got {}", options.max_iterations);
  for (int label : labels)
    if (label < 0 || static_cast<std::size_t>(label) >= num_classes)
      fail("MLP head: label {} outside [0, {})", label, num_classes);
  const Shape shape{rows.front().size(), options.hidden, num_classes};
  if (shape.inputs == 0) fail("MLP head: feature rows are empty");
  const Matrix x = to_matrix(rows, shape.inputs);
  // liblbfgs built with SSE wants a multiple of 16 variables in aligned memory: the padding stays 0.
  const std::size_t padded = (shape.size() + 15) / 16 * 16;
  std::unique_ptr<lbfgsfloatval_t, LbfgsFree> w(lbfgs_malloc(static_cast<int>(padded)));
  if (!w) fail("MLP head: cannot allocate {} weights", padded);
  std::fill(w.get(), w.get() + padded, 0.0);
  initialise(shape, options.seed, w.get());

  lbfgs_parameter_t parameters;
  lbfgs_parameter_init(&parameters);
  parameters.epsilon = options.tolerance;
  parameters.max_iterations = options.max_iterations;
  Problem problem{shape, options.alpha, x, labels, padded};
  lbfgsfloatval_t value = 0;
  const int status =
      lbfgs(static_cast<int>(padded), w.get(), &value, evaluate_lbfgs, count_iterations, &problem, &parameters);
  // Running out of iterations or of line-search progress at a kink keeps the last accepted point;
  // only a refusal to start is an error.
  if (status == LBFGSERR_OUTOFMEMORY || status == LBFGSERR_INVALID_N || status == LBFGSERR_INVALID_N_SSE ||
      status == LBFGSERR_INVALID_X_SSE || status == LBFGSERR_INVALIDPARAMETERS)
    fail("MLP head: liblbfgs refused the problem (status {})", status);
  inputs_ = shape.inputs;
  hidden_ = shape.hidden;
  classes_ = shape.classes;
  alpha_ = options.alpha;
  weights_.assign(w.get(), w.get() + shape.size());
  iterations_ = problem.iterations;
}

std::vector<int> MlpClassifier::predict(const std::vector<std::vector<float>>& rows) const {
  if (weights_.empty()) fail("MLP head: predict before fit");
  if (rows.empty()) return {};
  Matrix hidden;
  const Matrix scores = forward({inputs_, hidden_, classes_}, weights_.data(), to_matrix(rows, inputs_), hidden);
  std::vector<int> out;
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    Eigen::Index best = 0;
    scores.row(i).maxCoeff(&best);
    out.push_back(static_cast<int>(best));
  }
  return out;
}

double MlpClassifier::objective(const std::vector<std::vector<float>>& rows, const std::vector<int>& labels) const {
  if (weights_.empty()) fail("MLP head: objective before fit");
  if (labels.size() != rows.size()) fail("MLP head: {} feature rows, {} labels", rows.size(), labels.size());
  return evaluate({inputs_, hidden_, classes_}, alpha_, weights_.data(), to_matrix(rows, inputs_), labels, nullptr);
}

}  // namespace invar::learn
