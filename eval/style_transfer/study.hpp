#pragma once
// The meta-evaluation of Briakou et al. (2021) over the scores of eval/style_transfer/scores.hpp,
// per group (language): each metric against the human dimension it claims to measure (meaning ↔
// the similarity metrics and STS, formality ↔ the formality regressor, fluency ↔ PLL and
// pseudo-perplexity; nothing is mapped to `combined`):
// - segment level: Pearson, Spearman ρ and Kendall τ-b (Tables 5–7 and 9), over the segments with
//   that human judgement (a None leaves the segment out of that dimension only) and a defined score;
// - system level (Table 8): for every pair of systems, whether the metric's mean orders them as the
//   human mean does (eval/metaeval's pairwise_accuracy; a lower-is-better metric is negated);
// - the Spearman correlation of every pair of metrics over the group's segments (Figures 3–4);
// - Table 8's OVERALL column (the system pairs each metric orders as the `combined` means) and
//   Figure 1's formal/informal counts of a formality classifier per human formality bin.
// BLEU and chrF system scores are corpus scores by default (StudyOptions), as the paper's Table 8.
// Means, correlations and pairwise counts are eval/metaeval's and eval/stats' (scipy-exact).
#include <cstddef>
#include <optional>
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
  // Table 8's OVERALL column: the same system scores (over the segments judged on `combined`) against
  // the systems' mean `combined` judgement; none when no segment has one.
  std::optional<metaeval::MetaEvaluation> overall;
};

// Figure 1: per group and bin of the human formality judgement (rounded to the nearest integer,
// halves away from zero), how many outputs the formality classifier calls formal and informal.
struct FormalityBin {
  std::string group;
  long bin = 0;
  std::size_t formal = 0, informal = 0;
};

// How a system's score is made from its segments for the system means and Table 8's pairs: BLEU and
// chrF as corpus scores over the segments (sacrebleu's corpus_bleu / corpus_chrf, as the paper), or
// every metric as the mean of its segment scores.
enum class SystemScores { Corpus, Mean };
struct StudyOptions {
  SystemScores system_scores = SystemScores::Corpus;
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
  std::vector<FormalityBin> formality_bins;  // with a formality classifier and formality judgements
  SystemScores system_scores = SystemScores::Corpus;
};

Study meta_evaluate(const std::vector<Segment>& segments, const Scores& scores, const StudyOptions& options = {});

// Figure 2: the rank of each system (1 = best; ties share the smallest rank) under a list of system
// scores, NaN ranked last; higher_is_better false ranks the smallest first.
std::vector<std::size_t> system_ranks(const std::vector<double>& scores, bool higher_is_better);

}  // namespace invar::style_transfer
