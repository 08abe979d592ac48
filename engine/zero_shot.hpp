#pragma once
// Hugging Face's zero-shot-classification pipeline (transformers 4.19,
// ZeroShotClassificationPipeline) over any NLI classifier: each text is the premise of one pair per
// candidate label, the hypothesis the template with the label in it; the entailment logits give a
// softmax over the labels, or with multi_label (forced for a single label) each label its own
// softmax of [contradiction, entailment].
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace invar {

struct ZeroShotSettings {
  std::vector<std::string> labels;                      // the candidate labels, in the order given
  std::string hypothesis_template = "This example is {}.";  // "{}" is replaced by each label
  bool multi_label = false;
};

// One text's result as the pipeline returns it: labels and scores, highest score first.
struct ZeroShotResult {
  std::vector<std::string> labels;
  std::vector<double> scores;
};

// The hypothesis of each label, in the labels' order. Fails for no labels, an empty label or a
// template without exactly one "{}".
std::vector<std::string> zero_shot_hypotheses(const ZeroShotSettings& settings);

// The id of the model's entailment label: the first in label2id whose name starts with "entail"
// (case-insensitive), as the pipeline looks it up. Fails naming `where` when there is none.
std::int64_t entailment_id(const std::map<std::string, std::int64_t>& label2id, const std::string& where);

// Scores from the NLI logits of the text's pairs, one row per label in the labels' order. The
// contradiction logit is id 0 whatever the labels say, or the last one when entailment is id 0
// (DeBERTa/RoBERTa MNLI models: entailment, neutral, contradiction), as in the 4.19 pipeline.
ZeroShotResult zero_shot_scores(const std::vector<std::vector<float>>& logits, const ZeroShotSettings& settings,
                                std::int64_t entailment);

}  // namespace invar
