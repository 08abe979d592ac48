#pragma once
// The isometry study's translator and paraphrase detectors on invar's own engines: a seq2seq
// checkpoint through engine/translator.hpp, a sequence-classification checkpoint (a pair
// classifier) through engine/encoder.hpp. Each owns its model; the backend must outlive it.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "engine/translator.hpp"
#include "eval/isometry/isometry.hpp"
#include "backends/backend.hpp"

namespace invar::isometry {

struct ModelDetectorOptions {
  std::string name;                             // default: the model's file or folder name
  std::optional<std::string> paraphrase_label;  // an id2label name or a label index
  std::optional<std::size_t> max_length;        // tokens per pair; default and upper bound: the model's
  std::size_t batch_size = 32;
  std::function<void(std::size_t)> progress;  // called after each batch with the pairs it held
};

// P(paraphrase) = the softmax (sigmoid for multi-label checkpoints) of the classifier's logits at the
// paraphrase label, on tokenizer(text1, text2) truncated longest-first to the model's length, as
// Hugging Face's text-classification pipeline with truncation. The paraphrase label: the given one,
// else the label named "paraphrase" (any case), else LABEL_1 of a checkpoint with Hugging Face's
// default names LABEL_0, LABEL_1 (1 = paraphrase in PAWS, MRPC and QQP). Fails naming the model when
// it has no classification head, is a regression model, or the label cannot be told.
ParaphraseDetector model_paraphrase_detector(const std::string& model, Backend& backend,
                                             const ModelDetectorOptions& options);

struct ModelTranslatorOptions {
  std::function<SearchSettings(const Translator&)> settings;     // unset: the model's config.json
  std::optional<std::string> source_language, target_language;  // multilingual models
  std::size_t batch_size = 32;
  bool truncate = false;                       // cut over-long sources instead of failing
  std::function<void(std::size_t)> truncated;  // called per source cut
  std::function<void(std::size_t)> progress;   // called after each batch with the texts done so far
};

TextTranslator model_translator(const std::string& model, Backend& backend, const ModelTranslatorOptions& options);

// A named model or file, as --detector, --translator, --translations and --detector-scores take it:
// "NAME=PATH", or a plain "PATH" named after its file or folder (a '=' after a '/' belongs to the path).
std::pair<std::string, std::string> name_and_path(const std::string& argument);

}  // namespace invar::isometry
