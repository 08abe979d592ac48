#pragma once
// What `invar robustness score` and `ablate` show: a text table, JSON, CSV (one row per model and
// set), a LaTeX table (mean ± std, each population after the first starred where Welch's test
// against the first is significant, as the paper's Table 1) and a self-contained HTML page with the
// charts. Every accuracy is shown beside its set's label balance, majority-class baseline and
// chance-corrected value; verdicts per population, per model and per template.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "eval/report/provenance.hpp"
#include "eval/robustness/ablation.hpp"
#include "eval/robustness/scoring.hpp"

namespace invar::robustness {

struct ScoreResult {
  std::string task_path;
  std::vector<std::string> phenomena;
  Baselines baselines;
  double tau = 0.05;
  std::vector<Population> populations;
  std::vector<PairComparison> comparisons;  // every pair of populations
  // --label-map as given (MODEL_LABEL=TASK_LABEL,…); empty when the models' own label names are the task's.
  std::string label_map;
};
ScoreResult make_score_result(const Bed& bed, Baselines baselines, double tau, std::vector<Population> populations);

std::string score_text(const ScoreResult& result);
nlohmann::json score_json(const ScoreResult& result, const report::Provenance& provenance);
// population,model,kind,set,correct,total,accuracy,corrected,robust — kind is task, phenomenon or
// template; corrected is the chance-corrected accuracy, robust the model's verdict (empty for task).
std::string score_csv(const ScoreResult& result, const report::Provenance& provenance);
std::string score_latex(const ScoreResult& result, const report::Provenance& provenance);
void write_score_html(const std::string& path, const ScoreResult& result, const report::Provenance& provenance);

std::string ablation_text(const Ablation& ablation, const std::vector<std::string>& phenomena);
nlohmann::json ablation_json(const Ablation& ablation, const std::vector<std::string>& phenomena,
                             const report::Provenance& provenance);
// layer,set,correct,total,accuracy — set is train, task or a phenomenon.
std::string ablation_csv(const Ablation& ablation, const std::vector<std::string>& phenomena,
                         const report::Provenance& provenance);
void write_ablation_html(const std::string& path, const Ablation& ablation, const std::vector<std::string>& phenomena,
                         const report::Provenance& provenance);

}  // namespace invar::robustness
