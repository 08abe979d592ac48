#pragma once
// --csv and --latex where that form is a command's whole output (st-eval; metric bertscore --sentence).
// Given alone, the older spelling, the output -o names is written in that form; given a FILE, the
// form goes to FILE, as --csv FILE and --latex FILE do in robustness and metamorphic, where the form
// is written beside the tables: here `--csv FILE` is `--csv -o FILE` (docs/cli.md, Names).
#include <CLI/CLI.hpp>

#include <string>

namespace invar::cli {

// Adds `name` ("--csv", "--latex") taking an optional FILE: sets `chosen`, and `output` to FILE when
// one is given (a usage error beside -o/--output, which names the same file).
CLI::Option* add_output_form_option(CLI::App& command, const std::string& name, bool& chosen, std::string& output,
                                    const std::string& help);

}  // namespace invar::cli
