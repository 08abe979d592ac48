#pragma once
// Where the library's warnings go: to stderr as "invar: warning: MESSAGE" (what the command line
// prints), or to the sink an embedder sets (the C API's invar_log_set).
#include <functional>
#include <string>

namespace invar {

// Receives each warning: one line, without the "invar: warning: " prefix and the newline.
using LogSink = std::function<void(const std::string& message)>;

// Sends `message` to the sink, or to stderr when none is set. Thread-safe.
void warn(const std::string& message);
// An empty sink restores stderr. Thread-safe; a warning being sent at the time goes to the old sink.
void set_log_sink(LogSink sink);

}  // namespace invar
