#include "eval/style_transfer/study.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <limits>

#include "eval/metrics/corpus/common.hpp"
#include "eval/metrics/corpus/registry.hpp"
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

// sacrebleu's corpus score of the metric over these segments (empty outputs included, as it counts them).
double corpus_score(const MetricScores& metric, const std::vector<Segment>& segments,
                    const std::vector<std::size_t>& rows) {
  if (rows.empty()) return kNaN;
  const auto scorer = metrics::make_corpus_metric(metric.corpus);
  std::vector<std::vector<double>> stats;
  for (std::size_t i : rows)
    stats.push_back(scorer->segment_row(segments[i].output, metric.self ? std::vector<std::string>{segments[i].input}
                                                                        : segments[i].references));
  return scorer->score_row(metrics::sum_rows(stats));
}

// The system score of a metric over these segments of one system: a corpus score where the metric
// has one and the options ask for it, else the mean of the defined segment scores.
double system_value(const MetricScores& metric, const std::vector<Segment>& segments,
                    const std::vector<std::size_t>& rows, SystemScores kind) {
  if (kind == SystemScores::Corpus && !metric.corpus.empty()) return corpus_score(metric, segments, rows);
  std::vector<double> values;
  for (std::size_t i : rows) values.push_back(metric.values[i]);
  return mean_of_defined(values);
}

SystemSummary summarise(const std::vector<Segment>& segments, const Scores& scores, const std::string& group,
                        const std::string& system, SystemScores kind) {
  const auto rows = rows_of(segments, group, &system);
  SystemSummary out{.group = group, .system = system, .segments = rows.size()};
  for (const auto& metric : scores.metrics) out.metric_means.push_back(system_value(metric, segments, rows, kind));
  for (Dimension d : kDimensions) {
    std::vector<double> values;
    for (std::size_t i : rows) values.push_back(segments[i].human[static_cast<std::size_t>(d)].value_or(kNaN));
    out.human_means[static_cast<std::size_t>(d)] = mean_of_defined(values);
  }
  return out;
}

// The group's segments judged on `dimension` and with a defined score, meta-evaluated with the
// metric's system scores over them; none → nothing.
std::optional<metaeval::MetaEvaluation> judged_against(const std::vector<Segment>& segments, const MetricScores& metric,
                                                       const std::string& group, Dimension dimension, SystemScores kind) {
  std::vector<metaeval::Segment> judged;
  std::map<std::string, std::vector<std::size_t>> rows_by_system;
  for (std::size_t i : rows_of(segments, group)) {
    const auto& human = segments[i].human[static_cast<std::size_t>(dimension)];
    if (human && !std::isnan(metric.values[i])) {
      judged.push_back({segments[i].system, "", metric.values[i], *human});
      rows_by_system[segments[i].system].push_back(i);
    }
  }
  if (judged.empty()) return std::nullopt;
  metaeval::MetaEvalOptions options{.higher_is_better = metric.higher_is_better};
  if (kind == SystemScores::Corpus && !metric.corpus.empty())
    for (const auto& [system, rows] : rows_by_system) options.system_metric[system] = corpus_score(metric, segments, rows);
  return metaeval::meta_evaluate(judged, options);
}

std::optional<MetricAgreement> agreement(const std::vector<Segment>& segments, const Scores& scores,
                                         const std::string& group, std::size_t m, SystemScores kind) {
  const MetricScores& metric = scores.metrics[m];
  auto result = judged_against(segments, metric, group, metric.dimension, kind);
  if (!result) return std::nullopt;
  return MetricAgreement{group, m, metric.dimension, std::move(*result),
                         judged_against(segments, metric, group, Dimension::Combined, kind)};
}

// Figure 1 from the formality-clf values and the formality judgements.
void add_formality_bins(const std::vector<Segment>& segments, const Scores& scores, const std::string& group,
                        std::vector<FormalityBin>& out) {
  const auto metric = std::ranges::find_if(scores.metrics, [](const MetricScores& m) { return m.name == "formality-clf"; });
  if (metric == scores.metrics.end()) return;
  std::map<long, FormalityBin> bins;
  for (std::size_t i : rows_of(segments, group)) {
    const auto& human = segments[i].human[static_cast<std::size_t>(Dimension::Formality)];
    if (!human || std::isnan(metric->values[i])) continue;
    const long bin = std::lround(*human);
    auto& b = bins.try_emplace(bin, FormalityBin{group, bin}).first->second;
    ++(metric->values[i] == 1.0 ? b.formal : b.informal);
  }
  for (auto& [bin, counts] : bins) out.push_back(std::move(counts));
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

Study meta_evaluate(const std::vector<Segment>& segments, const Scores& scores, const StudyOptions& options) {
  Study study{.groups = groups_of(segments), .systems = systems_of(segments), .system_scores = options.system_scores};
  for (const auto& group : study.groups) {
    for (const auto& system : study.systems)
      if (!rows_of(segments, group, &system).empty())
        study.systems_by_group.push_back(summarise(segments, scores, group, system, options.system_scores));
    for (std::size_t m = 0; m < scores.metrics.size(); ++m)
      if (auto a = agreement(segments, scores, group, m, options.system_scores)) study.agreements.push_back(std::move(*a));
    study.cross.push_back(cross_correlation(segments, scores, group));
    add_formality_bins(segments, scores, group, study.formality_bins);
  }
  return study;
}

std::vector<std::size_t> system_ranks(const std::vector<double>& scores, bool higher_is_better) {
  std::vector<std::size_t> ranks;
  for (double a : scores) {
    std::size_t better = 0;
    for (double b : scores)
      if (!std::isnan(b) && (std::isnan(a) || (higher_is_better ? b > a : b < a))) ++better;
    ranks.push_back(better + 1);
  }
  return ranks;
}

}  // namespace invar::style_transfer
