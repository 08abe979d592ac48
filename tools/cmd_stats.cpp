// `invar stats correlate|kl|chi2`: scipy-exact statistics (eval/stats.hpp) on columns of files.
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "engine/error.hpp"
#include "eval/io.hpp"
#include "eval/stats.hpp"
#include "tools/command.hpp"
#include "tools/stats_io.hpp"

namespace invar::cli {
namespace {

using nlohmann::ordered_json;

std::string number_text(double value) { return fmt::format("{:.6g}", value); }

stats::Alternative alternative_from(const std::string& name) {
  auto alternative = stats::parse_alternative(name);
  if (!alternative) fail("--alternative must be two-sided, greater or less, got '{}'", name);
  return *alternative;
}

// ---- correlate ----------------------------------------------------------------------------------

struct CorrelateArguments {
  std::string x, y, x_column = "1", y_column;
  bool header = false;
  std::string method = "all";
  std::string alternative = "two-sided";
  ResultOutput output;
};

void correlate(const CorrelateArguments& args) {
  const bool all = args.method == "all";
  if (!all && args.method != "pearson" && args.method != "spearman" && args.method != "kendall")
    fail("--method must be pearson, spearman, kendall or all, got '{}'", args.method);
  const auto alternative = alternative_from(args.alternative);
  // --y defaults to the --x file (with another column): two columns of one table.
  const std::string y_path = args.y.empty() ? args.x : args.y;
  const std::string y_column = !args.y_column.empty() ? args.y_column : args.y.empty() ? "2" : "1";
  const auto x = read_numbers(args.x, args.x_column, args.header);
  const auto y = read_numbers(y_path, y_column, args.header);
  if (x.size() != y.size())
    fail("{} has {} values but {} has {}; x and y must be line-aligned", args.x, x.size(), y_path, y.size());
  if (x.size() < 2) fail("{}: correlation needs at least 2 pairs, got {}", args.x, x.size());

  ordered_json json{{"n", x.size()}, {"alternative", stats::alternative_name(alternative)}};
  std::string text = fmt::format("n = {}, alternative: {}\n", x.size(), stats::alternative_name(alternative));
  if (all || args.method == "pearson") {
    const auto r = stats::pearson(x, y, alternative);
    const auto t = stats::correlation_t_test(r.statistic, x.size());
    const auto strength = stats::schober_strength(r.statistic);
    json["pearson"] = {{"r", json_number(r.statistic)},
                       {"p", json_number(r.pvalue)},
                       {"t", json_number(t.t)},
                       {"df", json_number(t.df)},
                       {"p_one_tailed_greater", json_number(t.pvalue)},
                       {"strength", strength ? ordered_json(*strength) : ordered_json(nullptr)}};
    text += fmt::format("pearson   r = {}  p = {}  (t = {}, df = {}, one-tailed p for r > 0 = {}; {})\n",
                        number_text(r.statistic), number_text(r.pvalue), number_text(t.t), number_text(t.df),
                        number_text(t.pvalue), strength.value_or("undefined"));
  }
  if (all || args.method == "spearman") {
    const auto s = stats::spearman(x, y, alternative);
    json["spearman"] = {{"rho", json_number(s.statistic)}, {"p", json_number(s.pvalue)}};
    text += fmt::format("spearman  rho = {}  p = {}\n", number_text(s.statistic), number_text(s.pvalue));
  }
  if (all || args.method == "kendall") {
    const auto k = stats::kendall_tau_b(x, y, alternative);
    json["kendall"] = {{"tau_b", json_number(k.tau)},
                       {"p", json_number(k.pvalue)},
                       {"method", stats::kendall_method_name(k.method)},
                       {"concordant", k.concordant},
                       {"discordant", k.discordant}};
    text += fmt::format("kendall   tau-b = {}  p = {} ({})\n", number_text(k.tau), number_text(k.pvalue),
                        stats::kendall_method_name(k.method));
  }
  write_result(args.output, json, text);
}

void setup_correlate(CLI::App& parent) {
  auto args = std::make_shared<CorrelateArguments>();
  auto* app = parent.add_subcommand(
      "correlate",
      "Pearson r (with the one-tailed t test t = r·sqrt((n−2)/(1−r²)), df n−2), Spearman rho (average ranks "
      "for ties) and Kendall tau-b, as scipy 1.10 computes them");
  app->add_option("--x", args->x, "File with the x values: one number per line, or a TSV/CSV/JSONL column")
      ->required();
  app->add_option("--y", args->y, "File with the y values, line-aligned with --x (default: the --x file)");
  app->add_option("--x-column", args->x_column, "Column of x: 1-based number or header name (TSV/CSV), key (JSONL)")
      ->capture_default_str();
  app->add_option("--y-column", args->y_column, "Column of y (default: 2 in the --x file, else 1)");
  app->add_flag("--header", args->header, "TSV/CSV files start with a header line");
  app->add_option("--method", args->method, "pearson, spearman, kendall or all")->capture_default_str();
  app->add_option("--alternative", args->alternative, "two-sided, greater (H1: positive correlation) or less")
      ->capture_default_str();
  add_output_options(app, args->output);
  app->callback([args] { correlate(*args); });
}

// ---- Distributions from counts or labels ---------------------------------------------------------

// Samples of labels turned into count vectors over the sorted union of their labels.
struct LabelCounts {
  std::vector<std::string> labels;
  std::vector<std::vector<double>> counts;  // one row per sample
};

LabelCounts count_labels(const std::vector<std::vector<std::string>>& samples) {
  std::set<std::string> all;
  for (const auto& sample : samples) all.insert(sample.begin(), sample.end());
  LabelCounts out{{all.begin(), all.end()}, {}};
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < out.labels.size(); ++i) index[out.labels[i]] = i;
  for (const auto& sample : samples) {
    std::vector<double> row(out.labels.size(), 0.0);
    for (const auto& label : sample) row[index[label]] += 1;
    out.counts.push_back(std::move(row));
  }
  return out;
}

// ---- kl -----------------------------------------------------------------------------------------

struct KlArguments {
  std::string p, q, column = "1";
  bool header = false;
  bool labels = false;
  std::string base = "e";
  double smoothing = 0;
  ResultOutput output;
};

void kl(const KlArguments& args) {
  stats::KlOptions options{.smoothing = args.smoothing};
  if (args.base == "2") options.base = 2;
  else if (args.base != "e") fail("--base must be e or 2, got '{}'", args.base);
  if (args.smoothing < 0) fail("--smoothing must be >= 0, got {}", args.smoothing);
  std::vector<double> p, q;
  ordered_json json;
  if (args.labels) {
    const auto counts = count_labels({read_labels(args.p, args.column, args.header),
                                      read_labels(args.q, args.column, args.header)});
    p = counts.counts[0];
    q = counts.counts[1];
    json["labels"] = counts.labels;
  } else {
    p = read_numbers(args.p, args.column, args.header);
    q = read_numbers(args.q, args.column, args.header);
    if (p.size() != q.size())
      fail("{} has {} bins but {} has {}; P and Q must be line-aligned", args.p, p.size(), args.q, q.size());
  }
  const double value = stats::kl_divergence(p, q, options);
  const char* unit = options.base == 2 ? "bits" : "nats";
  json["p"] = p;
  json["q"] = q;
  json["smoothing"] = args.smoothing;
  json["unit"] = unit;
  json["kl"] = json_number(value);
  std::string text = fmt::format("KL(P || Q) = {} {}\n", number_text(value), unit);
  if (std::isinf(value)) text += "Q has a zero bin where P has mass; --smoothing EPS adds EPS to every bin\n";
  write_result(args.output, json, text);
}

void setup_kl(CLI::App& parent) {
  auto args = std::make_shared<KlArguments>();
  auto* app = parent.add_subcommand(
      "kl",
      "Kullback-Leibler divergence KL(P || Q) = Σ p·log(p/q) as scipy.stats.entropy(p, q): both inputs are "
      "normalised to sum 1; a bin with p = 0 adds 0; p > 0 with q = 0 gives infinity unless --smoothing");
  app->add_option("--p", args->p, "P: counts or probabilities, one bin per line (or a column)")->required();
  app->add_option("--q", args->q, "Q, line-aligned with --p")->required();
  app->add_flag("--labels", args->labels,
                "The files hold one label per line (or a column of labels): compare their label distributions "
                "over the sorted union of labels");
  add_column_options(app, args->column, args->header);
  app->add_option("--base", args->base, "Logarithm: e (nats) or 2 (bits)")->capture_default_str();
  app->add_option("--smoothing", args->smoothing, "Added to every bin of P and Q before normalising (zero bins)")
      ->capture_default_str();
  add_output_options(app, args->output);
  app->callback([args] { kl(*args); });
}

// ---- chi2 ---------------------------------------------------------------------------------------

struct Chi2Arguments {
  std::string observed, expected, table;
  std::vector<std::string> labels;
  std::string column = "1";
  bool header = false;
  bool no_correction = false;
  ResultOutput output;
};

std::vector<std::vector<double>> read_count_table(const std::string& path, bool header) {
  const auto format = table_format_from_path(path);
  if (format == TableFormat::Jsonl || format == TableFormat::Text)
    fail("{}: --table reads a TSV or CSV file of counts (.tsv or .csv)", path);
  const auto table = read_table(path, {.format = format, .header = header});
  if (table.rows.empty()) fail("{}: no rows", table.path);
  std::vector<std::vector<double>> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    std::vector<double> row;
    for (std::size_t c = 0; c < table.rows[r].size(); ++c)
      row.push_back(parse_number(table.rows[r][c], fmt::format("{} column {}", table.where(r), c + 1)));
    out.push_back(std::move(row));
  }
  return out;
}

void chi2(const Chi2Arguments& args) {
  const int modes = !args.observed.empty() + !args.table.empty() + !args.labels.empty();
  if (modes != 1) fail("give exactly one of --observed (goodness of fit), --table or --labels (contingency)");
  ordered_json json;
  stats::ChiSquare result;
  std::string test;
  if (!args.observed.empty()) {
    test = "goodness of fit";
    const auto observed = read_numbers(args.observed, args.column, args.header);
    std::vector<double> expected;
    if (!args.expected.empty()) {
      expected = read_numbers(args.expected, args.column, args.header);
      if (expected.size() != observed.size())
        fail("{} has {} bins but {} has {}; observed and expected must be line-aligned", args.observed,
             observed.size(), args.expected, expected.size());
    }
    result = stats::chisquare(observed, expected);
    json["observed"] = observed;
    json["expected"] = expected.empty() ? ordered_json("uniform") : ordered_json(expected);
  } else {
    if (!args.expected.empty()) fail("--expected goes with --observed; a contingency table computes its own");
    test = "contingency";
    std::vector<std::vector<double>> table;
    if (!args.table.empty()) {
      table = read_count_table(args.table, args.header);
    } else {
      if (args.labels.size() < 2) fail("--labels needs two or more files (one row of the table each)");
      std::vector<std::vector<std::string>> samples;
      for (const auto& file : args.labels) samples.push_back(read_labels(file, args.column, args.header));
      auto counts = count_labels(samples);
      json["labels"] = counts.labels;
      table = std::move(counts.counts);
    }
    result = stats::chi2_contingency(table, !args.no_correction);
    json["table"] = table;
    json["correction"] = !args.no_correction;
    json["expected"] = result.expected;
  }
  json["test"] = test;
  json["chi2"] = json_number(result.statistic);
  json["p"] = json_number(result.pvalue);
  json["dof"] = result.dof;
  const auto text = fmt::format("chi2 ({}) = {}  dof = {}  p = {}\n", test, number_text(result.statistic),
                                result.dof, number_text(result.pvalue));
  write_result(args.output, json, text);
}

void setup_chi2(CLI::App& parent) {
  auto args = std::make_shared<Chi2Arguments>();
  auto* app = parent.add_subcommand(
      "chi2",
      "Chi-squared tests as scipy: goodness of fit (scipy.stats.chisquare) of --observed counts against "
      "--expected counts (default uniform; the sums must agree), or independence in a contingency table "
      "(scipy.stats.chi2_contingency, Yates' correction when dof = 1 unless --no-correction) given as a "
      "TSV/CSV --table of counts or as label files, one table row per --labels file");
  app->add_option("--observed", args->observed, "Observed counts, one per line (or a column)");
  app->add_option("--expected", args->expected, "Expected counts, line-aligned with --observed");
  app->add_option("--table", args->table, "Contingency table: TSV or CSV rows of counts");
  app->add_option("--labels", args->labels,
                  "A file of labels (one per line or a column); repeat: each file is a row, each label a column");
  add_column_options(app, args->column, args->header);
  app->add_flag("--no-correction", args->no_correction, "No Yates' continuity correction for 2x2 tables");
  add_output_options(app, args->output);
  app->callback([args] { chi2(*args); });
}

void setup(CLI::App& root) {
  auto* app = root.add_subcommand("stats", "Statistics that match scipy 1.10: correlations, KL divergence, chi-squared");
  app->require_subcommand(1);
  setup_correlate(*app);
  setup_kl(*app);
  setup_chi2(*app);
}

INVAR_COMMAND("stats", setup);

}  // namespace
}  // namespace invar::cli
