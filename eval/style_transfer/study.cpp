#include "eval/style_transfer/study.hpp"

#include <cmath>
#include <limits>

#include "eval/stats/stats.hpp"

namespace invar::style_transfer {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double mean_of_defined(const std::vector<double>& values) {
  std::vector<double> defined;
  for (double v : values)
    if (!std::isnan(v)) defined.push_back(v);
  return defined.empty() ? kNaN : metaeval::system_score(defined);
}

std::vector<std::size_t> rows_of(const std::vector<Segment>& segments, const std::string& group,
                                 const std::string* system = nullptr) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < segments.size(); ++i)
    if (segments[i].group == group && (!system || segments[i].system == *system)) rows.push_back(i);
  return rows;
}

SystemSummary summarise(const std::vector<Segment>& segments, const Scores& scores, const std::string& group,
                        const std::string& system) {
  const auto rows = rows_of(segments, group, &system);
  SystemSummary out{.group = group, .system = system, .segments = rows.size()};
  for (const auto& metric : scores.metrics) {
    std::vector<double> values;
    for (std::size_t i : rows) values.push_back(metric.values[i]);
    out.metric_means.push_back(mean_of_defined(values));
  }
  for (Dimension d : kDimensions) {
    std::vector<double> values;
    for (std::size_t i : rows) values.push_back(segments[i].human[static_cast<std::size_t>(d)].value_or(kNaN));
    out.human_means[static_cast<std::size_t>(d)] = mean_of_defined(values);
  }
  return out;
}

// The group's segments judged on the metric's dimension and with a defined score; none → nothing.
std::optional<MetricAgreement> agreement(const std::vector<Segment>& segments, const Scores& scores,
                                         const std::string& group, std::size_t m) {
  const MetricScores& metric = scores.metrics[m];
  std::vector<metaeval::Segment> judged;
  for (std::size_t i : rows_of(segments, group)) {
    const auto& human = segments[i].human[static_cast<std::size_t>(metric.dimension)];
    if (human && !std::isnan(metric.values[i])) judged.push_back({segments[i].system, "", metric.values[i], *human});
  }
  if (judged.empty()) return std::nullopt;
  return MetricAgreement{group, m, metric.dimension,
                         metaeval::meta_evaluate(judged, {.higher_is_better = metric.higher_is_better})};
}

// Spearman's ρ of two metrics over the segments where both are defined (NaN below two).
double metric_spearman(const std::vector<double>& a, const std::vector<double>& b, const std::vector<std::size_t>& rows) {
  std::vector<double> x, y;
  for (std::size_t i : rows)
    if (!std::isnan(a[i]) && !std::isnan(b[i])) {
      x.push_back(a[i]);
      y.push_back(b[i]);
    }
  return x.size() < 2 ? kNaN : stats::spearman(x, y).statistic;
}

CrossCorrelation cross_correlation(const std::vector<Segment>& segments, const Scores& scores,
                                   const std::string& group) {
  const auto rows = rows_of(segments, group);
  const std::size_t n = scores.metrics.size();
  CrossCorrelation out{group, std::vector<std::vector<double>>(n, std::vector<double>(n))};
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a; b < n; ++b)
      out.spearman[a][b] = out.spearman[b][a] = metric_spearman(scores.metrics[a].values, scores.metrics[b].values, rows);
  return out;
}

}  // namespace

Study meta_evaluate(const std::vector<Segment>& segments, const Scores& scores) {
  Study study{.groups = groups_of(segments), .systems = systems_of(segments)};
  for (const auto& group : study.groups) {
    for (const auto& system : study.systems)
      if (!rows_of(segments, group, &system).empty())
        study.systems_by_group.push_back(summarise(segments, scores, group, system));
    for (std::size_t m = 0; m < scores.metrics.size(); ++m)
      if (auto a = agreement(segments, scores, group, m)) study.agreements.push_back(std::move(*a));
    study.cross.push_back(cross_correlation(segments, scores, group));
  }
  return study;
}

}  // namespace invar::style_transfer
