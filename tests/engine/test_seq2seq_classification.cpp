// BART sequence classification (BartForSequenceClassification, transformers 4.19) on text pairs
// and the zero-shot-classification pipeline over it, against seq2seq/bart-seq-cls's golden
// (../shared/fixtures: logits within 1e-4, zero-shot scores within 1e-5, the pipeline's label order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "engine/translator.hpp"
#include "engine/zero_shot.hpp"
#include "backends/cpu/backend.hpp"
#include "loaders/model_source.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

using nlohmann::json;
using test::fixture;

constexpr double kLogitTolerance = 1e-4, kScoreTolerance = 1e-5;

std::vector<float> flat_logits(const json& value) {
  std::vector<float> out;
  for (const auto& row : value)
    for (const auto& v : row.is_array() ? row : json::array({row})) out.push_back(v.get<float>());
  return out;
}

class BartClassifier : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = ModelSource::open(fixture("seq2seq/bart-seq-cls"));
    backend_ = make_cpu_backend({.threads = 1});
    translator_ = std::make_unique<Translator>(*source_, *backend_);
    golden_ = test::load_json(fixture("seq2seq/bart-seq-cls/golden-classification.json"));
  }
  std::vector<std::vector<float>> classify(const std::vector<std::pair<std::string, std::string>>& pairs,
                                           std::size_t batch_size) {
    TranslateOptions options;
    options.batch_size = batch_size;
    return translator_->classify(pairs, true, options);
  }

  std::unique_ptr<ModelSource> source_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Translator> translator_;
  json golden_;
};

TEST_F(BartClassifier, PairsAreFramedAsBartTokenizerDoes) {
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    EXPECT_EQ(translator_->tokenizer().encode_pair(c["text"].get<std::string>(), c["text_pair"].get<std::string>()).ids,
              c["input_ids"].get<TokenIds>());
  }
}

TEST_F(BartClassifier, LogitsOfEachPairAloneAndInAPaddedBatch) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& c : golden_["cases"]) pairs.emplace_back(c["text"], c["text_pair"]);
  const auto alone = classify(pairs, 1);
  ASSERT_EQ(alone.size(), golden_["cases"].size());
  for (std::size_t i = 0; i < alone.size(); ++i) {
    const auto expected = flat_logits(golden_["cases"][i]["logits"]);
    ASSERT_EQ(alone[i].size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_NEAR(alone[i][k], expected[k], kLogitTolerance) << i;
  }
  std::vector<std::pair<std::string, std::string>> batch_pairs;
  for (const auto& p : golden_["padded_batch"]["pairs"]) batch_pairs.emplace_back(p[0], p[1]);
  const auto batched = classify(batch_pairs, batch_pairs.size());
  const auto& expected = golden_["padded_batch"]["logits"];
  ASSERT_EQ(batched.size(), expected.size());
  for (std::size_t i = 0; i < batched.size(); ++i)
    for (std::size_t k = 0; k < batched[i].size(); ++k)
      EXPECT_NEAR(batched[i][k], expected[i][k].get<double>(), kLogitTolerance) << i;
}

TEST_F(BartClassifier, ZeroShotAsThePipeline) {
  const json& z = golden_["zero_shot"];
  ZeroShotSettings settings{z["candidate_labels"].get<std::vector<std::string>>(), z["hypothesis_template"], false};
  const auto hypotheses = zero_shot_hypotheses(settings);
  const std::int64_t entailment = entailment_id(translator_->model().config().label2id, "config.json");
  EXPECT_EQ(entailment, z["entailment_id"].get<std::int64_t>());
  for (const auto& premise : z["premises"]) {
    SCOPED_TRACE(premise["premise"].get<std::string>());
    std::vector<std::pair<std::string, std::string>> pairs;
    for (std::size_t i = 0; i < hypotheses.size(); ++i) {
      EXPECT_EQ(hypotheses[i], premise["per_label"][i]["hypothesis"]);
      pairs.emplace_back(premise["premise"], hypotheses[i]);
      EXPECT_EQ(translator_->tokenizer().encode_pair(pairs.back().first, pairs.back().second).ids,
                premise["per_label"][i]["input_ids"].get<TokenIds>());
    }
    const auto logits = classify(pairs, pairs.size());
    for (std::size_t i = 0; i < logits.size(); ++i)
      for (std::size_t k = 0; k < logits[i].size(); ++k)
        EXPECT_NEAR(logits[i][k], premise["per_label"][i]["logits"][k].get<double>(), kLogitTolerance);
    for (const bool multi : {false, true}) {
      settings.multi_label = multi;
      const ZeroShotResult result = zero_shot_scores(logits, settings, entailment);
      const json& expected = premise[multi ? "scores_multi_label" : "scores_single_label"];
      ASSERT_EQ(result.labels.size(), expected.size());
      for (std::size_t r = 0; r < result.labels.size(); ++r) {
        const auto label = std::find(settings.labels.begin(), settings.labels.end(), result.labels[r]);
        ASSERT_NE(label, settings.labels.end());
        EXPECT_NEAR(result.scores[r], expected[label - settings.labels.begin()].get<double>(), kScoreTolerance);
        if (r > 0) {
          EXPECT_GE(result.scores[r - 1], result.scores[r]);
        }
      }
      if (!multi) {
        EXPECT_EQ(json(result.labels), premise["pipeline_labels_sorted"]);
        for (std::size_t r = 0; r < result.scores.size(); ++r)
          EXPECT_NEAR(result.scores[r], premise["pipeline_scores_sorted"][r].get<double>(), kScoreTolerance);
      }
    }
  }
}

TEST(ZeroShot, TemplatesAndLabelsAreChecked) {
  EXPECT_THROW(zero_shot_hypotheses({{"a"}, "no placeholder", false}), Error);
  EXPECT_THROW(zero_shot_hypotheses({{"a"}, "{} and {}", false}), Error);
  EXPECT_THROW(zero_shot_hypotheses({{}, "This is {}.", false}), Error);
  EXPECT_EQ(zero_shot_hypotheses({{"x", "y"}, "It is {}!", false}), (std::vector<std::string>{"It is x!", "It is y!"}));
  EXPECT_THROW(entailment_id({{"LABEL_0", 0}, {"LABEL_1", 1}}, "config.json"), Error);
  EXPECT_EQ(entailment_id({{"CONTRADICTION", 0}, {"ENTAILMENT", 2}}, "config.json"), 2);
  // A single label is scored on its own ([contradiction, entailment] softmax), as the pipeline does.
  const auto one = zero_shot_scores({{0.0f, 5.0f, 1.0f}}, {{"only"}, "{}", false}, 2);
  EXPECT_NEAR(one.scores[0], 1.0 / (1.0 + std::exp(-1.0)), 1e-12);
  // Entailment at id 0 (entailment, neutral, contradiction): the pipeline's contradiction is the last
  // logit (Python's index -1), not id 0 itself.
  const auto first = zero_shot_scores({{5.0f, 9.0f, 3.0f}}, {{"only"}, "{}", false}, 0);
  EXPECT_NEAR(first.scores[0], 1.0 / (1.0 + std::exp(-2.0)), 1e-12);
  const auto multi = zero_shot_scores({{1.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 2.0f}}, {{"a", "b"}, "{}", true}, 0);
  EXPECT_EQ(multi.labels, (std::vector<std::string>{"a", "b"}));
  EXPECT_NEAR(multi.scores[0], 0.5, 1e-12);
  EXPECT_NEAR(multi.scores[1], 1.0 / (1.0 + std::exp(2.0)), 1e-12);
}

TEST(Seq2SeqClassifier, AModelWithoutTheHeadIsRefused) {
  const auto source = ModelSource::open(fixture("seq2seq/bart"));
  const auto backend = make_cpu_backend({.threads = 1});
  Translator translator(*source, *backend);
  try {
    translator.classify({{"a", "b"}}, true);
    FAIL() << "a generation model classified";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no sequence classification head"), std::string::npos) << e.what();
  }
}

TEST(CliBartClassifier, ClassifyPairsAndZeroShot) {
  const std::string model = fixture("seq2seq/bart-seq-cls");
  const json golden = test::load_json(model + "/golden-classification.json");
  std::string input;
  for (const auto& c : golden["cases"]) input += c["text"].get<std::string>() + "\t" + c["text_pair"].get<std::string>() + "\n";
  const auto pairs = test::run_cli({"classify", "-m", model, "--pairs", "--threads", "1"}, input);
  ASSERT_EQ(pairs.exit_code, 0) << pairs.err;
  std::istringstream lines(pairs.out);
  std::size_t i = 0;
  for (std::string line; std::getline(lines, line); ++i) {
    const json out = json::parse(line);
    const auto expected = flat_logits(golden["cases"][i]["logits"]);
    for (std::size_t k = 0; k < expected.size(); ++k)
      EXPECT_NEAR(out["logits"][k].get<double>(), expected[k], kLogitTolerance) << i;
    const auto best = std::max_element(expected.begin(), expected.end()) - expected.begin();
    const std::vector<std::string> names{"contradiction", "neutral", "entailment"};  // config.json's id2label
    EXPECT_EQ(out["label"], names[static_cast<std::size_t>(best)]);
  }
  EXPECT_EQ(i, golden["cases"].size());

  const json& z = golden["zero_shot"];
  std::string premises;
  for (const auto& p : z["premises"]) premises += p["premise"].get<std::string>() + "\n";
  for (const bool multi : {false, true}) {
    std::vector<std::string> args{"classify", "-m", model, "--zero-shot", "technology,weather,sports", "--threads", "1"};
    if (multi) args.emplace_back("--multi-label");
    const auto result = test::run_cli(args, premises);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::istringstream out(result.out);
    std::size_t n = 0;
    for (std::string line; std::getline(out, line); ++n) {
      const json row = json::parse(line);
      const json& premise = z["premises"][n];
      for (std::size_t r = 0; r < row["labels"].size(); ++r) {
        const auto& labels = z["candidate_labels"];
        const auto at = std::find(labels.begin(), labels.end(), row["labels"][r]) - labels.begin();
        EXPECT_NEAR(row["scores"][r].get<double>(),
                    premise[multi ? "scores_multi_label" : "scores_single_label"][at].get<double>(), kScoreTolerance);
      }
      if (!multi) {
        EXPECT_EQ(row["labels"], premise["pipeline_labels_sorted"]);
      }
    }
    EXPECT_EQ(n, z["premises"].size());
  }
  const auto bad = test::run_cli({"classify", "-m", model, "--zero-shot", "a,b", "--template", "no placeholder"}, "x\n");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("must hold '{}' once"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace invar
