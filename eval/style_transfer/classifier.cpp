#include "eval/style_transfer/classifier.hpp"

#include <algorithm>
#include <unordered_set>

namespace invar::style_transfer {

std::vector<std::string> formality_labels(Models& models, const std::vector<std::string>& texts) {
  TextEncoder* encoder = models.formality_classifier();
  if (!encoder || texts.empty()) return {};
  std::vector<TextInput> inputs;
  for (const auto& text : texts) inputs.push_back({text, {}});
  std::size_t truncated = 0;
  const auto encodings = encoder->encode(inputs, false, truncated);
  const auto logits = encoder->logits(encodings, {models.settings().batch_size, {}});
  std::vector<std::string> out;
  for (const auto& row : logits) {
    const auto best = static_cast<std::size_t>(std::max_element(row.begin(), row.end()) - row.begin());
    out.push_back(best == models.formal_label() ? "formal" : "informal");
  }
  return out;
}

std::vector<HumanTextsCheck> check_on_human_texts(const std::vector<Segment>& segments, Models& models) {
  std::vector<HumanTextsCheck> out;
  if (!models.formality_classifier()) return out;
  for (const auto& group : groups_of(segments)) {
    std::vector<std::string> texts, truth;
    std::unordered_set<std::string> inputs, references;
    for (const auto& s : segments) {
      if (s.group != group) continue;
      if (inputs.insert(s.input).second) {
        texts.push_back(s.input);
        truth.push_back("informal");
      }
      for (const auto& ref : s.references)
        if (references.insert(ref).second) {
          texts.push_back(ref);
          truth.push_back("formal");
        }
    }
    if (texts.empty()) continue;
    out.push_back({group, inputs.size(), references.size(),
                   stats::classification_scores(truth, formality_labels(models, texts))});
  }
  return out;
}

}  // namespace invar::style_transfer
