#include "run/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "core/console.hpp"

namespace invar::run {
namespace {
bool quiet = false;
}

void set_quiet(bool value) { quiet = value; }
bool progress_enabled() { return !quiet && isatty(STDERR_FILENO); }

std::string progress_time(double seconds) {
  const auto whole = static_cast<long long>(std::max(0.0, seconds));
  const long long h = whole / 3600, m = whole / 60 % 60, s = whole % 60;
  return h > 0 ? fmt::format("{}:{:02d}:{:02d}", h, m, s) : fmt::format("{:02d}:{:02d}", m, s);
}

std::string progress_line(std::string_view label, std::size_t done, std::size_t total, double elapsed_seconds) {
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total == 0 ? kWidth : std::min(done, total) * kWidth / total;
  const int percent = static_cast<int>(total == 0 ? 100 : std::min(done, total) * 100 / total);
  const double rate = elapsed_seconds > 0 && done > 0 ? static_cast<double>(done) / elapsed_seconds : NAN;
  std::string rate_text = "?it/s", left = "?";
  if (std::isfinite(rate)) {
    rate_text = rate >= 1 ? fmt::format("{:.2f}it/s", rate) : fmt::format("{:.2f}s/it", 1 / rate);
    left = progress_time(elapsed_seconds * static_cast<double>(total - std::min(done, total)) / static_cast<double>(done));
  }
  return fmt::format("{}: {:3d}%|{}{}| {}/{} [{}<{}, {}]", label, percent, std::string(filled, '#'),
                     std::string(kWidth - filled, ' '), done, total, progress_time(elapsed_seconds), left, rate_text);
}

Progress::Progress(std::string label, std::size_t total, ProgressOptions options)
    : label_(std::move(label)),
      total_(total),
      enabled_((options.always || progress_enabled()) && total > 0),
      options_(std::move(options)),
      start_(options_.clock()) {
  if (enabled_) draw(start_);
}

Progress::~Progress() {
  if (enabled_) clear_status();
}

void Progress::advance(std::size_t done) { set(done_ + done); }

void Progress::set(std::size_t done_so_far) {
  done_ = std::min(total_, done_so_far);
  if (!enabled_) return;
  const auto now = options_.clock();
  if (done_ < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  draw(now);
}

void Progress::draw(std::chrono::steady_clock::time_point now) {
  last_draw_ = now;
  show_status(progress_line(label_, done_, total_, std::chrono::duration<double>(now - start_).count()));
}

}  // namespace invar::run
