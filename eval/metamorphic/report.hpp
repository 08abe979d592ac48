#pragma once
// Reports of `invar metamorphic`: text tables, JSON, CSV, per-source JSONL, and self-contained HTML
// pages with bar charts of violation rates and the relation's diagram (relation.hpp).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "eval/report/provenance.hpp"
#include "eval/metamorphic/compositionality.hpp"
#include "eval/metamorphic/relation.hpp"
#include "eval/metamorphic/systematicity.hpp"
#include "eval/metamorphic/transitivity.hpp"

namespace invar::metamorphic {

// "pairwise order" etc., for titles; and the built-in relation a suite checks.
std::string suite_title(const RelationSettings& settings);
Relation suite_relation(const RelationSettings& settings);

// Settings printed with every report (name → value), e.g. the model, the score label, δ, the tie rule.
using ReportSettings = std::vector<std::pair<std::string, std::string>>;

std::string suite_text(const Suite& suite, const SuiteResult& result, const ReportSettings& settings);
nlohmann::json suite_json(const Suite& suite, const SuiteResult& result, const ReportSettings& settings,
                          const report::Provenance& provenance);
// One row per transformation: transformation,tests,violations,rate.
void write_suite_csv(const std::string& path, const SuiteResult& result, const report::Provenance& provenance);
// One JSON object per source, in input order: its line, text, label and score, and per
// transformation the follow-up's output with the tests and violations the source takes part in.
void write_suite_per_source(const std::string& path, const Suite& suite, const SuiteResult& result);
void write_suite_html(const std::string& path, const Suite& suite, const SuiteResult& result, const ReportSettings& settings,
                      const report::Provenance& provenance);

std::string compositionality_text(const std::vector<Context>& contexts, const std::vector<Insertion>& insertions,
                                  const CompositionalityResult& result, const ReportSettings& settings);
nlohmann::json compositionality_json(const std::vector<Context>& contexts, const std::vector<Insertion>& insertions,
                                     const CompositionalityResult& result, const ReportSettings& settings,
                                     const report::Provenance& provenance);
// One JSON object per input of the contexts × insertions grid (context by context): its context,
// insertion pair, premise and hypothesis, the probe's and the entailment score, whether the probe
// was trained on it, and the tests and violations it takes part in.
void write_compositionality_per_source(const std::string& path, const std::vector<Context>& contexts,
                                       const std::vector<Insertion>& insertions, const CompositionalityResult& result);
void write_compositionality_html(const std::string& path, const std::vector<Context>& contexts,
                                 const std::vector<Insertion>& insertions, const CompositionalityResult& result,
                                 const ReportSettings& settings, const report::Provenance& provenance);

std::string transitivity_text(const std::vector<Triplet>& triplets, const std::vector<RelationTransitivity>& results,
                              const ReportSettings& settings);
// One JSON object per triplet, in order: its words, group and origin, and per relation R(a, b),
// R(b, c), R(a, c), whether it is a test case and whether it is violated.
void write_transitivity_per_source(const std::string& path, const std::vector<Triplet>& triplets,
                                   const std::vector<RelationTransitivity>& results);
nlohmann::json transitivity_json(const std::vector<Triplet>& triplets, const std::vector<RelationTransitivity>& results,
                                 const ReportSettings& settings, const report::Provenance& provenance);
void write_transitivity_html(const std::string& path, const std::vector<Triplet>& triplets,
                             const std::vector<RelationTransitivity>& results, const ReportSettings& settings,
                             const report::Provenance& provenance);

}  // namespace invar::metamorphic
