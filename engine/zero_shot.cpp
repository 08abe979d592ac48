#include "engine/zero_shot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace invar {

std::vector<std::string> zero_shot_hypotheses(const ZeroShotSettings& settings) {
  if (settings.labels.empty()) fail("zero-shot classification needs at least one candidate label");
  const std::string& t = settings.hypothesis_template;
  const auto at = t.find("{}");
  if (at == std::string::npos || t.find("{}", at + 2) != std::string::npos)
    fail("the hypothesis template '{}' must hold '{{}}' once, where the label goes", t);
  std::vector<std::string> hypotheses;
  for (const auto& label : settings.labels) {
    if (label.empty()) fail("a candidate label is empty");
    hypotheses.push_back(t.substr(0, at) + label + t.substr(at + 2));
  }
  return hypotheses;
}

std::int64_t entailment_id(const std::map<std::string, std::int64_t>& label2id, const std::string& where) {
  // Python dicts keep config.json's order; label2id here is sorted by name, and at most one name
  // of an NLI model's labels starts with "entail".
  for (const auto& [label, id] : label2id) {
    std::string lower = label.substr(0, 6);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "entail") return id;
  }
  fail("{}: no label starts with 'entail' (label2id): zero-shot classification needs an NLI model", where);
}

ZeroShotResult zero_shot_scores(const std::vector<std::vector<float>>& logits, const ZeroShotSettings& settings,
                                std::int64_t entailment) {
  const std::size_t n = settings.labels.size();
  if (logits.size() != n) fail("internal: {} logit rows for {} labels", logits.size(), n);
  const auto at = [&](std::size_t label, std::int64_t id) {
    if (id < 0 || static_cast<std::size_t>(id) >= logits[label].size())
      fail("the model has {} labels, no label id {}", logits[label].size(), id);
    return static_cast<double>(logits[label][static_cast<std::size_t>(id)]);
  };
  std::vector<double> scores(n);
  if (settings.multi_label || n == 1) {
    for (std::size_t i = 0; i < n; ++i) {
      // The pipeline's contradiction_id = -1 if entailment_id == 0 else 0 (a Python index: the last).
      const std::int64_t contradiction_id = entailment == 0 ? static_cast<std::int64_t>(logits[i].size()) - 1 : 0;
      const double contradiction = at(i, contradiction_id), entail = at(i, entailment), top = std::max(contradiction, entail);
      scores[i] = std::exp(entail - top) / (std::exp(contradiction - top) + std::exp(entail - top));
    }
  } else {
    double top = -INFINITY;
    for (std::size_t i = 0; i < n; ++i) top = std::max(top, at(i, entailment));
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += scores[i] = std::exp(at(i, entailment) - top);
    for (double& s : scores) s /= sum;
  }
  // list(reversed(scores.argsort())): ascending (stable for the few labels a pipeline gets), reversed.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  std::reverse(order.begin(), order.end());
  ZeroShotResult result;
  for (std::size_t i : order) {
    result.labels.push_back(settings.labels[i]);
    result.scores.push_back(scores[i]);
  }
  return result;
}

}  // namespace invar
