#include "eval/lip/models.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace invar::lip {

TextTransformer::TextTransformer(const ModelSource& model, Backend& backend, TransformOptions options)
    : translator_(model, backend), options_(std::move(options)) {
  translator_.set_languages(options_.source_language, options_.target_language);
  settings_ = options_.settings ? options_.settings(translator_) : translator_.default_settings();
}

std::vector<TransformedText> TextTransformer::transform(const LabelledTexts& original, std::size_t begin,
                                                        std::size_t end) {
  const std::vector<std::string> sources(original.texts.begin() + begin, original.texts.begin() + end);
  std::vector<std::size_t> cut(sources.size());
  TranslateOptions translate;
  translate.batch_size = options_.batch_size;
  translate.where = [&original, begin](std::size_t row) {
    return fmt::format("{}:{}", original.path, original.line_numbers[begin + row]);
  };
  translate.progress = options_.progress;
  const auto limit = static_cast<std::size_t>(translator_.max_source_length());
  if (options_.truncate) translate.truncated = [&cut, limit](std::size_t row) { cut[row] = limit; };
  const auto texts = translator_.translate(sources, settings_, translate);
  std::vector<TransformedText> outputs;
  for (std::size_t i = 0; i < texts.size(); ++i) outputs.push_back({texts[i], cut[i]});
  return outputs;
}

Transformed join_transformed(const std::string& model_path, const std::vector<TransformedText>& outputs,
                             const TransformOptions& options) {
  Transformed result;
  LabelledTexts& transformed = result.texts;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    transformed.texts.push_back(outputs[i].text);
    transformed.line_numbers.push_back(i + 1);
    if (outputs[i].cut_to > 0) ++result.truncated;
    result.max_source_length = std::max(result.max_source_length, outputs[i].cut_to);
  }
  transformed.path = options.save_path.empty() ? model_path + " (--transform)" : options.save_path;
  if (result.truncated > 0)
    transformed.path += fmt::format(" ({} of {} sources truncated to {} tokens)", result.truncated, outputs.size(),
                                    result.max_source_length);
  if (!options.save_path.empty()) {
    AtomicOutput out(options.save_path);
    for (const auto& text : transformed.texts) out.write_line(text);
    out.commit();
  }
  return result;
}

}  // namespace invar::lip
