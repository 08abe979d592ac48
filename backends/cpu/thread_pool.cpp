#include "backends/cpu/thread_pool.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <system_error>

#include "core/error.hpp"

namespace invar::cpu {

namespace {
// Below this much work (≈ element operations) a parallel loop costs more to wake than it saves.
constexpr std::int64_t kMinParallelWork = 1 << 15;
// How long a thread that waits spins before it sleeps (see thread_pool.hpp): longer than the host
// work between two loops of a pass, short beside the time a process takes to read its next input.
constexpr std::chrono::microseconds kSpin{100};

void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

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

ThreadPool::ThreadPool(int threads, bool spin) { start(threads, spin); }

ThreadPool::~ThreadPool() { stop(); }

void ThreadPool::set_threads(int threads, bool spin) {
  if (std::max(threads, 1) == this->threads() && spinning_ == (spin && spins_on_cores(threads))) return;
  stop();
  start(threads, spin);
}

bool ThreadPool::spins_on_cores(int threads) {
  return std::max(threads, 1) <= static_cast<int>(std::thread::hardware_concurrency());
}

void ThreadPool::start(int threads, bool spin) {
  stopping_ = false;
  threads = std::max(threads, 1);
  spinning_ = spin && spins_on_cores(threads);
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  // New workers wait for the next loop, not one an earlier set of workers already ran.
  const std::uint64_t seen = generation_.load();
  for (int i = 1; i < threads; ++i) {
    try {
      workers_.emplace_back([this, i, seen] { work(i, seen); });
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

template <typename Done>
void ThreadPool::wait_until(Done done, std::condition_variable& wake, std::atomic<int>& sleepers) {
  if (spinning_) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 1;; ++i) {
      if (done()) return;
      spin_pause();
      if (i % 64 == 0 && std::chrono::steady_clock::now() > until) break;
    }
  }
  std::unique_lock<std::mutex> lock(mutex_);
  // Counted before done() is checked under the lock: a notifier that changed the state after this
  // check reads sleepers ≥ 1 and takes the mutex, which this thread holds until it sleeps.
  ++sleepers;
  wake.wait(lock, done);
  --sleepers;
}

void ThreadPool::notify(std::condition_variable& wake, std::atomic<int>& sleepers) {
  if (sleepers.load() == 0) return;
  { std::lock_guard<std::mutex> lock(mutex_); }
  wake.notify_all();
}

void ThreadPool::work(int index, std::uint64_t seen) {
  for (;;) {
    wait_until([&] { return stopping_.load() || generation_.load() != seen; }, wake_, sleeping_workers_);
    if (stopping_) return;
    seen = generation_.load();
    const auto [begin, end] = part(n_, threads(), index);
    if (begin < end) (*body_)(begin, end);
    if (--pending_ == 0) notify(done_, sleeping_caller_);
  }
}

void ThreadPool::parallel_for(std::int64_t n, std::int64_t cost_per_item,
                              const std::function<void(std::int64_t, std::int64_t)>& body) {
  if (n <= 0) return;
  if (workers_.empty() || n == 1 || n * cost_per_item < kMinParallelWork) {
    body(0, n);
    return;
  }
  body_ = &body;
  n_ = n;
  pending_ = static_cast<int>(workers_.size());
  ++generation_;
  notify(wake_, sleeping_workers_);
  const auto [begin, end] = part(n, threads(), 0);
  if (begin < end) body(begin, end);
  wait_until([&] { return pending_.load() == 0; }, done_, sleeping_caller_);
}

}  // namespace invar::cpu
