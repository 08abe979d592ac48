#pragma once
// The texts a model is scored on: the task's labelled test set (p) and the phenomenon sets (p′),
// generated from templates or read from an external challenge set (e.g. Barnes et al. 2019).
#include <cstddef>
#include <string>
#include <vector>

#include "eval/robustness/templates.hpp"

namespace invar::robustness {

struct LabelledSet {
  std::string path;
  std::vector<std::string> texts;
  std::vector<std::string> labels;
  std::vector<std::size_t> line_numbers;
};

// Column selectors: a 1-based number or header name (TSV/CSV; a name implies a header line), a key
// (JSONL); empty = the default (text 1/"text", label 2/"label", phenomenon 3/"phenomenon").
struct Columns {
  std::string text, label, phenomenon;
  bool header = false;
};

// Rows of (text, label); fails naming FILE:LINE on an empty field.
LabelledSet read_labelled_set(const std::string& path, const Columns& columns);

// Rows of (text, label, phenomenon) as generated texts without a template; fails naming FILE:LINE
// on an empty field, and on a phenomenon that is also a template phenomenon of `beside` (pooling a
// challenge set into a generated bed would score two test beds under one name).
std::vector<GeneratedText> read_phenomenon_set(const std::string& path, const Columns& columns,
                                               const std::vector<GeneratedText>& beside = {});

// The task's test set and the phenomenon texts, with the phenomena in order of first appearance.
struct Bed {
  LabelledSet task;
  std::vector<GeneratedText> generated;
  std::vector<std::string> phenomena;
  std::vector<std::string> labels;  // every label of the task and the phenomenon sets, sorted
};

// Fails when the generated set is empty or a phenomenon text has a label the task set never uses
// (naming it and the task file).
Bed make_bed(LabelledSet task, std::vector<GeneratedText> generated);

// Every text to classify: the task's, then the generated ones.
std::vector<std::string> all_texts(const Bed& bed);

}  // namespace invar::robustness
