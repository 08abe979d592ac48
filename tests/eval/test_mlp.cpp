// The MLP classifier head of the robustness layer ablation (eval/learn/mlp): it learns cases a linear
// probe cannot, is the same for the same seed, and refuses inconsistent input.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "eval/learn/mlp.hpp"

using namespace invar;
using namespace invar::learn;

namespace {

// XOR: no line separates the classes, one hidden layer does.
std::vector<std::vector<float>> xor_rows() { return {{0, 0}, {0, 1}, {1, 0}, {1, 1}}; }
const std::vector<int> kXor{0, 1, 1, 0};

}  // namespace

TEST(MlpHead, FitsXorWhichNoLinearProbeCan) {
  MlpClassifier head;
  head.fit(xor_rows(), kXor, 2, {.hidden = 8, .alpha = 1e-6, .seed = 3});
  EXPECT_EQ(head.predict(xor_rows()), kXor);
  // Mean cross-entropy of four points all but certain: far below ln 2 (a constant guess).
  EXPECT_LT(head.objective(xor_rows(), kXor), 0.05);
  EXPECT_GT(head.iterations(), 0);
}

TEST(MlpHead, SeparatesThreeClassesAndGeneralises) {
  // Three clusters on a line; points between the training ones are classified by their side.
  const std::vector<std::vector<float>> train{{-3}, {-2.5}, {-2}, {0}, {0.5}, {-0.5}, {2}, {2.5}, {3}};
  const std::vector<int> labels{0, 0, 0, 1, 1, 1, 2, 2, 2};
  MlpClassifier head;
  head.fit(train, labels, 3, {.hidden = 16, .alpha = 1e-4, .seed = 0});
  EXPECT_EQ(head.predict(train), labels);
  EXPECT_EQ(head.predict({{-4}, {0.2f}, {4}}), (std::vector<int>{0, 1, 2}));
}

TEST(MlpHead, SameSeedSameHead) {
  MlpClassifier a, b, c;
  a.fit(xor_rows(), kXor, 2, {.hidden = 4, .seed = 11, .max_iterations = 5});
  b.fit(xor_rows(), kXor, 2, {.hidden = 4, .seed = 11, .max_iterations = 5});
  c.fit(xor_rows(), kXor, 2, {.hidden = 4, .seed = 12, .max_iterations = 5});
  EXPECT_EQ(a.objective(xor_rows(), kXor), b.objective(xor_rows(), kXor));  // bit for bit
  EXPECT_NE(a.objective(xor_rows(), kXor), c.objective(xor_rows(), kXor));
  EXPECT_LE(a.iterations(), 5);
}

TEST(MlpHead, RefusesInconsistentInput) {
  MlpClassifier head;
  EXPECT_THROW(head.predict(xor_rows()), Error);
  EXPECT_THROW(head.fit({}, {}, 2, {}), Error);
  EXPECT_THROW(head.fit(xor_rows(), {0, 1}, 2, {}), Error);
  EXPECT_THROW(head.fit(xor_rows(), {0, 1, 2, 0}, 2, {}), Error);
  EXPECT_THROW(head.fit(xor_rows(), kXor, 1, {}), Error);
  EXPECT_THROW(head.fit({{0, 0}, {1}}, {0, 1}, 2, {}), Error);
  EXPECT_THROW(head.fit(xor_rows(), kXor, 2, {.hidden = 0}), Error);
  head.fit(xor_rows(), kXor, 2, {.hidden = 2, .max_iterations = 1});
  EXPECT_THROW(head.predict({{0, 0, 0}}), Error);
}
