#pragma once
// Isometry of translation on binary semantic-equivalence spaces (Shankar): a good translation f maps
// paraphrases to paraphrases and non-paraphrases to non-paraphrases.
//
// For each source pair (s1, s2) in language X and its translation (f(s1), f(s2)) in Y, every
// paraphrase detector L gives P(paraphrase) on both pairs and judges S_X = [P_X ≥ ε] and
// S_Y = [P_Y ≥ ε]. The statistical mode M of the [S_X, S_Y] judgements over the detectors (Ø when
// no strict majority holds one value, stats::mode_of_pairs) puts the pair in a category:
//   [1,1] isometric, [0,0] ambiguous, [0,1] type-1 anisometry (f made paraphrases of
//   non-paraphrases), [1,0] type-2 anisometry (f broke a paraphrase), Ø ambiguous.
// Reported per data set: the categories' relative frequencies (and their macro-average over data
// sets), the agreement patterns of the detectors (all agree, which ones form the majority, none),
// and on each side the Pearson r between the commutative chrF̄2 of the pair (chrF with β = 2, char
// order 6, word order 0, the mean of both argument orders) and S_L of the mode, Ø pairs removed,
// with the one-tailed t-test (H1: r > 0) and the strength label of Schober et al. That is the paper's
// text; its Table 3 (and the released R code) instead pools every detector's own judgement on both
// sides in one correlation per data set (CorrelationProcedure::Pooled). Data sets are grouped by the
// translator that produced them; frequencies and r are macro-averaged per translator (Tables 2, 3).
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eval/metrics/corpus/registry.hpp"
#include "eval/stats/stats.hpp"

namespace invar::isometry {

// ---- What the study runs on ------------------------------------------------------------------

// A paraphrase detector: P(paraphrase) of each pair (first[i], second[i]), in order.
struct ParaphraseDetector {
  std::string name;
  std::function<std::vector<double>(const std::vector<std::string>& first, const std::vector<std::string>& second)>
      probabilities;
};

// A translator: one translation per text, in order.
using TextTranslator = std::function<std::vector<std::string>(const std::vector<std::string>& texts)>;

// ---- Inputs --------------------------------------------------------------------------------------

struct SentencePairs {
  std::string path;
  std::vector<std::string> first, second;
  std::vector<std::size_t> line_numbers;  // where each pair starts in the file
  std::size_t size() const { return first.size(); }
};

// The two columns holding the sentences: numbers or header names (TSV/CSV; defaults 1 and 2), keys
// (JSONL; defaults "sentence1" and "sentence2", as PAWS-X names them). See read_text_columns.
struct PairColumns {
  std::string first;
  std::string second;
  bool header = false;
};

SentencePairs read_sentence_pairs(const std::string& path, const PairColumns& columns);
// Writes pairs so that read_sentence_pairs reads them back with the default columns: JSONL objects
// {"sentence1", "sentence2"} when the name ends in .jsonl, else TSV (which cannot hold a tab or a
// line break inside a sentence: such a sentence is an error naming it).
void write_sentence_pairs(const std::string& path, const SentencePairs& pairs);
// (f(s1), f(s2)) for every pair, both sentences translated in one batch; `path` names the run.
SentencePairs translate_pairs(const SentencePairs& source, const TextTranslator& translate, std::string path);

// P(paraphrase) of every detector on the source pairs and on the target pairs: [detector][pair].
struct DetectorScores {
  std::string path;
  std::vector<std::string> detectors;
  std::vector<std::vector<double>> source, target;
};

// Precomputed scores: TSV with a header line, or JSONL objects, with one column (key) per detector
// and side, named "source:NAME" and "target:NAME"; one row per pair, line-aligned with the pairs.
// Every detector needs both columns; values are probabilities in [0, 1].
DetectorScores read_detector_scores(const std::string& path);
DetectorScores detect_paraphrases(const SentencePairs& source, const SentencePairs& target,
                                  const std::vector<ParaphraseDetector>& detectors);

struct IsometryDataSet {
  std::string name;
  std::string translator;  // which translator produced `target`; data sets are grouped by it
  SentencePairs source;
  SentencePairs target;
  DetectorScores scores;
};

// Checks that the translations and the scores are line-aligned with the source pairs.
IsometryDataSet make_isometry_data_set(std::string name, SentencePairs source, SentencePairs target,
                                       DetectorScores scores, std::string translator = "translations");

// ---- Categories and agreement ---------------------------------------------------------------------

enum class IsometryCategory { Isometric, Ambiguous, Type1Anisometry, Type2Anisometry, NoMajority };
inline constexpr std::size_t kIsometryCategories = 5;
inline constexpr std::array<IsometryCategory, kIsometryCategories> kAllIsometryCategories{
    IsometryCategory::Isometric, IsometryCategory::Ambiguous, IsometryCategory::Type1Anisometry,
    IsometryCategory::Type2Anisometry, IsometryCategory::NoMajority};
using CategoryCounts = std::array<std::size_t, kIsometryCategories>;  // indexed by the enum

// The category of an [S_X, S_Y] judgement; nullopt (no majority) is Ø.
IsometryCategory isometry_category(const std::optional<std::pair<int, int>>& judgement);
const char* category_key(IsometryCategory category);    // "isometric", "ambiguous", "type1", "type2", "none"
const char* category_label(IsometryCategory category);  // "[1,1] isometric", ..., "Ø ambiguous"

// Which detectors hold the mode of a pair: all of them, a strict majority short of all (one pattern
// per such set, e.g. "bert+xlmr" of three), or none (Ø). Patterns are listed in that order. Takes
// 1 to 9 detectors.
struct AgreementPattern {
  std::string name;                    // "all", "A+B", "none"
  std::vector<std::size_t> detectors;  // the detectors holding the mode; empty for "none"
};
std::vector<AgreementPattern> agreement_patterns(const std::vector<std::string>& detectors);

// ---- The study -------------------------------------------------------------------------------------

// The two ways of correlating chrF̄2 with S_L. Mode (the paper's text, §3.3): S_L of the detectors'
// mode, Ø pairs removed, one correlation per side. Pooled (the paper's Table 3, as the study's R code
// computes it): every detector's own S_L, rounded as R's round() does (half to even, so P = 0.5 gives
// 0: S_L = [P > ε]), each paired with the pair's chrF̄2, source and target sides in one correlation per
// data set, Ø pairs kept: n = 2 × detectors × pairs.
enum class CorrelationProcedure { Mode, Pooled };

struct IsometryOptions {
  double epsilon = 0.5;  // S_L = 1 iff P(paraphrase) ≥ ε
  // Settings of the registry's chrf (eval/metrics/corpus/registry.hpp); none: chrF2 (sacrebleu.sentence_chrf).
  metrics::MetricSettings chrf;
  std::vector<CorrelationProcedure> procedures{CorrelationProcedure::Pooled, CorrelationProcedure::Mode};  // shown
};
// ε must lie in the open interval (0, 1).
void validate_epsilon(double epsilon);

struct IsometryPair {
  std::vector<std::pair<int, int>> judgements;  // [S_X, S_Y] per detector
  stats::PairMode mode;
  IsometryCategory category = IsometryCategory::NoMajority;
  std::size_t pattern = 0;  // index into IsometryResult::patterns
  metrics::CommutativeScore chrf_source, chrf_target;
};

// Pearson r between chrF̄2 and S_L; the t-test needs n > 2.
struct IsometryCorrelation {
  std::size_t n = 0;
  double r = 0;
  stats::TTest test;
  std::optional<std::string> strength;
};

// chrF̄2 per pair against the judgement S_L ∈ {0, 1}; nullopt under 2 pairs.
std::optional<IsometryCorrelation> isometry_correlation(const std::vector<double>& chrf,
                                                        const std::vector<double>& judgement);

struct IsometryDataSetResult {
  std::vector<IsometryPair> pairs;
  CategoryCounts categories{};                       // of the mode
  std::vector<CategoryCounts> detector_categories;   // of each detector's own judgement
  std::vector<std::size_t> patterns;                 // pairs per agreement pattern
  std::optional<IsometryCorrelation> source, target; // mode procedure; nullopt under 2 pairs with a mode
  std::optional<IsometryCorrelation> pooled;          // pooled procedure; nullopt under 2 judgements
};

// R's round() of a probability as the study's script applies it: 1 iff P > ε (round half to even
// sends 0.5 to 0; with ε = 0.5 this is round(P)).
int pooled_judgement(double probability, double epsilon);

// A translator's data sets and their macro-averages (the μ columns of the paper's Tables 2 and 3).
struct TranslatorSummary {
  std::string name;
  std::vector<std::size_t> data_sets;                      // indices into IsometryResult::data_sets
  std::array<double, kIsometryCategories> macro_average{};  // mean over its data sets of the mode's shares
  // Mean r over its data sets that have a finite one (NaN when none has).
  double mean_pooled_r = 0, mean_source_r = 0, mean_target_r = 0;
};

struct IsometryResult {
  double epsilon = 0.5;
  std::string chrf_name;
  std::vector<std::string> detectors;
  std::vector<AgreementPattern> patterns;
  std::vector<IsometryDataSetResult> data_sets;
  std::vector<TranslatorSummary> translators;  // in order of first appearance
  std::vector<CorrelationProcedure> procedures;  // the ones the tables show
};

// Every data set must have the same detectors, in the same order.
IsometryResult run_isometry(const std::vector<IsometryDataSet>& data_sets, const IsometryOptions& options);

// counts[k] / total (0 for no pairs).
double category_share(const CategoryCounts& counts, IsometryCategory category);

}  // namespace invar::isometry
