#pragma once
// The Language Invariant Property benchmark of Bianchi et al. ("Language Invariant Properties in
// Natural Language Processing", 2022): a property p (sentiment, formality, author gender, ...) is
// invariant under a transformation t (translation, paraphrase, style transfer) when p(a) = p(t(a)).
//
// Given originals A with ground-truth labels and transformed texts B = t(A), line-aligned, a property
// classifier trained on labelled data predicts the property of A and of B. Three distributions over
// the property's values are compared:
//   p̂(A)  the ground-truth labels of A,
//   p(A)  the classifier's predictions on A,
//   p(B)  the predictions on B (by a classifier trained on target-language data when t crosses
//         languages).
// Scores, with the paper's own helpers (language_invariant_properties/metrics.py):
//   KL(p̂(A) ‖ p(A)) and KL(p̂(A) ‖ p(B)) with get_kl: over the classes that occur in A's labels, each
//   count plus ε = 1e-8, divided by (total + classes·ε); then scipy.stats.entropy (which normalises).
//   Predictions of a class absent from A's labels count in the second total only.
//   χ² tests with get_significance: a 2 × K contingency table (row 0 the first distribution's counts,
//   row 1 the second's), scipy's chi2_contingency (Yates' correction only when dof = 1); "**" for
//   p ≤ 0.01, "*" for p ≤ 0.05. Classes absent from both rows are left out of the table (scipy
//   rejects a zero expected count); with a single class left, dof = 0, χ² = 0 and p = 1.
// Reading (α = 0.05), after the paper: the transformation breaks the LIP when p(B) differs
// significantly from p(A) (χ² of p(A) vs p(B)) — the same kind of classifier saw the two texts, so
// the difference comes from the transformation ("transformation bias"). Otherwise, when p(A) differs
// significantly from p̂(A), both predicted distributions are skewed the same way from the truth: that
// is the classifier's bias, not the transformation's ("classifier bias"), and the LIP holds only as
// far as such a classifier can tell. Otherwise the LIP is preserved.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/io.hpp"
#include "eval/lip/labelled_texts.hpp"
#include "eval/lip/classifier_preset.hpp"
#include "eval/lip/cross_validation.hpp"
#include "eval/lip/property_classifier.hpp"

namespace invar::lip {

// ---- The paper's statistics on class counts (index = class) ------------------------------------

inline constexpr double kLipEpsilon = 1e-8;

// get_kl(original_labels, predicted_labels) on counts per class.
double lip_kl(const std::vector<std::size_t>& original, const std::vector<std::size_t>& predicted);

struct LipSignificance {
  double chi2 = 0;
  double pvalue = 1;
  double dof = 0;
  std::string stars;  // "**", "*" or ""
  std::vector<std::size_t> classes;  // the classes (columns) that entered the table
};
// get_significance on counts per class (first row, second row).
LipSignificance lip_significance(const std::vector<std::size_t>& first, const std::vector<std::size_t>& second);
std::string significance_stars(double pvalue);

// ---- Data ----------------------------------------------------------------------------------------

// What to do with empty (whitespace-only) texts — released training files have some:
//   Error: fail naming FILE:LINE of the first one;
//   Skip: leave them out and count them; an empty original or transformed text drops the pair (A, B)
//   so that A and B stay line-aligned;
//   Nan: read them as the LIP tool does: pandas' read_csv turns an empty cell (and a cell holding one
//   of its default NA markers, pandas_na_marker) into NaN and the tool's text.apply(str) into the
//   string "nan", which it trains and predicts on. A whitespace-only cell is not NA to pandas and is
//   kept as it is.
enum class EmptyTexts { Error, Skip, Nan };

// Whether pandas 1.5's read_csv reads this cell as NaN by default (its STR_NA_VALUES, "" included).
bool pandas_na_marker(std::string_view cell);
// EmptyTexts::Nan on one file: every text pandas reads as NaN becomes "nan"; returns how many. (A
// text that is "nan" already counts: pandas reads it as NaN too.)
std::size_t read_na_as_nan(LabelledTexts& file);

struct SkippedTexts {
  std::string path;
  std::size_t count = 0;
  bool read_as_nan = false;  // EmptyTexts::Nan: the texts were kept as "nan", not left out
};

struct LipData {
  std::vector<std::string> classes;  // sorted by code point: class index = position
  std::vector<SkippedTexts> skipped;  // per file, the empty texts left out (Skip) or read as "nan" (Nan)
  LabelledTexts train;
  std::optional<LabelledTexts> train_target;  // classifier for B when t crosses languages
  LabelledTexts original;
  LabelledTexts transformed;  // empty when source_only
  // No B: only the classifier on A against A's truth (KL_O_PO, significance_source and the two
  // distributions: the paper's Table 1 source rows, which released data alone can give).
  bool source_only = false;
};

// Checks the inputs against each other: at least two classes in the training data, the same label
// set in both training sets, every label of A known to the training data, A and B of equal length.
// Without `transformed` the data is source_only.
LipData make_lip_data(LabelledTexts train, std::optional<LabelledTexts> train_target, LabelledTexts original,
                      std::optional<LabelledTexts> transformed, EmptyTexts empty = EmptyTexts::Error);

// ---- Runs ----------------------------------------------------------------------------------------

struct LipOptions {
  std::size_t runs = 1;
  std::uint64_t seed = 0;
  FeaturizerFactory featurizer;
  // Regression, C grid and the classifier check (ClassifierCheck::HeldOut: held_out share, 0 = none).
  ClassifierPreset classifier = classifier_preset(kDefaultClassifierPreset);
  // Called once with 0 before the first fit, then after every classifier fit (every C of the grid
  // on every fold, and the final fits) with the count so far and the total the run will make.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// Inconclusive: the classifier check is weak (see weak_check_reasons), so no reading is drawn.
enum class LipVerdict { Preserved, ClassifierBias, TransformationBias, Inconclusive };
// "preserved", "classifier bias", "transformation bias", "inconclusive (weak classifier)"
const char* verdict_name(LipVerdict verdict);

struct LipRun {
  std::uint64_t seed = 0;
  std::optional<ClassifierScores> source_check;  // check of the classifier for A (out-of-fold or held-out)
  std::optional<ClassifierScores> target_check;  // ... for B, with a target-language training set
  std::size_t source_training_texts = 0;  // texts the final classifier was trained on
  std::size_t target_training_texts = 0;
  double source_C = 1;  // the C each final classifier was trained with
  double target_C = 1;
  std::optional<CrossValidation> source_cv;  // folds, grid scores, chosen C
  std::optional<CrossValidation> target_cv;
  std::vector<std::size_t> truth_counts;     // p̂(A)
  std::vector<std::size_t> original_counts;  // p(A)
  std::vector<std::size_t> transformed_counts;  // p(B)
  double kl_original = 0;     // KL(p̂(A) ‖ p(A))
  double kl_transformed = 0;  // KL(p̂(A) ‖ p(B))
  LipSignificance original_vs_transformed;  // p(A) vs p(B): the LIP test
  LipSignificance truth_vs_original;        // p̂(A) vs p(A): classifier bias
  LipSignificance truth_vs_transformed;     // p̂(A) vs p(B)
  LipVerdict verdict = LipVerdict::Preserved;
  // Why the classifier check is too weak for a verdict (empty: it is not): a check whose predictions
  // or whose predictions on A use a single class, or a check macro-F1 below chance (1/K, a guess
  // following the class shares) + 0.1.
  std::vector<std::string> weak_check_reasons;
  PropertyClassifier::Prediction original_predictions;
  PropertyClassifier::Prediction transformed_predictions;
};

struct LipResult {
  std::vector<std::string> classes;
  std::string classifier;  // description of the settings
  std::string preset;      // the classifier preset's name
  std::string check;       // how the classifier was checked, in words
  std::vector<LipRun> runs;
};

// Per run: trains the classifier(s) as the preset says, then predicts A and B (source_only: A only;
// the B counts stay empty, and the verdict is classifier bias or preserved from p̂(A) vs p(A)).
//   Cross-validation check: the C grid (if any) is searched with stratified folds on all the training
//   data, the out-of-fold predictions at the chosen C are the check, and the final classifier is
//   trained on all of it (the LIP tool's way). It is deterministic, so runs > 1 is refused.
//   Held-out check: run seed, seed + 1, ... draws its own stratified held-out split of the training
//   data (and of the target-language training data), searches the grid (if any) on the rest, trains
//   on the rest and scores the held-out part.
LipResult run_lip(const LipData& data, const LipOptions& options);

// Mean and sample standard deviation (n − 1; 0 for a single value).
struct MeanStd {
  double mean = 0;
  double std = 0;
};
MeanStd mean_std(const std::vector<double>& values);

// ---- The LIP tool's own report (language_invariant_properties/abstractions/dataset.py score()) ----

// normalize_counter: round(count / n, 2) per class, classes in order of first appearance.
std::vector<std::pair<std::string, double>> tool_distribution(const std::vector<std::string>& labels);
// get_significance's marks: "$^{**}$" for p <= 0.01, "$^{*}$" for p <= 0.05, else "".
std::string tool_stars(double pvalue);

}  // namespace invar::lip

namespace invar::lip {

// The verdict most runs reached; a tie goes to the more serious one (transformation bias, then
// classifier bias).
LipVerdict overall_verdict(const LipResult& result);

}  // namespace invar::lip
