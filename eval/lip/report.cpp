#include "eval/lip/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/io.hpp"
#include "eval/report/chart.hpp"
#include "eval/report/report.hpp"

namespace invar::lip {

namespace {

using Align = report::TextTable::Align;

using Counts = std::vector<std::size_t>;

double share(const Counts& counts, std::size_t k) {
  std::size_t total = 0;
  for (auto c : counts) total += c;
  return total ? static_cast<double>(counts[k]) / static_cast<double>(total) : 0.0;
}

MeanStd over_runs(const LipResult& result, const std::function<double(const LipRun&)>& value) {
  std::vector<double> values;
  for (const auto& run : result.runs) values.push_back(value(run));
  return mean_std(values);
}

std::string format_value(const LipResult& result, const MeanStd& value, int decimals) {
  if (result.runs.size() == 1) return fmt::format("{:.{}f}", value.mean, decimals);
  return fmt::format("{:.{}f} ± {:.{}f}", value.mean, decimals, value.std, decimals);
}

using report::format_p;

// The spread of p over runs is not a p-value: printed in the mean's notation (a mean in four
// decimals with a spread in scientific notation reads as two different scales).
std::string format_p(const LipResult& result, const MeanStd& p) {
  if (result.runs.size() == 1) return format_p(p.mean);
  return format_p(p.mean) + " ± " + (p.mean < 1e-4 ? fmt::format("{:.2e}", p.std) : fmt::format("{:.4f}", p.std));
}

struct Test {
  const char* name;
  const char* key;
  std::function<const LipSignificance&(const LipRun&)> of;
};

const std::vector<Test>& tests() {
  static const std::vector<Test> all{
      {"χ² p(A) vs p(B)", "original_vs_transformed", [](const LipRun& r) -> const LipSignificance& { return r.original_vs_transformed; }},
      {"χ² p̂(A) vs p(A)", "truth_vs_original", [](const LipRun& r) -> const LipSignificance& { return r.truth_vs_original; }},
      {"χ² p̂(A) vs p(B)", "truth_vs_transformed", [](const LipRun& r) -> const LipSignificance& { return r.truth_vs_transformed; }},
  };
  return all;
}

struct Distribution {
  const char* symbol;
  const char* key;
  const char* description;
  const Counts LipRun::*counts;
};

const std::vector<Distribution>& distributions() {
  static const std::vector<Distribution> all{
      {"p̂(A)", "truth", "ground truth of the originals", &LipRun::truth_counts},
      {"p(A)", "original", "predicted on the originals", &LipRun::original_counts},
      {"p(B)", "transformed", "predicted on the transformed texts", &LipRun::transformed_counts},
  };
  return all;
}

MeanStd share_over_runs(const LipResult& result, const Distribution& d, std::size_t k) {
  return over_runs(result, [&](const LipRun& run) { return share(run.*(d.counts), k); });
}

report::TextTable classifier_table(const LipData& data, const LipResult& result) {
  report::TextTable table;
  table.header = {"classifier", "trained on", "checked texts", "accuracy", "macro-F1", "C"};
  table.align = {Align::Left, Align::Right, Align::Right, Align::Right,
                 Align::Right, Align::Right};
  auto add = [&](const std::string& name, auto check, auto training, auto C) {
    const auto& first = result.runs.front();
    auto chosen = over_runs(result, [&](const LipRun& r) { return r.*C; });
    auto c = chosen.std == 0 ? fmt::format("{}", chosen.mean) : format_value(result, chosen, 3);
    if (!(first.*check)) {
      table.rows.push_back({name, std::to_string(first.*training), "0", "-", "-", c});
      return;
    }
    table.rows.push_back({name, std::to_string(first.*training),
                          std::to_string((first.*check)->texts),
                          format_value(result, over_runs(result, [&](const LipRun& r) { return (r.*check)->accuracy; }), 3),
                          format_value(result, over_runs(result, [&](const LipRun& r) { return (r.*check)->macro_f1; }), 3),
                          c});
  };
  add(data.train_target || data.source_only ? "for A" : "for A and B", &LipRun::source_check, &LipRun::source_training_texts, &LipRun::source_C);
  if (data.train_target) add("for B", &LipRun::target_check, &LipRun::target_training_texts, &LipRun::target_C);
  return table;
}

report::TextTable distribution_table(const LipResult& result) {
  report::TextTable table;
  table.header = {"property value"};
  table.align = {Align::Left};
  for (const auto& d : distributions()) {
    table.header.push_back(d.symbol);
    table.align.push_back(Align::Right);
  }
  table.header.push_back("p(B) − p(A)");
  table.align.push_back(Align::Right);
  for (std::size_t k = 0; k < result.classes.size(); ++k) {
    std::vector<std::string> row{result.classes[k]};
    for (const auto& d : distributions()) {
      auto value = share_over_runs(result, d, k);
      // The ground truth is the same in every run.
      row.push_back(d.counts == &LipRun::truth_counts ? fmt::format("{:.3f}", value.mean) : format_value(result, value, 3));
    }
    auto shift = over_runs(result, [&](const LipRun& r) { return share(r.transformed_counts, k) - share(r.original_counts, k); });
    row.push_back(fmt::format("{:+.3f}", shift.mean));
    table.rows.push_back(std::move(row));
  }
  return table;
}

report::TextTable score_table(const LipResult& result) {
  report::TextTable table;
  table.header = {"score", "value", "dof", "p", ""};
  table.align = {Align::Left, Align::Right, Align::Right, Align::Right,
                 Align::Left};
  table.rows.push_back({"KL(p̂(A) ‖ p(A))", format_value(result, over_runs(result, [](const LipRun& r) { return r.kl_original; }), 3), "", "", ""});
  table.rows.push_back({"KL(p̂(A) ‖ p(B))", format_value(result, over_runs(result, [](const LipRun& r) { return r.kl_transformed; }), 3), "", "", ""});
  for (const auto& test : tests()) {
    auto p = over_runs(result, [&](const LipRun& r) { return test.of(r).pvalue; });
    table.rows.push_back({test.name, format_value(result, over_runs(result, [&](const LipRun& r) { return test.of(r).chi2; }), 3),
                          fmt::format("{}", test.of(result.runs.front()).dof), format_p(result, p),
                          significance_stars(p.mean)});
  }
  return table;
}

std::vector<std::pair<std::string, std::string>> settings(const LipData& data, const LipResult& result) {
  auto count = [](const LabelledTexts& t) { return fmt::format("{} ({} texts)", t.path, t.texts.size()); };
  std::vector<std::pair<std::string, std::string>> items{{"originals A", count(data.original)}};
  if (!data.source_only) items.emplace_back("transformed B", data.transformed.path);
  if (data.train_target) {
    items.emplace_back("training data for A", count(data.train));
    items.emplace_back("training data for B", count(*data.train_target));
  } else {
    items.emplace_back("training data", count(data.train));
  }
  for (const auto& skipped : data.skipped)
    items.emplace_back(skipped.read_as_nan ? "empty texts read as 'nan'" : "empty texts skipped",
                       fmt::format("{} in {}", skipped.count, skipped.path));
  items.emplace_back("classifier", fmt::format("{} (preset {})", result.classifier, result.preset));
  items.emplace_back("classifier check", result.check);
  if (result.runs.size() > 1)
    items.emplace_back("runs", fmt::format("{} (seeds {}..{})", result.runs.size(), result.runs.front().seed,
                                           result.runs.back().seed));
  return items;
}

// GridSearchCV's table: per C the fold scores (micro-F1), their mean, and the C taken.
report::TextTable grid_table(const CrossValidation& cv) {
  report::TextTable table;
  table.header = {"C"};
  for (std::size_t f = 0; f < cv.grid->fold_scores.front().size(); ++f) table.header.push_back(fmt::format("fold {}", f + 1));
  table.header.push_back("mean");
  table.header.push_back("");
  table.align.assign(table.header.size(), Align::Right);
  for (std::size_t c = 0; c < cv.grid->candidates.size(); ++c) {
    std::vector<std::string> row{fmt::format("{}", cv.grid->candidates[c])};
    for (double score : cv.grid->fold_scores[c]) row.push_back(fmt::format("{:.4f}", score));
    row.push_back(fmt::format("{:.4f}", cv.grid->means[c]));
    row.push_back(c == cv.grid->best ? "chosen" : "");
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::vector<std::string> predicted_labels(const LipResult& result, const std::vector<int>& predictions) {
  std::vector<std::string> labels;
  for (int p : predictions) labels.push_back(result.classes[static_cast<std::size_t>(p)]);
  return labels;
}

std::string tool_distribution_text(const std::vector<std::string>& labels) {
  std::vector<std::string> parts;
  for (const auto& [label, share] : tool_distribution(labels)) parts.push_back(fmt::format("'{}': {}", label, share));
  return "{" + fmt::format("{}", fmt::join(parts, ", ")) + "}";
}

// The dictionary the tool's Dataset.score() returns, for one run.
report::TextTable tool_table(const LipData& data, const LipResult& result, const LipRun& run) {
  report::TextTable table;
  table.header = {"key", "value", "test"};
  table.rows.push_back({"KL_O_PO", fmt::format("{:.3f}", run.kl_original), "KL(p̂(A) ‖ p(A))"});
  table.rows.push_back({"KL_O_PT", fmt::format("{:.3f}", run.kl_transformed), "KL(p̂(A) ‖ p(B))"});
  table.rows.push_back({"significance_source", fmt::format("'{}'", tool_stars(run.truth_vs_original.pvalue)),
                        fmt::format("χ² p̂(A) vs p(A), p = {}", format_p(run.truth_vs_original.pvalue))});
  table.rows.push_back({"significance_transformed", fmt::format("'{}'", tool_stars(run.truth_vs_transformed.pvalue)),
                        fmt::format("χ² p̂(A) vs p(B), p = {}", format_p(run.truth_vs_transformed.pvalue))});
  table.rows.push_back({"distribution_O", tool_distribution_text(data.original.labels), "p̂(A)"});
  table.rows.push_back({"distribution_PO", tool_distribution_text(predicted_labels(result, run.original_predictions.labels)), "p(A)"});
  table.rows.push_back({"distribution_PT", tool_distribution_text(predicted_labels(result, run.transformed_predictions.labels)), "p(B)"});
  return table;
}

// The tool's normalize_counter as [label, share] pairs in first-seen order.
nlohmann::json distribution(const std::vector<std::string>& labels) {
  nlohmann::json shares = nlohmann::json::array();
  for (const auto& [label, share] : tool_distribution(labels)) shares.push_back({label, share});
  return shares;
}

// The empty texts per file, left out (--empty skip) or read as "nan" (--empty nan).
void add_empty_counts(nlohmann::json& out, const LipData& data) {
  out["empty_texts_skipped"] = nlohmann::json::object();
  out["empty_texts_read_as_nan"] = nlohmann::json::object();
  for (const auto& skipped : data.skipped)
    out[skipped.read_as_nan ? "empty_texts_read_as_nan" : "empty_texts_skipped"][skipped.path] = skipped.count;
}

nlohmann::json tool_json(const LipData& data, const LipResult& result, const LipRun& run) {
  return {{"KL_O_PO", fmt::format("{:.3f}", run.kl_original)},
          {"KL_O_PT", fmt::format("{:.3f}", run.kl_transformed)},
          {"significance_source", tool_stars(run.truth_vs_original.pvalue)},
          {"significance_transformed", tool_stars(run.truth_vs_transformed.pvalue)},
          {"distribution_O", distribution(data.original.labels)},
          {"distribution_PO", distribution(predicted_labels(result, run.original_predictions.labels))},
          {"distribution_PT", distribution(predicted_labels(result, run.transformed_predictions.labels))}};
}

nlohmann::json cv_json(const CrossValidation& cv) {
  nlohmann::json out = {{"C", cv.C}, {"test_folds", cv.test_folds}};
  if (cv.grid)
    out["grid"] = {{"C", cv.grid->candidates}, {"fold_f1_micro", cv.grid->fold_scores}, {"mean", cv.grid->means},
                   {"best_index", cv.grid->best}};
  return out;
}

std::vector<std::string> weak_reasons(const LipResult& result) {
  std::vector<std::string> reasons;
  for (const auto& run : result.runs)
    for (const auto& reason : run.weak_check_reasons)
      if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(reason);
  return reasons;
}

}  // namespace

std::string lip_reading(const LipData& data, const LipResult& result) {
  const auto verdict = overall_verdict(result);
  auto p_of = [&](std::size_t test) { return over_runs(result, [&](const LipRun& r) { return tests()[test].of(r).pvalue; }).mean; };
  std::string text;
  if (verdict == LipVerdict::Inconclusive) {
    text = fmt::format(
        "No verdict: the classifier check is weak ({}), so its distributions say little about the property; "
        "improve the classifier (more or cleaner training data, another featurizer) before reading the LIP. For "
        "the record: p(A) vs p(B) χ² p = {}, p̂(A) vs p(A) p = {}.",
        fmt::join(weak_reasons(result), "; "), format_p(p_of(0)), format_p(p_of(1)));
  } else if (verdict == LipVerdict::TransformationBias) {
    std::size_t largest = 0;
    double largest_shift = 0;
    for (std::size_t k = 0; k < result.classes.size(); ++k) {
      double shift = share_over_runs(result, distributions()[2], k).mean - share_over_runs(result, distributions()[1], k).mean;
      if (std::abs(shift) > std::abs(largest_shift)) {
        largest = k;
        largest_shift = shift;
      }
    }
    text = fmt::format(
        "Transformation bias: the LIP is broken. p(B) differs significantly from p(A) (χ² p = {} {}): the "
        "transformed texts are labelled '{}' {:.1f} points {} often than the originals.",
        format_p(p_of(0)), significance_stars(p_of(0)), result.classes[largest], 100 * std::abs(largest_shift),
        largest_shift > 0 ? "more" : "less");
    if (p_of(1) <= 0.05)
      text += fmt::format(" The classifier is biased too (p̂(A) vs p(A): p = {}), so judge the size of the shift "
                          "against that bias.", format_p(p_of(1)));
  } else if (verdict == LipVerdict::ClassifierBias) {
    text = fmt::format(
        "Classifier bias: p(A) and p(B) are skewed the same way from p̂(A) (p̂(A) vs p(A): p = {}), while p(B) "
        "does not differ significantly from p(A) (p = {}). The transformation keeps the property as far as "
        "this classifier can tell; the skew is the classifier's.",
        format_p(p_of(1)), format_p(p_of(0)));
  } else {
    text = fmt::format(
        "The LIP is preserved: p(B) does not differ significantly from p(A) (p = {}) and the classifier shows "
        "no significant bias (p̂(A) vs p(A): p = {}).",
        format_p(p_of(0)), format_p(p_of(1)));
  }
  if (result.runs.size() > 1) {
    std::size_t agreeing = 0;
    for (const auto& run : result.runs) agreeing += run.verdict == verdict;
    text += fmt::format(" ({} of {} runs read so.)", agreeing, result.runs.size());
  }
  return text;
}

namespace {

// --source-only: the classifier on A against A's truth, as the tool's source-side keys.
report::TextTable source_tool_table(const LipData& data, const LipResult& result, const LipRun& run) {
  report::TextTable table;
  table.header = {"key", "value", "test"};
  table.rows.push_back({"KL_O_PO", fmt::format("{:.3f}", run.kl_original), "KL(p̂(A) ‖ p(A))"});
  table.rows.push_back({"significance_source", fmt::format("'{}'", tool_stars(run.truth_vs_original.pvalue)),
                        fmt::format("χ² p̂(A) vs p(A), p = {}", format_p(run.truth_vs_original.pvalue))});
  table.rows.push_back({"distribution_O", tool_distribution_text(data.original.labels), "p̂(A)"});
  table.rows.push_back({"distribution_PO", tool_distribution_text(predicted_labels(result, run.original_predictions.labels)), "p(A)"});
  return table;
}

std::string source_text_report(const LipData& data, const LipResult& result) {
  const auto& run = result.runs.front();
  report::TextTable header;
  for (const auto& [name, value] : settings(data, result)) header.rows.push_back({name, value});
  std::string out = "Language Invariant Property benchmark, source side only (no transformed texts)\n" +
                    header.render() + "\nClassifier check\n" + classifier_table(data, result).render() + "\n";
  if (run.source_cv && run.source_cv->grid)
    out += "Grid search (micro-F1 per fold)\n" + grid_table(*run.source_cv).render() + "\n";
  out += "As the LIP tool reports the source side (KL '%.3f', stars of χ² against the truth)\n" +
         source_tool_table(data, result, run).render() + "\n";
  const char* bias = run.verdict == LipVerdict::ClassifierBias ? "yes: p(A) differs from p̂(A) (χ² p ≤ 0.05)"
                     : run.verdict == LipVerdict::Inconclusive ? "no verdict (weak classifier check)"
                                                               : "no significant difference between p(A) and p̂(A)";
  return out + fmt::format("Classifier bias on A: {}\n", bias);
}

nlohmann::json source_json(const LipData& data, const LipResult& result, const report::Provenance& provenance) {
  using nlohmann::json;
  const auto& run = result.runs.front();
  json out{{"provenance", provenance.json()}, {"source_only", true}, {"original", data.original.path}, {"train", data.train.path},
           {"texts", data.original.texts.size()}, {"classes", result.classes}, {"classifier", result.classifier},
           {"preset", result.preset}, {"check", result.check}, {"weak_check", weak_reasons(result)},
           {"C", run.source_C}, {"kl_truth_original", run.kl_original},
           {"chi2_truth_original", {{"chi2", run.truth_vs_original.chi2}, {"p", run.truth_vs_original.pvalue},
                                    {"dof", run.truth_vs_original.dof}}},
           {"verdict", verdict_name(run.verdict)}};
  add_empty_counts(out, data);
  if (run.source_check)
    out["classifier_check"] = {{"texts", run.source_check->texts}, {"accuracy", run.source_check->accuracy},
                               {"macro_f1", run.source_check->macro_f1}};
  if (run.source_cv) out["cross_validation"] = cv_json(*run.source_cv);
  out["tool"] = {{"KL_O_PO", fmt::format("{:.3f}", run.kl_original)},
                 {"significance_source", tool_stars(run.truth_vs_original.pvalue)},
                 {"distribution_O", distribution(data.original.labels)},
                 {"distribution_PO", distribution(predicted_labels(result, run.original_predictions.labels))}};
  return out;
}

}  // namespace

std::string lip_text_report(const LipData& data, const LipResult& result) {
  if (data.source_only) return source_text_report(data, result);
  std::string out;
  report::TextTable header;
  for (const auto& [name, value] : settings(data, result)) header.rows.push_back({name, value});
  out += "Language Invariant Property benchmark\n" + header.render() + "\n";
  out += "Classifier check (assess the classifier before reading the LIP)\n";
  out += classifier_table(data, result).render() + "\n";
  const auto& first = result.runs.front();
  if (result.runs.size() == 1 && first.source_cv && first.source_cv->grid)
    out += fmt::format("Grid search{} (micro-F1 per fold)\n", data.train_target ? " for A" : "") +
           grid_table(*first.source_cv).render() + "\n";
  if (result.runs.size() == 1 && first.target_cv && first.target_cv->grid)
    out += "Grid search for B (micro-F1 per fold)\n" + grid_table(*first.target_cv).render() + "\n";
  out += "Distributions (share of texts per property value)\n";
  out += distribution_table(result).render() + "\n";
  out += score_table(result).render() + "\n";
  if (result.runs.size() == 1)
    out += "As the LIP tool reports it (Dataset.score(): KL '%.3f', stars of χ² against the truth)\n" +
           tool_table(data, result, first).render() + "\n";
  out += lip_reading(data, result) + "\n";
  return out;
}

nlohmann::json lip_json(const LipData& data, const LipResult& result, const report::Provenance& provenance) {
  if (data.source_only) return source_json(data, result, provenance);
  using nlohmann::json;
  auto ms = [](const MeanStd& v) { return json{{"mean", v.mean}, {"std", v.std}}; };
  json out;
  out["provenance"] = provenance.json();
  out["original"] = data.original.path;
  out["transformed"] = data.transformed.path;
  out["train"] = data.train.path;
  out["train_target"] = data.train_target ? json(data.train_target->path) : json(nullptr);
  out["texts"] = data.original.texts.size();
  out["classes"] = result.classes;
  out["classifier"] = result.classifier;
  out["runs"] = result.runs.size();
  out["seed"] = result.runs.front().seed;
  out["preset"] = result.preset;
  add_empty_counts(out, data);
  out["check"] = result.check;
  out["weak_check"] = weak_reasons(result);
  if (result.runs.size() == 1) out["tool"] = tool_json(data, result, result.runs.front());
  json checks = json::object();
  auto check = [&](const char* key, auto member) {
    if (!(result.runs.front().*member)) return;
    checks[key] = {{"texts", (result.runs.front().*member)->texts},
                   {"accuracy", ms(over_runs(result, [&](const LipRun& r) { return (r.*member)->accuracy; }))},
                   {"macro_f1", ms(over_runs(result, [&](const LipRun& r) { return (r.*member)->macro_f1; }))}};
  };
  check("source", &LipRun::source_check);
  check("target", &LipRun::target_check);
  out["classifier_check"] = checks;
  for (const auto& d : distributions()) {
    json shares = json::object();
    for (std::size_t k = 0; k < result.classes.size(); ++k) shares[result.classes[k]] = ms(share_over_runs(result, d, k));
    out["distributions"][d.key] = shares;
  }
  out["kl"]["truth_original"] = ms(over_runs(result, [](const LipRun& r) { return r.kl_original; }));
  out["kl"]["truth_transformed"] = ms(over_runs(result, [](const LipRun& r) { return r.kl_transformed; }));
  for (const auto& test : tests()) {
    auto p = over_runs(result, [&](const LipRun& r) { return test.of(r).pvalue; });
    out["chi2"][test.key] = {{"chi2", ms(over_runs(result, [&](const LipRun& r) { return test.of(r).chi2; }))},
                             {"p", ms(p)},
                             {"stars", significance_stars(p.mean)}};
  }
  out["verdict"] = verdict_name(overall_verdict(result));
  out["reading"] = lip_reading(data, result);
  json runs = json::array();
  for (const auto& run : result.runs) {
    json r;
    r["seed"] = run.seed;
    r["C"] = run.source_C;
    if (data.train_target) r["C_target"] = run.target_C;
    if (run.source_cv) r["cross_validation"] = cv_json(*run.source_cv);
    if (run.target_cv) r["cross_validation_target"] = cv_json(*run.target_cv);
    r["tool"] = tool_json(data, result, run);
    if (run.source_check) r["source_check"] = {{"accuracy", run.source_check->accuracy}, {"macro_f1", run.source_check->macro_f1}};
    if (run.target_check) r["target_check"] = {{"accuracy", run.target_check->accuracy}, {"macro_f1", run.target_check->macro_f1}};
    for (const auto& d : distributions()) r["counts"][d.key] = run.*(d.counts);
    r["kl_truth_original"] = run.kl_original;
    r["kl_truth_transformed"] = run.kl_transformed;
    // The paper prints get_kl's value as '%.3f'.
    r["kl_truth_original_formatted"] = fmt::format("{:.3f}", run.kl_original);
    r["kl_truth_transformed_formatted"] = fmt::format("{:.3f}", run.kl_transformed);
    for (const auto& test : tests()) {
      const auto& s = test.of(run);
      std::vector<std::string> used;
      for (auto k : s.classes) used.push_back(result.classes[k]);
      r["chi2"][test.key] = {{"chi2", s.chi2}, {"p", s.pvalue}, {"dof", s.dof}, {"stars", s.stars}, {"classes", used}};
    }
    r["verdict"] = verdict_name(run.verdict);
    runs.push_back(std::move(r));
  }
  out["per_run"] = std::move(runs);
  return out;
}

void write_lip_predictions(const std::string& path, const LipData& data, const LipResult& result) {
  AtomicOutput out(path);
  for (std::size_t i = 0; i < data.original.texts.size(); ++i) {
    nlohmann::json line;
    line["line"] = data.original.line_numbers[i];
    line["label"] = data.original.labels[i];
    for (const auto& [key, member] : {std::pair{"original", &LipRun::original_predictions},
                                      std::pair{"transformed", &LipRun::transformed_predictions}}) {
      if (data.source_only && member == &LipRun::transformed_predictions) continue;
      nlohmann::json labels = nlohmann::json::array(), probabilities = nlohmann::json::array();
      for (const auto& run : result.runs) {
        const auto& prediction = run.*member;
        labels.push_back(result.classes[static_cast<std::size_t>(prediction.labels[i])]);
        nlohmann::json p = nlohmann::json::object();
        for (std::size_t k = 0; k < result.classes.size(); ++k) p[result.classes[k]] = prediction.probabilities[i][k];
        probabilities.push_back(std::move(p));
      }
      line[key] = std::move(labels);
      line[std::string("p_") + key] = std::move(probabilities);
    }
    out.write_line(line.dump());
  }
  out.commit();
}

void write_lip_html(const std::string& path, const LipData& data, const LipResult& result,
                    const report::Provenance& provenance) {
  report::HtmlReport report("Language Invariant Property: " + data.transformed.path);
  report.settings(settings(data, result));
  report.heading("Verdict").paragraph(lip_reading(data, result));
  report.table(classifier_table(data, result), "Classifier check (assess the classifier before reading the LIP)");
  if (result.runs.size() == 1 && result.runs.front().source_cv && result.runs.front().source_cv->grid)
    report.table(grid_table(*result.runs.front().source_cv), "Grid search over C (micro-F1 per fold)");

  report::BarChart bars;
  bars.title = "Property distributions";
  bars.x_label = "property value";
  bars.y_label = "share of texts";
  bars.categories = result.classes;
  for (const auto& d : distributions()) {
    report::BarSeries series{fmt::format("{} {}", d.symbol, d.description), {}, {}};
    for (std::size_t k = 0; k < result.classes.size(); ++k) {
      auto value = share_over_runs(result, d, k);
      series.values.push_back(value.mean);
      if (result.runs.size() > 1) series.errors.push_back(value.std);
    }
    bars.series.push_back(std::move(series));
  }
  bars.width = std::max(640, 160 * static_cast<int>(result.classes.size()));
  report.figure(report::svg(bars), result.runs.size() > 1 ? "Bars: mean over runs; whiskers: ± one standard deviation."
                                                         : "");
  report.table(distribution_table(result), "Distributions");
  report.table(score_table(result), "Scores (KL: the paper's get_kl; χ²: chi2_contingency on the 2 × K counts)");
  if (result.runs.size() == 1)
    report.table(tool_table(data, result, result.runs.front()), "As the LIP tool reports it (Dataset.score())");
  if (result.runs.size() > 1) {
    report::TextTable runs;
    runs.header = {"seed", "KL(p̂(A) ‖ p(A))", "KL(p̂(A) ‖ p(B))", "p, p(A) vs p(B)", "verdict"};
    for (const auto& run : result.runs)
      runs.rows.push_back({std::to_string(run.seed), fmt::format("{:.3f}", run.kl_original),
                           fmt::format("{:.3f}", run.kl_transformed), format_p(run.original_vs_transformed.pvalue),
                           verdict_name(run.verdict)});
    report.table(runs, "Runs");
  }
  report.provenance(provenance).write(path);
}

}  // namespace invar::lip
