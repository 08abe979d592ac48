// Logistic regression checked by its objective, computed here independently of liblinear:
// F = 1/2 (|w|^2 + b^2) + sum_i C_i ln(1 + exp(-y_i (w.x_i + b))), the intercept regularised.
// A solution is accepted when the gradient of F is tiny compared with the gradient at zero and F
// does not decrease at nearby points.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "eval/learn/logreg.hpp"

using namespace invar;

namespace {

struct Dataset {
  learn::SparseMatrix X;
  std::vector<int> y;
};

// Two overlapping clouds in 3 dimensions (plus a sparse, mostly-zero fourth feature), imbalanced 2:1.
Dataset overlapping(std::size_t classes) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 1.0);
  Dataset data;
  data.X.cols = 4;
  for (int i = 0; i < 90; ++i) {
    int label = static_cast<int>(static_cast<std::size_t>(i) % (classes + 1)) % static_cast<int>(classes);
    std::vector<std::pair<std::uint32_t, double>> row;
    for (std::uint32_t f = 0; f < 3; ++f) row.emplace_back(f, noise(rng) + (f == static_cast<std::uint32_t>(label) ? 1.0 : 0.0));
    if (i % 5 == 0) row.emplace_back(3, 0.5);
    data.X.add_row(row);
    data.y.push_back(label);
  }
  return data;
}

struct Objective {
  double value = 0;
  std::vector<double> gradient;  // weights then intercept
};

// One binary subproblem: `positive` marks y = +1, cost[i] the C_i of each sample.
Objective binary_objective(const learn::SparseMatrix& X, const std::vector<bool>& positive, const std::vector<double>& cost,
                           const std::vector<double>& w, double b) {
  Objective result;
  result.gradient.assign(w.size() + 1, 0.0);
  for (std::size_t f = 0; f < w.size(); ++f) {
    result.value += 0.5 * w[f] * w[f];
    result.gradient[f] = w[f];
  }
  result.value += 0.5 * b * b;
  result.gradient[w.size()] = b;
  for (std::size_t i = 0; i < X.rows(); ++i) {
    double z = b;
    for (std::size_t e = X.row_offsets[i]; e < X.row_offsets[i + 1]; ++e) z += w[X.indices[e]] * X.values[e];
    double y = positive[i] ? 1.0 : -1.0;
    result.value += cost[i] * std::log1p(std::exp(-y * z));
    double slope = cost[i] * -y / (1.0 + std::exp(y * z));  // d/dz of C ln(1 + exp(-y z))
    for (std::size_t e = X.row_offsets[i]; e < X.row_offsets[i + 1]; ++e) result.gradient[X.indices[e]] += slope * X.values[e];
    result.gradient[w.size()] += slope;
  }
  return result;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

void expect_minimum(const learn::SparseMatrix& X, const std::vector<bool>& positive, const std::vector<double>& cost,
                    const std::vector<double>& w, double b) {
  auto at_solution = binary_objective(X, positive, cost, w, b);
  auto at_zero = binary_objective(X, positive, cost, std::vector<double>(w.size(), 0.0), 0.0);
  EXPECT_LT(at_solution.value, at_zero.value);
  EXPECT_LT(max_abs(at_solution.gradient), 1e-6 * max_abs(at_zero.gradient));
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> step(-1e-3, 1e-3);
  for (int trial = 0; trial < 20; ++trial) {
    auto moved = w;
    for (double& value : moved) value += step(rng);
    EXPECT_GE(binary_objective(X, positive, cost, moved, b + step(rng)).value, at_solution.value);
  }
}

}  // namespace

TEST(LogisticRegression, BalancedWeightsAreNOverKCount) {
  auto weights = learn::balanced_class_weights({0, 0, 0, 1, 2, 2}, 3);
  EXPECT_DOUBLE_EQ(weights[0], 6.0 / 9.0);
  EXPECT_DOUBLE_EQ(weights[1], 2.0);
  EXPECT_DOUBLE_EQ(weights[2], 1.0);
}

TEST(LogisticRegression, BinarySolutionMinimisesTheObjective) {
  auto data = overlapping(2);
  for (auto weighting : {learn::ClassWeighting::None, learn::ClassWeighting::Balanced}) {
    learn::LogisticRegression model;
    model.fit(data.X, data.y, 2, {.C = 0.7, .class_weight = weighting, .tolerance = 1e-10});
    ASSERT_EQ(model.weights().size(), 1u);
    std::vector<bool> positive;
    std::vector<double> cost;
    for (int label : data.y) {
      positive.push_back(label == 1);
      cost.push_back(0.7 * model.class_weights()[static_cast<std::size_t>(label)]);
    }
    expect_minimum(data.X, positive, cost, model.weights()[0], model.intercepts()[0]);
    auto p = model.predict_proba(data.X);
    auto labels = model.predict(data.X);
    for (std::size_t i = 0; i < p.size(); ++i) {
      double z = model.decision_function(data.X, i)[0];
      EXPECT_NEAR(p[i][1], 1.0 / (1.0 + std::exp(-z)), 1e-15);
      EXPECT_NEAR(p[i][0] + p[i][1], 1.0, 1e-15);
      EXPECT_EQ(labels[i], z > 0 ? 1 : 0);
    }
  }
}

TEST(LogisticRegression, OneVsRestWeightsOnlyThePositiveClass) {
  auto data = overlapping(3);
  learn::LogisticRegression model;
  model.fit(data.X, data.y, 3, {.C = 2.0, .class_weight = learn::ClassWeighting::Balanced, .tolerance = 1e-10});
  ASSERT_EQ(model.weights().size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    std::vector<bool> positive;
    std::vector<double> cost;
    for (int label : data.y) {
      positive.push_back(static_cast<std::size_t>(label) == k);
      cost.push_back(static_cast<std::size_t>(label) == k ? 2.0 * model.class_weights()[k] : 2.0);
    }
    expect_minimum(data.X, positive, cost, model.weights()[k], model.intercepts()[k]);
  }
  auto p = model.predict_proba(data.X);
  auto labels = model.predict(data.X);
  for (std::size_t i = 0; i < p.size(); ++i) {
    auto z = model.decision_function(data.X, i);
    double total = 0;
    for (double s : z) total += 1.0 / (1.0 + std::exp(-s));
    for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(p[i][k], 1.0 / (1.0 + std::exp(-z[k])) / total, 1e-15);
    EXPECT_EQ(labels[i], std::max_element(z.begin(), z.end()) - z.begin());
  }
}

TEST(LogisticRegression, SeparableToySetIsLearnt) {
  // Class = which of three sparse features is present; a fourth feature is noise shared by all.
  learn::SparseMatrix X;
  X.cols = 4;
  std::vector<int> y;
  for (int i = 0; i < 30; ++i) {
    int label = i % 3;
    X.add_row({{static_cast<std::uint32_t>(label), 1.0}, {3, 0.1 * (i % 4)}});
    y.push_back(label);
  }
  learn::LogisticRegression model;
  model.fit(X, y, 3, {.C = 10.0});
  EXPECT_EQ(model.predict(X), y);
  learn::SparseMatrix unseen;
  unseen.cols = 4;
  unseen.add_row({{2, 0.8}});
  unseen.add_row({{0, 1.0}, {3, 0.3}});
  EXPECT_EQ(model.predict(unseen), (std::vector<int>{2, 0}));

  std::vector<int> binary;
  for (int label : y) binary.push_back(label == 2 ? 1 : 0);
  learn::LogisticRegression two;
  two.fit(X, binary, 2, {.C = 10.0});
  EXPECT_EQ(two.predict(X), binary);
}

TEST(LogisticRegression, RejectsBadTrainingData) {
  learn::SparseMatrix X;
  X.cols = 1;
  X.add_row({{0, 1.0}});
  X.add_row({{0, -1.0}});
  learn::LogisticRegression model;
  EXPECT_THROW(model.fit(X, {0, 0}, 2, {}), Error);      // class 1 never occurs
  EXPECT_THROW(model.fit(X, {0, 1, 1}, 2, {}), Error);   // label count differs from rows
  EXPECT_THROW(model.fit(X, {0, 1}, 2, {.C = 0.0}), Error);
}
