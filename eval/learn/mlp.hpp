#pragma once
// A classifier head with one hidden layer, as the robustness paper trains on a frozen encoder
// (La Malfa & Kwiatkowska 2022: flattened token states → Linear → ReLU → Linear → softmax, NLL
// loss): z = W2 relu(W1 x + b1) + b2, K = number of classes outputs. The objective is scikit-learn's
// MLPClassifier(activation="relu", solver="lbfgs") for K softmax outputs:
//   F = 1/n sum_i (logsumexp_k z_ik − z_{i,y_i}) + alpha / (2n) (|W1|^2 + |W2|^2)
// minimised with Debian's liblbfgs (full batch; the paper's AdamW and dropout are not reproduced).
// The weights start as scikit-learn's: uniform in ±sqrt(6 / (fan_in + fan_out)) per layer, biases
// too, drawn from a Mersenne Twister (mt19937_64) seeded with `seed` through 53-bit fractions, the
// same on every platform. F is not convex: another seed may give another head.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace invar::learn {

struct MlpOptions {
  std::size_t hidden = 256;  // the paper's head width
  double alpha = 1e-4;       // L2 strength (scikit-learn's default)
  std::uint64_t seed = 0;
  int max_iterations = 200;  // scikit-learn's max_iter for lbfgs
  double tolerance = 1e-5;   // liblbfgs' gradient test: |g| <= tolerance max(1, |x|)
};

class MlpClassifier {
 public:
  // rows: n dense feature rows of one width; labels in [0, num_classes). Fails on inconsistent
  // input; stops at max_iterations or when liblbfgs can make no more progress (a ReLU network's
  // objective has kinks), keeping the last accepted point.
  void fit(const std::vector<std::vector<float>>& rows, const std::vector<int>& labels, std::size_t num_classes,
           const MlpOptions& options);
  // The arg-max class of each row (the lowest index on a tie).
  std::vector<int> predict(const std::vector<std::vector<float>>& rows) const;
  // F above at the fitted weights, on the given rows.
  double objective(const std::vector<std::vector<float>>& rows, const std::vector<int>& labels) const;
  int iterations() const { return iterations_; }

 private:
  std::size_t inputs_ = 0, hidden_ = 0, classes_ = 0;
  double alpha_ = 0;
  std::vector<double> weights_;  // W1 (hidden × inputs), b1, W2 (classes × hidden), b2
  int iterations_ = 0;
};

}  // namespace invar::learn
