#include "support/test_support.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"

extern char** environ;

namespace invar::test {

namespace {
// Every invar a test starts writes one provenance date (docs/cli.md), so that two runs of one
// command compare byte for byte however slowly they run (a sanitizer build crosses seconds); a
// test that is about the date sets or unsets the variable itself.
[[maybe_unused]] const bool kFixedProvenanceDate = setenv("SOURCE_DATE_EPOCH", "1795000000", 0) == 0;
}  // namespace

std::string fixture(const std::string& relative) { return std::string(INVAR_FIXTURES_DIR) + "/" + relative; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

namespace {

// The end of the JSON value that starts at `at` (an object), strings and their escapes skipped.
std::size_t end_of_json_object(const std::string& text, std::size_t at) {
  int depth = 0;
  for (std::size_t i = at; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return i + 1;
    }
  }
  throw std::runtime_error("unbalanced JSON object in an output");
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

std::string without_provenance(std::string text) {
  for (std::size_t at; (at = text.find("\"provenance\":")) != std::string::npos;) {
    std::size_t end = end_of_json_object(text, text.find('{', at));
    std::size_t after = end;
    while (after < text.size() && is_space(text[after])) ++after;
    if (after < text.size() && text[after] == ',') {  // a member follows: take the comma after it
      end = after + 1;
      while (end < text.size() && is_space(text[end])) ++end;
    } else {  // the last member: take the comma before it
      while (at > 0 && is_space(text[at - 1])) --at;
      if (at > 0 && text[at - 1] == ',') --at;
    }
    text.erase(at, end - at);
  }
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    bool comment = false;
    if (line.rfind("# ", 0) == 0 || line.rfind("% ", 0) == 0)
      for (const char* key : {"invar: ", "command: ", "date: ", "model: ", "data: ", "setting: "})
        comment = comment || line.compare(2, std::strlen(key), key) == 0;
    if (!comment) out += line + "\n";
  }
  if (!text.empty() && text.back() != '\n') out.pop_back();
  if (const auto footer = out.find("<footer>\n"); footer != std::string::npos) {
    const auto end = out.find("</footer>\n", footer);
    if (end != std::string::npos) out.erase(footer, end + 10 - footer);
  }
  return out;
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
}

nlohmann::json load_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

std::vector<std::string> model_folders(bool generated_only) {
  std::vector<std::string> folders;
  for (const char* group : {"core", "seq2seq"})
    for (const auto& entry : std::filesystem::directory_iterator(fixture(group))) {
      const auto golden = entry.path() / "golden.json";
      if (!std::filesystem::exists(golden)) continue;
      if (generated_only && !load_json(golden.string()).contains("generation")) continue;
      folders.push_back(std::string(group) + "/" + entry.path().filename().string());
    }
  std::sort(folders.begin(), folders.end());
  return folders;
}

std::vector<std::string> case_strings(const nlohmann::json& golden, const std::string& key) {
  std::vector<std::string> strings;
  for (const auto& c : golden.at("cases")) strings.push_back(c.at(key).get<std::string>());
  return strings;
}

std::string param_name(const std::string& folder) {
  std::string name = folder;
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

namespace {
struct TempRoot {
  std::string path;
  TempRoot() {
    std::string pattern = (std::filesystem::temp_directory_path() / "invar-test-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~TempRoot() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};
}  // namespace

std::string temp_dir() {
  static TempRoot root;
  static int counter = 0;
  auto dir = root.path + "/" + std::to_string(counter++);
  std::filesystem::create_directories(dir);
  return dir;
}

std::vector<float> random_floats(std::int64_t count, unsigned seed, float bound) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-bound, bound);
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) v = value(rng);
  return values;
}

StartedProgram start_program(const std::string& program, const std::vector<std::string>& args,
                             const std::string& input) {
  auto dir = temp_dir();
  StartedProgram started{.out_path = dir + "/stdout", .err_path = dir + "/stderr"};
  const auto in_path = dir + "/stdin";
  write_file(in_path, input);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, started.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, started.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> argv_storage{program};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  // posix_spawnp: a program without a slash (cc, cmake, pkg-config) is looked up in PATH.
  int rc = posix_spawnp(&started.pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + program);
  return started;
}

CliResult wait_for(const StartedProgram& started) {
  int status = 0;
  waitpid(started.pid, &status, 0);
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(started.out_path);
  result.err = read_file(started.err_path);
  return result;
}

CliResult run_program(const std::vector<std::string>& command, const std::string& input) {
  return wait_for(start_program(command.front(), {command.begin() + 1, command.end()}, input));
}

CliResult run_cli(const std::vector<std::string>& args, const std::string& input) {
  return wait_for(start_program(INVAR_CLI, args, input));
}

bool under_address_sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

void limit_address_space(std::size_t extra) {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  const rlim_t limit = pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) + extra;
  const rlimit value{limit, limit};
  if (setrlimit(RLIMIT_AS, &value) != 0) throw std::runtime_error("setrlimit failed");
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void exit_reporting_error(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    std::fputs(e.what(), stderr);
    std::exit(2);
  }
  std::exit(0);
}

}  // namespace invar::test
