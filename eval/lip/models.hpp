#pragma once
// LIP's transformation step, B = t(A), when t is a seq2seq model invar runs (translation,
// paraphrase, style transfer), rather than a file of outputs produced elsewhere. A is transformed
// range by range (the command may split A over processes) and the outputs joined into B.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/io.hpp"
#include "engine/translator.hpp"
#include "eval/lip/labelled_texts.hpp"
#include "backends/backend.hpp"
#include "loaders/model_source.hpp"

namespace invar::lip {

struct TransformOptions {
  std::optional<std::string> source_language, target_language;  // unset: the model's own
  std::function<SearchSettings(const Translator&)> settings;      // unset: the model's config.json
  bool truncate = false;  // cut sources longer than the model's positions instead of failing
  std::size_t batch_size = 32;
  std::string save_path;  // where to keep B (line-aligned with A), so a run can be repeated; empty: nowhere
  std::function<void(std::size_t)> progress;  // texts of the range done so far
};

// The model's output for one text of A.
struct TransformedText {
  std::string text;
  std::size_t cut_to = 0;  // the source was cut to this many tokens (--truncate); 0: it was not cut
};

class TextTransformer {
 public:
  // `model` and `backend` must outlive the transformer.
  TextTransformer(const ModelSource& model, Backend& backend, TransformOptions options);
  // The outputs for texts [begin, end) of `original`; errors name the texts by FILE:LINE.
  std::vector<TransformedText> transform(const LabelledTexts& original, std::size_t begin, std::size_t end);

 private:
  Translator translator_;
  TransformOptions options_;
  SearchSettings settings_;
};

struct Transformed {
  LabelledTexts texts;
  std::size_t truncated = 0;          // sources cut to max_source_length tokens
  std::size_t max_source_length = 0;  // 0 when none was cut
};

// B from the outputs for every text of A, in order: named after the model (or options.save_path)
// and the sources cut, and written to options.save_path when it is set.
Transformed join_transformed(const std::string& model_path, const std::vector<TransformedText>& outputs,
                             const TransformOptions& options);

}  // namespace invar::lip
