#pragma once
// What `invar isometry` shows of an IsometryResult: tables for the terminal (the paper's Table 2:
// category frequencies per data set and their macro-average; Table 3: chrF̄2 vs S_L correlations),
// JSON, per-pair JSONL (one line per input pair, in input order) and a self-contained HTML page with
// the category chart and the target-vs-source scatter plots.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "eval/report/provenance.hpp"
#include "eval/isometry/isometry.hpp"

namespace invar::isometry {

std::string isometry_text_report(const std::vector<IsometryDataSet>& data, const IsometryResult& result);
nlohmann::json isometry_json(const std::vector<IsometryDataSet>& data, const IsometryResult& result,
                             const report::Provenance& provenance);
// One JSON object per pair of every data set, in order: {"translator", "data_set", "line", "source": [s1, s2],
// "target": [f(s1), f(s2)], "p_source": {detector: P}, "p_target": {...}, "judgements": {detector:
// [S_X, S_Y]}, "mode": [S_X, S_Y] or null, "category", "agreement", "chrf_source", "chrf_target"}.
void write_isometry_pairs(const std::string& path, const std::vector<IsometryDataSet>& data,
                          const IsometryResult& result);
void write_isometry_html(const std::string& path, const std::vector<IsometryDataSet>& data,
                         const IsometryResult& result, const report::Provenance& provenance);

}  // namespace invar::isometry
