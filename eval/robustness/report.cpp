#include "eval/robustness/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "core/io.hpp"
#include "eval/report/chart.hpp"
#include "eval/report/report.hpp"

namespace invar::robustness {

using report::csv_field;
using report::latex_escape;

namespace {

using Align = report::TextTable::Align;

std::string number(double value) { return std::isfinite(value) ? fmt::format("{:.4f}", value) : "nan"; }

std::string mean_std_text(const stats::MeanStd& value, std::size_t models, const char* separator = " ± ") {
  if (models < 2) return number(value.mean);
  return number(value.mean) + separator + number(value.std);
}

nlohmann::json accuracy_json(const Accuracy& a) {
  return {{"correct", a.correct}, {"total", a.total}, {"accuracy", a.value()}};
}

nlohmann::json mean_std_json(const stats::MeanStd& value) { return {{"mean", value.mean}, {"std", value.std}}; }

std::string yes_no(bool value) { return value ? "yes" : "no"; }

report::TextTable population_table(const ScoreResult& result, const Population& population) {
  report::TextTable table;
  table.header = {"set", "texts", "accuracy", fmt::format("τ-robust (p′ ≥ max(0, p − {}))", result.tau),
                  fmt::format("bounded (|p′ − p| ≤ {})", result.tau)};
  table.align = {Align::Left, Align::Right, Align::Right, Align::Left, Align::Left};
  const std::size_t n = population.models.size();
  table.rows.push_back({"task (p)", std::to_string(result.task_texts), mean_std_text(population.task, n), "", ""});
  for (std::size_t k = 0; k < result.phenomena.size(); ++k) {
    const Verdict& v = population.verdicts[k];
    table.rows.push_back({result.phenomena[k] + " (p′)", std::to_string(result.phenomenon_texts[k]),
                          mean_std_text(population.phenomena[k], n),
                          fmt::format("{} (≥ {})", yes_no(v.robust), number(v.lower)),
                          fmt::format("{} ([{}, {}])", yes_no(v.bounded), number(population.task.mean - result.tau), number(v.upper))});
  }
  return table;
}

report::TextTable template_table(const ScoreResult& result, const Population& population) {
  report::TextTable table;
  table.header = {"template", "texts", "accuracy"};
  table.align = {Align::Left, Align::Right, Align::Right};
  for (const auto& id : result.templates)
    table.rows.push_back(
        {id, std::to_string(result.template_texts.at(id)), mean_std_text(population.templates.at(id), population.models.size())});
  return table;
}

report::TextTable models_table(const ScoreResult& result, const Population& population) {
  report::TextTable table;
  table.header = {"model", "task"};
  table.align = {Align::Left, Align::Right};
  for (const auto& name : result.phenomena) {
    table.header.push_back(name);
    table.align.push_back(Align::Right);
  }
  for (const auto& m : population.models) {
    std::vector<std::string> row{m.model, number(m.task.value())};
    for (const auto& p : m.phenomena) row.push_back(number(p.value()));
    table.rows.push_back(row);
  }
  return table;
}

std::string p_text(double p) { return !std::isfinite(p) ? "nan" : p < 1e-4 ? fmt::format("{:.2e}", p) : fmt::format("{:.4f}", p); }

report::TextTable comparison_table(const ScoreResult& result) {
  const auto& a = result.populations[0];
  const auto& b = result.populations[1];
  report::TextTable table;
  table.header = {"set", a.name, b.name, "t", "df", "p", ""};
  table.align = {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Left};
  for (std::size_t k = 0; k < result.comparisons.size(); ++k) {
    const Comparison& c = result.comparisons[k];
    const auto& ma = k == 0 ? a.task : a.phenomena[k - 1];
    const auto& mb = k == 0 ? b.task : b.phenomena[k - 1];
    std::vector<std::string> row{c.column, mean_std_text(ma, a.models.size()), mean_std_text(mb, b.models.size())};
    if (c.tested) {
      row.insert(row.end(), {number(c.welch.t), fmt::format("{:.2f}", c.welch.df), p_text(c.welch.pvalue), c.stars});
    } else {
      row.insert(row.end(), {"-", "-", "-", "needs ≥ 2 models each"});
    }
    table.rows.push_back(row);
  }
  return table;
}


}  // namespace


ScoreResult make_score_result(const Bed& bed, double tau, std::vector<Population> populations) {
  ScoreResult result;
  result.task_path = bed.task.path;
  result.task_texts = bed.task.texts.size();
  result.phenomena = bed.phenomena;
  result.phenomenon_texts.assign(bed.phenomena.size(), 0);
  for (const auto& g : bed.generated) {
    result.phenomenon_texts[static_cast<std::size_t>(
        std::find(bed.phenomena.begin(), bed.phenomena.end(), g.phenomenon) - bed.phenomena.begin())]++;
    if (!g.template_id.empty() && result.template_texts[g.template_id]++ == 0) result.templates.push_back(g.template_id);
  }
  result.tau = tau;
  result.populations = std::move(populations);
  if (result.populations.size() == 2)
    result.comparisons = compare(result.populations[0], result.populations[1], result.phenomena);
  return result;
}

std::string score_text(const ScoreResult& result) {
  std::string out = fmt::format(
      "Semantic robustness (La Malfa & Kwiatkowska 2022), τ = {}\ntask: {} ({} texts)\n", result.tau,
      result.task_path, result.task_texts);
  for (const auto& population : result.populations) {
    const std::size_t n = population.models.size();
    out += fmt::format("\npopulation {} ({} model{}{})\n", population.name, n, n == 1 ? "" : "s",
                       n == 1 ? "" : "; mean ± sample std");
    out += population_table(result, population).render();
    if (n > 1) out += "\n" + models_table(result, population).render();
    if (!population.templates.empty()) out += "\n" + template_table(result, population).render();
  }
  if (!result.comparisons.empty()) {
    out += fmt::format("\n{} vs {}: Welch's t-test (scipy ttest_ind, equal_var=False, two-sided); * p < 0.05, ** p < 0.01, "
                       "*** p < 0.001\n",
                       result.populations[0].name, result.populations[1].name);
    out += comparison_table(result).render();
  }
  return out;
}

nlohmann::json score_json(const ScoreResult& result, const report::Provenance& provenance) {
  nlohmann::json out{{"method", "semantic robustness (La Malfa & Kwiatkowska 2022)"},
                     {"tau", result.tau},
                     {"label_map", result.label_map},
                     {"task", {{"path", result.task_path}, {"texts", result.task_texts}}}};
  out["provenance"] = provenance.json();
  out["phenomena"] = nlohmann::json::array();
  for (std::size_t k = 0; k < result.phenomena.size(); ++k)
    out["phenomena"].push_back({{"name", result.phenomena[k]}, {"texts", result.phenomenon_texts[k]}});
  out["populations"] = nlohmann::json::array();
  for (const auto& population : result.populations) {
    nlohmann::json p{{"name", population.name}, {"task", mean_std_json(population.task)}};
    for (std::size_t k = 0; k < result.phenomena.size(); ++k) {
      const Verdict& v = population.verdicts[k];
      auto entry = mean_std_json(population.phenomena[k]);
      entry.update({{"robust", v.robust}, {"bounded", v.bounded}, {"lower", v.lower}, {"upper", v.upper}});
      p["phenomena"][result.phenomena[k]] = entry;
    }
    for (const auto& id : result.templates) p["templates"][id] = mean_std_json(population.templates.at(id));
    p["models"] = nlohmann::json::array();
    for (const auto& m : population.models) {
      nlohmann::json model{{"model", m.model}, {"task", accuracy_json(m.task)}};
      for (std::size_t k = 0; k < result.phenomena.size(); ++k)
        model["phenomena"][result.phenomena[k]] = accuracy_json(m.phenomena[k]);
      for (const auto& [id, a] : m.templates) model["templates"][id] = accuracy_json(a);
      p["models"].push_back(model);
    }
    out["populations"].push_back(p);
  }
  if (!result.comparisons.empty()) {
    out["comparison"] = {{"test", "Welch's t-test (scipy.stats.ttest_ind, equal_var=False, two-sided)"},
                         {"first", result.populations[0].name},
                         {"second", result.populations[1].name}};
    for (const auto& c : result.comparisons) {
      nlohmann::json entry{{"set", c.column}, {"tested", c.tested}};
      if (c.tested) entry.update({{"t", c.welch.t}, {"df", c.welch.df}, {"pvalue", c.welch.pvalue}, {"stars", c.stars}});
      out["comparison"]["sets"].push_back(entry);
    }
  }
  return out;
}

std::string score_csv(const ScoreResult& result, const report::Provenance& provenance) {
  std::string out = provenance.comment_lines("#") + "population,model,kind,set,correct,total,accuracy\n";
  auto row = [&](const Population& p, const ModelScore& m, const char* kind, const std::string& set, const Accuracy& a) {
    out += fmt::format("{},{},{},{},{},{},{}\n", csv_field(p.name), csv_field(m.model), kind, csv_field(set), a.correct,
                       a.total, report::csv_number(a.value()));
  };
  for (const auto& p : result.populations)
    for (const auto& m : p.models) {
      row(p, m, "task", "task", m.task);
      for (std::size_t k = 0; k < result.phenomena.size(); ++k) row(p, m, "phenomenon", result.phenomena[k], m.phenomena[k]);
      for (const auto& [id, a] : m.templates) row(p, m, "template", id, a);
    }
  return out;
}

std::string score_latex(const ScoreResult& result, const report::Provenance& provenance) {
  std::string columns = "l" + std::string(1 + result.phenomena.size(), 'c');
  std::string out = provenance.comment_lines("%");
  out += fmt::format("% invar robustness score: mean $\\pm$ sample std over each population's models, tau = {}\n", result.tau);
  if (!result.comparisons.empty())
    out += "% stars: Welch's t-test against the first population, * p < 0.05, ** p < 0.01, *** p < 0.001\n";
  out += fmt::format("\\begin{{tabular}}{{{}}}\n\\hline\nPopulation & Task", columns);
  for (const auto& name : result.phenomena) out += " & " + latex_escape(name);
  out += " \\\\\n\\hline\n";
  for (std::size_t i = 0; i < result.populations.size(); ++i) {
    const Population& p = result.populations[i];
    auto cell = [&](const stats::MeanStd& value, std::size_t column) {
      // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) of "$" + std::string here.
      std::string text = "$";
      text += mean_std_text(value, p.models.size(), " \\pm ");
      text += "$";
      if (i == 1 && !result.comparisons[column].stars.empty()) text += "$^{" + result.comparisons[column].stars + "}$";
      return text;
    };
    out += latex_escape(p.name) + " & " + cell(p.task, 0);
    for (std::size_t k = 0; k < result.phenomena.size(); ++k) out += " & " + cell(p.phenomena[k], k + 1);
    out += " \\\\\n";
  }
  return out + "\\hline\n\\end{tabular}\n";
}

void write_score_html(const std::string& path, const ScoreResult& result, const report::Provenance& provenance) {
  report::HtmlReport report("Semantic robustness");
  report.paragraph("Template-based semantic robustness (La Malfa & Kwiatkowska, AAAI 2022): accuracy p on the task's "
                   "test set and p′ on the texts of each linguistic phenomenon.");
  std::vector<std::pair<std::string, std::string>> settings{
      {"task", fmt::format("{} ({} texts)", result.task_path, result.task_texts)}, {"τ", fmt::format("{}", result.tau)}};
  // Which models these are: a population of one has no per-model table to name it.
  for (const auto& p : result.populations) {
    std::vector<std::string> names;
    for (const auto& m : p.models) names.push_back(m.model);
    settings.emplace_back(fmt::format("population {}", p.name), fmt::format("{}", fmt::join(names, ", ")));
  }
  settings.emplace_back("label map", result.label_map.empty() ? "none (the models' label names are the task's)" : result.label_map);
  report.settings(settings);
  report::BarChart bars;
  bars.title = "Accuracy per set";
  bars.y_label = "accuracy";
  bars.y_max = 1.0;
  bars.categories = {"task"};
  bars.categories.insert(bars.categories.end(), result.phenomena.begin(), result.phenomena.end());
  for (const auto& p : result.populations) {
    report::BarSeries series{p.name, {p.task.mean}, {p.models.size() > 1 ? p.task.std : 0}};
    for (const auto& value : p.phenomena) {
      series.values.push_back(value.mean);
      series.errors.push_back(p.models.size() > 1 ? value.std : 0);
    }
    bars.series.push_back(series);
  }
  report.figure(report::svg(bars), "Mean accuracy per population; error bars: sample standard deviation over its models.");
  for (const auto& p : result.populations) {
    report.heading("Population " + p.name);
    report.table(population_table(result, p));
    if (p.models.size() > 1) report.table(models_table(result, p), "Per model");
    if (!p.templates.empty()) report.table(template_table(result, p), "Per template");
  }
  if (!result.comparisons.empty()) {
    report.heading("Welch's t-test");
    report.table(comparison_table(result), "scipy.stats.ttest_ind(equal_var=False), two-sided; * p < 0.05, ** p < 0.01, *** p < 0.001");
  }
  report.provenance(provenance).write(path);
}

namespace {

report::TextTable layer_table(const Ablation& ablation, const std::vector<std::string>& phenomena) {
  report::TextTable table;
  table.header = {"layer", "train", "task"};
  table.header.insert(table.header.end(), phenomena.begin(), phenomena.end());
  table.align.assign(table.header.size(), Align::Right);
  for (const auto& layer : ablation.layers) {
    std::vector<std::string> row{std::to_string(layer.layer), number(layer.train.value()), number(layer.task.value())};
    for (const auto& p : layer.phenomena) row.push_back(number(p.value()));
    table.rows.push_back(row);
  }
  return table;
}

}  // namespace

std::string ablation_text(const Ablation& ablation, const std::vector<std::string>& phenomena) {
  return fmt::format("Layer ablation: {} pooling of each layer of {} → L2 logistic regression trained on {} texts; "
                     "accuracy per set (layer 0 = embeddings)\n",
                     ablation.pooling, ablation.model, ablation.train_texts) +
         layer_table(ablation, phenomena).render();
}

nlohmann::json ablation_json(const Ablation& ablation, const std::vector<std::string>& phenomena,
                             const report::Provenance& provenance) {
  nlohmann::json out{{"method", "layer ablation (La Malfa & Kwiatkowska 2022, Figure 3)"},
                     {"model", ablation.model},
                     {"pooling", ablation.pooling},
                     {"classes", ablation.classes},
                     {"train_texts", ablation.train_texts}};
  out["provenance"] = provenance.json();
  out["layers"] = nlohmann::json::array();
  for (const auto& layer : ablation.layers) {
    nlohmann::json entry{{"layer", layer.layer}, {"train", accuracy_json(layer.train)}, {"task", accuracy_json(layer.task)}};
    for (std::size_t k = 0; k < phenomena.size(); ++k) entry["phenomena"][phenomena[k]] = accuracy_json(layer.phenomena[k]);
    out["layers"].push_back(entry);
  }
  return out;
}

std::string ablation_csv(const Ablation& ablation, const std::vector<std::string>& phenomena,
                         const report::Provenance& provenance) {
  std::string out = provenance.comment_lines("#") + "layer,set,correct,total,accuracy\n";
  auto row = [&](std::int64_t layer, const std::string& set, const Accuracy& a) {
    out += fmt::format("{},{},{},{},{}\n", layer, csv_field(set), a.correct, a.total, report::csv_number(a.value()));
  };
  for (const auto& layer : ablation.layers) {
    row(layer.layer, "train", layer.train);
    row(layer.layer, "task", layer.task);
    for (std::size_t k = 0; k < phenomena.size(); ++k) row(layer.layer, phenomena[k], layer.phenomena[k]);
  }
  return out;
}

void write_ablation_html(const std::string& path, const Ablation& ablation, const std::vector<std::string>& phenomena,
                         const report::Provenance& provenance) {
  report::HtmlReport report("Layer ablation");
  report.paragraph("A probe per layer (La Malfa & Kwiatkowska, AAAI 2022, Figure 3): pooled hidden states → L2 "
                   "logistic regression, scored on the task's test set and on each phenomenon.");
  report.settings({{"model", ablation.model},
                   {"pooling", ablation.pooling},
                   {"training texts", std::to_string(ablation.train_texts)}});
  report::ScatterPlot plot;
  plot.title = "Probe accuracy per layer";
  plot.x_label = "layer (0 = embeddings)";
  plot.y_label = "accuracy";
  plot.y_range = std::pair{0.0, 1.0};
  plot.x_range = std::pair{-0.5, static_cast<double>(ablation.layers.size()) - 0.5};
  auto series = [&](const std::string& name, auto value) {
    report::ScatterSeries s{name, {}, {}, {}, true};
    for (const auto& layer : ablation.layers) {
      s.x.push_back(static_cast<double>(layer.layer));
      s.y.push_back(value(layer).value());
    }
    plot.series.push_back(s);
  };
  series("task", [](const LayerResult& l) { return l.task; });
  for (std::size_t k = 0; k < phenomena.size(); ++k) series(phenomena[k], [k](const LayerResult& l) { return l.phenomena[k]; });
  report.figure(report::svg(plot), "Accuracy of each layer's probe");
  report.table(layer_table(ablation, phenomena));
  report.provenance(provenance).write(path);
}

}  // namespace invar::robustness
