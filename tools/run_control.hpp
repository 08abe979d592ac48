#pragma once
// The command-line side of run control (run/row_run.hpp): the --resume and --shard options, and
// the run::RunControl a RowRun takes, made from the parsed command.
#include <CLI/CLI.hpp>

#include <string>

#include "run/row_run.hpp"

namespace invar::cli {

using run::RowRun;
using run::RowRunSpec;

struct RunControl {
  bool resume = false;
  std::string shard;                   // "K/N"; empty = the whole input
  const CLI::App* command = nullptr;   // the command the options were added to
};
// Adds --resume and --shard; `output_option` names where the progress is kept.
void add_run_control_options(CLI::App& command, RunControl& control, const std::string& output_option = "--output");

// `spec` with its run control taken from the parsed command (its input options by spec.inputs).
RowRunSpec row_run_spec(const RunControl& control, RowRunSpec spec);

}  // namespace invar::cli
