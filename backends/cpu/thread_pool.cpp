#include "backends/cpu/thread_pool.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <system_error>

#include "core/error.hpp"

namespace invar::cpu {

namespace {
// Below this much work (≈ element operations) a parallel loop costs more to wake than it saves.
constexpr std::int64_t kMinParallelWork = 1 << 15;

std::pair<std::int64_t, std::int64_t> part(std::int64_t n, int parts, int index) {
  return {n * index / parts, n * (index + 1) / parts};
}

// The limits that make thread creation fail, as the user would raise them.
std::string thread_limits() {
  std::string found;
  rlimit limit{};
  if (getrlimit(RLIMIT_NPROC, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    found += fmt::format("; this user may run at most {} processes and threads (RLIMIT_NPROC, ulimit -u)",
                         static_cast<unsigned long long>(limit.rlim_cur));
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    found += fmt::format("; the address space is capped at {} MiB, which every thread's stack takes from "
                         "(RLIMIT_AS, ulimit -v)",
                         static_cast<unsigned long long>(limit.rlim_cur >> 20));
  return found.empty() ? "; no process or address-space limit is set (the system's thread limit or memory ran out)"
                       : found;
}
}  // namespace

void require_thread_budget(int threads, std::int64_t more) {
  rlimit limit{};
  // Root (CAP_SYS_RESOURCE) is not held to the limit.
  if (getrlimit(RLIMIT_NPROC, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || geteuid() == 0) return;
  std::ifstream status("/proc/self/status");
  std::int64_t running = 1;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Threads:", 0) == 0) running = std::stoll(line.substr(8));
  }
  const auto allowed = static_cast<unsigned long long>(limit.rlim_cur);
  if (static_cast<unsigned long long>(running + more) > allowed)
    fail("--threads {} needs up to {} more threads (the CPU pool's, OpenMP's and OpenBLAS's) beside the {} this "
         "process runs; this user may run at most {} processes and threads (RLIMIT_NPROC, ulimit -u); use fewer "
         "threads",
         threads, more, running, allowed);
}

ThreadPool::ThreadPool(int threads) { start(threads); }

ThreadPool::~ThreadPool() { stop(); }

void ThreadPool::set_threads(int threads) {
  if (std::max(threads, 1) == this->threads()) return;
  stop();
  start(threads);
}

void ThreadPool::start(int threads) {
  stopping_ = false;
  threads = std::max(threads, 1);
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) {
    try {
      workers_.emplace_back([this, i] { work(i); });
    } catch (const std::system_error& e) {
      // The workers already started wait on this pool's condition variables: join them before the
      // error unwinds the pool, or destroying those variables blocks forever.
      stop();
      fail("cannot start {} CPU threads (--threads {}): the system refused thread {} ({}){}; use fewer threads",
           threads, threads, i + 1, e.code().message(), thread_limits());
    }
  }
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
