// `invar stats correlate|kl|chi2`: scipy-exact statistics (eval/stats/stats.hpp) on columns of files.
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/stats/classification.hpp"
#include "eval/stats/stats.hpp"
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

// ---- ttest --------------------------------------------------------------------------------------

struct TTestArguments {
  std::string a, b, column = "1";
  bool header = false;
  bool paired = false;
  bool welch = false;
  double popmean = 0;
  std::string alternative = "two-sided";
  ResultOutput output;
};

void ttest(const TTestArguments& args) {
  const auto alternative = alternative_from(args.alternative);
  const auto a = read_numbers(args.a, args.column, args.header);
  ordered_json json{{"n_a", a.size()}, {"mean_a", json_number(stats::numpy_mean(a))}};
  stats::TTest result;
  std::string test;
  if (args.b.empty()) {
    if (args.paired || args.welch) fail("--paired and --welch compare two samples: give --b FILE");
    test = fmt::format("one-sample, population mean {}", args.popmean);
    result = stats::ttest_1samp(a, args.popmean, alternative);
  } else {
    if (args.paired && args.welch) fail("--welch is for independent samples; leave it out with --paired");
    const auto b = read_numbers(args.b, args.column, args.header);
    if (args.paired && a.size() != b.size())
      fail("{} has {} values but {} has {}; paired samples must be line-aligned", args.a, a.size(), args.b, b.size());
    json["n_b"] = b.size();
    json["mean_b"] = json_number(stats::numpy_mean(b));
    test = args.paired ? "paired" : args.welch ? "independent, Welch" : "independent, pooled variance";
    result = args.paired ? stats::ttest_rel(a, b, alternative) : stats::ttest_ind(a, b, !args.welch, alternative);
  }
  json["test"] = test;
  json["alternative"] = stats::alternative_name(alternative);
  json["t"] = json_number(result.t);
  json["df"] = json_number(result.df);
  json["p"] = json_number(result.pvalue);
  write_result(args.output, json,
               fmt::format("t-test ({}, {}): t = {}  df = {}  p = {}\n", test, stats::alternative_name(alternative),
                           number_text(result.t), number_text(result.df), number_text(result.pvalue)));
}

void setup_ttest(CLI::App& parent) {
  auto args = std::make_shared<TTestArguments>();
  auto* app = parent.add_subcommand(
      "ttest",
      "Student's t-tests as scipy: one-sample (ttest_1samp, --a only), independent samples (ttest_ind, pooled "
      "variance or --welch) or --paired (ttest_rel, line-aligned)");
  app->add_option("--a", args->a, "First sample: one number per line (or a column)")->required();
  app->add_option("--b", args->b, "Second sample");
  app->add_flag("--paired", args->paired, "Paired samples: the one-sample test of the differences a − b");
  app->add_flag("--welch", args->welch, "Welch's test (unequal variances) for independent samples");
  app->add_option("--popmean", args->popmean, "Population mean of the one-sample test")->capture_default_str();
  app->add_option("--alternative", args->alternative, "two-sided, greater (H1: mean of a larger) or less")
      ->capture_default_str();
  add_column_options(app, args->column, args->header);
  add_output_options(app, args->output);
  app->callback([args] { ttest(*args); });
}

// ---- binom --------------------------------------------------------------------------------------

struct BinomArguments {
  std::size_t k = 0, n = 0;
  double p = 0.5;
  std::string alternative = "two-sided";
  double confidence = 0.95;
  ResultOutput output;
};

void binom(const BinomArguments& args) {
  const auto alternative = alternative_from(args.alternative);
  const auto r = stats::binomtest(args.k, args.n, args.p, alternative, args.confidence);
  const ordered_json json{{"k", r.k},
                          {"n", r.n},
                          {"p0", args.p},
                          {"alternative", stats::alternative_name(alternative)},
                          {"statistic", json_number(r.statistic)},
                          {"p", json_number(r.pvalue)},
                          {"confidence", args.confidence},
                          {"ci_low", json_number(r.ci_low)},
                          {"ci_high", json_number(r.ci_high)}};
  write_result(args.output, json,
               fmt::format("binomial test: {}/{} = {}  p = {} ({}, H0 p = {})  {:g}% CI [{}, {}] (Clopper-Pearson)\n",
                           r.k, r.n, number_text(r.statistic), number_text(r.pvalue),
                           stats::alternative_name(alternative), args.p, 100 * args.confidence,
                           number_text(r.ci_low), number_text(r.ci_high)));
}

void setup_binom(CLI::App& parent) {
  auto args = std::make_shared<BinomArguments>();
  auto* app = parent.add_subcommand(
      "binom", "Exact binomial test as scipy.stats.binomtest, with the Clopper-Pearson confidence interval");
  app->add_option("--k", args->k, "Successes")->required();
  app->add_option("--n", args->n, "Trials")->required();
  app->add_option("--p", args->p, "Success probability under H0")->capture_default_str();
  app->add_option("--alternative", args->alternative, "two-sided, greater or less")->capture_default_str();
  app->add_option("--confidence", args->confidence, "Confidence level of the interval")->capture_default_str();
  add_output_options(app, args->output);
  app->callback([args] { binom(*args); });
}

// ---- classification -----------------------------------------------------------------------------

struct ClassificationArguments {
  std::string gold, pred, gold_column = "1", pred_column = "1";
  bool header = false;
  std::string zero_division = "warn";
  ResultOutput output;
};

void classification(const ClassificationArguments& args) {
  const auto zero_division = stats::parse_zero_division(args.zero_division);
  if (!zero_division) fail("--zero-division must be warn, 0 or 1, got '{}'", args.zero_division);
  const auto gold = read_labels(args.gold, args.gold_column, args.header);
  const auto pred = read_labels(args.pred, args.pred_column, args.header);
  if (gold.size() != pred.size())
    fail("{} has {} labels but {} has {}; gold and predicted labels must be line-aligned", args.gold, gold.size(),
         args.pred, pred.size());
  const auto scores = stats::classification_scores(gold, pred, *zero_division);
  auto json = stats::classification_json(scores);
  json["zero_division"] = args.zero_division;
  write_result(args.output, json,
               fmt::format("n = {}, zero_division = {}\n", scores.n, args.zero_division) +
                   stats::classification_text(scores));
}

void setup_classification(CLI::App& parent) {
  auto args = std::make_shared<ClassificationArguments>();
  auto* app = parent.add_subcommand(
      "classification",
      "Accuracy, precision/recall/F1 per label and micro/macro/weighted averages, and the confusion matrix, as "
      "scikit-learn 1.2's accuracy_score, precision_recall_fscore_support and confusion_matrix compute them");
  app->add_option("--gold", args->gold, "The true labels: one per line, or a TSV/CSV/JSONL column")->required();
  app->add_option("--pred", args->pred, "The predicted labels, line-aligned with --gold")->required();
  app->add_option("--gold-column", args->gold_column, "Column of --gold: 1-based number or header name, JSONL key")
      ->capture_default_str();
  app->add_option("--pred-column", args->pred_column, "Column of --pred")->capture_default_str();
  app->add_flag("--header", args->header, "TSV/CSV files start with a header line (implied by column names)");
  app->add_option("--zero-division", args->zero_division,
                  "Precision (recall) of a label never predicted (never true): warn (sklearn's default: 0, and the "
                  "label is named as ill-defined), 0 or 1")
      ->capture_default_str();
  add_output_options(app, args->output);
  app->callback([args] { classification(*args); });
}

// ---- vote ---------------------------------------------------------------------------------------

struct VoteArguments {
  std::string input;
  std::vector<std::string> columns;
  bool header = false;
  std::string output = "-";
  bool json = false;
};

const char* agreement_text(stats::Agreement agreement) {
  switch (agreement) {
    case stats::Agreement::All: return "all";
    case stats::Agreement::Two: return "majority";
    case stats::Agreement::None: break;
  }
  return "none";
}

void vote(const VoteArguments& args) {
  if (args.columns.size() < 2) fail("--columns needs the votes of two or more detectors");
  const auto [table, index] = read_columns(args.input, args.columns, args.header);
  AtomicOutput out(args.output);
  std::vector<std::string> votes(index.size());
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    for (std::size_t c = 0; c < index.size(); ++c) votes[c] = table.rows[r][index[c]];
    const auto result = stats::majority_vote(votes);
    if (args.json) {
      out.write_line(ordered_json{{"line", table.line_numbers[r]},
                                  {"majority", result.winner ? ordered_json(*result.winner) : ordered_json(nullptr)},
                                  {"agreement", agreement_text(result.agreement)},
                                  {"count", result.count},
                                  {"voters", votes.size()}}
                         .dump());
    } else {
      out.write_line(fmt::format("{}\t{}", result.winner.value_or("Ø"), agreement_text(result.agreement)));
    }
  }
  out.commit();
}

void setup_vote(CLI::App& parent) {
  auto args = std::make_shared<VoteArguments>();
  auto* app = parent.add_subcommand(
      "vote",
      "Majority vote over detectors, one result per input row (line-aligned): the value held by more than "
      "half of the --columns, or Ø (no majority); with three detectors of [S_X, S_Y] pairs (JSONL arrays) "
      "this is the statistical mode of isometry studies. Text output: VALUE<TAB>all|majority|none");
  app->add_option("--input", args->input, "TSV/CSV (one column per detector; other files are read as TSV) or JSONL table")->required();
  app->add_option("--columns", args->columns, "The detectors' columns: header names, 1-based numbers or JSONL keys")
      ->delimiter(',')
      ->required();
  app->add_flag("--header", args->header, "TSV/CSV files start with a header line (implied by column names)");
  app->add_flag("--json", args->json, "JSON Lines {line, majority (null = none), agreement, count, voters}");
  app->add_option("-o,--output", args->output, "Write here instead of standard output (complete or not at all)");
  app->callback([args] { vote(*args); });
}

void setup(CLI::App& root) {
  auto* app = root.add_subcommand(
      "stats", "Statistics that match scipy 1.10: correlations, KL divergence, chi-squared, t-tests, binomial test, votes; "
      "classification metrics as scikit-learn 1.2");
  app->require_subcommand(1);
  setup_correlate(*app);
  setup_kl(*app);
  setup_chi2(*app);
  setup_ttest(*app);
  setup_binom(*app);
  setup_vote(*app);
  setup_classification(*app);
}

INVAR_COMMAND("stats", setup);

}  // namespace
}  // namespace invar::cli
