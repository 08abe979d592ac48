#pragma once
// Classification metrics as scikit-learn 1.2 computes them (sklearn.metrics: accuracy_score,
// precision_recall_fscore_support with average=None / "micro" / "macro" / "weighted",
// confusion_matrix):
//   - the labels are the sorted union of the true and predicted labels (unique_labels): numerically
//     when every label is a number (as numpy sorts a numeric array), else by code point;
//   - per label: P = tp / predicted, R = tp / true, F1 = 2·P·R / (P + R) with a zero denominator
//     replaced by 1 (so F1 = 0 where P + R = 0); support = true count;
//   - a zero predicted (true) count makes P (R) the zero_division value: "warn" (sklearn's default)
//     and 0 give 0 and report the label as ill-defined, 1 gives 1;
//   - micro: the same formulas on the summed counts (P = R = accuracy when every label counts);
//     macro: the plain mean of the per-label values; weighted: their mean weighted by support (numpy's
//     np.average: pairwise sums);
//   - confusion matrix: rows the true labels, columns the predicted ones, in label order.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace invar::stats {

enum class ZeroDivision { Warn, Zero, One };
// "warn", "0" or "1" (sklearn's values); nullopt for anything else.
std::optional<ZeroDivision> parse_zero_division(const std::string& name);
const char* zero_division_name(ZeroDivision zero_division);

struct ClassScores {
  std::string label;
  double precision = 0, recall = 0, f1 = 0;
  std::size_t support = 0;    // true count
  std::size_t predicted = 0;  // predicted count
  bool precision_ill_defined = false;  // nothing predicted as this label
  bool recall_ill_defined = false;     // no true sample of this label
};

struct AverageScores {
  double precision = 0, recall = 0, f1 = 0;
  std::size_t support = 0;
};

struct ClassificationScores {
  std::vector<std::string> labels;
  std::vector<std::vector<std::size_t>> confusion;  // [true label][predicted label]
  std::size_t n = 0;
  std::size_t correct = 0;
  double accuracy = 0;
  std::vector<ClassScores> per_class;  // by labels
  AverageScores micro, macro, weighted;
};

// Fails when the lengths differ or there are no samples.
ClassificationScores classification_scores(const std::vector<std::string>& truth,
                                           const std::vector<std::string>& predicted,
                                           ZeroDivision zero_division = ZeroDivision::Warn);

// sklearn's classification_report (per label, then micro/macro/weighted averages, 4 decimals) and the
// confusion matrix, as a text table.
std::string classification_text(const ClassificationScores& scores);
// {n, correct, accuracy, labels, per_class: [{label, precision, recall, f1, support, predicted,
// ill_defined: [...]}], micro, macro, weighted, confusion_matrix: {rows: true, columns: predicted, counts}}.
nlohmann::ordered_json classification_json(const ClassificationScores& scores);

}  // namespace invar::stats
