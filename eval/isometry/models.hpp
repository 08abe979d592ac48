#pragma once
// The isometry study's translator and paraphrase detectors on invar's own engines: a seq2seq
// checkpoint through engine/translator.hpp, a sequence-classification checkpoint (a pair
// classifier) through engine/encoder.hpp. Each owns its model; the backend must outlive it.
#include <cstddef>
#include <optional>
#include <string>

#include "eval/isometry/isometry.hpp"
#include "kernels/backend.hpp"

namespace invar::isometry {

struct ModelDetectorOptions {
  std::string name;                             // default: the model's file or folder name
  std::optional<std::string> paraphrase_label;  // an id2label name or a label index
  std::size_t batch_size = 32;
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
  int beam_size = 5;              // the paper's beam
  std::optional<int> max_length;  // default: the model's generation config
  std::optional<std::string> source_language, target_language;  // multilingual models
  std::size_t batch_size = 32;
};

TextTranslator model_translator(const std::string& model, Backend& backend, const ModelTranslatorOptions& options);

// --detector's argument: "NAME=MODEL" names the detector, a plain "MODEL" is named after its file or
// folder (a '=' after a '/' belongs to the path).
std::pair<std::string, std::string> detector_name_and_model(const std::string& argument);

}  // namespace invar::isometry
