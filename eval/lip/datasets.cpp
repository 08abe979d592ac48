#include "eval/lip/datasets.hpp"

#include <fmt/ranges.h>

#include <filesystem>

#include "core/error.hpp"
#include "engine/text/regex.hpp"

namespace invar::lip {

namespace {

struct Layout {
  std::string label_column;
  std::string (*clean)(const std::string&) = nullptr;
  std::string (*relabel)(const LabelledTexts&, std::size_t, const std::string& property) = nullptr;
};

std::string clean_tweet(const std::string& text) { return remove_hashtags(replace_user_mentions(text)); }

std::string hate_label(const LabelledTexts& data, std::size_t row, const std::string&) {
  const auto& value = data.labels[row];
  if (value == "1") return "Hate";
  if (value == "0") return "Not Hate";
  fail("{}:{}: HS is '{}', expected 1 or 0", data.path, data.line_numbers[row], value);
}

std::string affect_label(const LabelledTexts& data, std::size_t row, const std::string& property) {
  const auto& value = data.labels[row];
  if (property != "sentiment") return value;
  if (value == "joy") return "positive";
  if (value == "anger" || value == "sadness" || value == "fear") return "negative";
  return value;
}

Layout layout_of(const LipDatasetRequest& request) {
  if (request.name == "trustpilot") {
    if (request.property.empty()) fail("--dataset trustpilot needs --property (gender or age_cat)");
    return {request.property, nullptr, nullptr};
  }
  if (request.name == "hateval") {
    if (!request.property.empty() && request.property != "HS")
      fail("--dataset hateval has one property, hate speech (HS); got --property '{}'", request.property);
    return {"HS", clean_tweet, hate_label};
  }
  if (request.name == "affect") {
    if (!request.property.empty() && request.property != "emotion" && request.property != "sentiment")
      fail("--dataset affect: --property must be emotion or sentiment, got '{}'", request.property);
    return {"emotion", replace_user_mentions, affect_label};
  }
  fail("unknown --dataset '{}' (known: {})", request.name, fmt::join(lip_dataset_names(), ", "));
}

LabelledTexts read_part(const LipDatasetRequest& request, const Layout& layout, const std::string& part,
                        const std::string& language) {
  const auto path = (std::filesystem::path(request.folder) / part / (language + ".csv")).string();
  if (!std::filesystem::exists(path)) fail("{}: no such file (the {} layout is FOLDER/{}/LANGUAGE.csv)", path, request.name, part);
  auto data = read_labelled_texts(
      path, {.text = "text", .label = layout.label_column, .header = true, .blank_texts = true});
  for (std::size_t i = 0; i < data.texts.size(); ++i) {
    if (layout.clean) data.texts[i] = layout.clean(data.texts[i]);
    if (layout.relabel) data.labels[i] = layout.relabel(data, i, request.property);
  }
  return data;
}

}  // namespace

std::vector<std::string> lip_dataset_names() { return {"trustpilot", "hateval", "affect"}; }

std::string replace_user_mentions(const std::string& text) {
  static const Regex mention(R"(\B@\w+)");
  return mention.replace_all(text, "@user");
}

std::string remove_hashtags(const std::string& text) {
  static const Regex hashtag("#[A-Za-z0-9_]+");
  return hashtag.replace_all(text, "");
}

LipDatasetFiles read_lip_dataset(const LipDatasetRequest& request) {
  const Layout layout = layout_of(request);
  if (!std::filesystem::is_directory(request.folder)) fail("{}: no such data set folder", request.folder);
  LipDatasetFiles files;
  files.train = read_part(request, layout, "train", request.source_language);
  if (!request.target_language.empty() && request.target_language != request.source_language)
    files.train_target = read_part(request, layout, "train", request.target_language);
  files.original = read_part(request, layout, "test", request.source_language);
  const auto transformed = std::filesystem::path(request.folder) / "transformed" / (request.source_language + ".csv");
  if (std::filesystem::exists(transformed))
    files.transformed = read_texts(transformed.string(), {.text = "text", .header = true, .blank_texts = true});
  return files;
}

}  // namespace invar::lip
