#pragma once
// L2-regularised logistic regression, one of two problems:
//   LogisticSolver::Liblinear — scikit-learn's LogisticRegression(solver="liblinear"), trained with
//     liblinear (L2R_LR, trust-region Newton); the objective is below.
//   LogisticSolver::Lbfgs — scikit-learn's solvers lbfgs/saga/sag/newton-cg (multi_class="auto"):
//     unpenalised intercept, multinomial for K > 2 classes (eval/learn/lbfgs_logreg.hpp), solved to its
//     optimum with liblbfgs; probabilities sigmoid (binary) or softmax.
//
// The liblinear problem:
// Objective (w = weights, b = intercept, x_i = feature row, y_i = +-1, s_i = class weight of sample i):
//   binary:      F = 1/2 (|w|^2 + b^2) + sum_i C s_i ln(1 + exp(-y_i (w.x_i + b)))
//   K > 2 classes, one-vs-rest as liblinear does it: for each class k a binary problem with y_ik = +1
//   for the samples of class k and -1 for all others, and
//                F_k = 1/2 (|w_k|^2 + b_k^2) + sum_i C_ik ln(1 + exp(-y_ik (w_k.x_i + b_k)))
//   where C_ik = C weight(k) for samples of class k but plain C for the others (liblinear weights only
//   the positive class of each subproblem).
// The intercept is a constant feature 1 and therefore regularised (liblinear's bias = 1, sklearn's
// intercept_scaling = 1). Probabilities: binary sigmoid(w.x + b); K classes the K sigmoids divided by
// their sum. Training is deterministic (no random permutation in L2R_LR).
#include <cstddef>
#include <vector>

#include "eval/learn/sparse.hpp"

namespace invar::learn {

enum class ClassWeighting { None, Balanced };
enum class LogisticSolver { Liblinear, Lbfgs };

struct LogisticRegressionOptions {
  double C = 1.0;
  ClassWeighting class_weight = ClassWeighting::None;
  LogisticSolver solver = LogisticSolver::Liblinear;
  // liblinear's eps (sklearn's tol): stop when |grad F| <= eps' |grad F(0)|; L-BFGS: when
  // |grad| <= tolerance max(1, |x|) on F / (C n).
  double tolerance = 1e-4;
  bool fit_intercept = true;
};

// "balanced": n / (K * count of the class), as sklearn's compute_class_weight.
std::vector<double> balanced_class_weights(const std::vector<int>& labels, std::size_t num_classes);

class LogisticRegression {
 public:
  // labels are class indices in [0, num_classes); every class must occur at least once.
  void fit(const SparseMatrix& features, const std::vector<int>& labels, std::size_t num_classes,
           const LogisticRegressionOptions& options);

  std::size_t num_classes() const { return num_classes_; }
  // liblinear: one weight row per binary subproblem: a single row (class 1 vs class 0) for two classes,
  // otherwise row k = class k vs the rest. L-BFGS: one row for two classes, else row k = class k's
  // softmax score. intercepts() has one entry per row.
  const std::vector<std::vector<double>>& weights() const { return weights_; }
  const std::vector<double>& intercepts() const { return intercepts_; }
  const std::vector<double>& class_weights() const { return class_weights_; }
  // Weight of each training sample (its class's weight) in the last fit.
  std::vector<double> sample_weights(const std::vector<int>& labels) const;

  // w.x + b per row of weights(); features beyond those fitted are ignored.
  std::vector<double> decision_function(const SparseMatrix& features, std::size_t row) const;
  std::vector<std::vector<double>> predict_proba(const SparseMatrix& features) const;
  // Binary: class 1 when w.x + b > 0; K classes: the first class with the largest decision value.
  std::vector<int> predict(const SparseMatrix& features) const;

 private:
  void fit_liblinear(const SparseMatrix& features, const std::vector<int>& labels, const LogisticRegressionOptions& options);

  bool softmax_ = false;
  std::size_t num_classes_ = 0;
  std::size_t num_features_ = 0;
  std::vector<std::vector<double>> weights_;
  std::vector<double> intercepts_;
  std::vector<double> class_weights_;
};

}  // namespace invar::learn
