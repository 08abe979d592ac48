#include "backends/cpu/thread_pool.hpp"

#include <algorithm>

namespace invar::cpu {

namespace {
// Below this much work (≈ element operations) a parallel loop costs more to wake than it saves.
constexpr std::int64_t kMinParallelWork = 1 << 15;

std::pair<std::int64_t, std::int64_t> part(std::int64_t n, int parts, int index) {
  return {n * index / parts, n * (index + 1) / parts};
}
}  // namespace

ThreadPool::ThreadPool(int threads) { start(threads); }

ThreadPool::~ThreadPool() { stop(); }

void ThreadPool::set_threads(int threads) {
  if (std::max(threads, 1) == this->threads()) return;
  stop();
  start(threads);
}

void ThreadPool::start(int threads) {
  stopping_ = false;
  for (int i = 1; i < std::max(threads, 1); ++i) workers_.emplace_back([this, i] { work(i); });
}

void ThreadPool::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

void ThreadPool::work(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    const auto* body = body_;
    const auto [begin, end] = part(n_, threads(), index);
    lock.unlock();
    if (begin < end) (*body)(begin, end);
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

void ThreadPool::parallel_for(std::int64_t n, std::int64_t cost_per_item,
                              const std::function<void(std::int64_t, std::int64_t)>& body) {
  if (n <= 0) return;
  if (workers_.empty() || n == 1 || n * cost_per_item < kMinParallelWork) {
    body(0, n);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    body_ = &body;
    n_ = n;
    pending_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  const auto [begin, end] = part(n, threads(), 0);
  if (begin < end) body(begin, end);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
}

}  // namespace invar::cpu
