#pragma once
// Predicted task labels for every text of a bed: from a sequence classifier run by invar (its
// id2label names mapped to the task's labels), or from a file of precomputed predictions.
#include <map>
#include <string>
#include <vector>

#include "engine/text_encoder.hpp"
#include "eval/robustness/data.hpp"

namespace invar::robustness {

// Model label → task label, from "MODEL_LABEL=TASK_LABEL" entries; fails on a malformed or
// repeated entry. Empty: every label is its own task label.
using LabelMap = std::map<std::string, std::string>;
LabelMap parse_label_map(const std::vector<std::string>& entries);

// The task label of each of the model's labels (by id). Fails naming `source` when a model label is
// unmapped or maps to a label the task does not have. Entries naming labels the model does not have
// are ignored: one map serves a population whose models name their labels differently.
std::vector<std::string> task_labels_of(const std::vector<std::string>& model_labels, const LabelMap& map,
                                        const std::vector<std::string>& task_labels, const std::string& source);

// The argmax label of the classifier's logits for each text, mapped to the task. Fails when the
// model has no classification head or is a regression model. `truncated` counts texts cut to the
// model's length.
std::vector<std::string> predict(TextEncoder& encoder, const std::vector<std::string>& texts, const LabelMap& map,
                                 const std::vector<std::string>& task_labels, const BatchOptions& batches,
                                 std::size_t& truncated);

// Precomputed predictions: a table of (text, predicted label) rows — columns `text` (default 1 /
// "text") and `label` (default 2 / "prediction") — looked up by text for each of `texts` and
// mapped to the task. Fails naming the file when a text has no prediction or two different ones.
std::vector<std::string> read_predictions(const std::string& path, const Columns& columns,
                                          const std::vector<std::string>& texts, const LabelMap& map,
                                          const std::vector<std::string>& task_labels);

}  // namespace invar::robustness
