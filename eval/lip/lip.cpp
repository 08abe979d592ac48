#include "eval/lip/lip.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/learn/model_selection.hpp"
#include "eval/stats/stats.hpp"

namespace invar::lip {

double lip_kl(const std::vector<std::size_t>& original, const std::vector<std::size_t>& predicted) {
  if (original.size() != predicted.size()) fail("KL: {} and {} classes", original.size(), predicted.size());
  double seen = 0, original_total = 0, predicted_total = 0;
  for (std::size_t k = 0; k < original.size(); ++k) {
    if (original[k] > 0) ++seen;
    original_total += static_cast<double>(original[k]);
    predicted_total += static_cast<double>(predicted[k]);
  }
  if (seen == 0) fail("KL: the original labels are empty");
  // Both totals use the original's number of categories, as get_kl does.
  original_total += seen * kLipEpsilon;
  predicted_total += seen * kLipEpsilon;
  std::vector<double> p, q;
  for (std::size_t k = 0; k < original.size(); ++k) {
    if (original[k] == 0) continue;
    p.push_back((static_cast<double>(original[k]) + kLipEpsilon) / original_total);
    q.push_back((static_cast<double>(predicted[k]) + kLipEpsilon) / predicted_total);
  }
  return stats::kl_divergence(p, q);
}

std::string significance_stars(double pvalue) {
  if (pvalue <= 0.01) return "**";
  if (pvalue <= 0.05) return "*";
  return "";
}

LipSignificance lip_significance(const std::vector<std::size_t>& first, const std::vector<std::size_t>& second) {
  if (first.size() != second.size()) fail("chi-squared: {} and {} classes", first.size(), second.size());
  LipSignificance result;
  std::vector<std::vector<double>> table(2);
  for (std::size_t k = 0; k < first.size(); ++k) {
    if (first[k] == 0 && second[k] == 0) continue;
    result.classes.push_back(k);
    table[0].push_back(static_cast<double>(first[k]));
    table[1].push_back(static_cast<double>(second[k]));
  }
  if (result.classes.empty()) fail("chi-squared: both distributions are empty");
  auto test = stats::chi2_contingency(table, true);
  result.chi2 = test.statistic;
  result.pvalue = test.pvalue;
  result.dof = test.dof;
  result.stars = significance_stars(test.pvalue);
  return result;
}

// ---- Data ----------------------------------------------------------------------------------------

bool pandas_na_marker(std::string_view cell) {
  // pandas 1.3-1.5's STR_NA_VALUES (the tool's requirements.txt pins pandas 1.3.2); pandas 2 adds
  // "None", which the tool's environment does not have.
  static const std::set<std::string_view> markers{"",     "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN",
                                                  "-NaN", "-nan", "1.#IND",   "1.#QNAN", "<NA>", "N/A",
                                                  "NA",   "NULL", "NaN",      "n/a",     "nan",  "null"};
  return markers.count(cell) > 0;
}

std::size_t read_na_as_nan(LabelledTexts& file) {
  std::size_t count = 0;
  for (auto& text : file.texts)
    if (pandas_na_marker(text)) {
      text = "nan";
      ++count;
    }
  return count;
}

namespace {

std::vector<std::string> label_set(const LabelledTexts& data) {
  std::set<std::string> labels(data.labels.begin(), data.labels.end());
  return {labels.begin(), labels.end()};
}

void keep_rows(LabelledTexts& data, const std::vector<bool>& keep) {
  LabelledTexts kept;
  kept.path = data.path;
  for (std::size_t i = 0; i < keep.size(); ++i) {
    if (!keep[i]) continue;
    kept.texts.push_back(std::move(data.texts[i]));
    if (!data.labels.empty()) kept.labels.push_back(std::move(data.labels[i]));
    kept.line_numbers.push_back(data.line_numbers[i]);
  }
  data = std::move(kept);
}

// Applies the policy to the files whose rows belong together (one file, or A with B); records the
// count per file.
void handle_empty(const std::vector<LabelledTexts*>& files, EmptyTexts policy, std::vector<SkippedTexts>& skipped) {
  if (policy == EmptyTexts::Nan) {
    for (auto* file : files)
      if (const auto count = read_na_as_nan(*file); count > 0) skipped.push_back({file->path, count, true});
    return;
  }
  std::vector<bool> keep(files.front()->texts.size(), true);
  std::vector<std::size_t> counts(files.size(), 0);
  for (std::size_t f = 0; f < files.size(); ++f)
    for (std::size_t i = 0; i < files[f]->texts.size(); ++i) {
      const auto& text = files[f]->texts[i];
      if (!is_blank(text)) continue;
      if (policy == EmptyTexts::Error)
        fail("{}:{}: empty text (--empty skip leaves empty texts out; --empty nan reads them as the LIP tool does)",
             files[f]->path, files[f]->line_numbers[i]);
      keep[i] = false;
      ++counts[f];
    }
  for (std::size_t f = 0; f < files.size(); ++f)
    if (counts[f] > 0) skipped.push_back({files[f]->path, counts[f]});
  if (std::find(keep.begin(), keep.end(), false) == keep.end()) return;
  for (auto* file : files) keep_rows(*file, keep);
  if (files.front()->texts.empty()) fail("{}: no texts left after skipping the empty ones", files.front()->path);
}

}  // namespace

LipData make_lip_data(LabelledTexts train, std::optional<LabelledTexts> train_target, LabelledTexts original,
                      std::optional<LabelledTexts> transformed, EmptyTexts empty) {
  LipData data;
  data.source_only = !transformed;
  if (data.source_only && train_target) fail("a run without transformed texts has no use for a classifier for B");
  if (transformed && original.texts.size() != transformed->texts.size())
    fail("{} has {} texts but {} has {}; the original and transformed texts must be line-aligned", original.path,
         original.texts.size(), transformed->path, transformed->texts.size());
  handle_empty({&train}, empty, data.skipped);
  if (train_target) handle_empty({&*train_target}, empty, data.skipped);
  if (transformed)
    handle_empty({&original, &*transformed}, empty, data.skipped);
  else
    handle_empty({&original}, empty, data.skipped);
  data.classes = label_set(train);
  if (data.classes.size() < 2)
    fail("{}: only one label ('{}'); the property classifier needs at least two", train.path,
         data.classes.empty() ? "" : data.classes.front());
  if (train_target) {
    auto target_classes = label_set(*train_target);
    if (target_classes != data.classes)
      fail("label sets differ: {} has {{{}}}, {} has {{{}}}", train.path, fmt::join(data.classes, ", "),
           train_target->path, fmt::join(target_classes, ", "));
  }
  for (std::size_t i = 0; i < original.labels.size(); ++i)
    if (!std::binary_search(data.classes.begin(), data.classes.end(), original.labels[i]))
      fail("{}:{}: label '{}' does not occur in the training data {} (labels: {})", original.path,
           original.line_numbers[i], original.labels[i], train.path, fmt::join(data.classes, ", "));
  data.train = std::move(train);
  data.train_target = std::move(train_target);
  data.original = std::move(original);
  if (transformed) data.transformed = std::move(*transformed);
  return data;
}

// ---- Runs ----------------------------------------------------------------------------------------

const char* verdict_name(LipVerdict verdict) {
  switch (verdict) {
    case LipVerdict::Preserved: return "preserved";
    case LipVerdict::ClassifierBias: return "classifier bias";
    case LipVerdict::TransformationBias: return "transformation bias";
    case LipVerdict::Inconclusive: return "inconclusive (weak classifier)";
  }
  return "";
}

namespace {

std::vector<int> class_indices(const std::vector<std::string>& labels, const std::vector<std::string>& classes) {
  std::vector<int> indices;
  for (const auto& label : labels)
    indices.push_back(static_cast<int>(std::lower_bound(classes.begin(), classes.end(), label) - classes.begin()));
  return indices;
}

std::vector<std::size_t> counts_of(const std::vector<int>& labels, std::size_t num_classes) {
  std::vector<std::size_t> counts(num_classes, 0);
  for (int label : labels) ++counts[static_cast<std::size_t>(label)];
  return counts;
}

struct TrainedClassifier {
  std::unique_ptr<PropertyClassifier> classifier;
  std::optional<ClassifierScores> check;
  std::vector<int> check_predictions;
  std::size_t training_texts = 0;
  double C = 1;
  std::optional<CrossValidation> cv;
};

bool cross_validates(const ClassifierPreset& preset) {
  return !preset.c_grid.empty() || preset.check == ClassifierCheck::CrossValidation;
}

// Fits per classifier: the folds of every C searched, then the final fit.
std::size_t fits_per_classifier(const ClassifierPreset& preset) {
  if (!cross_validates(preset)) return 1;
  return std::max<std::size_t>(preset.c_grid.size(), 1) * preset.folds + 1;
}

// Searches the preset's C grid (if any) on `texts`, then trains the final classifier on all of them.
TrainedClassifier select_and_fit(const std::vector<std::string>& texts, const std::vector<int>& labels,
                                 std::size_t num_classes, const LipOptions& options, const std::function<void()>& fitted) {
  const auto& preset = options.classifier;
  TrainedClassifier trained;
  learn::LogisticRegressionOptions regression = preset.regression;
  if (cross_validates(preset)) {
    trained.cv = cross_validate(texts, labels, num_classes, options.featurizer, regression, preset.c_grid,
                                preset.folds, fitted);
    regression.C = trained.cv->C;
  }
  trained.C = regression.C;
  trained.training_texts = texts.size();
  trained.classifier = std::make_unique<PropertyClassifier>(options.featurizer(), regression);
  trained.classifier->fit(texts, labels, num_classes);
  if (fitted) fitted();
  return trained;
}

TrainedClassifier train_classifier(const LabelledTexts& data, const std::vector<std::string>& classes,
                                   const LipOptions& options, std::uint64_t seed, const std::function<void()>& fitted) {
  auto labels = class_indices(data.labels, classes);
  if (options.classifier.check == ClassifierCheck::CrossValidation) {
    auto trained = select_and_fit(data.texts, labels, classes.size(), options, fitted);
    trained.check = trained.cv->scores;
    trained.check_predictions = trained.cv->out_of_fold_predictions;
    return trained;
  }
  learn::Split split = learn::stratified_split(labels, classes.size(), options.classifier.held_out, seed);
  auto trained =
      select_and_fit(learn::pick(data.texts, split.train), learn::pick(labels, split.train), classes.size(), options, fitted);
  if (!split.held_out.empty()) {
    trained.check_predictions = trained.classifier->predict(learn::pick(data.texts, split.held_out));
    trained.check = score_classifier(learn::pick(labels, split.held_out), trained.check_predictions);
  }
  return trained;
}

std::size_t classes_used(const std::vector<int>& predictions) {
  return std::set<int>(predictions.begin(), predictions.end()).size();
}

void add_weakness(const std::string& name, const TrainedClassifier& trained, std::size_t num_classes,
                  std::vector<std::string>& reasons) {
  if (!trained.check) return;
  if (classes_used(trained.check_predictions) == 1)
    reasons.push_back(fmt::format("the classifier {} predicts a single class in its check", name));
  const double chance = 1.0 / static_cast<double>(num_classes);
  if (trained.check->macro_f1 < chance + 0.1)
    reasons.push_back(fmt::format("the classifier {} has a check macro-F1 of {:.3f}, near chance ({:.3f})", name,
                                  trained.check->macro_f1, chance));
}

}  // namespace

namespace {

std::string check_description(const ClassifierPreset& preset) {
  std::string grid = preset.c_grid.empty()
                         ? ""
                         : fmt::format("; C chosen from {{{}}} by {}-fold stratified cross-validation (micro-F1)",
                                       fmt::join(preset.c_grid, ", "), preset.folds);
  if (preset.check == ClassifierCheck::CrossValidation)
    return fmt::format("{}-fold stratified cross-validation on the training data, final classifier trained on all "
                       "of it{}", preset.folds, grid);
  return fmt::format("held-out share {} of each class, final classifier trained on the rest{}", preset.held_out, grid);
}

}  // namespace

LipResult run_lip(const LipData& data, const LipOptions& options) {
  if (options.runs == 0) fail("--runs must be at least 1");
  if (options.runs > 1 && options.classifier.check == ClassifierCheck::CrossValidation)
    fail("--runs {}: the cross-validated classifier check is deterministic (folds without shuffling), so every run "
         "would be the same; use the held-out check (--held-out SHARE) to vary the classifier", options.runs);
  const std::size_t num_classes = data.classes.size();
  LipResult result;
  result.classes = data.classes;
  result.preset = options.classifier.name;
  result.check = check_description(options.classifier);
  result.classifier = PropertyClassifier(options.featurizer(), options.classifier.regression).description();
  const auto truth = class_indices(data.original.labels, data.classes);
  const std::size_t total_fits =
      options.runs * (data.train_target ? 2 : 1) * fits_per_classifier(options.classifier);
  std::size_t fits = 0;
  std::function<void()> fitted;
  if (options.progress) {
    options.progress(0, total_fits);  // the bar shows from the start: one fit can take minutes
    fitted = [&] { options.progress(++fits, total_fits); };
  }
  for (std::size_t r = 0; r < options.runs; ++r) {
    LipRun run;
    run.seed = options.seed + r;
    auto source = train_classifier(data.train, data.classes, options, run.seed, fitted);
    run.source_check = source.check;
    run.source_training_texts = source.training_texts;
    run.source_C = source.C;
    run.source_cv = source.cv;
    run.original_predictions = source.classifier->predict_with_probabilities(data.original.texts);
    add_weakness(data.train_target ? "for A" : "", source, num_classes, run.weak_check_reasons);
    if (data.train_target) {
      auto target = train_classifier(*data.train_target, data.classes, options, run.seed, fitted);
      run.target_check = target.check;
      run.target_training_texts = target.training_texts;
      run.target_C = target.C;
      run.target_cv = target.cv;
      run.transformed_predictions = target.classifier->predict_with_probabilities(data.transformed.texts);
      add_weakness("for B", target, num_classes, run.weak_check_reasons);
    } else if (!data.source_only) {
      run.transformed_predictions = source.classifier->predict_with_probabilities(data.transformed.texts);
    }
    run.truth_counts = counts_of(truth, num_classes);
    run.original_counts = counts_of(run.original_predictions.labels, num_classes);
    if (classes_used(run.original_predictions.labels) == 1 && data.original.texts.size() > 1)
      run.weak_check_reasons.push_back("every original text gets the same predicted class");
    run.kl_original = lip_kl(run.truth_counts, run.original_counts);
    run.truth_vs_original = lip_significance(run.truth_counts, run.original_counts);
    if (data.source_only) {
      if (!run.weak_check_reasons.empty()) run.verdict = LipVerdict::Inconclusive;
      else if (run.truth_vs_original.pvalue <= 0.05) run.verdict = LipVerdict::ClassifierBias;
      result.runs.push_back(std::move(run));
      continue;
    }
    run.transformed_counts = counts_of(run.transformed_predictions.labels, num_classes);
    run.kl_transformed = lip_kl(run.truth_counts, run.transformed_counts);
    run.original_vs_transformed = lip_significance(run.original_counts, run.transformed_counts);
    run.truth_vs_transformed = lip_significance(run.truth_counts, run.transformed_counts);
    if (!run.weak_check_reasons.empty()) run.verdict = LipVerdict::Inconclusive;
    else if (run.original_vs_transformed.pvalue <= 0.05) run.verdict = LipVerdict::TransformationBias;
    else if (run.truth_vs_original.pvalue <= 0.05) run.verdict = LipVerdict::ClassifierBias;
    result.runs.push_back(std::move(run));
  }
  return result;
}

std::vector<std::pair<std::string, double>> tool_distribution(const std::vector<std::string>& labels) {
  std::vector<std::pair<std::string, double>> shares;
  std::map<std::string, std::size_t> counts;
  for (const auto& label : labels)
    if (counts[label]++ == 0) shares.emplace_back(label, 0.0);
  for (auto& [label, share] : shares) {
    // Python's round(x, 2): the decimal rounding of the exact binary value, ties to even, which is
    // what glibc's printf does.
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", static_cast<double>(counts[label]) / static_cast<double>(labels.size()));
    share = std::strtod(text, nullptr);
  }
  return shares;
}

std::string tool_stars(double pvalue) {
  if (pvalue <= 0.01) return "$^{**}$";
  if (pvalue <= 0.05) return "$^{*}$";
  return "";
}

MeanStd mean_std(const std::vector<double>& values) {
  MeanStd result;
  if (values.empty()) return result;
  double sum = 0;
  for (double v : values) sum += v;
  result.mean = sum / static_cast<double>(values.size());
  if (values.size() < 2) return result;
  double squares = 0;
  for (double v : values) squares += (v - result.mean) * (v - result.mean);
  result.std = std::sqrt(squares / static_cast<double>(values.size() - 1));
  return result;
}

}  // namespace invar::lip

namespace invar::lip {

LipVerdict overall_verdict(const LipResult& result) {
  std::map<LipVerdict, std::size_t> votes;
  for (const auto& run : result.runs) ++votes[run.verdict];
  LipVerdict best = LipVerdict::Preserved;
  std::size_t most = 0;
  for (auto verdict : {LipVerdict::Inconclusive, LipVerdict::TransformationBias, LipVerdict::ClassifierBias,
                       LipVerdict::Preserved})
    if (votes[verdict] > most) {
      most = votes[verdict];
      best = verdict;
    }
  return best;
}

}  // namespace invar::lip
