#include <gtest/gtest.h>

#include "core/error.hpp"
#include "engine/decode/batching.hpp"

namespace invar {
namespace {

TEST(Batching, LongestFirstStableAndComplete) {
  auto batches = length_sorted_batches({3, 7, 3, 1, 7}, 2);
  std::vector<std::vector<std::size_t>> expected{{1, 4}, {0, 2}, {3}};
  EXPECT_EQ(batches, expected);
}

TEST(Batching, EmptyInputGivesNoBatch) { EXPECT_TRUE(length_sorted_batches({}, 4).empty()); }

TEST(Batching, ZeroBatchSizeIsAnError) { EXPECT_THROW(length_sorted_batches({1}, 0), Error); }

}  // namespace
}  // namespace invar
