#pragma once
// Progress reporting of long runs: a bar on stderr, shown only when stderr is a terminal and the
// user did not ask for quiet (`invar --quiet`).
#include <chrono>
#include <cstddef>
#include <string>

namespace invar::run {

bool progress_enabled();
void set_quiet(bool quiet);

// "label  done/total [=====>    ] 42%" redrawn on stderr at most ten times a second, only when
// progress_enabled(); erased when finished.
class Progress {
 public:
  Progress(std::string label, std::size_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void advance(std::size_t done);     // `done` more items finished
  void set(std::size_t done_so_far);  // for callers that count from the start

 private:
  void draw();

  std::string label_;
  std::size_t total_ = 0;
  std::size_t done_ = 0;
  bool enabled_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace invar::run
