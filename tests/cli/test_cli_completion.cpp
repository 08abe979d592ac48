// `invar completion bash|zsh` (tools/cmd_completion.cpp): the scripts hold every command and option
// that `--help` lists, walked here from `invar --help` down (but sacrebleu's own), and bash completes
// with them.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using invar::test::run_program;

const std::string kFull = (fs::path(INVAR_CLI).parent_path() / "invar-full").string();

struct HelpedCommand {
  std::vector<std::string> words;  // after invar: {"metric", "bleu"}
  std::set<std::string> options;   // every name --help lists: -i, --hyp, ...
};

// `invar WORDS --help` read: the names in its Options section and its subcommands, recursively.
void walk_help(const std::vector<std::string>& words, std::vector<HelpedCommand>& out) {
  std::vector<std::string> args{INVAR_CLI};
  args.insert(args.end(), words.begin(), words.end());
  args.push_back("--help");
  const auto help = run_program(args);
  ASSERT_EQ(help.exit_code, 0) << help.err;
  HelpedCommand command{.words = words};
  std::vector<std::string> subcommands;
  std::istringstream lines(help.out);
  std::string line, section;
  static const std::regex option_line(R"(^  ((-[^ ,]+)(,-[^ ,]+)*)( |$))"), command_line(R"(^  ([a-z0-9-]+)( |$))");
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == ':' && line[0] != ' ') section = line;
    std::smatch m;
    if (section == "Options:" && std::regex_search(line, m, option_line)) {
      std::stringstream names(m[1].str());
      for (std::string name; std::getline(names, name, ',');) command.options.insert(name);
    } else if (section == "Subcommands:" && std::regex_search(line, m, command_line)) {
      subcommands.push_back(m[1]);
    }
  }
  // `invar sacrebleu` hands its words to a parser of sacrebleu's own syntax (-tok intl, -lc) built when
  // it runs; the scripts complete file names after it, and its --help is that parser's.
  if (words == std::vector<std::string>{"sacrebleu"}) return;
  out.push_back(command);
  for (const auto& sub : subcommands) {
    auto next = words;
    next.push_back(sub);
    walk_help(next, out);
  }
}

std::string joined(const std::vector<std::string>& words) {
  std::string out = "invar";
  for (const auto& w : words) out += " " + w;
  return out;
}

// The words of KEY's entry in the array _invar_TABLE: `_invar_TABLE["KEY"]="WORDS"` in bash, a
// `'KEY' 'WORDS'` line of `_invar_TABLE=(...)` in zsh.
std::set<std::string> table_words(const std::string& script, const std::string& shell, const std::string& table,
                                  const std::string& key) {
  std::size_t begin = 0;
  char quote = '"';
  if (shell == std::string("bash")) {
    const std::string start = "_invar_" + table + "[\"" + key + "\"]=\"";
    const auto at = script.find(start);
    if (at == std::string::npos) return {};
    begin = at + start.size();
  } else {
    const auto array = script.find("_invar_" + table + "=(\n");
    const std::string start = "\n    '" + key + "' '";
    const auto at = script.find(start, array);
    if (array == std::string::npos || at == std::string::npos || at > script.find("\n  )", array)) return {};
    begin = at + start.size();
    quote = '\'';
  }
  std::stringstream words(script.substr(begin, script.find(quote, begin) - begin));
  std::set<std::string> out;
  for (std::string w; words >> w;) out.insert(w);
  return out;
}

TEST(CliCompletion, EveryCommandAndOptionOfTheHelpIsInBothScripts) {
  std::vector<HelpedCommand> commands;
  walk_help({}, commands);
  ASSERT_GT(commands.size(), 30u);  // the top-level commands, metric's, stats', robustness', metamorphic's
  for (const auto& shell : {"bash", "zsh"}) {
    for (const auto& binary : {std::string(INVAR_CLI), kFull}) {
      const auto script = run_program({binary, "completion", shell});
      ASSERT_EQ(script.exit_code, 0) << script.err;
      for (const auto& command : commands) {
        const auto key = joined(command.words);
        const auto options = table_words(script.out, shell, "options", key);
        for (const auto& option : command.options)
          EXPECT_TRUE(options.count(option)) << shell << ": " << key << " " << option;
        if (!command.words.empty()) {
          auto parent = command.words;
          parent.pop_back();
          EXPECT_TRUE(table_words(script.out, shell, "commands", joined(parent)).count(command.words.back()))
              << shell << ": " << key;
        }
      }
    }
  }
}

// The bash script sourced and its function called as bash-completion calls it.
std::string complete_bash(const std::string& script_path, const std::string& line) {
  const std::string program = "source '" + script_path + "'; COMP_WORDS=(" + line +
                              "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _invar; printf '%s\\n' \"${COMPREPLY[@]}\"";
  const auto result = run_program({"bash", "-c", program});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

TEST(CliCompletion, BashCompletesCommandsOptionsAndChoices) {
  const auto script = run_program({INVAR_CLI, "completion", "bash"});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  const std::string path = invar::test::temp_dir() + "/invar.bash";
  invar::test::write_file(path, script.out);
  EXPECT_EQ(complete_bash(path, "invar metric bl"), "bleu\n");
  EXPECT_EQ(complete_bash(path, "invar -q metric bertscore --sou"), "--source\n");
  EXPECT_EQ(complete_bash(path, "invar embed -m model --max-in"), "--max-input-tokens\n");
  EXPECT_EQ(complete_bash(path, "invar embed --tokenizer ''"), "auto\njson\nslow\n");
  EXPECT_EQ(complete_bash(path, "invar st"), "st-eval\nstats\n");
  // A value that happens to be a command's name leads nowhere when that command is not a subcommand.
  EXPECT_EQ(complete_bash(path, "invar stats correlate --x stats --me"), "--method\n");
}

// The zsh script's function run with the completion system's compadd and _files replaced by
// functions that print what they are given (zsh is installed by scripts/install-deps.sh).
std::string complete_zsh(const std::string& script_path, const std::string& line) {
  const std::string program = "compadd() { [[ $1 == -- ]] && shift; print -l -- \"$@\"; }; _files() { print FILES; }; "
                              "eval \"$(sed '$d' '" + script_path + "')\"; words=(" + line + "); CURRENT=${#words}; _invar";
  const auto result = run_program({"zsh", "-f", "-c", program});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

TEST(CliCompletion, ZshCompletesCommandsOptionsAndChoices) {
  const auto script = run_program({INVAR_CLI, "completion", "zsh"});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  ASSERT_EQ(script.out.rfind("#compdef invar invar-full\n", 0), 0u);
  const std::string path = invar::test::temp_dir() + "/_invar";
  invar::test::write_file(path, script.out);
  EXPECT_EQ(run_program({"zsh", "-n", path}).exit_code, 0);
  const auto metric = complete_zsh(path, "invar metric bl");  // every subcommand; zsh filters by the prefix
  EXPECT_NE(metric.find("bleu\n"), std::string::npos) << metric;
  EXPECT_NE(metric.find("bertscore\n"), std::string::npos) << metric;
  EXPECT_EQ(metric.find("embed\n"), std::string::npos) << metric;
  const auto bertscore = complete_zsh(path, "invar -q metric bertscore --sou");
  EXPECT_NE(bertscore.find("--source\n"), std::string::npos) << bertscore;
  EXPECT_NE(bertscore.find("--max-input-tokens\n"), std::string::npos) << bertscore;
  EXPECT_EQ(complete_zsh(path, "invar embed --tokenizer ''"), "auto\njson\nslow\n");
  EXPECT_EQ(complete_zsh(path, "invar embed -i ''"), "FILES\n");
}

TEST(CliCompletion, AnUnknownShellIsAUsageError) {
  const auto result = run_program({INVAR_CLI, "completion", "fish"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.out.empty());
}

}  // namespace
