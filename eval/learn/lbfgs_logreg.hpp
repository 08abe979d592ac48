#pragma once
// The L2 logistic regression of scikit-learn's LogisticRegression with solver "lbfgs", "saga",
// "newton-cg" or "sag" (multi_class="auto"): the intercept is NOT penalised, and K > 2 classes are one
// multinomial (softmax) problem. With s_i the weight of sample i (class_weight) and z = W x + b:
//   binary (one row w):  F = C sum_i s_i ln(1 + exp(-y_i z_i)) + 1/2 |w|^2,  y_i = +-1
//   K > 2 (K rows):      F = C sum_i s_i (logsumexp_k z_ik - z_{i,y_i}) + 1/2 |W|_F^2
// Every one of these solvers converges to the same optimum; it is the only reproducible target (saga's
// iterate depends on its random row order). Solved here with Debian's liblbfgs (Nocedal's L-BFGS with
// a More-Thuente line search) on F / (C n), which has the same minimiser and a scale-free gradient.
#include <cstddef>
#include <vector>

#include "eval/learn/sparse.hpp"

namespace invar::learn {

struct LinearScores {
  std::vector<std::vector<double>> weights;  // one row (binary) or K rows
  std::vector<double> intercepts;            // one per row
  int iterations = 0;
};

// labels in [0, num_classes); sample_weights per sample. Stops when |grad| <= tolerance max(1, |x|)
// on the scaled objective; fails when liblbfgs stops away from the optimum.
LinearScores fit_logistic_lbfgs(const SparseMatrix& features, const std::vector<int>& labels,
                                std::size_t num_classes, const std::vector<double>& sample_weights, double C,
                                bool fit_intercept, double tolerance);

// F above (in its C-scaled form, as the goldens state it) at a given solution.
double logistic_objective(const SparseMatrix& features, const std::vector<int>& labels, std::size_t num_classes,
                          const std::vector<double>& sample_weights, double C, const LinearScores& solution);

}  // namespace invar::learn
