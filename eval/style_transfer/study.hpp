#pragma once
// The meta-evaluation of Briakou et al. (2021) over the scores of eval/style_transfer/scores.hpp,
// per group (language): each metric against the human dimension it claims to measure (meaning ↔
// the similarity metrics and STS, formality ↔ the formality regressor, fluency ↔ PLL and
// pseudo-perplexity; nothing is mapped to `combined`):
// - segment level: Pearson, Spearman ρ and Kendall τ-b (Tables 5–7 and 9), over the segments with
//   that human judgement (a None leaves the segment out of that dimension only) and a defined score;
// - system level (Table 8): for every pair of systems, whether the metric's mean orders them as the
//   human mean does (eval/metaeval's pairwise_accuracy; a lower-is-better metric is negated);
// - the Spearman correlation of every pair of metrics over the group's segments (Figures 3–4).
// Means, correlations and pairwise counts are eval/metaeval's and eval/stats' (scipy-exact).
#include <cstddef>
#include <string>
#include <vector>

#include "eval/metaeval/metaeval.hpp"
#include "eval/style_transfer/data.hpp"
#include "eval/style_transfer/scores.hpp"

namespace invar::style_transfer {

// A system's means in one group: of every metric (over its defined values) and of every human
// dimension (over the judged segments; NaN when none).
struct SystemSummary {
  std::string group, system;
  std::size_t segments = 0;
  std::vector<double> metric_means;  // by Scores::metrics
  std::array<double, 4> human_means;  // by Dimension
};

struct MetricAgreement {
  std::string group;
  std::size_t metric = 0;  // index into Scores::metrics
  Dimension dimension;
  metaeval::MetaEvaluation result;  // systems, system means, pairwise, system-level and segment-level
};

struct CrossCorrelation {
  std::string group;
  std::vector<std::vector<double>> spearman;  // metrics × metrics, NaN where undefined
};

struct Study {
  std::vector<std::string> groups, systems;
  std::vector<SystemSummary> systems_by_group;
  std::vector<MetricAgreement> agreements;  // group by group, metric by metric; only judged dimensions
  std::vector<CrossCorrelation> cross;      // one per group
};

Study meta_evaluate(const std::vector<Segment>& segments, const Scores& scores);

}  // namespace invar::style_transfer
