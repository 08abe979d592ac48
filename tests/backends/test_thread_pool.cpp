// The CPU backend's thread pool (backends/cpu/thread_pool.hpp): every loop covers its range exactly
// once, however quickly loops follow each other (its workers spin between loops, then sleep), after
// the pool has slept, and after its thread count changes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "backends/cpu/thread_pool.hpp"

namespace invar::cpu {
namespace {

// Runs one loop of n items on the pool and checks that each item ran once, on ranges in order.
void expect_each_item_once(ThreadPool& pool, std::int64_t n) {
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
  pool.parallel_for(n, 1 << 15, [&](std::int64_t begin, std::int64_t end) {
    ASSERT_LE(0, begin);
    ASSERT_LT(begin, end);
    ASSERT_LE(end, n);
    for (std::int64_t i = begin; i < end; ++i) ++hits[static_cast<std::size_t>(i)];
  });
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << "item " << i;
}

TEST(ThreadPool, BackToBackLoopsCoverEachItemOnce) {
  for (int threads : {2, 3, 8}) {
    ThreadPool pool(threads);
    for (int loop = 0; loop < 3000; ++loop) expect_each_item_once(pool, 1 + loop % 17);
  }
}

TEST(ThreadPool, LoopsAfterTheWorkersSleptStillRun) {
  ThreadPool pool(2);
  for (int loop = 0; loop < 5; ++loop) {
    // Far past the spin: the workers are asleep on the condition variable when the loop comes.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    expect_each_item_once(pool, 64);
  }
}

// A pool told not to spin (the CPU backend's from 4 threads on, beside oneDNN's OpenMP team)
// sleeps between loops and still covers every item; the setting follows set_threads.
TEST(ThreadPool, APoolThatDoesNotSpinStillCoversEachItemOnce) {
  ThreadPool pool(2, false);
  EXPECT_FALSE(pool.spinning());
  for (int loop = 0; loop < 300; ++loop) expect_each_item_once(pool, 1 + loop % 17);
  pool.set_threads(2, true);
  EXPECT_EQ(pool.spinning(), std::thread::hardware_concurrency() >= 2);
  pool.set_threads(2, false);
  EXPECT_FALSE(pool.spinning());
  for (int loop = 0; loop < 300; ++loop) expect_each_item_once(pool, 1 + loop % 17);
}

TEST(ThreadPool, UsesEveryThread) {
  ThreadPool pool(2);
  std::atomic<int> inside{0}, most{0};
  pool.parallel_for(2, 1 << 15, [&](std::int64_t, std::int64_t) {
    const int now = ++inside;
    for (int seen = most.load(); seen < now && !most.compare_exchange_weak(seen, now);) {
    }
    // Both halves must be running at once for the loop to end before the deadline.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (most.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    --inside;
  });
  EXPECT_EQ(most.load(), 2);
}

// New workers wait for the next loop: they must not run the loop the pool ran before its thread
// count changed (its body is gone by then).
TEST(ThreadPool, ChangingTheThreadCountKeepsLoopsExact) {
  ThreadPool pool(2);
  for (int loop = 0; loop < 10; ++loop) expect_each_item_once(pool, 100);
  for (int threads : {3, 1, 4, 2}) {
    pool.set_threads(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int loop = 0; loop < 200; ++loop) expect_each_item_once(pool, 1 + loop % 9);
  }
}

TEST(ThreadPool, SmallLoopsRunOnTheCallingThread) {
  ThreadPool pool(4);
  const auto caller = std::this_thread::get_id();
  pool.parallel_for(8, 1, [&](std::int64_t begin, std::int64_t end) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 8);
  });
}

}  // namespace
}  // namespace invar::cpu
