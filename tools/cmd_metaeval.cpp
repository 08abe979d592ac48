// `invar metaeval`: how well metrics agree with human judgements (eval/metaeval/metaeval.hpp) — segment
// correlations pooled and per group, system-level correlations and pairwise system accuracy — for
// one score column, or for several in one run (each evaluated alone, then a summary table).
#include <fmt/format.h>

#include <memory>

#include "core/console.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/printable.hpp"
#include "eval/metaeval/metaeval.hpp"
#include "eval/report/report.hpp"
#include "tools/command.hpp"
#include "tools/stats_io.hpp"

namespace invar::cli {
namespace {

using nlohmann::ordered_json;

struct MetaEvalArguments {
  std::string scores, human, system_scores;
  std::string system_column = "system", group_column, human_column = "human";
  std::string missing;  // a human cell holding this marks an unjudged segment
  std::vector<std::string> score_columns{"score"};
  bool header = false;
  bool lower_is_better = false;
  std::vector<std::string> lower_is_better_columns;
  ResultOutput output;
};

// The segments of every score column, in --score-column order.
std::vector<std::vector<metaeval::Segment>> read_segments(const MetaEvalArguments& args) {
  const bool same_file = args.human.empty();
  const std::size_t metrics = args.score_columns.size();
  std::vector<std::string> selectors{args.system_column};
  selectors.insert(selectors.end(), args.score_columns.begin(), args.score_columns.end());
  if (same_file) selectors.push_back(args.human_column);
  if (!args.group_column.empty()) selectors.push_back(args.group_column);
  const auto scores = read_columns(args.scores, selectors, args.header);
  std::optional<Columns> human;
  if (!same_file) {
    human = read_columns(args.human, {args.human_column}, args.header);
    if (human->table.rows.size() != scores.table.rows.size())
      fail("{} has {} rows but {} has {}; scores and human judgements must be line-aligned", scores.table.path,
           scores.table.rows.size(), human->table.path, human->table.rows.size());
  }
  std::vector<std::vector<metaeval::Segment>> segments(metrics);
  std::size_t unjudged = 0;
  for (std::size_t r = 0; r < scores.table.rows.size(); ++r) {
    const auto& row = scores.table.rows[r];
    metaeval::Segment s;
    s.system = row[scores.index[0]];
    if (s.system.empty()) fail("{}: empty system name in column '{}'", scores.table.where(r), args.system_column);
    const auto& human_cell = same_file ? row[scores.index[1 + metrics]] : human->table.rows[r][human->index[0]];
    if (!args.missing.empty() && human_cell == args.missing) {
      ++unjudged;
      continue;
    }
    s.human = parse_number(human_cell, same_file ? scores.table.where(r) : human->table.where(r));
    if (!args.group_column.empty()) s.group = row[scores.index.back()];
    for (std::size_t m = 0; m < metrics; ++m) {
      s.metric = parse_number(row[scores.index[1 + m]], scores.table.where(r));
      segments[m].push_back(s);
    }
  }
  if (unjudged > 0)
    print_line(fmt::format("metaeval: {} of {} rows have no human judgement ('{}' in {}) and are left out", unjudged,
               scores.table.rows.size(), args.missing, args.human_column));
  return segments;
}

std::map<std::string, double> read_system_scores(const std::string& path, const std::string& score_column,
                                                 const MetaEvalArguments& args) {
  const auto columns = read_columns(path, {args.system_column, score_column}, args.header);
  std::map<std::string, double> out;
  for (std::size_t r = 0; r < columns.table.rows.size(); ++r) {
    const auto& row = columns.table.rows[r];
    if (!out.emplace(row[columns.index[0]], parse_number(row[columns.index[1]], columns.table.where(r))).second)
      fail("{}: system '{}' listed twice", columns.table.where(r), row[columns.index[0]]);
  }
  return out;
}

std::string correlation_text(const std::string& name, const metaeval::CorrelationSummary& c) {
  return fmt::format("{:<24} n = {:<6} pearson {:>8.4f} (p {})  spearman {:>8.4f} (p {})  kendall {:>8.4f} "
                     "(p {})\n",
                     name, c.n, c.pearson.statistic, report::format_p(c.pearson.pvalue), c.spearman.statistic,
                     report::format_p(c.spearman.pvalue), c.kendall.tau, report::format_p(c.kendall.pvalue));
}

struct Evaluated {
  metaeval::MetaEvaluation result;
  ordered_json json;
  std::string text;
};

bool lower_is_better(const MetaEvalArguments& args, const std::string& column) {
  return args.lower_is_better || std::ranges::find(args.lower_is_better_columns, column) !=
                                     args.lower_is_better_columns.end();
}

// One score column: its JSON object and its text report.
Evaluated evaluate(const MetaEvalArguments& args, const std::string& column,
                   const std::vector<metaeval::Segment>& segments) {
  metaeval::MetaEvalOptions options{.higher_is_better = !lower_is_better(args, column)};
  if (!args.system_scores.empty()) options.system_metric = read_system_scores(args.system_scores, column, args);
  const auto result = metaeval::meta_evaluate(segments, options);

  ordered_json json;
  std::string text = "System          metric      human\n";
  auto& systems = json["systems"] = ordered_json::array();
  for (std::size_t i = 0; i < result.systems.size(); ++i) {
    systems.push_back({{"system", result.systems[i]},
                       {"metric", json_number(result.system_metric[i])},
                       {"human", json_number(result.system_human[i])}});
    text += fmt::format("{:<15} {:>10.4f} {:>10.4f}\n", printable(result.systems[i]), result.system_metric[i],
                        result.system_human[i]);
  }
  json["system_metric_source"] = args.system_scores.empty() ? "mean of segment scores" : args.system_scores;
  json["higher_is_better"] = options.higher_is_better;
  json["system_level"] = metaeval::correlation_json(result.system_level);
  const auto& p = result.pairwise;
  json["pairwise"] = {{"pairs", p.pairs},
                      {"correct", p.correct},
                      {"human_ties", p.human_ties},
                      {"metric_ties_only", p.metric_ties_only},
                      {"accuracy", json_number(p.accuracy)}};
  json["segment_level"] = metaeval::correlation_json(result.segment_pooled);
  auto& groups = json["groups"] = ordered_json::array();
  text += "\n" + correlation_text("system level", result.system_level);
  text += fmt::format("pairwise accuracy        {}/{} correct = {:.4f} (human ties excluded: {}; metric-only ties: {})\n",
                      p.correct, p.pairs - p.human_ties, p.accuracy, p.human_ties, p.metric_ties_only);
  text += correlation_text("segment level (pooled)", result.segment_pooled);
  for (std::size_t g = 0; g < result.groups.size(); ++g) {
    auto entry = metaeval::correlation_json(result.per_group[g]);
    entry["group"] = result.groups[g];
    groups.push_back(std::move(entry));
    text += correlation_text("  " + printable(result.groups[g]), result.per_group[g]);
  }
  return {result, std::move(json), std::move(text)};
}

// Several columns: one line per metric of the figures a metric study tabulates.
std::string summary_text(const std::vector<std::string>& columns, const std::vector<Evaluated>& evaluated) {
  std::string text = fmt::format("{:<24} {:>9} {:>9} {:>11} {:>9} {:>9} {:>9}\n", "metric", "sys rho", "sys tau",
                                 "pairwise", "seg r", "seg rho", "seg tau");
  for (std::size_t m = 0; m < columns.size(); ++m) {
    const auto& r = evaluated[m].result;
    text += fmt::format("{:<24} {:>9.4f} {:>9.4f} {:>11} {:>9.4f} {:>9.4f} {:>9.4f}\n", columns[m],
                        r.system_level.spearman.statistic, r.system_level.kendall.tau,
                        fmt::format("{}/{}", r.pairwise.correct, r.pairwise.pairs - r.pairwise.human_ties),
                        r.segment_pooled.pearson.statistic, r.segment_pooled.spearman.statistic,
                        r.segment_pooled.kendall.tau);
  }
  return text;
}

void run(const MetaEvalArguments& args) {
  for (const auto& column : args.lower_is_better_columns)
    if (std::ranges::find(args.score_columns, column) == args.score_columns.end())
      fail("--lower-is-better-column '{}' is not one of the --score-column names", column);
  const auto segments = read_segments(args);
  if (args.score_columns.size() == 1) {
    const auto one = evaluate(args, args.score_columns.front(), segments.front());
    write_result(args.output, one.json, one.text);
    return;
  }
  std::vector<Evaluated> evaluated;
  ordered_json json;
  auto& metrics = json["metrics"] = ordered_json::array();
  std::string text;
  for (std::size_t m = 0; m < args.score_columns.size(); ++m) {
    evaluated.push_back(evaluate(args, args.score_columns[m], segments[m]));
    ordered_json entry{{"metric", args.score_columns[m]}};
    entry.update(evaluated.back().json);
    metrics.push_back(std::move(entry));
    text += fmt::format("== {} ==\n{}\n", args.score_columns[m], evaluated.back().text);
  }
  write_result(args.output, json, text + summary_text(args.score_columns, evaluated));
}

void setup(CLI::App& root) {
  auto args = std::make_shared<MetaEvalArguments>();
  auto* app = root.add_subcommand(
      "metaeval",
      "Meta-evaluation of a metric against human judgements: segment-level Pearson / Spearman / Kendall tau-b "
      "(pooled and per --group-column), system-level scores (mean of a system's segment scores, or "
      "--system-scores such as corpus BLEU) with their correlations, and the number of system pairs the metric "
      "orders as the humans do (a human tie is never correct and is left out of the accuracy)");
  app->add_option("--scores", args->scores,
                  "Segment table (TSV/CSV with header, or JSONL): system, metric score and optional group columns")
      ->required();
  app->add_option("--human", args->human,
                  "Human judgements, row-aligned with --scores (default: the --human-column of --scores)");
  app->add_option("--system-column", args->system_column, "System column: header name, 1-based number or JSONL key")
      ->capture_default_str();
  app->add_option("--group-column", args->group_column, "Group column (language, data set) for per-group correlations");
  app->add_option("--score-column", args->score_columns,
                  "Metric score column; repeat for several metrics in one run (each evaluated alone, then a "
                  "summary table; JSON: {\"metrics\": [...]})")
      ->capture_default_str();
  app->add_option("--human-column", args->human_column, "Human judgement column")->capture_default_str();
  app->add_option("--missing", args->missing,
                  "A human value that marks an unjudged segment, left out of this run (e.g. None, as in Briakou et "
                  "al.'s meta-evaluation files); the count goes to stderr");
  app->add_option("--system-scores", args->system_scores,
                  "System-level metric scores (the system column and every score column, e.g. corpus BLEU) instead "
                  "of segment means");
  app->add_flag("--header", args->header, "TSV/CSV files start with a header line (implied by column names)");
  app->add_flag("--lower-is-better", args->lower_is_better, "Every metric is an error rate (e.g. TER)");
  app->add_option("--lower-is-better-column", args->lower_is_better_columns,
                  "A score column that is an error rate (repeatable), when others are not");
  add_output_options(app, args->output);
  app->callback([args] { run(*args); });
}

INVAR_COMMAND("metaeval", setup);

}  // namespace
}  // namespace invar::cli
