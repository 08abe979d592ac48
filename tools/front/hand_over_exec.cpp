// The front binary `invar` (tools/hand_over.hpp): runs what it has, execs invar-full for the rest.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "tools/hand_over.hpp"
#include "run/ranks.hpp"

namespace invar::cli {
namespace {

const CLI::App* subcommand_named(const CLI::App& app, std::string_view name) {
  const auto found = app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == name; });
  return found.empty() ? nullptr : found.front();
}

// Whether the words of argv that are not options lead from the root to a command of this binary
// that needs no further subcommand. `invar --help` and `invar metric --help` do not: their help
// must list the commands only invar-full has. Values of options are words too; they end the walk
// harmlessly, since the root and the command groups (metric, stats) take no option values.
bool names_a_command_here(const CLI::App& app, int argc, char** argv) {
  const CLI::App* command = &app;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    command = subcommand_named(*command, argv[i]);
    if (command == nullptr) return false;
    if (command->get_require_subcommand_min() == 0) return true;
  }
  return false;
}

}  // namespace

void run_here_or_hand_over(const CLI::App& app, int argc, char** argv) {
  // This binary is built without MPI: ranks of mpirun need invar-full to find each other.
  if (!run::started_by_mpi_launcher() && names_a_command_here(app, argc, argv)) return;
  namespace fs = std::filesystem;
  std::error_code error;
  const auto self = fs::read_symlink("/proc/self/exe", error);
  if (error) fail("cannot find where this invar binary is (/proc/self/exe): {}", error.message());
  const auto full = (self.parent_path() / "invar-full").string();
  execv(full.c_str(), argv);
  fail("{}: cannot run it, and this 'invar' runs only the metric and stats commands itself: {}", full,
       std::strerror(errno));
}

}  // namespace invar::cli
