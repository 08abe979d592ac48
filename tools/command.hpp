#pragma once
// Each tools/cmd_*.cpp registers its subcommands with INVAR_COMMAND; main.cpp builds the CLI11 app
// from the registry, so adding a command touches no shared file.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "run/progress.hpp"
#include "tools/provenance.hpp"

namespace invar::cli {

struct CommandRegistration {
  std::string parent;  // empty for a top-level command
  std::string name;
  std::function<void(CLI::App& parent)> setup;  // adds the subcommand and its callback to parent
};

std::vector<CommandRegistration>& command_registry();
// Adds every registered top-level command to `app` (main, and `invar merge`, which re-runs a command).
void add_commands(CLI::App& app);
// Adds only the top-level command registered as `only`, or every one when none is.
void add_commands(CLI::App& app, std::string_view only);
// Adds the subcommands registered under `parent` to its app (each parent command calls it), so that
// a subcommand in its own file is in a binary exactly when that file is linked into it.
void add_subcommands(CLI::App& app, std::string_view parent);

struct CommandRegistrar {
  CommandRegistrar(std::string parent, std::string name, std::function<void(CLI::App&)> setup) {
    command_registry().push_back({std::move(parent), std::move(name), std::move(setup)});
  }
};

// Options that mean the same in every command that has them (docs/cli.md). Before the command's
// name they are moved after it (main.cpp), so `invar --threads 4 embed …` is `invar embed … --threads 4`.
// -q/--quiet belongs to the root, and a subcommand passes the options it lacks up to its parent, so
// it works on either side as well.
struct GlobalOption {
  const char* name;
  bool takes_value;
};
inline constexpr GlobalOption kGlobalOptions[] = {
    {"--threads", true}, {"--device", true}, {"--weights", true}, {"--linear", true}, {"--json", false}, {"--deterministic", false},
};

// A progress bar on stderr, shown only when stderr is a terminal and --quiet is not given.
using run::progress_enabled;
using run::set_quiet;

}  // namespace invar::cli

#define INVAR_CONCAT_INNER(a, b) a##b
#define INVAR_CONCAT(a, b) INVAR_CONCAT_INNER(a, b)
#define INVAR_COMMAND(name, setup) \
  static const ::invar::cli::CommandRegistrar INVAR_CONCAT(invar_command_, __LINE__)("", name, setup)
#define INVAR_SUBCOMMAND(parent, name, setup) \
  static const ::invar::cli::CommandRegistrar INVAR_CONCAT(invar_command_, __LINE__)(parent, name, setup)
