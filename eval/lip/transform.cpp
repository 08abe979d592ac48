#include "eval/lip/transform.hpp"

#include <fmt/format.h>

namespace invar::lip {

Transformed transform_texts(const ModelSource& model, Backend& backend, const LabelledTexts& original,
                            const TransformOptions& options) {
  Translator translator(model, backend);
  translator.set_languages(options.source_language, options.target_language);
  TranslateOptions translate;
  translate.batch_size = options.batch_size;
  translate.where = [&original](std::size_t row) { return fmt::format("{}:{}", original.path, original.line_numbers[row]); };
  translate.progress = options.progress;
  Transformed result;
  result.max_source_length = translator.max_source_length();
  if (options.truncate) translate.truncated = [&result](std::size_t) { ++result.truncated; };
  const SearchSettings settings = options.settings ? options.settings(translator) : translator.default_settings();
  LabelledTexts& transformed = result.texts;
  transformed.texts = translator.translate(original.texts, settings, translate);
  transformed.path = options.save_path.empty() ? model.path() + " (--transform)" : options.save_path;
  if (result.truncated > 0)
    transformed.path += fmt::format(" ({} of {} sources truncated to {} tokens)", result.truncated,
                                    original.texts.size(), result.max_source_length);
  for (std::size_t i = 0; i < transformed.texts.size(); ++i) transformed.line_numbers.push_back(i + 1);
  if (!options.save_path.empty()) {
    AtomicOutput out(options.save_path);
    for (const auto& text : transformed.texts) out.write_line(text);
    out.commit();
  }
  return result;
}

}  // namespace invar::lip
