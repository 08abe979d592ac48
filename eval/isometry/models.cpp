#include "eval/isometry/models.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "core/error.hpp"
#include "engine/encoder.hpp"
#include "engine/text_encoder.hpp"
#include "engine/translator.hpp"
#include "loaders/model_source.hpp"

namespace invar::isometry {

namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::size_t paraphrase_label(const EncoderSpec& spec, const std::optional<std::string>& given, const std::string& model) {
  const auto& labels = spec.labels;
  if (given) {
    for (std::size_t i = 0; i < labels.size(); ++i)
      if (labels[i] == *given || std::to_string(i) == *given) return i;
    fail("{}: no label '{}' (labels: {})", model, *given, fmt::join(labels, ", "));
  }
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (lowercase(labels[i]) == "paraphrase") return i;
  if (labels == std::vector<std::string>{"LABEL_0", "LABEL_1"}) return 1;
  fail("{}: cannot tell which label means paraphrase (labels: {}); name it with --paraphrase-label", model,
       fmt::join(labels, ", "));
}

struct PairClassifier {
  std::unique_ptr<ModelSource> source;
  std::unique_ptr<TextEncoder> encoder;
  std::size_t label = 0;
  std::size_t batch_size = 32;
  std::function<void(std::size_t)> progress;

  std::vector<double> probabilities(const std::vector<std::string>& first, const std::vector<std::string>& second) {
    std::vector<TextInput> inputs;
    for (std::size_t i = 0; i < first.size(); ++i) inputs.push_back({first[i], second[i]});
    std::size_t truncated = 0;
    const auto logits = encoder->logits(encoder->encode(inputs, true, truncated), {batch_size, progress});
    std::vector<double> out;
    for (const auto& row : logits) out.push_back(label_probabilities(row, encoder->model().spec().multi_label).at(label));
    return out;
  }
};

std::string file_name(const std::string& path) {
  auto normal = std::filesystem::path(path).lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();  // "folder/"
  return normal.filename().string();
}

}  // namespace

std::pair<std::string, std::string> name_and_path(const std::string& argument) {
  const auto equals = argument.find('=');
  if (equals == std::string::npos || equals == 0 || argument.find('/') < equals) return {file_name(argument), argument};
  return {argument.substr(0, equals), argument.substr(equals + 1)};
}

ParaphraseDetector model_paraphrase_detector(const std::string& model, Backend& backend,
                                             const ModelDetectorOptions& options) {
  auto classifier = std::make_shared<PairClassifier>();
  classifier->source = ModelSource::open(model);
  classifier->encoder = std::make_unique<TextEncoder>(*classifier->source, backend);
  const auto& encoder_model = classifier->encoder->model();
  const auto& spec = encoder_model.spec();
  if (!encoder_model.has_classifier())
    fail("{}: not a pair classifier (the checkpoint has no sequence-classification head)", model);
  if (spec.regression) fail("{}: a regression model (num_labels = 1), not a pair classifier", model);
  classifier->label = paraphrase_label(spec, options.paraphrase_label, model);
  classifier->batch_size = options.batch_size;
  classifier->progress = options.progress;
  if (options.max_length) classifier->encoder->cap_length(*options.max_length);
  return {options.name.empty() ? file_name(model) : options.name,
          [classifier](const std::vector<std::string>& first, const std::vector<std::string>& second) {
            return classifier->probabilities(first, second);
          }};
}

TextTranslator model_translator(const std::string& model, Backend& backend, const ModelTranslatorOptions& options) {
  struct Owned {
    std::unique_ptr<ModelSource> source;
    std::unique_ptr<Translator> translator;
    SearchSettings settings;
    TranslateOptions translate;
  };
  auto owned = std::make_shared<Owned>();
  owned->source = ModelSource::open(model);
  owned->translator = std::make_unique<Translator>(*owned->source, backend);
  if (options.source_language || options.target_language)
    owned->translator->set_languages(options.source_language, options.target_language);
  owned->settings = options.settings ? options.settings(*owned->translator) : owned->translator->default_settings();
  owned->translate.batch_size = options.batch_size;
  owned->translate.progress = options.progress;
  if (options.truncate) owned->translate.truncated = options.truncated ? options.truncated : [](std::size_t) {};
  return [owned](const std::vector<std::string>& texts) {
    return owned->translator->translate(texts, owned->settings, owned->translate);
  };
}

}  // namespace invar::isometry
