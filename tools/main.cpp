// The invar command line: subcommands register themselves (tools/command.hpp); errors end as one
// line on stderr and exit status 1. Messages quote file content, so they are printed through
// printable(): one line, no terminal escapes, whatever the file held.
#include <algorithm>
#include <iostream>
#include <tuple>
#include <unistd.h>

#include "core/error.hpp"
#include "core/printable.hpp"
#include "invar_version.hpp"
#include "tools/command.hpp"
#include "tools/hand_over.hpp"
#include "run/ranks.hpp"

namespace invar::cli {

std::vector<CommandRegistration>& command_registry() {
  static std::vector<CommandRegistration> registry;
  return registry;
}

void add_commands(CLI::App& app) { add_commands(app, ""); }

namespace {

std::vector<CommandRegistration>& sorted_registry() {
  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const auto& a, const auto& b) { return std::tie(a.parent, a.name) < std::tie(b.parent, b.name); });
  return registry;
}

}  // namespace

void add_commands(CLI::App& app, std::string_view only) {
  const auto& registry = sorted_registry();
  const bool known = std::any_of(registry.begin(), registry.end(),
                                 [&](const auto& c) { return c.parent.empty() && c.name == only; });
  for (const auto& command : registry)
    if (command.parent.empty() && (!known || command.name == only)) command.setup(app);
}

void add_subcommands(CLI::App& app, std::string_view parent) {
  for (const auto& command : sorted_registry())
    if (command.parent == parent) command.setup(app);
}

}  // namespace invar::cli

namespace {

// Under mpirun the other ranks may be waiting for this one: they are ended too.
int fail_run(const std::string& message) {
  std::cerr << "invar: error: " << invar::printable(message) << '\n';
  invar::run::abort_every_rank();
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"invar: offline evaluation of text transformations (MT, paraphrase, style transfer) and of the "
               "transformer models behind them"};
  app.set_version_flag("--version", std::string("invar ") + invar::kVersion);
  app.require_subcommand(1);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "Silence progress output on stderr");
  app.parse_complete_callback([&] { invar::cli::set_quiet(quiet); });

  // Only the command being run is set up: building every command's options costs about a
  // millisecond, a tenth of a short metric run. The root options take no value, so the first
  // argument that is not an option names the command; without one (e.g. --help), all are set up.
  const auto command = std::find_if(argv + 1, argv + argc, [](const char* a) { return a[0] != '-'; });
  invar::cli::add_commands(app, command == argv + argc ? "" : *command);

  try {
    invar::cli::run_here_or_hand_over(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const invar::Error& e) {
    return fail_run(e.what());
  } catch (const std::bad_alloc&) {
    // Readers of files turn running out of memory into an Error naming the file; what is left
    // happened computing, which the command names.
    const auto commands = app.get_subcommands();
    return fail_run(fmt::format("out of memory running 'invar {}'", commands.empty() ? "" : commands.front()->get_name()));
  } catch (const std::exception& e) {
    return fail_run(e.what());
  }
  return 0;
}
