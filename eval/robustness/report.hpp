#pragma once
// What `invar robustness score` and `ablate` show: a text table, JSON, CSV (one row per model and
// set), a LaTeX table (mean ± std, the second population starred where Welch's test is
// significant, as the paper's Table 1) and a self-contained HTML page with the charts.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "eval/report/provenance.hpp"
#include "eval/robustness/ablation.hpp"
#include "eval/robustness/scoring.hpp"

namespace invar::robustness {

struct ScoreResult {
  std::string task_path;
  std::size_t task_texts = 0;
  std::vector<std::string> phenomena;
  std::vector<std::size_t> phenomenon_texts;  // per phenomenon
  std::vector<std::string> templates;  // template ids in order of first appearance
  std::map<std::string, std::size_t> template_texts;
  double tau = 0.05;
  std::vector<Population> populations;     // one or two
  std::vector<Comparison> comparisons;     // populations[0] vs populations[1], when there are two
  // --label-map as given (MODEL_LABEL=TASK_LABEL,…); empty when the models' own label names are the task's.
  std::string label_map;
};
ScoreResult make_score_result(const Bed& bed, double tau, std::vector<Population> populations);

std::string score_text(const ScoreResult& result);
nlohmann::json score_json(const ScoreResult& result, const report::Provenance& provenance);
// population,model,kind,set,correct,total,accuracy — kind is task, phenomenon or template.
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
