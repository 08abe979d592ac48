#include "eval/metamorphic/models.hpp"

#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "engine/encoder.hpp"
#include "eval/isometry/models.hpp"
#include "loaders/model_source.hpp"

namespace invar::metamorphic {

namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::optional<std::size_t> default_label(const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (lowercase(names[i]) == "positive" || lowercase(names[i]) == "entailment") return i;
  if (names.size() == 2) return 1;
  return std::nullopt;
}

}  // namespace

std::size_t find_label(const std::vector<std::string>& names, const std::string& label, const std::string& model) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == label || std::to_string(i) == label) return i;
  fail("{}: unknown label '{}' (labels: {})", model, label, fmt::join(names, ", "));
}

ModelUnderTest::ModelUnderTest(const std::string& path, Backend& backend, ModelSettings settings)
    : path_(path), settings_(std::move(settings)) {
  source_ = ModelSource::open(path);
  encoder_ = std::make_unique<TextEncoder>(*source_, backend);
  const auto& spec = encoder_->model().spec();
  if (!encoder_->model().has_classifier()) return;  // an encoder for embeddings only
  if (spec.regression) {
    class_names_ = {"score"};
    if (settings_.label) fail("{}: a regression model (num_labels = 1) has no labels; leave out --label", path);
    return;
  }
  class_names_ = spec.labels;
  if (settings_.label) {
    score_label_ = find_label(class_names_, *settings_.label, path);
  } else if (auto label = default_label(class_names_)) {
    score_label_ = *label;
  } else {
    fail("{}: cannot tell which label's probability is the score (labels: {}); name it with --label", path,
         fmt::join(class_names_, ", "));
  }
}

ModelUnderTest::~ModelUnderTest() = default;

bool ModelUnderTest::regression() const { return encoder_->model().spec().regression; }

Outputs ModelUnderTest::classify(const std::vector<std::string>& first, const std::vector<std::string>& second) {
  encoder_->model().require_classifier();
  const bool pairs = !second.empty();
  std::vector<TextInput> inputs;
  for (std::size_t i = 0; i < first.size(); ++i) inputs.push_back({first[i], pairs ? second[i] : ""});
  std::size_t truncated = 0;
  const auto logits = encoder_->logits(encoder_->encode(inputs, pairs, truncated), {settings_.batch_size, settings_.progress});
  Outputs out;
  const auto& spec = encoder_->model().spec();
  for (const auto& row : logits) {
    if (spec.regression) {
      out.scores.push_back(row[0]);
      out.classes.push_back(0);
      continue;
    }
    out.scores.push_back(label_probabilities(row, spec.multi_label).at(score_label_));
    out.classes.push_back(static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin()));
  }
  return out;
}

Outputs ModelUnderTest::embed(const std::vector<std::string>& texts) {
  encoder_->cap_length_for_embeddings();
  std::vector<TextInput> inputs;
  for (const auto& text : texts) inputs.push_back({text, ""});
  std::size_t truncated = 0;
  Outputs out;
  out.embeddings = encoder_->embed(encoder_->encode(inputs, false, truncated), encoder_->default_embedding_settings(),
                                   {settings_.batch_size, settings_.progress});
  return out;
}

std::function<std::vector<std::string>(const std::vector<std::string>&)> open_seq2seq(const std::string& model, Backend& backend,
                                                                                     std::size_t batch_size) {
  return isometry::model_translator(model, backend, {.batch_size = batch_size});
}

}  // namespace invar::metamorphic
