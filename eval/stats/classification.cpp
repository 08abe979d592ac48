#include "eval/stats/classification.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "core/error.hpp"
#include "eval/stats/stats.hpp"

namespace invar::stats {

namespace {

std::optional<double> as_number(const std::string& text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// sklearn's unique_labels: sorted; numbers as numbers when every label is one.
std::vector<std::string> sorted_labels(const std::vector<std::string>& truth, const std::vector<std::string>& predicted) {
  std::set<std::string> distinct(truth.begin(), truth.end());
  distinct.insert(predicted.begin(), predicted.end());
  std::vector<std::string> labels(distinct.begin(), distinct.end());
  std::vector<double> numbers;
  for (const auto& label : labels) {
    const auto number = as_number(label);
    if (!number) return labels;
    numbers.push_back(*number);
  }
  std::vector<std::size_t> order(labels.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return numbers[a] < numbers[b]; });
  std::vector<std::string> sorted;
  for (std::size_t i : order) sorted.push_back(labels[i]);
  return sorted;
}

// _prf_divide: the quotient, or the zero_division value (0 for warn) when the denominator is 0.
double divide(std::size_t numerator, std::size_t denominator, ZeroDivision zero_division, bool& ill_defined) {
  ill_defined = denominator == 0;
  if (ill_defined) return zero_division == ZeroDivision::One ? 1.0 : 0.0;
  return static_cast<double>(numerator) / static_cast<double>(denominator);
}

double f_score(double precision, double recall) {
  double denominator = precision + recall;
  if (denominator == 0.0) denominator = 1;
  return 2 * precision * recall / denominator;
}

double mean(const std::vector<double>& values) {
  return numpy_sum(values.data(), values.size()) / static_cast<double>(values.size());
}

// np.average(values, weights=weights): sum(values·weights) / sum(weights), both numpy sums.
double weighted_mean(const std::vector<double>& values, const std::vector<double>& weights) {
  std::vector<double> products(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) products[i] = values[i] * weights[i];
  return numpy_sum(products.data(), products.size()) / numpy_sum(weights.data(), weights.size());
}

}  // namespace

std::optional<ZeroDivision> parse_zero_division(const std::string& name) {
  if (name == "warn") return ZeroDivision::Warn;
  if (name == "0") return ZeroDivision::Zero;
  if (name == "1") return ZeroDivision::One;
  return std::nullopt;
}

const char* zero_division_name(ZeroDivision zero_division) {
  switch (zero_division) {
    case ZeroDivision::Zero: return "0";
    case ZeroDivision::One: return "1";
    case ZeroDivision::Warn: break;
  }
  return "warn";
}

ClassificationScores classification_scores(const std::vector<std::string>& truth,
                                           const std::vector<std::string>& predicted, ZeroDivision zero_division) {
  if (truth.size() != predicted.size())
    fail("classification: {} true labels but {} predictions", truth.size(), predicted.size());
  if (truth.empty()) fail("classification: no samples");
  ClassificationScores out;
  out.labels = sorted_labels(truth, predicted);
  const std::size_t k = out.labels.size();
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < k; ++i) index[out.labels[i]] = i;
  out.confusion.assign(k, std::vector<std::size_t>(k, 0));
  out.n = truth.size();
  for (std::size_t i = 0; i < truth.size(); ++i) {
    ++out.confusion[index[truth[i]]][index[predicted[i]]];
    out.correct += truth[i] == predicted[i];
  }
  out.accuracy = static_cast<double>(out.correct) / static_cast<double>(out.n);

  std::vector<double> precisions, recalls, f1s, supports;
  std::size_t tp_sum = 0, predicted_sum = 0, true_sum = 0;
  for (std::size_t c = 0; c < k; ++c) {
    ClassScores s{.label = out.labels[c]};
    const std::size_t tp = out.confusion[c][c];
    for (std::size_t o = 0; o < k; ++o) {
      s.support += out.confusion[c][o];
      s.predicted += out.confusion[o][c];
    }
    s.precision = divide(tp, s.predicted, zero_division, s.precision_ill_defined);
    s.recall = divide(tp, s.support, zero_division, s.recall_ill_defined);
    s.f1 = f_score(s.precision, s.recall);
    tp_sum += tp;
    predicted_sum += s.predicted;
    true_sum += s.support;
    precisions.push_back(s.precision);
    recalls.push_back(s.recall);
    f1s.push_back(s.f1);
    supports.push_back(static_cast<double>(s.support));
    out.per_class.push_back(std::move(s));
  }
  bool ignored = false;
  out.micro.precision = divide(tp_sum, predicted_sum, zero_division, ignored);
  out.micro.recall = divide(tp_sum, true_sum, zero_division, ignored);
  out.micro.f1 = f_score(out.micro.precision, out.micro.recall);
  out.macro = {mean(precisions), mean(recalls), mean(f1s), true_sum};
  out.weighted = {weighted_mean(precisions, supports), weighted_mean(recalls, supports), weighted_mean(f1s, supports),
                  true_sum};
  out.micro.support = true_sum;
  return out;
}

std::string classification_text(const ClassificationScores& scores) {
  std::size_t width = 12;
  for (const auto& label : scores.labels) width = std::max(width, label.size());
  std::string out = fmt::format("{:>{}}  {:>9}  {:>9}  {:>9}  {:>7}\n", "", width, "precision", "recall", "f1", "support");
  auto row = [&](const std::string& name, double p, double r, double f, std::size_t support) {
    out += fmt::format("{:>{}}  {:>9.4f}  {:>9.4f}  {:>9.4f}  {:>7}\n", name, width, p, r, f, support);
  };
  for (const auto& c : scores.per_class) row(c.label, c.precision, c.recall, c.f1, c.support);
  out += '\n';
  out += fmt::format("{:>{}}  {:>9}  {:>9}  {:>9.4f}  {:>7}\n", "accuracy", width, "", "", scores.accuracy, scores.n);
  row("micro avg", scores.micro.precision, scores.micro.recall, scores.micro.f1, scores.micro.support);
  row("macro avg", scores.macro.precision, scores.macro.recall, scores.macro.f1, scores.macro.support);
  row("weighted avg", scores.weighted.precision, scores.weighted.recall, scores.weighted.f1, scores.weighted.support);
  for (const auto& c : scores.per_class) {
    if (c.precision_ill_defined) out += fmt::format("precision of '{}' is ill-defined (no predicted samples)\n", c.label);
    if (c.recall_ill_defined) out += fmt::format("recall of '{}' is ill-defined (no true samples)\n", c.label);
  }
  out += "\nconfusion matrix (rows: true, columns: predicted)\n";
  std::size_t cell = 5;
  for (const auto& label : scores.labels) cell = std::max(cell, label.size());
  out += fmt::format("{:>{}}", "", width);
  for (const auto& label : scores.labels) out += fmt::format("  {:>{}}", label, cell);
  out += '\n';
  for (std::size_t t = 0; t < scores.labels.size(); ++t) {
    out += fmt::format("{:>{}}", scores.labels[t], width);
    for (std::size_t count : scores.confusion[t]) out += fmt::format("  {:>{}}", count, cell);
    out += '\n';
  }
  return out;
}

nlohmann::ordered_json classification_json(const ClassificationScores& scores) {
  using nlohmann::ordered_json;
  auto average = [](const AverageScores& a) {
    return ordered_json{{"precision", a.precision}, {"recall", a.recall}, {"f1", a.f1}, {"support", a.support}};
  };
  ordered_json per_class = ordered_json::array();
  for (const auto& c : scores.per_class) {
    ordered_json ill = ordered_json::array();
    if (c.precision_ill_defined) ill.push_back("precision");
    if (c.recall_ill_defined) ill.push_back("recall");
    per_class.push_back({{"label", c.label}, {"precision", c.precision}, {"recall", c.recall}, {"f1", c.f1},
                         {"support", c.support}, {"predicted", c.predicted}, {"ill_defined", ill}});
  }
  return {{"n", scores.n},
          {"correct", scores.correct},
          {"accuracy", scores.accuracy},
          {"labels", scores.labels},
          {"per_class", per_class},
          {"micro", average(scores.micro)},
          {"macro", average(scores.macro)},
          {"weighted", average(scores.weighted)},
          {"confusion_matrix", {{"rows", "true"}, {"columns", "predicted"}, {"counts", scores.confusion}}}};
}

}  // namespace invar::stats
