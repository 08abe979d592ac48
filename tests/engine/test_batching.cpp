#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "engine/decode/batching.hpp"

namespace invar {
namespace {

TEST(Batching, LongestFirstStableAndComplete) {
  auto batches = length_sorted_batches({3, 7, 3, 1, 7}, 2);
  std::vector<std::vector<std::size_t>> expected{{1, 4}, {0, 2}, {3}};
  EXPECT_EQ(batches, expected);
}

TEST(Batching, TokenCapSizesEachBatchByItsLongestInput) {
  // Sorted lengths 10 10 6 4 3 3 2 1 1: 20 tokens hold two inputs of 10, three of 6, six of 3.
  const std::vector<std::size_t> lengths{3, 10, 1, 6, 2, 10, 4, 3, 1};
  const auto batches = length_sorted_batches(lengths, 4, 20);
  std::vector<std::vector<std::size_t>> expected{{1, 5}, {3, 6, 0}, {7, 4, 2, 8}};
  EXPECT_EQ(batches, expected);  // the last batch could hold 6 inputs of 3 but --batch-size caps it at 4
  std::size_t inputs = 0;
  for (const auto& batch : batches) {
    std::size_t longest = 0;
    for (std::size_t i : batch) longest = std::max(longest, lengths[i]);
    EXPECT_LE(longest * batch.size(), 20u);
    EXPECT_LE(batch.size(), 4u);
    inputs += batch.size();
  }
  EXPECT_EQ(inputs, lengths.size());
}

TEST(Batching, InputLongerThanTheTokenCapIsABatchAlone) {
  std::vector<std::vector<std::size_t>> expected{{1}, {0, 2}};
  EXPECT_EQ(length_sorted_batches({4, 50, 4}, 8, 10), expected);
}

TEST(Batching, NoTokenCapKeepsBatchSize) {
  EXPECT_EQ(length_sorted_batches({3, 7, 3, 1, 7}, 2, 0), length_sorted_batches({3, 7, 3, 1, 7}, 2));
}

TEST(Batching, EmptyInputGivesNoBatch) { EXPECT_TRUE(length_sorted_batches({}, 4).empty()); }

TEST(Batching, ZeroBatchSizeIsAnError) { EXPECT_THROW(length_sorted_batches({1}, 0), Error); }

}  // namespace
}  // namespace invar
