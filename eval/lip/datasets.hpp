#pragma once
// The LIP tool's data sets (MilaNLProc/language-invariant-properties, language_invariant_properties/
// lip.py), read from their released folder layout with the tool's preprocessing:
//   trustpilot: FOLDER/{train,test}/LANGUAGE.csv with columns text,age,age_cat,gender; the property is a
//     column (gender or age_cat). Texts as they are.
//   hateval: FOLDER/{train,test}/LANGUAGE.csv with columns text,HS; HS 1 -> "Hate", 0 -> "Not Hate";
//     texts: re.sub(r"\B@\w+", "@user"), then re.sub("#[A-Za-z0-9_]+", "") (hashtags removed).
//   affect (Affect in Tweets): FOLDER/{train,test}/LANGUAGE.csv with columns text,emotion; property
//     "emotion" (the tool's default task) or "sentiment" (joy -> positive; anger, sadness, fear ->
//     negative; other values kept, as pandas' replace does); texts: re.sub(r"\B@\w+", "@user").
// The classifier for A is trained on train/SOURCE.csv and A is test/SOURCE.csv. With a target language,
// B gets its own classifier trained on train/TARGET.csv (TrustPilot, HatEval, Affect); without one,
// one common classifier labels A and B (TrustPilotPara, HateEvalPara). B itself is the caller's (as
// the tool's score(transformed) takes it), or FOLDER/transformed/SOURCE.csv (column text) when the
// folder has one, as the paraphrase sets do; it is not preprocessed.
//
// Python's \w and \B are matched by PCRE2 in Unicode mode (letters, numbers and "_").
#include <optional>
#include <string>
#include <vector>

#include "eval/lip/lip.hpp"

namespace invar::lip {

struct LipDatasetRequest {
  std::string name;    // trustpilot, hateval, affect
  std::string folder;
  std::string property;  // trustpilot: a column (gender, age_cat); affect: emotion or sentiment; hateval: unused
  std::string source_language = "english";
  std::string target_language;  // empty: one common classifier
};

struct LipDatasetFiles {
  LabelledTexts train;
  std::optional<LabelledTexts> train_target;
  LabelledTexts original;
  std::optional<LabelledTexts> transformed;  // FOLDER/transformed/SOURCE.csv when present
};

std::vector<std::string> lip_dataset_names();
LipDatasetFiles read_lip_dataset(const LipDatasetRequest& request);

// The tool's text cleaning, exposed for tests.
std::string replace_user_mentions(const std::string& text);  // \B@\w+ -> @user
std::string remove_hashtags(const std::string& text);        // #[A-Za-z0-9_]+ -> ""

}  // namespace invar::lip
