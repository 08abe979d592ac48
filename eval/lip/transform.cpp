#include "eval/lip/transform.hpp"

#include <fmt/format.h>

#include <optional>

namespace invar::lip {

LabelledTexts transform_texts(const ModelSource& model, Backend& backend, const LabelledTexts& original,
                              const TransformOptions& options) {
  Translator translator(model, backend);
  auto language = [](const std::string& code) { return code.empty() ? std::nullopt : std::optional(code); };
  translator.set_languages(language(options.source_language), language(options.target_language));
  TranslateOptions translate;
  translate.batch_size = options.batch_size;
  translate.where = [&original](std::size_t row) { return fmt::format("{}:{}", original.path, original.line_numbers[row]); };
  translate.progress = options.progress;
  LabelledTexts transformed;
  transformed.path = options.save_path.empty() ? model.path() + " (--transform)" : options.save_path;
  transformed.texts = translator.translate(original.texts, translator.default_settings(), translate);
  for (std::size_t i = 0; i < transformed.texts.size(); ++i) transformed.line_numbers.push_back(i + 1);
  if (!options.save_path.empty()) {
    AtomicOutput out(options.save_path);
    for (const auto& text : transformed.texts) out.write_line(text);
    out.commit();
  }
  return transformed;
}

}  // namespace invar::lip
