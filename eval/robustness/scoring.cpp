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

Verdict verdict(double p, double p_prime, double tau) {
  Verdict v;
  v.lower = std::max(0.0, p - tau);
  v.upper = p + tau;
  v.robust = p_prime >= v.lower;
  v.bounded = p - tau <= p_prime && p_prime <= p + tau;
  return v;
}

Population summarize(std::string name, std::vector<ModelScore> models, std::size_t phenomena, double tau) {
  if (models.empty()) fail("population '{}' has no models", name);
  Population population{std::move(name), std::move(models), {}, {}, {}, {}};
  auto over_models = [&](auto value) {
    std::vector<double> values;
    for (const auto& m : population.models) values.push_back(value(m));
    return stats::mean_std(values);
  };
  population.task = over_models([](const ModelScore& m) { return m.task.value(); });
  for (std::size_t k = 0; k < phenomena; ++k) {
    population.phenomena.push_back(over_models([k](const ModelScore& m) { return m.phenomena[k].value(); }));
    population.verdicts.push_back(verdict(population.task.mean, population.phenomena.back().mean, tau));
  }
  for (const auto& [id, accuracy] : population.models.front().templates)
    population.templates[id] = over_models([&id](const ModelScore& m) { return m.templates.at(id).value(); });
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

}  // namespace invar::robustness
