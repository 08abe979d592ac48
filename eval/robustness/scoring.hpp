#pragma once
// Semantic robustness (La Malfa & Kwiatkowska 2022, Section 4): a model with accuracy p on the task
// and p′ on the texts of a linguistic phenomenon is τ-semantically robust when E[p′] ≥ p − τ
// (a negative bound read as 0), and boundedly invariant when p − τ ≤ E[p′] ≤ p + τ. Over a
// population of models the expectations are means over the models; populations (e.g. vanilla vs
// augmented training of several architectures) are compared pairwise with Welch's t-test per column.
// Definition 5 reads p and p′ on a scale where 0 is random guessing: the verdicts compare
// chance-corrected accuracies (accuracy − c) / (1 − c), c chosen by `Chance`.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "eval/robustness/data.hpp"
#include "eval/stats/stats.hpp"

namespace invar::robustness {

struct Accuracy {
  std::size_t correct = 0;
  std::size_t total = 0;
  double value() const;  // correct / total (NaN when total is 0)
};

struct ModelScore {
  std::string model;
  Accuracy task;                               // p
  std::vector<Accuracy> phenomena;             // p′ per Bed::phenomena
  std::map<std::string, Accuracy> templates;   // p′ per template id (generated texts only)
};

// `predictions` holds one task label per text of all_texts(bed), in that order.
ModelScore score_model(const std::string& model, const Bed& bed, const std::vector<std::string>& predictions);

// What accuracy a verdict reads as 0: Uniform, the paper's random guessing among the task's K labels
// (c = 1/K); Majority, always predicting the set's most frequent label (c = its share; a template
// uses its phenomenon's); None, plain accuracy (c = 0).
enum class Chance { Uniform, Majority, None };
Chance parse_chance(const std::string& name);  // "uniform", "majority", "none"
const char* chance_name(Chance chance);

// (accuracy − chance) / (1 − chance): 0 at chance, 1 when every text is right, negative below
// chance; NaN when chance is 1 (a set of one label under Majority has no room above its baseline).
double chance_corrected(double accuracy, double chance);

// A set's labels and its majority-class baseline.
struct Balance {
  std::map<std::string, std::size_t> counts;
  std::size_t total = 0;
  std::string majority;       // the most frequent label (the first in sort order on a tie)
  double majority_share = 0;  // the accuracy of always predicting it
  double chance = 0;          // the c its accuracies are corrected with
};

// The balance of the task set, each phenomenon and each template, and the templates of each
// phenomenon (in order of first appearance).
struct Baselines {
  Chance chance = Chance::Uniform;
  std::size_t classes = 0;  // K: the labels of the task and phenomenon sets
  Balance task;
  std::vector<Balance> phenomena;
  std::map<std::string, Balance> templates;
  std::vector<std::vector<std::string>> phenomenon_templates;
};
Baselines baselines(const Bed& bed, Chance chance);

struct Verdict {
  double p = 0;        // the (corrected) accuracies compared
  double p_prime = 0;
  double lower = 0;  // max(0, p − τ)
  double upper = 0;  // p + τ
  bool defined = false;  // both accuracies are numbers
  bool robust = false;   // E[p′] ≥ max(0, p − τ)
  bool bounded = false;  // p − τ ≤ E[p′] ≤ p + τ
};
Verdict verdict(double p, double p_prime, double tau);

// One model's verdicts, on its own corrected p and p′.
struct ModelVerdicts {
  std::vector<Verdict> phenomena;
  std::map<std::string, Verdict> templates;
  // Definition 6 ("for any s"): robust on every template of the phenomenon; nullopt for a
  // phenomenon without templates (an external set) or with a template that has no verdict.
  std::vector<std::optional<bool>> every_template;
  std::vector<bool> baseline_above_task;  // the phenomenon's majority share exceeds the model's p
};

struct Population {
  std::string name;
  std::vector<ModelScore> models;
  stats::MeanStd task, task_corrected;
  std::vector<stats::MeanStd> phenomena, phenomena_corrected;
  std::map<std::string, stats::MeanStd> templates, templates_corrected;
  // The population's verdicts, of the mean corrected p and p′, in the layout of ModelVerdicts.
  ModelVerdicts verdicts;
  std::vector<ModelVerdicts> model_verdicts;  // per model
  std::vector<std::size_t> robust_models;     // per phenomenon: how many models are τ-robust
};
Population summarize(std::string name, std::vector<ModelScore> models, const Baselines& baselines, double tau);

// The conventional significance stars: "***" p < 0.001, "**" p < 0.01, "*" p < 0.05, else "".
std::string stars(double pvalue);

// Welch's t-test (scipy.stats.ttest_ind(a, b, equal_var=False), two-sided) of one column between
// two populations; `tested` is false when either population has fewer than two models.
struct Comparison {
  std::string column;  // "task" or a phenomenon
  bool tested = false;
  stats::TTest welch;
  std::string stars;
};
Comparison compare_column(const std::string& column, const std::vector<double>& a, const std::vector<double>& b);
// Task accuracy and each phenomenon: t > 0 when the first population's mean is the higher.
std::vector<Comparison> compare(const Population& a, const Population& b, const std::vector<std::string>& phenomena);

// Populations `first` and `second` (indices) compared column by column.
struct PairComparison {
  std::size_t first = 0, second = 0;
  std::vector<Comparison> columns;
};
// Every pair i < j, in order (0-1, 0-2, …, 1-2, …).
std::vector<PairComparison> compare_all(const std::vector<Population>& populations,
                                        const std::vector<std::string>& phenomena);

}  // namespace invar::robustness
