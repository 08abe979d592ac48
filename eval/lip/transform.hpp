#pragma once
// LIP's transformation step, B = t(A), when t is a seq2seq model invar runs (translation,
// paraphrase, style transfer), rather than a file of outputs produced elsewhere.
#include <cstddef>
#include <functional>
#include <string>

#include "core/io.hpp"
#include "engine/translator.hpp"
#include "kernels/backend.hpp"
#include "loaders/model_source.hpp"

namespace invar::lip {

struct TransformOptions {
  std::string source_language, target_language;  // empty: the model's own
  std::size_t batch_size = 32;
  std::string save_path;  // where to keep B (line-aligned with A), so a run can be repeated; empty: nowhere
  std::function<void(std::size_t)> progress;  // texts done so far
};

// The model's outputs for every text of `original`, with the model's own search settings.
LabelledTexts transform_texts(const ModelSource& model, Backend& backend, const LabelledTexts& original,
                              const TransformOptions& options);

}  // namespace invar::lip
