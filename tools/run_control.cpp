#include "tools/run_control.hpp"

#include <fmt/format.h>

namespace invar::cli {
namespace {

bool is_run_control(const CLI::Option& option) {
  for (const auto& name : option.get_lnames())
    if (name == "output" || name == "resume" || name == "shard") return true;
  return false;
}

std::string option_name(const CLI::Option& option) {
  if (!option.get_lnames().empty()) return "--" + option.get_lnames().front();
  if (!option.get_snames().empty()) return "-" + option.get_snames().front();
  return {};  // a positional
}

// The subcommand's path from the root ("metric", "bleu") and its given options, in declaration
// order, as a command line that runs it again.
std::vector<std::string> command_line(const CLI::App& command) {
  std::vector<std::string> line;
  for (const CLI::App* app = &command; app->get_parent() != nullptr; app = app->get_parent())
    line.insert(line.begin(), app->get_name());
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0 || is_run_control(*option)) continue;
    const std::string name = option_name(*option);
    // A flag, or an option whose value is optional (--csv [FILE]: tools/output_form.hpp): that value
    // names the output, which the command line leaves out as it leaves out --output.
    if (option->get_expected_max() == 0 || option->get_expected_min() == 0) {
      for (std::size_t i = 0; i < option->count(); ++i) line.push_back(name);
      continue;
    }
    for (const auto& value : option->results()) {
      if (!name.empty()) line.push_back(name);
      line.push_back(value);
    }
  }
  return line;
}

// True when an input option is left at its default, standard input.
bool reads_standard_input(const CLI::App& command, const std::vector<std::string>& inputs) {
  for (const auto& name : inputs) {
    const CLI::Option* option = command.get_option_no_throw(name);
    if (option && option->count() == 0 && option->get_default_str() == "-") return true;
  }
  return false;
}

}  // namespace

void add_run_control_options(CLI::App& command, RunControl& control, const std::string& output_option) {
  control.command = &command;
  command.add_flag("--resume", control.resume,
                   fmt::format("Continue an interrupted run from the progress kept beside {} (FILE.invar-progress); "
                               "refused when the input or the options differ",
                               output_option));
  command.add_option("--shard", control.shard,
                     "Run part K of N (0 <= K < N) and write a partial result to --output; `invar merge` joins "
                     "the N parts into the output of one whole run (docs/scale-out.md)");
}

RowRunSpec row_run_spec(const RunControl& control, RowRunSpec spec) {
  spec.control = {.command = command_line(*control.command),
                  .resume = control.resume,
                  .shard = control.shard,
                  .standard_input = reads_standard_input(*control.command, spec.inputs)};
  return spec;
}

}  // namespace invar::cli
