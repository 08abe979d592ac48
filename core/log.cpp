#include "core/log.hpp"

#include "core/console.hpp"

#include <memory>
#include <mutex>

namespace invar {
namespace {

std::mutex sink_mutex;
std::shared_ptr<const LogSink> sink;  // null: stderr

}  // namespace

void warn(const std::string& message) {
  std::shared_ptr<const LogSink> current;
  {
    const std::lock_guard lock(sink_mutex);
    current = sink;
  }
  // Called outside the lock, so that a sink may warn or set another sink itself.
  if (current)
    (*current)(message);
  else
    print_line("invar: warning: " + message);  // around the progress bar, never glued to it
}

void set_log_sink(LogSink function) {
  auto replacement = function ? std::make_shared<const LogSink>(std::move(function)) : nullptr;
  const std::lock_guard lock(sink_mutex);
  sink = std::move(replacement);
}

}  // namespace invar
