// `invar merge`: joins the partial results of `invar COMMAND --shard K/N` into the output the
// command gives when run whole. It checks the parts (one of each shard, the same command, input
// and options), then runs the command again with their records in place of the computation
// (run/row_run.hpp): the input files are read again and must be unchanged; models are not opened.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "tools/command.hpp"
#include "tools/run_control.hpp"

namespace invar::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> parts;
  std::string output = "-";
};

bool same_run(const run::RunHeader& a, const run::RunHeader& b) {
  return a.fingerprint == b.fingerprint && a.rows == b.rows && a.chunk == b.chunk && a.shards == b.shards &&
         a.command == b.command;
}

void run_merge(const MergeOptions& options) {
  std::map<std::size_t, std::string> seen;  // shard -> its part; not sized by a count read from a file
  run::RunHeader first;
  run::Chunks chunks;
  for (const auto& path : options.parts) {
    run::RunFile part = run::read_run_file(path);
    if (part.header.kind != "partial") fail("{}: not a partial result (--shard writes those)", path);
    if (seen.empty()) {
      first = part.header;
    } else if (!same_run(part.header, first)) {
      fail("{}: a part of another run than {} (other command, input, options or shard count)", path,
           options.parts.front());
    }
    auto& owner = seen[part.header.shard];
    if (!owner.empty()) fail("{}: shard {}/{} is already given by {}", path, part.header.shard, first.shards, owner);
    owner = path;
    chunks.merge(part.chunks);
  }
  std::size_t missing = 0;
  while (seen.count(missing)) ++missing;
  if (missing < first.shards) fail("shard {}/{} is missing: give all {} parts", missing, first.shards, first.shards);
  run::merge_from(first, std::move(chunks));
  CLI::App app;
  app.require_subcommand(1);
  add_commands(app);
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
