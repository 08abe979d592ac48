#include "eval/lip/labelled_texts.hpp"

namespace invar {

namespace {

LabelledTexts read_columns(const std::string& path, const ColumnSelection& columns, bool with_label) {
  std::vector<TextColumn> wanted{{"text", columns.text, "1", "text", columns.blank_texts}};
  if (with_label) wanted.push_back(label_column("label", columns.label, "2"));
  auto read = read_text_columns(path, wanted, columns.header);
  LabelledTexts result;
  result.path = std::move(read.path);
  result.texts = std::move(read.texts[0]);
  if (with_label) result.labels = std::move(read.texts[1]);
  result.line_numbers = std::move(read.line_numbers);
  return result;
}

}  // namespace

LabelledTexts read_labelled_texts(const std::string& path, const ColumnSelection& columns) {
  return read_columns(path, columns, true);
}

LabelledTexts read_texts(const std::string& path, const ColumnSelection& columns) {
  return read_columns(path, columns, false);
}

}  // namespace invar
