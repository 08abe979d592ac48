#pragma once
// Briakou et al.'s binary formality classifiers: the label a classifier gives a text (argmax of its
// logits, the first on a tie, as Hugging Face's text-classification pipeline), and the paper's check
// on human-written texts (Table 4): every distinct informal input of a group is a true "informal",
// every distinct reference a true "formal", scored with scikit-learn's classification metrics.
#include <cstddef>
#include <string>
#include <vector>

#include "eval/stats/classification.hpp"
#include "eval/style_transfer/data.hpp"
#include "eval/style_transfer/models.hpp"

namespace invar::style_transfer {

// "formal" or "informal" for each text, from Models::formality_classifier() and its formal label.
std::vector<std::string> formality_labels(Models& models, const std::vector<std::string>& texts);

struct HumanTextsCheck {
  std::string group;
  std::size_t inputs = 0, references = 0;  // distinct texts of each kind
  stats::ClassificationScores scores;
};
// One per group with inputs or references; none without a classifier.
std::vector<HumanTextsCheck> check_on_human_texts(const std::vector<Segment>& segments, Models& models);

}  // namespace invar::style_transfer
