#pragma once
// Semantic robustness (La Malfa & Kwiatkowska 2022, Section 4): a model with accuracy p on the task
// and p′ on the texts of a linguistic phenomenon is τ-semantically robust when E[p′] ≥ p − τ
// (a negative bound read as 0), and boundedly invariant when p − τ ≤ E[p′] ≤ p + τ. Over a
// population of models the expectations are means over the models; two populations (e.g. vanilla
// vs augmented training) are compared with Welch's t-test per column.
#include <cstddef>
#include <map>
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

struct Verdict {
  double lower = 0;  // max(0, p − τ)
  double upper = 0;  // p + τ
  bool robust = false;   // E[p′] ≥ max(0, p − τ)
  bool bounded = false;  // p − τ ≤ E[p′] ≤ p + τ
};
Verdict verdict(double p, double p_prime, double tau);

struct Population {
  std::string name;
  std::vector<ModelScore> models;
  stats::MeanStd task;
  std::vector<stats::MeanStd> phenomena;
  std::map<std::string, stats::MeanStd> templates;
  std::vector<Verdict> verdicts;  // per phenomenon, of the mean p and mean p′
};
Population summarize(std::string name, std::vector<ModelScore> models, std::size_t phenomena, double tau);

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

}  // namespace invar::robustness
