#include "eval/robustness/ablation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <set>
#include <span>

#include "core/error.hpp"
#include "run/progress.hpp"
#include "run/record.hpp"

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

// The MLP head's features of one encoded batch: the first head_tokens token states of `layer`,
// flattened, zero vectors past a text's end.
PerInput token_features(TextEncoder& encoder, const std::vector<Encoding>& encodings, std::int64_t layer,
                        const AblationOptions& options, const std::function<void(std::size_t)>& progress) {
  const auto hidden = static_cast<std::size_t>(encoder.model().spec().hidden);
  return encoder.batched<std::vector<float>>(
      encodings, {options.batch_size, progress}, [&](std::span<const Encoding> batch) {
        PerInput out;
        for (auto& states : encoder.model().hidden_states(batch, layer)) {
          states.resize(options.head_tokens * hidden, 0.0f);
          out.push_back(std::move(states));
        }
        return out;
      });
}

EmbeddingSettings feature_settings(const TextEncoder& encoder, const AblationOptions& options) {
  EmbeddingSettings settings = encoder.default_embedding_settings();
  if (!options.pooling.empty()) settings.modes = options.pooling;
  settings.normalize = false;
  return settings;
}

}  // namespace

Head parse_head(const std::string& name) {
  if (name == "linear") return Head::Linear;
  if (name == "mlp") return Head::Mlp;
  fail("unknown ablation head '{}' (expected linear or mlp)", name);
}

std::unique_ptr<run::RowRun> run_layer_rows(run::RowRunSpec spec, TextEncoder& encoder, const LabelledSet& train,
                                            const Bed& bed, const AblationOptions& options,
                                            std::vector<PerInput>& features) {
  probe_classes(train, bed);
  if (options.head == Head::Mlp && options.head_tokens == 0) fail("the MLP head needs at least one token position");
  // The probes' texts: the training texts, then the task's, then the generated ones.
  std::vector<TextInput> texts;
  for (const auto& text : train.texts) texts.push_back({text, ""});
  for (const auto& text : all_texts(bed)) texts.push_back({text, ""});
  const std::size_t layers = static_cast<std::size_t>(encoder.model().spec().layers) + 1;
  spec.rows = layers * texts.size();
  auto row_run = std::make_unique<run::RowRun>(std::move(spec));
  EmbeddingSettings settings = feature_settings(encoder, options);
  run::Progress progress("layers", layers * texts.size());
  const bool writes = row_run->process([&](std::size_t begin, std::size_t end) {
    std::vector<std::string> records;
    for (std::size_t row = begin; row < end;) {
      const std::size_t layer = row / texts.size(), first = row % texts.size();
      const std::size_t last = std::min(texts.size(), first + (end - row));
      std::size_t truncated = 0;
      const bool mlp = options.head == Head::Mlp;
      const auto encodings =
          encoder.encode(std::span(texts).subspan(first, last - first), false, truncated, mlp ? options.head_tokens : 0);
      settings.layer = static_cast<std::int64_t>(layer);
      const auto advance = [&](std::size_t n) { progress.advance(n); };
      for (const auto& feature : mlp ? token_features(encoder, encodings, settings.layer, options, advance)
                                     : encoder.embed(encodings, settings, {options.batch_size, advance}))
        records.push_back(run::RecordWriter().put(feature).str());
      row += last - first;
    }
    return records;
  });
  if (!writes) return nullptr;
  features.assign(layers, {});
  const auto& records = row_run->records();
  for (std::size_t row = 0; row < records.size(); ++row) {
    run::RecordReader record(records[row], "robustness ablate");
    features[row / texts.size()].push_back(record.get_floats());
    record.finish();
  }
  return row_run;
}

Ablation ablate(TextEncoder& encoder, const LabelledSet& train, const Bed& bed, const AblationOptions& options,
                const std::vector<PerInput>& features) {
  Ablation result;
  result.model = encoder.source().path();
  result.classes = probe_classes(train, bed);
  result.train_texts = train.texts.size();
  const EmbeddingSettings settings = feature_settings(encoder, options);
  const bool mlp = options.head == Head::Mlp;
  result.pooling = mlp ? "tokens" : pooling_names(settings.modes);
  result.head = mlp ? fmt::format("MLP head ({} hidden ReLU units, alpha {}, seed {}) on the first {} token states",
                                  options.mlp.hidden, options.mlp.alpha, options.mlp.seed, options.head_tokens)
                    : fmt::format("L2 logistic regression (C = {}) on {}-pooled states", options.regression.C,
                                  result.pooling);

  std::vector<int> labels;
  for (const auto& label : train.labels) labels.push_back(class_index(result.classes, label));
  std::vector<std::size_t> train_rows(train.texts.size());
  for (std::size_t i = 0; i < train_rows.size(); ++i) train_rows[i] = i;
  const std::size_t width = encoder.embedding_width(settings);

  for (std::size_t at = 0; at < features.size(); ++at) {
    const auto layer = static_cast<std::int64_t>(at);
    std::vector<int> predicted;
    if (mlp) {
      learn::MlpClassifier head;
      head.fit({features[at].begin(), features[at].begin() + static_cast<std::ptrdiff_t>(train_rows.size())}, labels,
               result.classes.size(), options.mlp);
      predicted = head.predict(features[at]);
    } else {
      const learn::SparseMatrix features_of_layer = learn::SparseMatrix::from_dense(features[at], width);
      learn::LogisticRegression probe;
      probe.fit(features_of_layer.select_rows(train_rows), labels, result.classes.size(), options.regression);
      predicted = probe.predict(features_of_layer);
    }
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
