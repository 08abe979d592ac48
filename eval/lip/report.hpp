#pragma once
// What `invar lip` shows of a LipResult: a table for the terminal, JSON, per-text predictions
// (JSONL, one line per original text) and a self-contained HTML page with the distribution chart.
// With several runs every number is the mean ± sample standard deviation over the runs.
#include <nlohmann/json.hpp>

#include <string>

#include "eval/report/provenance.hpp"
#include "eval/lip/lip.hpp"

namespace invar::lip {

std::string lip_text_report(const LipData& data, const LipResult& result);
nlohmann::json lip_json(const LipData& data, const LipResult& result, const report::Provenance& provenance);
// One JSON object per text of A, in input order: {"line", "label", "original": [prediction per run],
// "transformed": [...], "p_original": [{class: probability} per run], "p_transformed": [...]} (no
// transformed keys for a source-only run).
void write_lip_predictions(const std::string& path, const LipData& data, const LipResult& result);
void write_lip_html(const std::string& path, const LipData& data, const LipResult& result,
                    const report::Provenance& provenance);

// The reading of the result in one or two sentences (see eval/lip/lip.hpp).
std::string lip_reading(const LipData& data, const LipResult& result);

}  // namespace invar::lip
