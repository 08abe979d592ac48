// The encoder-decoder engine against the Hugging Face goldens (transformers 4.19, fp32) of every
// seq2seq fixture: encoder states and teacher-forced logits within 1e-4, greedy and beam ids
// identical, beam scores within 1e-4, texts identical after decoding, batched beam search equal to
// the golden and to the unbatched runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>

#include "core/error.hpp"
#include "engine/seq2seq.hpp"
#include "engine/text/tokenizer.hpp"
#include "engine/translator.hpp"
#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"
#include "loaders/model_source.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

using nlohmann::json;
using test::fixture;
using test::load_json;

constexpr double kTolerance = 1e-4;

TokenIds ids_of(const json& value) { return value.get<TokenIds>(); }

void flatten(const json& value, std::vector<float>& out) {
  if (value.is_array()) {
    for (const auto& item : value) flatten(item, out);
  } else {
    out.push_back(value.get<float>());
  }
}

std::vector<float> flat(const json& value) {
  std::vector<float> out;
  flatten(value, out);
  return out;
}

// Within `tolerance` absolute, or, with `row` > 0, within tolerance × max(1, largest |value| of
// that row of `row` values).
::testing::AssertionResult all_near(const std::vector<float>& actual, const std::vector<float>& expected,
                                    std::size_t row = 0) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << actual.size() << " values, expected " << expected.size();
  for (std::size_t begin = 0; begin < expected.size(); begin += row == 0 ? expected.size() : row) {
    const std::size_t end = row == 0 ? expected.size() : begin + row;
    double scale = 1.0;
    if (row > 0)
      for (std::size_t i = begin; i < end; ++i) scale = std::max(scale, std::fabs(static_cast<double>(expected[i])));
    for (std::size_t i = begin; i < end; ++i) {
      const double diff = std::fabs(static_cast<double>(actual[i]) - static_cast<double>(expected[i]));
      if (!(diff <= kTolerance * scale))
        return ::testing::AssertionFailure() << "difference " << diff << " at " << i << " (actual " << actual[i]
                                             << ", expected " << expected[i] << ", bound " << kTolerance * scale << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// Hugging Face pads the returned sequences of a batch to the longest with the pad token; ours are
// unpadded, so padding ours to the golden's length must give the golden exactly.
::testing::AssertionResult same_ids(TokenIds actual, const json& golden, std::int32_t pad) {
  const TokenIds expected = ids_of(golden);
  if (actual.size() > expected.size())
    return ::testing::AssertionFailure() << actual.size() << " ids, longer than the golden's " << expected.size();
  actual.resize(expected.size(), pad);
  if (actual == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "ids " << json(actual).dump() << "\n expected " << json(expected).dump();
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) { return test::param_name(info.param); }

// The model's defaults with the golden's recorded generate() arguments on top.
SearchSettings settings_from(const SearchSettings& defaults, const json& recorded) {
  SearchSettings settings = defaults;
  for (const auto& [key, value] : recorded.items()) {
    if (key == "num_beams") settings.num_beams = value.get<int>();
    else if (key == "num_return_sequences") settings.num_return_sequences = value.get<int>();
    else if (key == "max_length") settings.max_length = value.get<int>();
    else if (key == "length_penalty") settings.length_penalty = value.get<double>();
    else if (key == "early_stopping") settings.early_stopping = value.get<bool>();
    else if (key == "do_sample") settings.do_sample = value.get<bool>();
    else ADD_FAILURE() << "unexpected generation setting " << key;
  }
  return settings;
}

class Seq2Seq : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    source_ = ModelSource::open(fixture(GetParam()));
    backend_ = make_cpu_backend({.threads = 1});
    model_ = std::make_unique<Seq2SeqModel>(*source_, *backend_);
    tokenizer_ = make_tokenizer(*source_);
    golden_ = load_json(fixture(GetParam() + "/golden.json"));
    ASSERT_FALSE(golden_["cases"].empty());
  }
  std::int32_t pad() const { return model_->spec().pad_token_id; }
  SearchSettings settings(const char* kind) const {
    return settings_from(model_->default_settings(), golden_["generation"][kind]);
  }
  // Every golden case on `model`: encoder states, greedy ids, beam ids and scores.
  void expect_states_and_searches_match(Seq2SeqModel& model) const {
    for (const auto& c : golden_["cases"]) {
      SCOPED_TRACE(c["text"].get<std::string>());
      const TokenIds input = ids_of(c["input_ids"]);
      EXPECT_TRUE(all_near(model.encode({input}), flat(c["encoder_last_hidden_state"])));
      EXPECT_TRUE(same_ids(model.generate({input}, settings("greedy"))[0][0].ids, c["greedy_ids"], pad()));
      const auto beams = model.generate({input}, settings("beam"))[0];
      ASSERT_EQ(beams.size(), c["beam_ids"].size());
      for (std::size_t k = 0; k < beams.size(); ++k) {
        EXPECT_TRUE(same_ids(beams[k].ids, c["beam_ids"][k], pad())) << "hypothesis " << k;
        EXPECT_NEAR(beams[k].score, c["beam_scores"][k].get<double>(), kTolerance) << "hypothesis " << k;
      }
    }
  }

  std::unique_ptr<ModelSource> source_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Seq2SeqModel> model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  json golden_;
};

TEST_P(Seq2Seq, InputIdsFromTheTokenizer) {
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    EXPECT_EQ(tokenizer_->encode(c["text"].get<std::string>()).ids, ids_of(c["input_ids"]));
  }
}

TEST_P(Seq2Seq, EncoderLastHiddenState) {
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    EXPECT_TRUE(all_near(model_->encode({ids_of(c["input_ids"])}), flat(c["encoder_last_hidden_state"])));
  }
}

// The fixtures' logits reach |14|, and their random weights amplify float32 rounding: our own
// logits for a source alone and inside a batch (same arithmetic, other GEMM shapes and
// alignments) differ by up to 3e-4. So 1e-4 absolute holds for the encoder states, and for the
// logits 1e-4 relative to the largest |logit| of the position (up to 7e-4 absolute seen); ids and
// beam scores stay exact / within 1e-4.
TEST_P(Seq2Seq, TeacherForcedDecoderLogits) {
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    const auto expected = flat(c["decoder_logits"]);
    EXPECT_TRUE(all_near(model_->decoder_logits({ids_of(c["input_ids"])}, {ids_of(c["decoder_input_ids"])}), expected,
                         expected.size() / c["decoder_input_ids"].size()));
  }
}

TEST_P(Seq2Seq, GreedyIdsAndText) {
  const SearchSettings greedy = settings("greedy");
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    const auto hyps = model_->generate({ids_of(c["input_ids"])}, greedy);
    ASSERT_EQ(hyps.size(), 1u);
    ASSERT_EQ(hyps[0].size(), 1u);
    EXPECT_TRUE(same_ids(hyps[0][0].ids, c["greedy_ids"], pad()));
    EXPECT_EQ(tokenizer_->decode(hyps[0][0].ids), c["greedy_text"].get<std::string>());
  }
}

TEST_P(Seq2Seq, BeamIdsScoresAndTexts) {
  const SearchSettings beam = settings("beam");
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    const auto hyps = model_->generate({ids_of(c["input_ids"])}, beam);
    ASSERT_EQ(hyps.size(), 1u);
    ASSERT_EQ(hyps[0].size(), c["beam_ids"].size());
    for (std::size_t k = 0; k < hyps[0].size(); ++k) {
      EXPECT_TRUE(same_ids(hyps[0][k].ids, c["beam_ids"][k], pad())) << "hypothesis " << k;
      EXPECT_NEAR(hyps[0][k].score, c["beam_scores"][k].get<double>(), kTolerance) << "hypothesis " << k;
      EXPECT_EQ(tokenizer_->decode(hyps[0][k].ids), c["beam_texts"][k].get<std::string>());
    }
  }
}

// Sources of different lengths in one batch (right-padded inside the engine) give the golden's
// batched beams and the same hypotheses as each source alone.
TEST_P(Seq2Seq, PaddedBatchBeamSearch) {
  const auto& batch = golden_["padded_batch_beam4"];
  SearchSettings beam = settings("beam");
  beam.num_return_sequences = 1;
  std::vector<TokenIds> sources;
  for (const auto& text : batch["texts"]) sources.push_back(tokenizer_->encode(text.get<std::string>()).ids);
  const auto batched = model_->generate(sources, beam);
  ASSERT_EQ(batched.size(), sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    SCOPED_TRACE(batch["texts"][i].get<std::string>());
    EXPECT_TRUE(same_ids(sources[i], batch["input_ids"][i], pad()));
    ASSERT_EQ(batched[i].size(), 1u);
    EXPECT_TRUE(same_ids(batched[i][0].ids, batch["beam_ids"][i], pad()));
    if (batch.contains("beam_texts")) {
      EXPECT_EQ(tokenizer_->decode(batched[i][0].ids), batch["beam_texts"][i].get<std::string>());
    }
    const auto alone = model_->generate({sources[i]}, beam);
    EXPECT_EQ(batched[i][0].ids, alone[0][0].ids);
    EXPECT_NEAR(batched[i][0].score, alone[0][0].score, kTolerance);
  }
}

// Forced decoding agrees with the teacher-forced logits: the score of the golden's greedy output is
// Σ log_softmax over the logits of each prefix.
TEST_P(Seq2Seq, ScoreIsTheSumOfTargetLogProbs) {
  const auto& c = golden_["cases"][0];
  const TokenIds source = ids_of(c["input_ids"]);
  const TokenIds decoder_input = ids_of(c["decoder_input_ids"]);
  const TokenIds target(decoder_input.begin() + 1, decoder_input.end());
  const auto logits = flat(c["decoder_logits"]);
  const std::size_t vocab = logits.size() / decoder_input.size();
  double expected = 0.0;
  for (std::size_t t = 0; t < target.size(); ++t) {
    const float* row = logits.data() + t * vocab;
    const double top = *std::max_element(row, row + vocab);
    double sum = 0.0;
    for (std::size_t v = 0; v < vocab; ++v) sum += std::exp(static_cast<double>(row[v]) - top);
    expected += static_cast<double>(row[target[t]]) - top - std::log(sum);
  }
  const auto scores = model_->score({source, source}, {target, TokenIds(target.begin(), target.begin() + 1)});
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_NEAR(scores[0], expected, 1e-3);
  EXPECT_LT(scores[1], 0.0);
  EXPECT_GT(scores[1], scores[0]);
}

// The fixed-order products of --deterministic: the same encoder states, ids and beam scores as
// Hugging Face, within the tolerances above, on 1 and 2 threads alike.
TEST_P(Seq2Seq, DeterministicBackendMatchesGoldenOnAnyThreadCount) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    const auto backend = make_cpu_backend({.threads = threads, .deterministic = true});
    Seq2SeqModel model(*source_, *backend);
    expect_states_and_searches_match(model);
  }
}

// --linear openblas: the linear layers on OpenBLAS's sgemm over the weights as stored, instead of
// oneDNN's packed copies: the same encoder states, ids and beam scores as Hugging Face.
TEST_P(Seq2Seq, LinearLayersOnOpenBlasMatchGolden) {
  const auto backend = make_cpu_backend({.threads = 2, .linear = LinearKernel::OpenBlas});
  Seq2SeqModel model(*source_, *backend);
  expect_states_and_searches_match(model);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Seq2Seq, ::testing::ValuesIn(test::model_folders(true)), test_name);

TEST(Seq2SeqFixtures, EveryFamilyIsCovered) { EXPECT_EQ(test::model_folders(true).size(), 8u); }

TEST(Seq2SeqErrors, EncoderOnlyModelIsRefused) {
  auto source = ModelSource::open(fixture("core/xlmr"));
  auto backend = make_cpu_backend({.threads = 1});
  try {
    Seq2SeqModel model(*source, *backend);
    FAIL() << "an encoder-only model was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("encoder-only"), std::string::npos) << e.what();
  }
}

TEST(Seq2SeqErrors, SourcesOutsideTheModelFail) {
  auto source = ModelSource::open(fixture("core/marian"));
  auto backend = make_cpu_backend({.threads = 1});
  Seq2SeqModel model(*source, *backend);
  EXPECT_THROW(model.encode({TokenIds{}}), Error);
  EXPECT_THROW(model.encode({TokenIds{5, 100000, 0}}), Error);
  EXPECT_THROW(model.encode({TokenIds(static_cast<std::size_t>(model.spec().max_positions) + 1, 5)}), Error);
  EXPECT_NO_THROW(model.encode({TokenIds(static_cast<std::size_t>(model.spec().max_positions), 5)}));
}

// ---------------------------------------------------------------------------------------------
// Translator: text in, text out.

class TranslatorTest : public ::testing::Test {
 protected:
  void open(const std::string& folder) {
    source_ = ModelSource::open(fixture(folder));
    translator_ = std::make_unique<Translator>(*source_, *backend_);
    golden_ = load_json(fixture(folder + "/golden.json"));
  }
  SearchSettings greedy() const { return settings_from(translator_->default_settings(), golden_["generation"]["greedy"]); }

  std::unique_ptr<Backend> backend_ = make_cpu_backend({.threads = 1});
  std::unique_ptr<ModelSource> source_;
  std::unique_ptr<Translator> translator_;
  json golden_;
};

TEST_F(TranslatorTest, BatchedTextsComeBackInInputOrderWithEmptyLinesKept) {
  open("core/marian");
  auto texts = test::case_strings(golden_, "text");
  auto expected = test::case_strings(golden_, "greedy_text");
  texts.insert(texts.begin() + 3, "");
  expected.insert(expected.begin() + 3, "");
  texts.emplace_back("   ");
  expected.emplace_back("");
  std::size_t calls = 0, last = 0;
  TranslateOptions options;
  options.batch_size = 5;
  options.progress = [&](std::size_t done) { ++calls, last = done; };
  EXPECT_EQ(translator_->translate(texts, greedy(), options), expected);
  EXPECT_EQ(calls, 3u);  // 12 texts with tokens in batches of 5
  EXPECT_EQ(last, texts.size());
  const auto hyps = translator_->generate({"", test::case_strings(golden_, "text")[0]}, greedy());
  ASSERT_EQ(hyps.size(), 2u);
  EXPECT_TRUE(hyps[0].empty());
  ASSERT_EQ(hyps[1].size(), 1u);
  EXPECT_EQ(hyps[1][0].ids, ids_of(golden_["cases"][0]["greedy_ids"]));
}

TEST_F(TranslatorTest, BeamHypothesesCarryTextIdsAndScore) {
  open("seq2seq/bart");
  const auto beam = settings_from(translator_->default_settings(), golden_["generation"]["beam"]);
  const auto& c = golden_["cases"][1];
  const auto hyps = translator_->generate({c["text"].get<std::string>()}, beam);
  ASSERT_EQ(hyps[0].size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(hyps[0][k].text, c["beam_texts"][k].get<std::string>());
    EXPECT_TRUE(same_ids(hyps[0][k].ids, c["beam_ids"][k], 1));
    EXPECT_NEAR(hyps[0][k].score, c["beam_scores"][k].get<double>(), kTolerance);
  }
}

TEST_F(TranslatorTest, TargetLanguageIsTheForcedFirstToken) {
  for (const auto& [folder, source_code, target_code, other] :
       {std::tuple{"seq2seq/mbart", "de_DE", "en_XX", "fr_XX"}, std::tuple{"seq2seq/m2m100", "de", "en", "fr"}}) {
    SCOPED_TRACE(folder);
    open(folder);
    const std::string text = golden_["cases"][0]["text"];
    // The tokenizer's and config's own languages reproduce the golden; naming them changes nothing.
    translator_->set_languages(source_code, target_code);
    EXPECT_EQ(translator_->generate({text}, greedy())[0][0].ids, ids_of(golden_["cases"][0]["greedy_ids"]));
    translator_->set_languages(std::nullopt, other);
    const auto ids = translator_->generate({text}, greedy())[0][0].ids;
    ASSERT_GE(ids.size(), 2u);
    EXPECT_EQ(ids[1], translator_->tokenizer().lang_id(other));
    EXPECT_THROW(translator_->set_languages(std::nullopt, "xx_YY"), Error);
    EXPECT_THROW(translator_->set_languages("xx_YY", std::nullopt), Error);
  }
  open("core/marian");
  EXPECT_THROW(translator_->set_languages("de", std::nullopt), Error);
}

TEST_F(TranslatorTest, ScoreIsForcedDecodingOfTheGeneratedForm) {
  open("seq2seq/bart");
  const auto& c = golden_["cases"][11];  // greedy output ends with EOS before max_length
  const auto greedy_ids = ids_of(c["greedy_ids"]);
  ASSERT_EQ(greedy_ids.back(), translator_->model().spec().eos_token_id);
  const std::string text = c["text"];
  const auto scores = translator_->score({{text, c["greedy_text"].get<std::string>()}});
  ASSERT_EQ(scores.size(), 1u);
  // The target framed as generated: forced <s>, the text, </s>; the forced token is not scored.
  const TokenIds target(greedy_ids.begin() + 1, greedy_ids.end());
  EXPECT_EQ(scores[0].tokens, target.size() - 1);
  const auto direct = translator_->model().score({ids_of(c["input_ids"])}, {target}, 1);
  EXPECT_NEAR(scores[0].logprob, direct[0], 1e-9);
  EXPECT_LT(scores[0].logprob, 0.0);
  EXPECT_THROW(translator_->score({{text, ""}}), Error);
  EXPECT_THROW(translator_->score({{"", text}}), Error);
}

TEST_F(TranslatorTest, SourceLongerThanThePositionsFailsNamingIt) {
  open("core/marian");
  std::string long_text;
  for (int i = 0; i < 80; ++i) long_text += "cat ";
  TranslateOptions options;
  options.where = [](std::size_t i) { return "in.txt:" + std::to_string(i + 1); };
  try {
    translator_->translate({"Short.", long_text}, greedy(), options);
    FAIL() << "a source beyond the positions was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("in.txt:2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("positions"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// mBART-50 (seq2seq/mbart50): MBart50Tokenizer named only in config.json's tokenizer_class, each
// case with its own source and target language, the target language's id forced as the first
// token (config.json has no forced_bos_token_id). Its golden, golden-languages.json, frames each
// case with its own languages, so the parametrized tests above (one framing per folder) leave it out.

class MBart50 : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = ModelSource::open(fixture("seq2seq/mbart50"));
    translator_ = std::make_unique<Translator>(*source_, *backend_);
    golden_ = load_json(fixture("seq2seq/mbart50/golden-languages.json"));
    ASSERT_EQ(golden_["cases"].size(), 6u);
  }
  // Languages as MBart50Tokenizer(src_lang=..., tgt_lang=...) and generate(forced_bos_token_id=...) had them.
  void use_languages(const json& c) {
    translator_->set_languages(c["src_lang"].get<std::string>(), c["tgt_lang"].get<std::string>());
  }
  // The golden's generate() arguments of `kind`, the forced first token left to the Translator.
  SearchSettings settings(const char* kind) const {
    json recorded = golden_["generation"][kind];
    EXPECT_EQ(recorded["forced_bos_token_id"], "lang_code_to_id[tgt_lang]");
    recorded.erase("forced_bos_token_id");
    return settings_from(translator_->default_settings(), recorded);
  }
  Seq2SeqModel& model() { return translator_->model(); }
  Tokenizer& tokenizer() { return translator_->tokenizer(); }
  std::int32_t pad_id() { return model().spec().pad_token_id; }

  std::unique_ptr<Backend> backend_ = make_cpu_backend({.threads = 1});
  std::unique_ptr<ModelSource> source_;
  std::unique_ptr<Translator> translator_;
  json golden_;
};

TEST_F(MBart50, TokenizerFramesCodeFirstInEveryLanguage) {
  EXPECT_STREQ(tokenizer().tokenizer_class().name, "MBart50Tokenizer");
  // tokenizer_config.json's src_lang is null: en_XX.
  ASSERT_EQ(golden_["default_src_lang"]["effective_src_lang"], "en_XX");
  for (const auto& c : golden_["default_src_lang"]["cases"])
    EXPECT_EQ(tokenizer().encode(c["text"].get<std::string>()).ids, ids_of(c["input_ids"]));
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    use_languages(c);
    const Encoding source = tokenizer().encode(c["text"].get<std::string>());
    EXPECT_EQ(source.ids, ids_of(c["input_ids"]));
    EXPECT_EQ(source.tokens, c["tokens"].get<std::vector<std::string>>());
    EXPECT_EQ(tokenizer().encode_target(c["target_text"].get<std::string>()).ids, ids_of(c["labels"]));
    EXPECT_EQ(tokenizer().lang_id(c["tgt_lang"].get<std::string>()), c["forced_bos_token_id"].get<std::int32_t>());
  }
  for (const auto& c : golden_["src_lang_framing"]) {
    translator_->set_languages(c["src_lang"].get<std::string>(), std::nullopt);
    EXPECT_EQ(tokenizer().encode(c["text"].get<std::string>()).ids, ids_of(c["input_ids"])) << c["src_lang"];
  }
}

// The folder's tokenizer.json holds a fixed `en_XX $A </s>`: --tokenizer auto keeps the slow files
// (above), --tokenizer json is refused naming the class and the way out, never framed as en_XX.
TEST_F(MBart50, TokenizerJsonIsRefusedForItsLanguageFraming) {
  ASSERT_TRUE(std::filesystem::exists(fixture("seq2seq/mbart50/tokenizer.json")));
  auto source = ModelSource::open(fixture("seq2seq/mbart50"));
  source->set_tokenizer_choice(TokenizerChoice::Json);
  try {
    make_tokenizer(*source);
    FAIL() << "tokenizer.json was read for MBart50Tokenizer";
  } catch (const Error& e) {
    const std::string message = e.what();
    for (const char* needle : {"MBart50Tokenizer", "tokenizer.json", "--tokenizer slow"})
      EXPECT_NE(message.find(needle), std::string::npos) << message;
  }
  source->set_tokenizer_choice(TokenizerChoice::Slow);
  const auto& c = golden_["cases"][0];
  auto slow = make_tokenizer(*source);
  slow->set_source_language(c["src_lang"].get<std::string>());
  EXPECT_EQ(slow->encode(c["text"].get<std::string>()).ids, ids_of(c["input_ids"]));
}

TEST_F(MBart50, EncoderLastHiddenState) {
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    EXPECT_TRUE(all_near(model().encode({ids_of(c["input_ids"])}), flat(c["encoder_last_hidden_state"])));
  }
}

// decoder_input_ids are the labels (`[tgt_lang] Y </s>`) shifted right with MBart's wrap-around,
// which puts the last </s> first: the decoder start token, as the engine prepends it. The loss is
// the mean over the labels of -log p, the engine's forced-decoding score divided by their number.
// Logits within 1e-4 of the position's largest |logit|, as TeacherForcedDecoderLogits explains
// (1.07e-4 absolute seen at a logit of -5.9).
TEST_F(MBart50, TeacherForcedLogitsAndLoss) {
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    const TokenIds source = ids_of(c["input_ids"]), labels = ids_of(c["labels"]);
    TokenIds shifted{model().spec().decoder_start_token_id};
    shifted.insert(shifted.end(), labels.begin(), labels.end() - 1);
    EXPECT_EQ(shifted, ids_of(c["decoder_input_ids"]));
    const auto expected = flat(c["decoder_logits"]);
    EXPECT_TRUE(all_near(model().decoder_logits({source}, {shifted}), expected, expected.size() / shifted.size()));
    const double logprob = model().score({source}, {labels})[0];
    EXPECT_NEAR(-logprob / static_cast<double>(labels.size()), c["loss"].get<double>(), kTolerance);
    // The translator frames the target text as these labels and scores all but the forced code.
    use_languages(c);
    const auto scored = translator_->score({{c["text"].get<std::string>(), c["target_text"].get<std::string>()}});
    EXPECT_EQ(scored[0].tokens, labels.size() - 1);
    EXPECT_NEAR(scored[0].logprob, model().score({source}, {labels}, 1)[0], 1e-9);
  }
}

TEST_F(MBart50, GreedyAndBeamWithTheTargetLanguageForced) {
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    use_languages(c);
    const std::vector<std::string> text{c["text"].get<std::string>()};
    const SearchSettings greedy = settings("greedy");
    EXPECT_EQ(greedy.forced_bos_token_id, c["forced_bos_token_id"].get<std::int32_t>());
    const auto best = translator_->generate(text, greedy);
    ASSERT_EQ(best[0].size(), 1u);
    EXPECT_TRUE(same_ids(best[0][0].ids, c["greedy_ids"], pad_id()));
    EXPECT_EQ(best[0][0].text, c["greedy_text"].get<std::string>());
    const auto beams = translator_->generate(text, settings("beam"));
    ASSERT_EQ(beams[0].size(), c["beam_ids"].size());
    for (std::size_t k = 0; k < beams[0].size(); ++k) {
      EXPECT_TRUE(same_ids(beams[0][k].ids, c["beam_ids"][k], pad_id())) << "hypothesis " << k;
      EXPECT_NEAR(beams[0][k].score, c["beam_scores"][k].get<double>(), kTolerance) << "hypothesis " << k;
      EXPECT_EQ(beams[0][k].text, c["beam_texts"][k].get<std::string>()) << "hypothesis " << k;
    }
  }
}

// Without --tgt-lang nothing is forced: config.json names no forced_bos_token_id.
TEST_F(MBart50, NoTargetLanguageForcesNothing) {
  EXPECT_FALSE(translator_->default_settings().forced_bos_token_id.has_value());
  EXPECT_THROW(translator_->set_languages(std::nullopt, "xx_YY"), Error);
  EXPECT_THROW(translator_->set_languages("de_XX", std::nullopt), Error);  // a cc25-looking code ML50 lacks
}

TEST_F(MBart50, PaddedBatchBeamSearch) {
  const auto& batch = golden_["padded_batch_beam4"];
  use_languages(batch);
  const auto texts = batch["texts"].get<std::vector<std::string>>();
  for (std::size_t i = 0; i < texts.size(); ++i)
    EXPECT_TRUE(same_ids(tokenizer().encode(texts[i]).ids, batch["input_ids"][i], pad_id())) << texts[i];
  const SearchSettings beam = settings("beam_batch");
  const auto batched = translator_->generate(texts, beam);
  ASSERT_EQ(batched.size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    SCOPED_TRACE(texts[i]);
    ASSERT_EQ(batched[i].size(), 1u);
    EXPECT_TRUE(same_ids(batched[i][0].ids, batch["beam_ids"][i], pad_id()));
    const auto alone = translator_->generate({texts[i]}, beam);
    EXPECT_EQ(batched[i][0].ids, alone[0][0].ids);
    EXPECT_NEAR(batched[i][0].score, alone[0][0].score, kTolerance);
  }
}

}  // namespace
}  // namespace invar
