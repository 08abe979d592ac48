#pragma once
// The model under test, f, run by invar: a sequence classifier or regressor on texts or text pairs
// (scores and predicted classes), or any encoder (sentence embeddings, token hidden states). Owns
// its model; the backend must outlive it.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/text_encoder.hpp"
#include "backends/backend.hpp"

namespace invar::metamorphic {

// What f gives for each input: the score s(f(x)) (P(label), or a regressor's output), the
// predicted class (argmax of the logits; 0 for a regressor), and/or a sentence embedding.
struct Outputs {
  std::vector<double> scores;
  std::vector<int> classes;
  std::vector<std::vector<float>> embeddings;
};

struct ModelSettings {
  std::optional<std::string> label;  // id2label name or index whose probability is the score
  std::size_t batch_size = 32;
  std::function<void(std::size_t)> progress;  // inputs finished, after each batch
};

class ModelUnderTest {
 public:
  ModelUnderTest(const std::string& path, Backend& backend, ModelSettings settings);
  ~ModelUnderTest();

  const std::string& path() const { return path_; }
  TextEncoder& encoder() { return *encoder_; }
  // The classifier's labels (id2label); a regressor has one, "score".
  const std::vector<std::string>& class_names() const { return class_names_; }
  // The label whose probability is the score, as the settings or the defaults chose it: --label,
  // else "positive" or "entailment" (any case), else label 1 of a two-label model; fails otherwise.
  std::size_t score_label() const { return score_label_; }
  bool regression() const;
  // The batch size and progress callback of the settings, for callers running the encoder directly.
  BatchOptions batches() const { return {settings_.batch_size, settings_.progress}; }

  // Scores and classes of texts (pairs when `second` is not empty, line-aligned with `first`).
  Outputs classify(const std::vector<std::string>& first, const std::vector<std::string>& second = {});
  // Sentence embeddings as `invar embed` computes them (needs no classification head).
  Outputs embed(const std::vector<std::string>& texts);

 private:
  std::string path_;
  ModelSettings settings_;
  std::unique_ptr<ModelSource> source_;
  std::unique_ptr<TextEncoder> encoder_;
  std::vector<std::string> class_names_;
  std::size_t score_label_ = 0;
};

// A seq2seq model's generate() with the model's own settings (config.json), one output per text in
// order (isometry's model translator): the paraphrase transformation (transforms.hpp). `backend`
// must outlive the function.
std::function<std::vector<std::string>(const std::vector<std::string>&)> open_seq2seq(const std::string& model, Backend& backend,
                                                                                     std::size_t batch_size);

// The index of `label` (an id2label name or a 0-based index) among `names`; fails naming `model`.
std::size_t find_label(const std::vector<std::string>& names, const std::string& label, const std::string& model);

}  // namespace invar::metamorphic
