#pragma once
// A fixed set of worker threads for the CPU kernels' row loops. parallel_for splits a range into
// one contiguous part per thread, the same split for the same (n, threads), so every row is
// computed by the same code whatever the thread count: results do not depend on it.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace invar::cpu {

// Fails naming the limit when this process's threads and `more` would exceed the user's
// RLIMIT_NPROC: a backend asks before it starts `threads`, because the teams OpenMP (oneDNN) and
// OpenBLAS start later cannot fail cleanly (libgomp prints "Thread creation failed" and the
// process crashes on the way out). The user's other processes count against the limit too and
// are not known here: then the pool's own error (or OpenMP's) is what remains.
void require_thread_budget(int threads, std::int64_t more);

// Workers that finish a loop spin for a short while (kSpin in thread_pool.cpp) before they sleep,
// and so does the caller waiting for them: an encoder pass or a decode step is a chain of loops of
// tens of microseconds, and waking a sleeping thread (futex, scheduler) cost a fifth of a batch-1
// int8 pass in `perf`. ONNX Runtime's and OpenMP's pools spin likewise. With more threads than
// the machine has cores, nobody spins: a spinning thread would hold the core another one needs;
// nor where the owner says not to (`spin`: the CPU backend, whose products run on an OpenMP team
// from 4 threads on, whose threads spin on the same cores).
class ThreadPool {
 public:
  explicit ThreadPool(int threads, bool spin = true);  // the calling thread counts as one
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  bool spinning() const { return spinning_; }
  void set_threads(int threads, bool spin = true);

  // Calls body(begin, end) on disjoint ranges covering [0, n) and returns when all are done. Runs
  // inline when n * cost_per_item is below the point where waking threads pays off.
  void parallel_for(std::int64_t n, std::int64_t cost_per_item,
                    const std::function<void(std::int64_t, std::int64_t)>& body);

 private:
  void start(int threads, bool spin);
  static bool spins_on_cores(int threads);  // no more threads than the machine has cores
  void stop();
  void work(int index, std::uint64_t seen);
  // Spins (when spinning_) until done() holds, then sleeps on `wake` until it does, counting itself
  // in `sleepers` meanwhile so that the other side knows to notify.
  template <typename Done>
  void wait_until(Done done, std::condition_variable& wake, std::atomic<int>& sleepers);
  void notify(std::condition_variable& wake, std::atomic<int>& sleepers);

  std::vector<std::thread> workers_;
  bool spinning_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::atomic<int> sleeping_workers_{0};
  std::atomic<int> sleeping_caller_{0};
  // Written by the caller before it publishes a loop by incrementing generation_.
  const std::function<void(std::int64_t, std::int64_t)>* body_ = nullptr;
  std::int64_t n_ = 0;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace invar::cpu
