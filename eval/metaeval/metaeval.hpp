#pragma once
// Meta-evaluation of a metric against human judgements (style-transfer and MT metric studies):
// segment-level Pearson / Spearman / Kendall tau-b, pooled and per group (language, data set);
// system-level scores (mean of the segment scores, or a corpus score supplied per system) and
// their correlations; and the pairwise system comparisons the metric gets right.
//
// Conventions (tests/fixtures/metrics/README.md, meta_eval): a system score is the left-to-right
// sum of its segment scores divided by their number. For every pair of systems i < j the metric's
// sign is sign(m_i − m_j) (negated when lower is better) and the human sign is sign(h_i − h_j); a
// pair is correct when both signs are equal and non-zero, so a human tie is never correct and a
// metric tie against distinct human scores is wrong. Accuracy excludes human ties.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "eval/stats/stats.hpp"

namespace invar::metaeval {

struct CorrelationSummary {
  std::size_t n = 0;
  stats::Correlation pearson;   // NaN when n < 2 (and as scipy for constant inputs)
  stats::Correlation spearman;
  stats::KendallTau kendall;
};
CorrelationSummary correlate(const std::vector<double>& metric, const std::vector<double>& human);
// {n, pearson: {r, p}, spearman: {rho, p}, kendall: {tau_b, p}}; an undefined value is null.
nlohmann::ordered_json correlation_json(const CorrelationSummary& c);

struct PairwiseComparison {
  std::size_t pairs = 0;
  std::size_t correct = 0;
  std::size_t human_ties = 0;
  std::size_t metric_ties_only = 0;  // metric tie where the humans differ
  double accuracy = 0;               // correct / (pairs − human_ties); NaN if that is 0
};
PairwiseComparison pairwise_accuracy(const std::vector<double>& metric, const std::vector<double>& human,
                                     bool higher_is_better = true);

// (left-to-right sum of the scores) / their number.
double system_score(const std::vector<double>& segment_scores);

struct Segment {
  std::string system;
  std::string group;  // may be empty (one group)
  double metric = 0;
  double human = 0;
};

struct MetaEvalOptions {
  bool higher_is_better = true;
  // System-level metric scores to use instead of segment means (e.g. corpus BLEU), by system.
  std::map<std::string, double> system_metric;
};

struct MetaEvaluation {
  std::vector<std::string> systems;  // in order of first appearance
  std::vector<double> system_metric;
  std::vector<double> system_human;
  CorrelationSummary system_level;
  PairwiseComparison pairwise;
  CorrelationSummary segment_pooled;  // every segment, concatenated system by system
  std::vector<std::string> groups;    // in order of first appearance
  std::vector<CorrelationSummary> per_group;
};
MetaEvaluation meta_evaluate(const std::vector<Segment>& segments, const MetaEvalOptions& options = {});

}  // namespace invar::metaeval
