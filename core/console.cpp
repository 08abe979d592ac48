#include "core/console.hpp"

#include <cstdio>
#include <mutex>

namespace invar {
namespace {

// Rows are computed on several threads (OpenMP, the model's workers): one line at a time.
std::mutex& console_mutex() {
  static std::mutex mutex;
  return mutex;
}

void write_stderr(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

struct Console {
  ConsoleWriter writer = write_stderr;
  std::string status;  // empty: no status line shown
};

Console& console() {
  static Console c;
  return c;
}

constexpr std::string_view kEraseLine = "\r\033[K";

}  // namespace

void print_line(std::string_view line) {
  std::lock_guard lock(console_mutex());
  Console& c = console();
  std::string text;
  if (!c.status.empty()) text += kEraseLine;
  text += line;
  text += '\n';
  if (!c.status.empty()) text += c.status;
  c.writer(text);
}

void show_status(std::string line) {
  std::lock_guard lock(console_mutex());
  Console& c = console();
  c.status = std::move(line);
  c.writer(std::string("\r").append(c.status).append("\033[K"));
}

void clear_status() {
  std::lock_guard lock(console_mutex());
  Console& c = console();
  if (c.status.empty()) return;
  c.status.clear();
  c.writer(kEraseLine);
}

ConsoleWriter set_console_writer(ConsoleWriter writer) {
  std::lock_guard lock(console_mutex());
  std::swap(console().writer, writer);
  return writer;
}

}  // namespace invar
