// The invar command line: subcommands register themselves (tools/command.hpp). A usage error (an
// unknown option, a bad value, a missing argument) exits 2 with CLI11's message, as argparse does;
// a runtime error ends as one line on stderr and exit status 1. Messages quote file content, so they
// are printed through printable(): one line, no terminal escapes, whatever the file held.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

#include "core/error.hpp"
#include "core/printable.hpp"
#include "core/version.hpp"
#include "tools/command.hpp"
#include "tools/hand_over.hpp"
#include "tools/provenance.hpp"
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

constexpr int kUsageError = 2;

// CLI11 exits 0 for --help and --version and prints its message; every other parse error is a usage
// error, whatever CLI11's own code for it (105 conversion, 106 validation, 109 extras, ...).
int exit_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  const int code = app.exit(e);
  return code == 0 ? 0 : kUsageError;
}

const invar::cli::GlobalOption* global_option(const std::string& argument) {
  const auto name = argument.substr(0, argument.find('='));
  for (const auto& option : invar::cli::kGlobalOptions)
    if (name == option.name) return &option;
  return nullptr;
}

// argv with the global options given before the command's name moved after the command's own
// arguments (before a "--", if any), where the command parses them as its own.
std::vector<std::string> global_options_after_command(int argc, char** argv) {
  std::vector<std::string> in(argv, argv + argc), out{in[0]}, moved;
  std::size_t i = 1;
  for (; i < in.size() && in[i].size() > 1 && in[i][0] == '-' && in[i] != "--"; ++i) {
    const auto* option = global_option(in[i]);
    if (option == nullptr) {
      out.push_back(in[i]);  // the root's own (-q, -V, --help), or one CLI11 will refuse
      continue;
    }
    moved.push_back(in[i]);
    if (option->takes_value && in[i].find('=') == std::string::npos && i + 1 < in.size()) moved.push_back(in[++i]);
  }
  out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(i), in.end());
  const auto end_of_options = std::find(out.begin() + 1, out.end(), "--");
  out.insert(end_of_options, moved.begin(), moved.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // Named, so that usage lines (and the man page help2man makes of them) say `invar`, not the path
  // the binary was started by.
  CLI::App app{"invar: offline evaluation of text transformations (MT, paraphrase, style transfer) and of the "
               "transformer models behind them",
               "invar"};
  app.set_version_flag("-V,--version", std::string("invar ") + invar::kVersion);
  app.require_subcommand(1);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "Silence progress output on stderr");
  app.parse_complete_callback([&] {
    invar::cli::set_quiet(quiet);
    invar::cli::record_provenance(app, std::vector<std::string>(argv, argv + argc));
  });
  // Every subcommand (they inherit this when added) hands the options it lacks to its parent: -q
  // after the command's name is the root's -q.
  app.fallthrough();

  auto arguments = global_options_after_command(argc, argv);
  std::vector<char*> args;
  for (auto& argument : arguments) args.push_back(argument.data());
  args.push_back(nullptr);  // execv's end of arguments
  const int count = static_cast<int>(arguments.size());

  // Only the command being run is set up: building every command's options costs about a
  // millisecond, a tenth of a short metric run. The root options left before it take no value, so
  // the first argument that is not an option names the command; without one (e.g. --help), all are
  // set up.
  const auto command = std::find_if(args.begin() + 1, args.begin() + count, [](const char* a) { return a[0] != '-'; });
  invar::cli::add_commands(app, command == args.begin() + count ? "" : *command);

  try {
    invar::cli::run_here_or_hand_over(app, count, args.data());
    app.parse(count, args.data());
  } catch (const CLI::ParseError& e) {
    return exit_parse_error(app, e);
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
