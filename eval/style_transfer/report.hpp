#pragma once
// The outputs of a style-transfer evaluation: text tables for the terminal, one JSON document,
// per-segment CSV, LaTeX tables in the paper's shape, and an HTML report with the cross-metric heat
// maps (eval/report).
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "eval/report/provenance.hpp"
#include "eval/style_transfer/classifier.hpp"
#include "eval/style_transfer/data.hpp"
#include "eval/style_transfer/scores.hpp"
#include "eval/style_transfer/study.hpp"

namespace invar::style_transfer {

struct Evaluation {
  std::vector<Segment> segments;
  Scores scores;
  Study study;
  std::vector<HumanTextsCheck> human_texts;  // the formality classifier on human texts (Table 4)
  std::vector<std::pair<std::string, std::string>> settings;  // what was used: name → value
};

std::string evaluation_text(const Evaluation& e);
// {provenance, settings, metrics, not_computed, systems, meta_evaluation, cross_correlation, segments}; NaN as null.
nlohmann::ordered_json evaluation_json(const Evaluation& e, const report::Provenance& provenance);
// One row per segment: group, system, where, every metric, every human dimension (None where
// not judged, as in the input layout); an undefined metric value is an empty cell.
std::string segments_csv(const Evaluation& e, const report::Provenance& provenance);
// Per group: system means (metrics × systems) and the meta-evaluation (metric, dimension, ρ, r, τ,
// correct system pairs).
std::string evaluation_latex(const Evaluation& e, const report::Provenance& provenance);
void write_html_report(const std::string& path, const Evaluation& e, const report::Provenance& provenance);

}  // namespace invar::style_transfer
