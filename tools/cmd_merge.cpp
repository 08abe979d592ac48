// `invar merge`: joins the partial results of `invar COMMAND --shard K/N` into the output the
// command gives when run whole. It checks the parts (one of each shard, the same command, input
// and options), then runs the command again with their records in place of the computation
// (run/row_run.hpp): the input files are read again and must be unchanged; models are not opened.
#include <algorithm>

#include "tools/command.hpp"
#include "tools/run_control.hpp"

namespace invar::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> parts;
  std::string output = "-";
};

void run_merge(const MergeOptions& options) {
  const run::RunHeader first = run::merge_parts(options.parts);
  CLI::App app;
  app.require_subcommand(1);
  add_commands(app);
  // The merged output's provenance: this command line, with the settings, models and data files of
  // the command whose parts it joins.
  std::vector<std::string> command_line{"invar", "merge"};
  command_line.insert(command_line.end(), options.parts.begin(), options.parts.end());
  command_line.insert(command_line.end(), {"--output", options.output});
  app.parse_complete_callback([&] { record_provenance(app, command_line); });
  std::vector<std::string> args = first.command;
  args.insert(args.end(), {"--output", options.output});
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  app.parse(args);
}

void setup(CLI::App& root) {
  auto options = std::make_shared<MergeOptions>();
  auto* cmd = root.add_subcommand(
      "merge", "Join the partial results of a command run with --shard K/N into the output of one whole run");
  cmd->add_option("parts", options->parts, "The partial results, one per shard, in any order")->required();
  cmd->add_option("-o,--output", options->output, "Output file, written atomically ('-' = standard output)")
      ->capture_default_str();
  cmd->footer("The input files the parts were computed from must be where they were and unchanged (merge reads "
              "them again to check); the model is not needed. docs/scale-out.md");
  cmd->callback([options] { run_merge(*options); });
}

}  // namespace

INVAR_COMMAND("merge", setup);

}  // namespace invar::cli
