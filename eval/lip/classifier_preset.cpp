#include "eval/lip/classifier_preset.hpp"

#include <fmt/ranges.h>

#include "core/error.hpp"

namespace invar::lip {

namespace {

learn::TfidfOptions char_2_6_sublinear(double max_df) {
  learn::TfidfOptions options;
  options.analyzer = learn::NgramAnalyzer::Char;
  options.ngram_min = 2;
  options.ngram_max = 6;
  options.sublinear_tf = true;
  options.min_df = {0.001, true};
  options.max_df = {max_df, true};
  return options;
}

ClassifierPreset lip_tool() {
  ClassifierPreset preset;
  preset.name = "lip-tool";
  preset.tfidf = char_2_6_sublinear(0.8);
  preset.regression.solver = learn::LogisticSolver::Lbfgs;
  preset.regression.class_weight = learn::ClassWeighting::Balanced;
  // Tight enough that objectives agree with the goldens' optimum to ~1e-9 relative.
  preset.regression.tolerance = 1e-9;
  preset.c_grid = {5.0, 2.0, 1.0, 0.5, 0.1};
  preset.check = ClassifierCheck::CrossValidation;
  return preset;
}

ClassifierPreset invar_preset() {
  ClassifierPreset preset;
  preset.name = "invar";
  preset.tfidf = char_2_6_sublinear(0.6);
  preset.regression.solver = learn::LogisticSolver::Liblinear;
  preset.regression.class_weight = learn::ClassWeighting::Balanced;
  preset.regression.C = 1.0;
  preset.regression.tolerance = 1e-4;
  preset.check = ClassifierCheck::HeldOut;
  return preset;
}

}  // namespace

std::vector<std::string> classifier_preset_names() { return {"lip-tool", "invar"}; }

ClassifierPreset classifier_preset(const std::string& name) {
  if (name == "lip-tool") return lip_tool();
  if (name == "invar") return invar_preset();
  fail("unknown classifier preset '{}' (known: {})", name, fmt::join(classifier_preset_names(), ", "));
}

}  // namespace invar::lip
