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

std::string balance_text(const Balance& b) {
  std::string out;
  for (const auto& [label, n] : b.counts) out += (out.empty() ? "" : " / ") + fmt::format("{} {}", label, n);
  return out;
}

// "yes (≥ 0.4000)", or "n/a" when an accuracy has no corrected value (a one-label set under majority).
std::string robust_text(const Verdict& v) {
  return v.defined ? fmt::format("{} (≥ {})", yes_no(v.robust), number(v.lower)) : "n/a";
}

std::string bounded_text(const Verdict& v, double tau) {
  return v.defined ? fmt::format("{} ([{}, {}])", yes_no(v.bounded), number(v.p - tau), number(v.upper)) : "n/a";
}

std::string every_text(const std::optional<bool>& every) { return every ? yes_no(*every) : "-"; }

std::string chance_text(const ScoreResult& result) {
  switch (result.baselines.chance) {
    case Chance::Uniform:
      return fmt::format("chance-corrected: (accuracy − 1/{0}) / (1 − 1/{0}), 0 = random guessing among {0} labels; "
                         "verdicts on the corrected values",
                         result.baselines.classes);
    case Chance::Majority:
      return "chance-corrected: (accuracy − m) / (1 − m), m = the set's majority-class share (a template's: its "
             "phenomenon's), 0 = always predicting the majority label; verdicts on the corrected values";
    case Chance::None: break;
  }
  return "verdicts on plain accuracy (--chance none)";
}

report::TextTable population_table(const ScoreResult& result, const Population& population) {
  report::TextTable table;
  table.header = {"set", "texts", "labels", "majority", "accuracy", "corrected",
                  fmt::format("τ-robust (p̂′ ≥ max(0, p̂ − {}))", result.tau), fmt::format("bounded (|p̂′ − p̂| ≤ {})", result.tau),
                  "every template", "models robust", "note"};
  table.align = {Align::Left, Align::Right, Align::Left, Align::Right, Align::Right, Align::Right,
                 Align::Left, Align::Left, Align::Left, Align::Right, Align::Left};
  const std::size_t n = population.models.size();
  const Baselines& b = result.baselines;
  table.rows.push_back({"task (p)", std::to_string(b.task.total), balance_text(b.task), number(b.task.majority_share),
                        mean_std_text(population.task, n), mean_std_text(population.task_corrected, n), "", "", "", "", ""});
  for (std::size_t k = 0; k < result.phenomena.size(); ++k) {
    const Verdict& v = population.verdicts.phenomena[k];
    const Balance& balance = b.phenomena[k];
    table.rows.push_back({result.phenomena[k] + " (p′)", std::to_string(balance.total), balance_text(balance),
                          number(balance.majority_share), mean_std_text(population.phenomena[k], n),
                          mean_std_text(population.phenomena_corrected[k], n), robust_text(v), bounded_text(v, result.tau),
                          every_text(population.verdicts.every_template[k]),
                          fmt::format("{}/{}", population.robust_models[k], n),
                          population.verdicts.baseline_above_task[k] ? "majority baseline > task accuracy" : ""});
  }
  return table;
}

report::TextTable template_table(const ScoreResult& result, const Population& population) {
  report::TextTable table;
  table.header = {"template", "texts", "labels", "accuracy", "corrected", "τ-robust", "models robust"};
  table.align = {Align::Left, Align::Right, Align::Left, Align::Right, Align::Right, Align::Left, Align::Right};
  const std::size_t n = population.models.size();
  for (const auto& ids : result.baselines.phenomenon_templates)
    for (const auto& id : ids) {
      std::size_t robust = 0;
      for (const auto& m : population.model_verdicts) robust += m.templates.at(id).robust;
      const Balance& balance = result.baselines.templates.at(id);
      table.rows.push_back({id, std::to_string(balance.total), balance_text(balance),
                            mean_std_text(population.templates.at(id), n),
                            mean_std_text(population.templates_corrected.at(id), n),
                            robust_text(population.verdicts.templates.at(id)), fmt::format("{}/{}", robust, n)});
    }
  return table;
}

// One row per model: its p, and per phenomenon its p′ with its own verdict (robust, and robust on
// every template).
report::TextTable models_table(const ScoreResult& result, const Population& population) {
  report::TextTable table;
  table.header = {"model", "task"};
  table.align = {Align::Left, Align::Right};
  for (const auto& name : result.phenomena) {
    table.header.insert(table.header.end(), {name, "τ-robust", "every template"});
    table.align.insert(table.align.end(), {Align::Right, Align::Left, Align::Left});
  }
  for (std::size_t i = 0; i < population.models.size(); ++i) {
    const ModelScore& m = population.models[i];
    const ModelVerdicts& v = population.model_verdicts[i];
    std::vector<std::string> row{m.model, number(m.task.value())};
    for (std::size_t k = 0; k < m.phenomena.size(); ++k) {
      std::string robust = v.phenomena[k].defined ? yes_no(v.phenomena[k].robust) : "n/a";
      if (v.baseline_above_task[k]) robust += " (majority > p)";
      row.insert(row.end(), {number(m.phenomena[k].value()), robust, every_text(v.every_template[k])});
    }
    table.rows.push_back(row);
  }
  return table;
}


report::TextTable comparison_table(const ScoreResult& result, const PairComparison& pair) {
  const auto& a = result.populations[pair.first];
  const auto& b = result.populations[pair.second];
  report::TextTable table;
  table.header = {"set", a.name, b.name, "t", "df", "p", ""};
  table.align = {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Left};
  for (std::size_t k = 0; k < pair.columns.size(); ++k) {
    const Comparison& c = pair.columns[k];
    const auto& ma = k == 0 ? a.task : a.phenomena[k - 1];
    const auto& mb = k == 0 ? b.task : b.phenomena[k - 1];
    std::vector<std::string> row{c.column, mean_std_text(ma, a.models.size()), mean_std_text(mb, b.models.size())};
    if (c.tested) {
      row.insert(row.end(), {number(c.welch.t), fmt::format("{:.2f}", c.welch.df), report::format_p(c.welch.pvalue), c.stars});
    } else {
      row.insert(row.end(), {"-", "-", "-", "needs ≥ 2 models each"});
    }
    table.rows.push_back(row);
  }
  return table;
}

nlohmann::json balance_json(const Balance& b) {
  return {{"labels", b.counts}, {"majority", b.majority}, {"majority_share", b.majority_share}, {"chance", b.chance}};
}

nlohmann::json number_json(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr); }

nlohmann::json verdict_json(const Verdict& v) {
  if (!v.defined) return {{"defined", false}};
  return {{"defined", true}, {"robust", v.robust}, {"bounded", v.bounded}, {"lower", v.lower}, {"upper", v.upper}};
}

nlohmann::json every_json(const std::optional<bool>& every) { return every ? nlohmann::json(*every) : nlohmann::json(nullptr); }

const char* kWelch = "Welch's t-test (scipy ttest_ind, equal_var=False, two-sided); * p < 0.05, ** p < 0.01, *** p < 0.001";

}  // namespace


ScoreResult make_score_result(const Bed& bed, Baselines baselines, double tau, std::vector<Population> populations) {
  ScoreResult result;
  result.task_path = bed.task.path;
  result.phenomena = bed.phenomena;
  result.baselines = std::move(baselines);
  result.tau = tau;
  result.populations = std::move(populations);
  result.comparisons = compare_all(result.populations, result.phenomena);
  return result;
}

std::string score_text(const ScoreResult& result) {
  std::string out = fmt::format(
      "Semantic robustness (La Malfa & Kwiatkowska 2022), τ = {}\ntask: {} ({} texts)\n{}\n",
      result.tau, result.task_path, result.baselines.task.total, chance_text(result));
  for (const auto& population : result.populations) {
    const std::size_t n = population.models.size();
    out += fmt::format("\npopulation {} ({} model{}{})\n", population.name, n, n == 1 ? "" : "s",
                       n == 1 ? "" : "; mean ± sample std");
    out += population_table(result, population).render();
    out += "\n" + models_table(result, population).render();
    if (!population.templates.empty()) out += "\n" + template_table(result, population).render();
  }
  for (const auto& pair : result.comparisons) {
    out += fmt::format("\n{} vs {}: {}\n", result.populations[pair.first].name, result.populations[pair.second].name, kWelch);
    out += comparison_table(result, pair).render();
  }
  return out;
}

nlohmann::json score_json(const ScoreResult& result, const report::Provenance& provenance) {
  const Baselines& b = result.baselines;
  nlohmann::json out{{"method", "semantic robustness (La Malfa & Kwiatkowska 2022)"},
                     {"tau", result.tau},
                     {"chance", chance_name(b.chance)},
                     {"label_map", result.label_map},
                     {"task", {{"path", result.task_path}, {"texts", b.task.total}}}};
  out["provenance"] = provenance.json();
  out["task"].update(balance_json(b.task));
  out["phenomena"] = nlohmann::json::array();
  for (std::size_t k = 0; k < result.phenomena.size(); ++k) {
    nlohmann::json entry{{"name", result.phenomena[k]}, {"texts", b.phenomena[k].total}};
    entry.update(balance_json(b.phenomena[k]));
    entry["templates"] = b.phenomenon_templates[k];
    out["phenomena"].push_back(entry);
  }
  for (const auto& [id, balance] : b.templates) {
    out["templates"][id] = {{"texts", balance.total}};
    out["templates"][id].update(balance_json(balance));
  }
  auto verdicts_json = [&](nlohmann::json& into, const ModelVerdicts& v) {
    for (std::size_t k = 0; k < result.phenomena.size(); ++k) {
      auto& entry = into["phenomena"][result.phenomena[k]];
      entry.update(verdict_json(v.phenomena[k]));
      entry["every_template"] = every_json(v.every_template[k]);
      entry["majority_above_task"] = static_cast<bool>(v.baseline_above_task[k]);
    }
    for (const auto& [id, verdict] : v.templates) into["templates"][id].update(verdict_json(verdict));
  };
  out["populations"] = nlohmann::json::array();
  for (const auto& population : result.populations) {
    nlohmann::json p{{"name", population.name}, {"task", mean_std_json(population.task)}};
    p["task"]["corrected"] = mean_std_json(population.task_corrected);
    for (std::size_t k = 0; k < result.phenomena.size(); ++k) {
      auto entry = mean_std_json(population.phenomena[k]);
      entry["corrected"] = mean_std_json(population.phenomena_corrected[k]);
      entry["robust_models"] = population.robust_models[k];
      p["phenomena"][result.phenomena[k]] = entry;
    }
    for (const auto& [id, value] : population.templates) {
      p["templates"][id] = mean_std_json(value);
      p["templates"][id]["corrected"] = mean_std_json(population.templates_corrected.at(id));
    }
    verdicts_json(p, population.verdicts);
    p["models"] = nlohmann::json::array();
    for (std::size_t i = 0; i < population.models.size(); ++i) {
      const ModelScore& m = population.models[i];
      nlohmann::json model{{"model", m.model}, {"task", accuracy_json(m.task)}};
      model["task"]["corrected"] = number_json(chance_corrected(m.task.value(), b.task.chance));
      for (std::size_t k = 0; k < result.phenomena.size(); ++k) {
        model["phenomena"][result.phenomena[k]] = accuracy_json(m.phenomena[k]);
        model["phenomena"][result.phenomena[k]]["corrected"] =
            number_json(chance_corrected(m.phenomena[k].value(), b.phenomena[k].chance));
      }
      for (const auto& [id, a] : m.templates) {
        model["templates"][id] = accuracy_json(a);
        model["templates"][id]["corrected"] = number_json(chance_corrected(a.value(), b.templates.at(id).chance));
      }
      verdicts_json(model, population.model_verdicts[i]);
      p["models"].push_back(model);
    }
    out["populations"].push_back(p);
  }
  out["comparisons"] = nlohmann::json::array();
  for (const auto& pair : result.comparisons) {
    nlohmann::json comparison{{"test", "Welch's t-test (scipy.stats.ttest_ind, equal_var=False, two-sided)"},
                              {"first", result.populations[pair.first].name},
                              {"second", result.populations[pair.second].name}};
    for (const auto& c : pair.columns) {
      nlohmann::json entry{{"set", c.column}, {"tested", c.tested}};
      if (c.tested) entry.update({{"t", c.welch.t}, {"df", c.welch.df}, {"pvalue", c.welch.pvalue}, {"stars", c.stars}});
      comparison["sets"].push_back(entry);
    }
    out["comparisons"].push_back(comparison);
  }
  return out;
}

std::string score_csv(const ScoreResult& result, const report::Provenance& provenance) {
  std::string out = provenance.comment_lines("#") + "population,model,kind,set,correct,total,accuracy,corrected,robust\n";
  auto row = [&](const Population& p, const ModelScore& m, const char* kind, const std::string& set, const Accuracy& a,
                 double chance, const Verdict* v) {
    const double corrected = chance_corrected(a.value(), chance);
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", csv_field(p.name), csv_field(m.model), kind, csv_field(set),
                       a.correct, a.total, report::csv_number(a.value()),
                       std::isfinite(corrected) ? report::csv_number(corrected) : "", v && v->defined ? yes_no(v->robust) : "");
  };
  const Baselines& b = result.baselines;
  for (const auto& p : result.populations)
    for (std::size_t i = 0; i < p.models.size(); ++i) {
      const ModelScore& m = p.models[i];
      const ModelVerdicts& v = p.model_verdicts[i];
      row(p, m, "task", "task", m.task, b.task.chance, nullptr);
      for (std::size_t k = 0; k < result.phenomena.size(); ++k)
        row(p, m, "phenomenon", result.phenomena[k], m.phenomena[k], b.phenomena[k].chance, &v.phenomena[k]);
      for (const auto& [id, a] : m.templates) row(p, m, "template", id, a, b.templates.at(id).chance, &v.templates.at(id));
    }
  return out;
}

std::string score_latex(const ScoreResult& result, const report::Provenance& provenance) {
  std::string columns = "l" + std::string(1 + result.phenomena.size(), 'c');
  std::string out = provenance.comment_lines("%");
  out += fmt::format("% invar robustness score: mean $\\pm$ sample std over each population's models, tau = {}\n",
                     result.tau);
  if (result.populations.size() > 1)
    out += fmt::format("% stars: Welch's t-test against {}, * p < 0.05, ** p < 0.01, *** p < 0.001\n",
                       result.populations[0].name);
  out += fmt::format("\\begin{{tabular}}{{{}}}\n\\hline\nPopulation & Task", columns);
  for (const auto& name : result.phenomena) out += " & " + latex_escape(name);
  out += " \\\\\n\\hline\n";
  for (std::size_t i = 0; i < result.populations.size(); ++i) {
    const Population& p = result.populations[i];
    // Against the first population: comparisons[i − 1] is the pair (0, i).
    const PairComparison* against_first = i == 0 ? nullptr : &result.comparisons[i - 1];
    auto cell = [&](const stats::MeanStd& value, std::size_t column) {
      // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) of "$" + std::string here.
      std::string text = "$";
      text += mean_std_text(value, p.models.size(), " \\pm ");
      text += "$";
      if (against_first && !against_first->columns[column].stars.empty())
        text += "$^{" + against_first->columns[column].stars + "}$";
      return text;
    };
    out += latex_escape(p.name) + " & " + cell(p.task, 0);
    for (std::size_t k = 0; k < result.phenomena.size(); ++k) out += " & " + cell(p.phenomena[k], k + 1);
    out += " \\\\\n";
  }
  // What always predicting each set's most frequent label scores, beside every p and p′.
  out += "\\hline\nMajority baseline & $" + number(result.baselines.task.majority_share) + "$";
  for (const auto& b : result.baselines.phenomena) out += " & $" + number(b.majority_share) + "$";
  out += " \\\\\n";
  return out + "\\hline\n\\end{tabular}\n";
}

void write_score_html(const std::string& path, const ScoreResult& result, const report::Provenance& provenance) {
  report::HtmlReport report("Semantic robustness");
  report.paragraph("Template-based semantic robustness (La Malfa & Kwiatkowska, AAAI 2022): accuracy p on the task's "
                   "test set and p′ on the texts of each linguistic phenomenon, each beside its set's label balance "
                   "and majority-class baseline; the verdicts compare chance-corrected accuracies.");
  std::vector<std::pair<std::string, std::string>> settings{
      {"task", fmt::format("{} ({} texts)", result.task_path, result.baselines.task.total)},
      {"τ", fmt::format("{}", result.tau)},
      {"chance", chance_text(result)}};
  // Which models each population holds, before the tables.
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
  bars.y_min = 0.0;
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
  report::BarSeries baseline{"majority baseline", {result.baselines.task.majority_share}, {0}};
  for (const auto& b : result.baselines.phenomena) {
    baseline.values.push_back(b.majority_share);
    baseline.errors.push_back(0);
  }
  bars.series.push_back(baseline);
  report.figure(report::svg(bars), "Mean accuracy per population; error bars: sample standard deviation over its models. "
                                   "The last bar of each set: always predicting its most frequent label.");
  for (const auto& p : result.populations) {
    report.heading("Population " + p.name);
    report.table(population_table(result, p));
    report.table(models_table(result, p), "Per model: its own p′ and verdicts");
    if (!p.templates.empty()) report.table(template_table(result, p), "Per template (Definition 6: for any s)");
  }
  for (const auto& pair : result.comparisons) {
    report.heading(fmt::format("Welch's t-test: {} vs {}", result.populations[pair.first].name,
                               result.populations[pair.second].name));
    report.table(comparison_table(result, pair), "scipy.stats.ttest_ind(equal_var=False), two-sided; * p < 0.05, ** p < 0.01, *** p < 0.001");
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
  return fmt::format("Layer ablation of {}: {} of each layer, trained on {} texts; accuracy per set (layer 0 = "
                     "embeddings)\n",
                     ablation.model, ablation.head, ablation.train_texts) +
         layer_table(ablation, phenomena).render();
}

nlohmann::json ablation_json(const Ablation& ablation, const std::vector<std::string>& phenomena,
                             const report::Provenance& provenance) {
  nlohmann::json out{{"method", "layer ablation (La Malfa & Kwiatkowska 2022, Figure 3)"},
                     {"model", ablation.model},
                     {"head", ablation.head},
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
  report.paragraph("A head per layer (La Malfa & Kwiatkowska, AAAI 2022, Figure 3) trained on the frozen states after "
                   "that many layers, scored on the task's test set and on each phenomenon.");
  report.settings({{"model", ablation.model},
                   {"head", ablation.head},
                   {"training texts", std::to_string(ablation.train_texts)}});
  report::ScatterPlot plot;
  plot.title = "Probe accuracy per layer";
  plot.x_label = "layer (0 = embeddings)";
  plot.y_label = "accuracy";
  plot.y_range = std::pair{0.0, 1.0};
  plot.x_range = std::pair{-0.5, static_cast<double>(ablation.layers.size()) - 0.5};
  plot.x_integer = true;
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
