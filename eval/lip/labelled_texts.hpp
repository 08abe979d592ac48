#pragma once
// LIP's labelled data: rows of (text, label) read from text/TSV/CSV/JSONL files.
#include <string>
#include <vector>

#include "core/io.hpp"

namespace invar {

struct LabelledTexts {
  std::string path;
  std::vector<std::string> texts;
  std::vector<std::string> labels;
  std::vector<std::size_t> line_numbers;  // where each row starts in the file
};

// Which columns hold the text and the label. TSV/CSV: a 1-based number or a header name (a name
// implies a header line); JSONL: the keys. Empty selectors take the defaults: 1 and 2 for TSV/CSV,
// "text" and "label" for JSONL. The format follows the extension (.tsv, .csv, .jsonl/.json; any
// other file is read as TSV, or as plain lines when only a text is needed).
struct ColumnSelection {
  std::string text;
  std::string label;
  bool header = false;
  bool blank_texts = false;  // keep blank texts (the caller has a policy for them) instead of failing
};

// Rows of (text, label); fails naming FILE:LINE on an empty label, and on an empty text unless
// blank_texts.
LabelledTexts read_labelled_texts(const std::string& path, const ColumnSelection& columns);
// Texts only; fails on an empty text unless blank_texts.
LabelledTexts read_texts(const std::string& path, const ColumnSelection& columns);

}  // namespace invar
