#pragma once
// LIP's transformation step, B = t(A), when t is a seq2seq model invar runs (translation,
// paraphrase, style transfer), rather than a file of outputs produced elsewhere.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "core/io.hpp"
#include "engine/translator.hpp"
#include "kernels/backend.hpp"
#include "loaders/model_source.hpp"

namespace invar::lip {

struct TransformOptions {
  std::optional<std::string> source_language, target_language;  // unset: the model's own
  std::function<SearchSettings(const Translator&)> settings;      // unset: the model's config.json
  bool truncate = false;  // cut sources longer than the model's positions instead of failing
  std::size_t batch_size = 32;
  std::string save_path;  // where to keep B (line-aligned with A), so a run can be repeated; empty: nowhere
  std::function<void(std::size_t)> progress;  // texts done so far
};

struct Transformed {
  LabelledTexts texts;
  std::size_t truncated = 0;          // sources cut to max_source_length tokens
  std::size_t max_source_length = 0;
};

// The model's outputs for every text of `original`.
Transformed transform_texts(const ModelSource& model, Backend& backend, const LabelledTexts& original,
                            const TransformOptions& options);

}  // namespace invar::lip
