#include "run/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace invar::run {
namespace {
bool quiet = false;
}

void set_quiet(bool value) { quiet = value; }
bool progress_enabled() { return !quiet && isatty(STDERR_FILENO); }

Progress::Progress(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), enabled_(progress_enabled() && total > 0) {}

Progress::~Progress() {
  if (enabled_) std::fputs("\r\033[K", stderr);
}

void Progress::advance(std::size_t done) { set(done_ + done); }

void Progress::set(std::size_t done_so_far) {
  done_ = std::min(total_, done_so_far);
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (done_ < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  draw();
}

void Progress::draw() {
  constexpr std::size_t kWidth = 30;
  std::size_t filled = total_ == 0 ? kWidth : done_ * kWidth / total_;
  std::string bar(filled, '=');
  if (filled < kWidth) bar += '>' + std::string(kWidth - filled - 1, ' ');
  fmt::print(stderr, "\r{}  {}/{} [{}] {:3d}%", label_, done_, total_, bar,
             static_cast<int>(total_ == 0 ? 100 : done_ * 100 / total_));
  std::fflush(stderr);
}

}  // namespace invar::run
