#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace invar::test {

// Path of a file under tests/fixtures (a copy of ../shared/fixtures, so a fresh clone passes alone).
std::string fixture(const std::string& relative);
nlohmann::json load_json(const std::string& path);
// Every model folder under fixtures/{core,seq2seq} with a golden.json ("core/marian", ...), sorted;
// with generated_only, those whose golden records generation settings. A new fixture is covered
// without touching the tests.
std::vector<std::string> model_folders(bool generated_only = false);
// The string `key` of every entry of golden["cases"], in order.
std::vector<std::string> case_strings(const nlohmann::json& golden, const std::string& key);
// A gtest parameter name from a folder ("core/marian" -> "core_marian").
std::string param_name(const std::string& folder);
std::string read_file(const std::string& path);
// An output with its provenance record (eval/report/provenance.hpp) taken out — JSON's "provenance"
// member, the comment block of CSV and LaTeX, the HTML footer — for comparing the outputs of runs
// whose command lines or dates differ (a resumed, sharded or MPI run and the one-process run).
std::string without_provenance(std::string text);
void write_file(const std::string& path, const std::string& content);
// A fresh directory under the build tree's temp area, removed at process exit.
std::string temp_dir();
// `count` floats drawn uniformly from [-bound, bound], the same for the same seed.
std::vector<float> random_floats(std::int64_t count, unsigned seed, float bound);

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the built invar binary with args (no shell), feeding `input` on stdin.
CliResult run_cli(const std::vector<std::string>& args, const std::string& input = "");
// Runs argv[0] (a path, or a name looked up in PATH) with the rest as its arguments (no shell).
CliResult run_program(const std::vector<std::string>& argv, const std::string& input = "");

// A program started without waiting for it (to kill it mid-way, or to run invar under mpirun).
struct StartedProgram {
  int pid = 0;
  std::string out_path, err_path;
};
// `program` is a path; its stdout and stderr go to files that wait_for() reads.
StartedProgram start_program(const std::string& program, const std::vector<std::string>& args,
                             const std::string& input = "");
CliResult wait_for(const StartedProgram& started);
// Whether this build runs under AddressSanitizer, which reserves terabytes of shadow memory (so
// address-space limits do not work) and handles fatal signals itself.
bool under_address_sanitizer();
// For death tests that run out of memory on purpose: limits this process's address space to what
// it maps now plus `extra` bytes.
void limit_address_space(std::size_t extra);
// The message of the invar::Error that `action` throws, or "(no error)" when it returns.
std::string error_of(const std::function<void()>& action);
// Runs `body`, then exits: 0 when it returns, 2 with the message on stderr when it throws an Error.
[[noreturn]] void exit_reporting_error(const std::function<void()>& body);

}  // namespace invar::test
