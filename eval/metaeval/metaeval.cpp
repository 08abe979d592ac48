#include "eval/metaeval/metaeval.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "core/json_number.hpp"

namespace invar::metaeval {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

int sign(double d) { return (d > 0) - (d < 0); }

std::size_t index_of(std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
  names.push_back(name);
  return names.size() - 1;
}

}  // namespace

CorrelationSummary correlate(const std::vector<double>& metric, const std::vector<double>& human) {
  if (metric.size() != human.size())
    fail("meta-evaluation: {} metric scores but {} human scores", metric.size(), human.size());
  CorrelationSummary out;
  out.n = metric.size();
  if (out.n < 2) {
    out.pearson = out.spearman = {kNaN, kNaN};
    out.kendall.tau = out.kendall.pvalue = kNaN;
    return out;
  }
  out.pearson = stats::pearson(metric, human);
  out.spearman = stats::spearman(metric, human);
  out.kendall = stats::kendall_tau_b(metric, human);
  return out;
}

nlohmann::ordered_json correlation_json(const CorrelationSummary& c) {
  const auto number = [](double v) { return json_number(v); };
  return {{"n", c.n},
          {"pearson", {{"r", number(c.pearson.statistic)}, {"p", number(c.pearson.pvalue)}}},
          {"spearman", {{"rho", number(c.spearman.statistic)}, {"p", number(c.spearman.pvalue)}}},
          {"kendall", {{"tau_b", number(c.kendall.tau)}, {"p", number(c.kendall.pvalue)}}}};
}

PairwiseComparison pairwise_accuracy(const std::vector<double>& metric, const std::vector<double>& human,
                                     bool higher_is_better) {
  if (metric.size() != human.size())
    fail("pairwise accuracy: {} metric scores but {} human scores", metric.size(), human.size());
  PairwiseComparison out;
  for (std::size_t i = 0; i < metric.size(); ++i)
    for (std::size_t j = i + 1; j < metric.size(); ++j) {
      ++out.pairs;
      const int m = higher_is_better ? sign(metric[i] - metric[j]) : -sign(metric[i] - metric[j]);
      const int h = sign(human[i] - human[j]);
      if (h == 0) ++out.human_ties;
      if (m == 0 && h != 0) ++out.metric_ties_only;
      if (m == h && h != 0) ++out.correct;
    }
  const std::size_t decisive = out.pairs - out.human_ties;
  out.accuracy = decisive ? static_cast<double>(out.correct) / static_cast<double>(decisive) : kNaN;
  return out;
}

double system_score(const std::vector<double>& segment_scores) {
  if (segment_scores.empty()) fail("system score: no segments");
  double sum = 0;
  for (double v : segment_scores) sum += v;
  return sum / static_cast<double>(segment_scores.size());
}

MetaEvaluation meta_evaluate(const std::vector<Segment>& segments, const MetaEvalOptions& options) {
  if (segments.empty()) fail("meta-evaluation: no segments");
  MetaEvaluation out;
  std::vector<std::vector<double>> metric_by_system, human_by_system, metric_by_group, human_by_group;
  for (const auto& s : segments) {
    const std::size_t system = index_of(out.systems, s.system);
    const std::size_t group = index_of(out.groups, s.group);
    metric_by_system.resize(out.systems.size());
    human_by_system.resize(out.systems.size());
    metric_by_group.resize(out.groups.size());
    human_by_group.resize(out.groups.size());
    metric_by_system[system].push_back(s.metric);
    human_by_system[system].push_back(s.human);
    metric_by_group[group].push_back(s.metric);
    human_by_group[group].push_back(s.human);
  }
  for (const auto& [name, value] : options.system_metric)
    if (std::find(out.systems.begin(), out.systems.end(), name) == out.systems.end())
      fail("meta-evaluation: a system-level score is given for '{}', which has no segments", name);
  std::vector<double> pooled_metric, pooled_human;
  for (std::size_t i = 0; i < out.systems.size(); ++i) {
    auto given = options.system_metric.find(out.systems[i]);
    out.system_metric.push_back(given != options.system_metric.end() ? given->second
                                                                      : system_score(metric_by_system[i]));
    out.system_human.push_back(system_score(human_by_system[i]));
    pooled_metric.insert(pooled_metric.end(), metric_by_system[i].begin(), metric_by_system[i].end());
    pooled_human.insert(pooled_human.end(), human_by_system[i].begin(), human_by_system[i].end());
  }
  out.system_level = correlate(out.system_metric, out.system_human);
  out.pairwise = pairwise_accuracy(out.system_metric, out.system_human, options.higher_is_better);
  out.segment_pooled = correlate(pooled_metric, pooled_human);
  for (std::size_t g = 0; g < out.groups.size(); ++g)
    out.per_group.push_back(correlate(metric_by_group[g], human_by_group[g]));
  return out;
}

}  // namespace invar::metaeval
