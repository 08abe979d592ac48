#pragma once
// Messages on stderr while a progress bar may be showing. The bar (run/progress.hpp) is the one
// status line, drawn with a carriage return and no line break; every other line written to stderr
// goes through print_line, which first erases the status line, so a warning never continues the
// bar's line, and then draws the status line again below it. Every layer that writes to stderr uses
// this; warnings go through core/log.hpp's warn, which lands here unless an embedder set a sink.
#include <functional>
#include <string>
#include <string_view>

namespace invar {

// `line` and a line break on stderr, around the status line.
void print_line(std::string_view line);

// The status line: shown (replacing the previous one) until clear_status().
void show_status(std::string line);
void clear_status();

// Where the console's text goes (stderr by default); tests capture it. Returns the previous one.
using ConsoleWriter = std::function<void(std::string_view text)>;
ConsoleWriter set_console_writer(ConsoleWriter writer);

}  // namespace invar
