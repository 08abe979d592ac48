#pragma once
// Progress reporting of long runs: a bar on stderr, shown only when stderr is a terminal and the
// user did not ask for quiet (`invar --quiet`). The bar is core/console.hpp's status line, so a
// warning printed while it shows (invar::warn, print_line) gets a line of its own.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace invar::run {

bool progress_enabled();
void set_quiet(bool quiet);

// tqdm's line: "label:  30%|#########                     | 37/120 [00:12<00:27, 3.05it/s]" —
// the count, the time elapsed, the time left at the mean rate so far, and that rate (s/it below one
// item a second; "?" until an item is done).
std::string progress_line(std::string_view label, std::size_t done, std::size_t total, double elapsed_seconds);
// "MM:SS", or "H:MM:SS" from an hour on, as tqdm writes times.
std::string progress_time(double seconds);

struct ProgressOptions {
  std::function<std::chrono::steady_clock::time_point()> clock = std::chrono::steady_clock::now;
  bool always = false;  // draw even when progress_enabled() is false (tests)
};

// The bar, redrawn at most ten times a second and when the last item is done; erased when
// destroyed.
class Progress {
 public:
  Progress(std::string label, std::size_t total, ProgressOptions options = {});
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void advance(std::size_t done);     // `done` more items finished
  void set(std::size_t done_so_far);  // for callers that count from the start

 private:
  void draw(std::chrono::steady_clock::time_point now);

  std::string label_;
  std::size_t total_ = 0;
  std::size_t done_ = 0;
  bool enabled_ = false;
  ProgressOptions options_;
  std::chrono::steady_clock::time_point start_{};
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace invar::run
