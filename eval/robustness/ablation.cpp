#include "eval/robustness/ablation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"

namespace invar::robustness {

namespace {

std::vector<std::string> probe_classes(const LabelledSet& train, const Bed& bed) {
  std::set<std::string> classes(train.labels.begin(), train.labels.end());
  if (classes.size() < 2)
    fail("{}: the training set has {} label(s); a probe needs at least two", train.path, classes.size());
  for (const auto& label : bed.labels)
    if (!classes.count(label))
      fail("label '{}' of the test sets never occurs in the training set {} (its labels: {})", label, train.path,
           fmt::join(classes, ", "));
  return {classes.begin(), classes.end()};
}

int class_index(const std::vector<std::string>& classes, const std::string& label) {
  return static_cast<int>(std::lower_bound(classes.begin(), classes.end(), label) - classes.begin());
}

std::string pooling_names(const std::vector<Pooling>& modes) {
  std::vector<std::string> names;
  for (auto mode : modes) names.push_back(pooling_name(mode));
  return fmt::format("{}", fmt::join(names, "+"));
}

}  // namespace

Ablation ablate(TextEncoder& encoder, const LabelledSet& train, const Bed& bed, const AblationOptions& options) {
  Ablation result;
  result.model = encoder.source().path();
  result.classes = probe_classes(train, bed);
  result.train_texts = train.texts.size();
  EmbeddingSettings settings = encoder.default_embedding_settings();
  if (!options.pooling.empty()) settings.modes = options.pooling;
  settings.normalize = false;
  result.pooling = pooling_names(settings.modes);

  // Rows: the training texts, then the task's, then the generated ones (all_texts order).
  std::vector<TextInput> inputs;
  std::vector<int> labels;
  for (std::size_t i = 0; i < train.texts.size(); ++i) {
    inputs.push_back({train.texts[i], ""});
    labels.push_back(class_index(result.classes, train.labels[i]));
  }
  for (const auto& text : all_texts(bed)) inputs.push_back({text, ""});
  std::size_t truncated = 0;
  const auto encodings = encoder.encode(inputs, false, truncated);
  std::vector<std::size_t> train_rows(train.texts.size());
  for (std::size_t i = 0; i < train_rows.size(); ++i) train_rows[i] = i;
  const std::size_t width = encoder.embedding_width(settings);

  for (std::int64_t layer = 0; layer <= encoder.model().spec().layers; ++layer) {
    settings.layer = layer;
    const learn::SparseMatrix features = learn::SparseMatrix::from_dense(encoder.embed(encodings, settings, options.batches), width);
    learn::LogisticRegression probe;
    probe.fit(features.select_rows(train_rows), labels, result.classes.size(), options.regression);
    const auto predicted = probe.predict(features);
    std::vector<std::string> test_predictions;
    for (std::size_t i = train_rows.size(); i < predicted.size(); ++i)
      test_predictions.push_back(result.classes[static_cast<std::size_t>(predicted[i])]);
    const ModelScore score = score_model(result.model, bed, test_predictions);
    LayerResult row{layer, {}, score.task, score.phenomena};
    for (std::size_t i = 0; i < train_rows.size(); ++i) {
      row.train.total++;
      row.train.correct += predicted[i] == labels[i];
    }
    result.layers.push_back(std::move(row));
  }
  return result;
}

}  // namespace invar::robustness
