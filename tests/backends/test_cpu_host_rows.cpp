// The CPU backend's work spread over its own threads: parallel_rows (a search step's rows) reaches
// every row exactly once for any thread count.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"

namespace invar {
namespace {

TEST(CpuHostRows, ParallelRowsReachesEveryRowOnce) {
  for (int threads : {1, 2, 3, 5}) {
    const auto backend = make_cpu_backend({.threads = threads});
    for (std::int64_t n : {0, 1, 2, 7, 80}) {
      std::vector<std::atomic<int>> visits(static_cast<std::size_t>(n));
      backend->parallel_rows(n, [&](std::int64_t begin, std::int64_t end) {
        ASSERT_LE(0, begin);
        ASSERT_LE(begin, end);
        ASSERT_LE(end, n);
        for (std::int64_t i = begin; i < end; ++i) ++visits[static_cast<std::size_t>(i)];
      });
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_EQ(visits[static_cast<std::size_t>(i)], 1) << threads << " threads, row " << i << " of " << n;
    }
  }
}

}  // namespace
}  // namespace invar
