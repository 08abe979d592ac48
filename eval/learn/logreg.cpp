#include "eval/learn/logreg.hpp"

#include <linear.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

#include "core/error.hpp"
#include "eval/learn/lbfgs_logreg.hpp"

namespace invar::learn {

std::vector<double> balanced_class_weights(const std::vector<int>& labels, std::size_t num_classes) {
  std::vector<std::size_t> counts(num_classes, 0);
  for (int label : labels) ++counts.at(static_cast<std::size_t>(label));
  std::vector<double> weights(num_classes, 0.0);
  for (std::size_t k = 0; k < num_classes; ++k)
    if (counts[k] > 0)
      weights[k] = static_cast<double>(labels.size()) / (static_cast<double>(num_classes) * static_cast<double>(counts[k]));
  return weights;
}

std::vector<double> LogisticRegression::sample_weights(const std::vector<int>& labels) const {
  std::vector<double> weights;
  weights.reserve(labels.size());
  for (int label : labels) weights.push_back(class_weights_.at(static_cast<std::size_t>(label)));
  return weights;
}

namespace {

void silent(const char*) {}

struct ModelDeleter {
  void operator()(model* m) const { free_and_destroy_model(&m); }
};

}  // namespace

void LogisticRegression::fit(const SparseMatrix& features, const std::vector<int>& labels, std::size_t num_classes,
                             const LogisticRegressionOptions& options) {
  const std::size_t n = features.rows();
  if (labels.size() != n) fail("logistic regression: {} feature rows but {} labels", n, labels.size());
  if (num_classes < 2) fail("logistic regression needs at least two classes, got {}", num_classes);
  if (!(options.C > 0)) fail("logistic regression: C must be positive, got {}", options.C);
  std::vector<std::size_t> counts(num_classes, 0);
  for (int label : labels) {
    if (label < 0 || static_cast<std::size_t>(label) >= num_classes)
      fail("logistic regression: label {} outside [0, {})", label, num_classes);
    ++counts[static_cast<std::size_t>(label)];
  }
  for (std::size_t k = 0; k < num_classes; ++k)
    if (counts[k] == 0) fail("logistic regression: class {} has no training sample", k);

  class_weights_ = options.class_weight == ClassWeighting::Balanced ? balanced_class_weights(labels, num_classes)
                                                                    : std::vector<double>(num_classes, 1.0);
  num_classes_ = num_classes;
  num_features_ = features.cols;
  softmax_ = options.solver == LogisticSolver::Lbfgs && num_classes > 2;
  if (options.solver == LogisticSolver::Lbfgs) {
    auto solution = fit_logistic_lbfgs(features, labels, num_classes, sample_weights(labels), options.C,
                                       options.fit_intercept, options.tolerance);
    weights_ = std::move(solution.weights);
    intercepts_ = std::move(solution.intercepts);
  } else {
    fit_liblinear(features, labels, options);
  }
}

void LogisticRegression::fit_liblinear(const SparseMatrix& features, const std::vector<int>& labels,
                                       const LogisticRegressionOptions& options) {
  const std::size_t n = features.rows();
  const std::size_t num_classes = num_classes_;
  // liblinear wants 1-based feature indices, the bias as one more feature, and a -1 terminator.
  const int bias_index = static_cast<int>(features.cols) + 1;
  std::vector<feature_node> nodes;
  nodes.reserve(features.values.size() + 2 * n);
  std::vector<std::size_t> starts;
  for (std::size_t r = 0; r < n; ++r) {
    starts.push_back(nodes.size());
    for (std::size_t e = features.row_offsets[r]; e < features.row_offsets[r + 1]; ++e)
      nodes.push_back({static_cast<int>(features.indices[e]) + 1, features.values[e]});
    if (options.fit_intercept) nodes.push_back({bias_index, 1.0});
    nodes.push_back({-1, 0.0});
  }
  std::vector<feature_node*> rows;
  for (auto start : starts) rows.push_back(nodes.data() + start);
  std::vector<double> y(labels.begin(), labels.end());

  problem prob{};
  prob.l = static_cast<int>(n);
  prob.n = static_cast<int>(features.cols) + (options.fit_intercept ? 1 : 0);
  prob.y = y.data();
  prob.x = rows.data();
  prob.bias = options.fit_intercept ? 1.0 : -1.0;

  std::vector<int> weight_labels(num_classes);
  for (std::size_t k = 0; k < num_classes; ++k) weight_labels[k] = static_cast<int>(k);
  std::vector<double> weights = class_weights_;
  parameter param{};
  param.solver_type = L2R_LR;
  param.eps = options.tolerance;
  param.C = options.C;
  param.nr_weight = static_cast<int>(num_classes);
  param.weight_label = weight_labels.data();
  param.weight = weights.data();
  param.p = 0.1;
  param.init_sol = nullptr;
  if (const char* problem_text = check_parameter(&prob, &param)) fail("liblinear: {}", problem_text);

  static std::once_flag quiet;
  std::call_once(quiet, [] { set_print_string_function(silent); });
  std::unique_ptr<model, ModelDeleter> trained(train(&prob, &param));
  if (!trained) fail("liblinear: training failed");

  // liblinear orders classes by first appearance; map its weight layout back to class indices.
  const auto d = static_cast<std::size_t>(prob.n);
  const std::size_t subproblems = num_classes == 2 ? 1 : num_classes;
  weights_.assign(subproblems, std::vector<double>(features.cols, 0.0));
  intercepts_.assign(subproblems, 0.0);
  auto weight_at = [&](std::size_t feature, std::size_t column) {
    return subproblems == 1 ? trained->w[feature] : trained->w[feature * num_classes + column];
  };
  for (std::size_t column = 0; column < subproblems; ++column) {
    std::size_t target = static_cast<std::size_t>(trained->label[column]);
    // Binary: liblinear's single vector scores its first label; ours scores class 1.
    double sign = subproblems == 1 && target == 0 ? -1.0 : 1.0;
    std::size_t row = subproblems == 1 ? 0 : target;
    for (std::size_t f = 0; f < features.cols; ++f) weights_[row][f] = sign * weight_at(f, column);
    if (options.fit_intercept) intercepts_[row] = sign * weight_at(d - 1, column);
  }
}

std::vector<double> LogisticRegression::decision_function(const SparseMatrix& features, std::size_t row) const {
  std::vector<double> scores = intercepts_;
  for (std::size_t k = 0; k < weights_.size(); ++k) {
    for (std::size_t e = features.row_offsets[row]; e < features.row_offsets[row + 1]; ++e) {
      std::size_t column = features.indices[e];
      if (column < num_features_) scores[k] += weights_[k][column] * features.values[e];
    }
  }
  return scores;
}

std::vector<std::vector<double>> LogisticRegression::predict_proba(const SparseMatrix& features) const {
  std::vector<std::vector<double>> probabilities;
  for (std::size_t r = 0; r < features.rows(); ++r) {
    auto scores = decision_function(features, r);
    std::vector<double> p;
    if (num_classes_ == 2) {
      double positive = 1.0 / (1.0 + std::exp(-scores[0]));
      p = {1.0 - positive, positive};
    } else if (softmax_) {
      const double top = *std::max_element(scores.begin(), scores.end());
      double total = 0;
      for (double s : scores) {
        p.push_back(std::exp(s - top));
        total += p.back();
      }
      for (double& value : p) value /= total;
    } else {
      double total = 0;
      for (double s : scores) {
        p.push_back(1.0 / (1.0 + std::exp(-s)));
        total += p.back();
      }
      for (double& value : p) value /= total;
    }
    probabilities.push_back(std::move(p));
  }
  return probabilities;
}

std::vector<int> LogisticRegression::predict(const SparseMatrix& features) const {
  std::vector<int> labels;
  for (std::size_t r = 0; r < features.rows(); ++r) {
    auto scores = decision_function(features, r);
    if (num_classes_ == 2) labels.push_back(scores[0] > 0 ? 1 : 0);
    else labels.push_back(static_cast<int>(std::max_element(scores.begin(), scores.end()) - scores.begin()));
  }
  return labels;
}

}  // namespace invar::learn
