// `invar completion bash|zsh`: a shell completion script built from the command registry
// (tools/command.hpp), so that every command and option the binary has is completed and none it
// lacks. The build writes both scripts with invar-full and `cmake --install` puts them where
// bash-completion and zsh look (CMakeLists.txt).
#include <fmt/format.h>

#include <map>
#include <utility>
#include <string>
#include <vector>

#include "core/io.hpp"
#include "tools/command.hpp"

namespace invar::cli {
namespace {

// What the script knows of one command: the words after `invar` that lead to it ("metric bleu").
struct CommandWords {
  std::vector<std::string> subcommands;
  std::vector<std::string> options;                      // every name: -i, --hyp, ...
  std::map<std::string, std::vector<std::string>> takes;  // option name → its choices (none: a file or value)
};

// CLI11's type names carry an IsMember check's choices: "TEXT:{auto,json,slow}".
std::vector<std::string> choices(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  const auto open = type.find('{'), close = type.rfind('}');
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::string item;
  for (const char c : type.substr(open + 1, close - open - 1)) {
    if (c == ',') {
      out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  out.push_back(item);
  return out;
}

void add_options(const CLI::App& app, CommandWords& words) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional() && option->get_lnames().empty() && option->get_snames().empty()) continue;
    std::vector<std::string> names;
    for (const auto& name : option->get_snames()) names.push_back("-" + name);
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const auto& name : names) {
      words.options.push_back(name);
      if (option->get_expected_min() > 0) words.takes[name] = choices(*option);
    }
  }
}

void walk(const CLI::App& app, const std::string& path, std::map<std::string, CommandWords>& out) {
  auto& words = out[path];
  add_options(app, words);
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    words.subcommands.push_back(sub->get_name());
    walk(*sub, path + " " + sub->get_name(), out);
  }
}

// Every command's words, keyed "invar", "invar metric", "invar metric bleu", ...: the root's own
// options (-q, -V, --help) and the global options, which may stand before a command's name.
std::map<std::string, CommandWords> command_words(const CLI::App& root_options) {
  CLI::App root;
  add_commands(root);
  std::map<std::string, CommandWords> out;
  walk(root, "invar", out);
  out["invar"].options.clear();  // the fresh root's --help; the real root has it with -q and -V
  add_options(root_options, out["invar"]);
  for (const auto& option : kGlobalOptions) {
    out["invar"].options.push_back(option.name);
    if (option.takes_value) out["invar"].takes[option.name] = {};
  }
  return out;
}

std::string joined(const std::vector<std::string>& words) { return fmt::format("{}", fmt::join(words, " ")); }

enum class Shell { Bash, Zsh };

// The data both scripts share, in four associative arrays: each command's subcommands and options,
// the options that take a value, and the choices of those that take one of a list. Bash sets an
// entry as _invar_options["KEY"]="WORDS"; zsh, which would keep those quotes in the key, takes the
// whole array as key-value pairs.
std::string tables(const std::map<std::string, CommandWords>& commands, Shell shell) {
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> arrays;
  for (const auto& [path, words] : commands) {
    arrays["commands"].emplace_back(path, joined(words.subcommands));
    arrays["options"].emplace_back(path, joined(words.options));
    std::vector<std::string> valued;
    for (const auto& [name, list] : words.takes) {
      valued.push_back(name);
      if (!list.empty()) arrays["choices"].emplace_back(path + " " + name, joined(list));
    }
    arrays["valued"].emplace_back(path, joined(valued));
  }
  std::string out;
  for (const auto& [array, entries] : arrays) {
    if (shell == Shell::Zsh) out += fmt::format("  _invar_{}=(\n", array);
    for (const auto& [key, value] : entries)
      out += shell == Shell::Bash ? fmt::format("  _invar_{}[\"{}\"]=\"{}\"\n", array, key, value)
                                  : fmt::format("    '{}' '{}'\n", key, value);
    if (shell == Shell::Zsh) out += "  )\n";
  }
  return out;
}

std::string bash_script(const std::map<std::string, CommandWords>& commands) {
  return "# bash completion for invar and invar-full, written by `invar completion bash` from its commands\n"
         "_invar() {\n"
         "  local -A _invar_commands _invar_options _invar_valued _invar_choices\n" +
         tables(commands, Shell::Bash) +
         R"(  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path=invar i w
  # The words so far that name a subcommand of the command before them lead to the command being completed.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    [[ $w == -* ]] && continue
    [[ " ${_invar_commands[$path]} " == *" $w "* ]] && path="$path $w"
  done
  if [[ $prev == -* && " ${_invar_valued[$path]} " == *" $prev "* ]]; then
    if [[ -n ${_invar_choices["$path $prev"]} ]]; then
      COMPREPLY=($(compgen -W "${_invar_choices["$path $prev"]}" -- "$cur"))
    else
      COMPREPLY=($(compgen -f -- "$cur"))
    fi
    return
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "${_invar_options[$path]}" -- "$cur"))
  elif [[ -n ${_invar_commands[$path]} ]]; then
    COMPREPLY=($(compgen -W "${_invar_commands[$path]}" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _invar invar invar-full
)";
}

std::string zsh_script(const std::map<std::string, CommandWords>& commands) {
  // `path` is zsh's array tied to PATH: the command's words are `at`.
  return "#compdef invar invar-full\n"
         "# zsh completion for invar and invar-full, written by `invar completion zsh` from its commands\n"
         "_invar() {\n"
         "  local -A _invar_commands _invar_options _invar_valued _invar_choices\n" +
         tables(commands, Shell::Zsh) +
         R"(  local at=invar prev=${words[CURRENT-1]} w i
  for (( i = 2; i < CURRENT; i++ )); do
    w=${words[i]}
    [[ $w == -* ]] && continue
    (( ${${(z)_invar_commands[$at]}[(Ie)$w]} )) && at="$at $w"
  done
  if [[ $prev == -* ]] && (( ${${(z)_invar_valued[$at]}[(Ie)$prev]} )); then
    if [[ -n ${_invar_choices[$at $prev]} ]]; then
      compadd -- ${(z)_invar_choices[$at $prev]}
    else
      _files
    fi
    return
  fi
  if [[ ${words[CURRENT]} == -* ]]; then
    compadd -- ${(z)_invar_options[$at]}
  elif [[ -n ${_invar_commands[$at]} ]]; then
    compadd -- ${(z)_invar_commands[$at]}
  else
    _files
  fi
}
_invar "$@"
)";
}

void setup(CLI::App& root) {
  auto shell = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>("-");
  auto* app = root.add_subcommand(
      "completion", "Print a shell completion script for bash or zsh, made from this binary's commands and options");
  app->add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  app->add_option("-o,--output", *output, "Output file, written atomically ('-' = standard output)")
      ->capture_default_str();
  app->footer(
      "cmake --install puts both where the shells look (share/bash-completion/completions/invar, "
      "share/zsh/site-functions/_invar). By hand: invar completion bash > ~/.local/share/bash-completion/"
      "completions/invar; invar completion zsh > DIR/_invar with DIR in $fpath.");
  app->callback([shell, output, &root] {
    const auto commands = command_words(root);
    AtomicOutput out(*output);
    out.stream() << (*shell == "bash" ? bash_script(commands) : zsh_script(commands));
    out.commit();
  });
}

}  // namespace

INVAR_COMMAND("completion", setup);

}  // namespace invar::cli
