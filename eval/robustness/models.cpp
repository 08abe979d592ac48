#include "eval/robustness/models.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <unordered_map>

#include "core/error.hpp"
#include "core/io.hpp"

namespace invar::robustness {

namespace {

const std::string& map_label(const std::string& label, const LabelMap& map, const std::vector<std::string>& task_labels,
                             const std::string& where) {
  const std::string* mapped = &label;
  if (!map.empty()) {
    auto it = map.find(label);
    if (it == map.end())
      fail("{}: model label '{}' is unmapped: add --label-map '{}=TASK_LABEL' (task labels: {})", where, label, label,
           fmt::join(task_labels, ", "));
    mapped = &it->second;
  }
  if (std::find(task_labels.begin(), task_labels.end(), *mapped) == task_labels.end())
    fail("{}: model label '{}' {}is not a task label ({}); map it with --label-map MODEL_LABEL=TASK_LABEL", where,
         label, map.empty() ? "" : fmt::format("maps to '{}', which ", *mapped), fmt::join(task_labels, ", "));
  return *mapped;
}

}  // namespace

LabelMap parse_label_map(const std::vector<std::string>& entries) {
  LabelMap map;
  for (const auto& entry : entries) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
      fail("--label-map '{}': expected MODEL_LABEL=TASK_LABEL", entry);
    if (!map.emplace(entry.substr(0, eq), entry.substr(eq + 1)).second)
      fail("--label-map maps model label '{}' twice", entry.substr(0, eq));
  }
  return map;
}

std::vector<std::string> task_labels_of(const std::vector<std::string>& model_labels, const LabelMap& map,
                                        const std::vector<std::string>& task_labels, const std::string& source) {
  std::vector<std::string> out;
  for (const auto& label : model_labels) out.push_back(map_label(label, map, task_labels, source));
  return out;
}

std::vector<std::string> predict(TextEncoder& encoder, const std::vector<std::string>& texts, const LabelMap& map,
                                 const std::vector<std::string>& task_labels, const BatchOptions& batches,
                                 std::size_t& truncated) {
  const EncoderSpec& spec = encoder.model().spec();
  encoder.model().require_classifier();
  const std::string source = encoder.source().path() + "/config.json id2label";
  if (spec.regression) fail("{}: a regression model (num_labels = 1) predicts no labels", encoder.source().path());
  const auto labels = task_labels_of(spec.labels, map, task_labels, source);
  std::vector<TextInput> inputs;
  for (const auto& text : texts) inputs.push_back({text, ""});
  const auto logits = encoder.logits(encoder.encode(inputs, false, truncated), batches);
  std::vector<std::string> out;
  for (const auto& l : logits)
    out.push_back(labels[static_cast<std::size_t>(std::max_element(l.begin(), l.end()) - l.begin())]);
  return out;
}

std::vector<std::string> read_predictions(const std::string& path, const Columns& columns,
                                          const std::vector<std::string>& texts, const LabelMap& map,
                                          const std::vector<std::string>& task_labels) {
  auto table = read_text_columns(
      path, {{"text", columns.text, "1", "text"}, label_column("prediction", columns.label, "2")}, columns.header);
  std::unordered_map<std::string, std::size_t> row_of;
  for (std::size_t r = 0; r < table.texts[0].size(); ++r) {
    auto [it, inserted] = row_of.emplace(table.texts[0][r], r);
    if (!inserted && table.texts[1][it->second] != table.texts[1][r])
      fail("{}:{}: '{}' is predicted '{}' here and '{}' at line {}", table.path, table.line_numbers[r],
           table.texts[0][r], table.texts[1][r], table.texts[1][it->second], table.line_numbers[it->second]);
  }
  std::vector<std::string> out;
  for (const auto& text : texts) {
    auto it = row_of.find(text);
    if (it == row_of.end()) fail("{}: no prediction for the text '{}'", table.path, text);
    out.push_back(map_label(table.texts[1][it->second], map, task_labels,
                            fmt::format("{}:{}", table.path, table.line_numbers[it->second])));
  }
  return out;
}

}  // namespace invar::robustness
