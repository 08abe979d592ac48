#include "eval/robustness/scoring.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace invar::robustness {

double Accuracy::value() const {
  return total == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(correct) / static_cast<double>(total);
}

ModelScore score_model(const std::string& model, const Bed& bed, const std::vector<std::string>& predictions) {
  const std::size_t n_task = bed.task.texts.size();
  if (predictions.size() != n_task + bed.generated.size())
    fail("{}: {} predictions for {} texts", model, predictions.size(), n_task + bed.generated.size());
  ModelScore score{model, {}, std::vector<Accuracy>(bed.phenomena.size()), {}};
  for (std::size_t i = 0; i < n_task; ++i) {
    score.task.total++;
    score.task.correct += predictions[i] == bed.task.labels[i];
  }
  for (std::size_t i = 0; i < bed.generated.size(); ++i) {
    const auto& g = bed.generated[i];
    const bool correct = predictions[n_task + i] == g.label;
    auto phenomenon = std::find(bed.phenomena.begin(), bed.phenomena.end(), g.phenomenon) - bed.phenomena.begin();
    Accuracy& p = score.phenomena[static_cast<std::size_t>(phenomenon)];
    p.total++;
    p.correct += correct;
    if (g.template_id.empty()) continue;
    Accuracy& t = score.templates[g.template_id];
    t.total++;
    t.correct += correct;
  }
  return score;
}

Chance parse_chance(const std::string& name) {
  if (name == "uniform") return Chance::Uniform;
  if (name == "majority") return Chance::Majority;
  if (name == "none") return Chance::None;
  fail("unknown chance level '{}' (expected uniform, majority or none)", name);
}

const char* chance_name(Chance chance) {
  switch (chance) {
    case Chance::Uniform: return "uniform";
    case Chance::Majority: return "majority";
    case Chance::None: break;
  }
  return "none";
}

double chance_corrected(double accuracy, double chance) {
  if (!(chance < 1)) return std::numeric_limits<double>::quiet_NaN();
  return (accuracy - chance) / (1 - chance);
}

namespace {

void count(Balance& balance, const std::string& label) {
  balance.counts[label]++;
  balance.total++;
}

// Sets the majority label and share, and the chance level: `majority_chance` is the share Majority
// corrects with (a template's is its phenomenon's).
void settle(Balance& balance, Chance chance, std::size_t classes, double majority_chance) {
  std::size_t top = 0;
  for (const auto& [label, n] : balance.counts)
    if (n > top) {
      top = n;
      balance.majority = label;
    }
  balance.majority_share = balance.total == 0 ? 0.0 : static_cast<double>(top) / static_cast<double>(balance.total);
  balance.chance = chance == Chance::Uniform    ? 1.0 / static_cast<double>(classes)
                   : chance == Chance::Majority ? (majority_chance < 0 ? balance.majority_share : majority_chance)
                                                : 0.0;
}

std::size_t phenomenon_index(const Bed& bed, const std::string& phenomenon) {
  return static_cast<std::size_t>(std::find(bed.phenomena.begin(), bed.phenomena.end(), phenomenon) - bed.phenomena.begin());
}

}  // namespace

Baselines baselines(const Bed& bed, Chance chance) {
  Baselines out;
  out.chance = chance;
  out.classes = bed.labels.size();
  out.phenomena.resize(bed.phenomena.size());
  out.phenomenon_templates.resize(bed.phenomena.size());
  for (const auto& label : bed.task.labels) count(out.task, label);
  std::map<std::string, std::size_t> template_phenomenon;
  for (const auto& g : bed.generated) {
    const std::size_t k = phenomenon_index(bed, g.phenomenon);
    count(out.phenomena[k], g.label);
    if (g.template_id.empty()) continue;
    if (!out.templates.count(g.template_id)) {
      out.phenomenon_templates[k].push_back(g.template_id);
      template_phenomenon[g.template_id] = k;
    }
    count(out.templates[g.template_id], g.label);
  }
  settle(out.task, chance, out.classes, -1);
  for (auto& phenomenon : out.phenomena) settle(phenomenon, chance, out.classes, -1);
  for (auto& [id, balance] : out.templates)
    settle(balance, chance, out.classes, out.phenomena[template_phenomenon.at(id)].majority_share);
  return out;
}

Verdict verdict(double p, double p_prime, double tau) {
  Verdict v;
  v.p = p;
  v.p_prime = p_prime;
  v.lower = std::max(0.0, p - tau);
  v.upper = p + tau;
  v.defined = std::isfinite(p) && std::isfinite(p_prime);
  v.robust = p_prime >= v.lower;
  v.bounded = p - tau <= p_prime && p_prime <= p + tau;
  return v;
}

namespace {

// Verdicts of corrected accuracies: task `p`, `phenomena[k]`, `templates[id]`; `plain_p` is the
// uncorrected task accuracy the majority baselines are compared with.
ModelVerdicts judge(const Baselines& b, double p, double plain_p, const std::vector<double>& phenomena,
                    const std::map<std::string, double>& templates, double tau) {
  ModelVerdicts out;
  for (std::size_t k = 0; k < phenomena.size(); ++k) {
    out.phenomena.push_back(verdict(p, phenomena[k], tau));
    out.baseline_above_task.push_back(b.phenomena[k].majority_share > plain_p);
    std::optional<bool> every;
    bool defined = true;  // a template without a corrected value (one label under Majority) has no verdict
    for (const auto& id : b.phenomenon_templates[k]) {
      const Verdict v = verdict(p, templates.at(id), tau);
      out.templates[id] = v;
      every = every.value_or(true) && v.robust;
      defined = defined && v.defined;
    }
    out.every_template.push_back(defined ? every : std::nullopt);
  }
  return out;
}

}  // namespace

Population summarize(std::string name, std::vector<ModelScore> models, const Baselines& baselines, double tau) {
  if (models.empty()) fail("population '{}' has no models", name);
  Population population;
  population.name = std::move(name);
  population.models = std::move(models);
  auto over_models = [&](auto value) {
    std::vector<double> values;
    for (const auto& m : population.models) values.push_back(value(m));
    return stats::mean_std(values);
  };
  const double task_chance = baselines.task.chance;
  population.task = over_models([](const ModelScore& m) { return m.task.value(); });
  population.task_corrected =
      over_models([&](const ModelScore& m) { return chance_corrected(m.task.value(), task_chance); });
  std::vector<double> mean_phenomena;
  for (std::size_t k = 0; k < baselines.phenomena.size(); ++k) {
    const double c = baselines.phenomena[k].chance;
    population.phenomena.push_back(over_models([k](const ModelScore& m) { return m.phenomena[k].value(); }));
    population.phenomena_corrected.push_back(
        over_models([&](const ModelScore& m) { return chance_corrected(m.phenomena[k].value(), c); }));
    mean_phenomena.push_back(population.phenomena_corrected.back().mean);
  }
  std::map<std::string, double> mean_templates;
  for (const auto& [id, balance] : baselines.templates) {
    const double c = balance.chance;
    population.templates[id] = over_models([&id](const ModelScore& m) { return m.templates.at(id).value(); });
    population.templates_corrected[id] =
        over_models([&](const ModelScore& m) { return chance_corrected(m.templates.at(id).value(), c); });
    mean_templates[id] = population.templates_corrected[id].mean;
  }
  population.verdicts =
      judge(baselines, population.task_corrected.mean, population.task.mean, mean_phenomena, mean_templates, tau);
  population.robust_models.assign(baselines.phenomena.size(), 0);
  for (const auto& m : population.models) {
    std::vector<double> phenomena;
    for (std::size_t k = 0; k < baselines.phenomena.size(); ++k)
      phenomena.push_back(chance_corrected(m.phenomena[k].value(), baselines.phenomena[k].chance));
    std::map<std::string, double> templates;
    for (const auto& [id, balance] : baselines.templates)
      templates[id] = chance_corrected(m.templates.at(id).value(), balance.chance);
    population.model_verdicts.push_back(
        judge(baselines, chance_corrected(m.task.value(), task_chance), m.task.value(), phenomena, templates, tau));
    for (std::size_t k = 0; k < phenomena.size(); ++k)
      population.robust_models[k] += population.model_verdicts.back().phenomena[k].robust;
  }
  return population;
}

std::string stars(double pvalue) {
  if (!(pvalue < 0.05)) return "";
  if (pvalue < 0.001) return "***";
  return pvalue < 0.01 ? "**" : "*";
}

Comparison compare_column(const std::string& column, const std::vector<double>& a, const std::vector<double>& b) {
  Comparison c{column, false, {}, ""};
  if (a.size() < 2 || b.size() < 2) return c;
  c.tested = true;
  c.welch = stats::ttest_ind(a, b, false);
  c.stars = stars(c.welch.pvalue);
  return c;
}

std::vector<Comparison> compare(const Population& a, const Population& b, const std::vector<std::string>& phenomena) {
  auto column = [](const Population& p, auto value) {
    std::vector<double> values;
    for (const auto& m : p.models) values.push_back(value(m));
    return values;
  };
  auto task = [](const ModelScore& m) { return m.task.value(); };
  std::vector<Comparison> out{compare_column("task", column(a, task), column(b, task))};
  for (std::size_t k = 0; k < phenomena.size(); ++k) {
    auto phenomenon = [k](const ModelScore& m) { return m.phenomena[k].value(); };
    out.push_back(compare_column(phenomena[k], column(a, phenomenon), column(b, phenomenon)));
  }
  return out;
}

std::vector<PairComparison> compare_all(const std::vector<Population>& populations,
                                        const std::vector<std::string>& phenomena) {
  std::vector<PairComparison> out;
  for (std::size_t i = 0; i < populations.size(); ++i)
    for (std::size_t j = i + 1; j < populations.size(); ++j)
      out.push_back({i, j, compare(populations[i], populations[j], phenomena)});
  return out;
}

}  // namespace invar::robustness
