#include "eval/robustness/data.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/io.hpp"

namespace invar::robustness {

LabelledSet read_labelled_set(const std::string& path, const Columns& columns) {
  auto table = read_text_columns(path, {{"text", columns.text, "1", "text"}, label_column("label", columns.label, "2")},
                                 columns.header);
  return {table.path, std::move(table.texts[0]), std::move(table.texts[1]), std::move(table.line_numbers)};
}

std::vector<GeneratedText> read_phenomenon_set(const std::string& path, const Columns& columns,
                                               const std::vector<GeneratedText>& beside) {
  std::set<std::string> generated;
  for (const auto& t : beside)
    if (!t.template_id.empty()) generated.insert(t.phenomenon);
  auto table = read_text_columns(path,
                                 {{"text", columns.text, "1", "text"},
                                  label_column("label", columns.label, "2"),
                                  label_column("phenomenon", columns.phenomenon, "3")},
                                 columns.header);
  std::vector<GeneratedText> texts;
  for (std::size_t i = 0; i < table.texts[0].size(); ++i) {
    if (generated.count(table.texts[2][i]))
      fail("{}:{}: phenomenon '{}' is also a template phenomenon; an external set is scored apart from the generated "
           "one: rename it in the file (e.g. '{}-external')",
           table.path, table.line_numbers[i], table.texts[2][i], table.texts[2][i]);
    texts.push_back({table.texts[0][i], table.texts[1][i], table.texts[2][i], "", {}});
  }
  return texts;
}

Bed make_bed(LabelledSet task, std::vector<GeneratedText> generated) {
  if (generated.empty()) fail("the phenomenon sets are empty: no generated or external texts to score");
  std::set<std::string> task_labels(task.labels.begin(), task.labels.end());
  for (const auto& t : generated)
    if (!task_labels.count(t.label))
      fail("phenomenon '{}' has label '{}', which the task set {} never uses (its labels: {})", t.phenomenon, t.label,
           task.path, fmt::join(task_labels, ", "));
  Bed bed;
  bed.labels.assign(task_labels.begin(), task_labels.end());
  bed.task = std::move(task);
  bed.phenomena = phenomena(generated);
  bed.generated = std::move(generated);
  return bed;
}

std::vector<std::string> all_texts(const Bed& bed) {
  std::vector<std::string> texts = bed.task.texts;
  for (const auto& g : bed.generated) texts.push_back(g.text);
  return texts;
}

}  // namespace invar::robustness
