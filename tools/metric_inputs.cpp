#include "tools/metric_inputs.hpp"

#include <string_view>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/metrics/tokenizers/mt_tokenize.hpp"

namespace invar::cli {

namespace {

// sacrebleu --num-refs N: each line of the one reference file holds N tab-separated references
// (split at the first N − 1 tabs of the rstrip()ped line).
std::vector<std::vector<std::string>> read_tabbed_references(const std::string& path, int num_refs) {
  std::vector<std::vector<std::string>> out;
  auto lines = read_segments(path);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string> refs;
    std::string_view rest = lines[i];
    while (static_cast<int>(refs.size()) < num_refs - 1 && rest.find('\t') != std::string_view::npos) {
      refs.emplace_back(rest.substr(0, rest.find('\t')));
      rest.remove_prefix(rest.find('\t') + 1);
    }
    refs.emplace_back(rest);
    if (static_cast<int>(refs.size()) != num_refs)
      fail("{}:{}: references: expected {} tab-separated fields (--num-refs), found {}", path, i + 1, num_refs,
           refs.size());
    out.push_back(std::move(refs));
  }
  return out;
}

}  // namespace

// Lines as sacrebleu's CLI reads them: each rstrip()ped (Python whitespace).
std::vector<std::string> read_segments(const std::string& path) {
  auto lines = read_lines(path);
  if (lines.empty()) fail("{}: no lines to score", path == "-" ? "<stdin>" : path);
  for (auto& line : lines) line.resize(metrics::rstrip_whitespace(line).size());
  return lines;
}

void check_aligned(const std::string& path, std::size_t lines, const std::string& first, std::size_t expected) {
  if (lines != expected)
    fail("{} has {} lines but {} has {}; hypotheses, references and sources must be line-aligned", path, lines,
         first, expected);
}

std::vector<Comparison> read_comparisons(const MetricArguments& args, std::size_t segments) {
  std::vector<Comparison> out;
  auto add = [&](const std::string& kind, const std::vector<std::string>& files) {
    Comparison c{kind, std::vector<std::vector<std::string>>(segments)};
    for (const auto& file : files) {
      auto lines = read_segments(file);
      check_aligned(file, lines.size(), args.hyps.front(), segments);
      for (std::size_t i = 0; i < segments; ++i) c.refs[i].push_back(std::move(lines[i]));
    }
    out.push_back(std::move(c));
  };
  if (!args.source.empty()) add("source", {args.source});
  if (args.num_refs != 1) {
    if (args.refs.size() != 1)
      fail("--num-refs reads every reference of a segment from one line: give exactly one --ref FILE");
    auto refs = read_tabbed_references(args.refs.front(), args.num_refs);
    check_aligned(args.refs.front(), refs.size(), args.hyps.front(), segments);
    out.push_back({"references", std::move(refs)});
  } else if (!args.refs.empty()) {
    add("references", args.refs);
  }
  if (out.empty()) fail("give --ref FILE (one or more) or --source FILE to compare the hypotheses with");
  return out;
}

// sacrebleu takes the part after the '-'.
std::optional<std::string> target_language(const std::string& pair) {
  const auto dash = pair.find('-');
  if (dash == 0 || dash == std::string::npos || dash + 1 == pair.size()) return std::nullopt;
  const auto target = pair.substr(dash + 1);
  if (target.find('-') != std::string::npos) return std::nullopt;
  return target;
}

}  // namespace invar::cli
