// The C API (include/invar/invar.h) on the tiny fixtures: its results against the Hugging Face and
// sacrebleu goldens the engine is checked against, and every error path — NULL arguments, a bad
// path, the wrong kind of model for a call, options out of range — returning its status and
// message without leaking (the sanitizer run covers this file like the others).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "invar/invar.h"
#include "invar/invar.hpp"
#include "core/version.hpp"
#include "support/golden.hpp"
#include "support/test_support.hpp"

namespace invar::test {
namespace {

using json = nlohmann::json;

constexpr double kTolerance = 1e-4;  // the encoder and seq2seq tests' tolerance against the goldens

// A model of the fixtures on one thread, freed at the end of the test.
api::Model open(const std::string& folder) {
  invar_model_options options;
  invar_model_options_init(&options);
  options.threads = 1;
  return api::Model(fixture(folder), &options);
}

// The golden ids are padded to the longest hypothesis; ours stop at EOS.
::testing::AssertionResult same_ids(const std::int32_t* ids, std::size_t length, const json& golden, std::int32_t pad) {
  std::vector<std::int32_t> actual(ids, ids + length);
  const auto expected = golden.get<std::vector<std::int32_t>>();
  if (actual.size() > expected.size()) return ::testing::AssertionFailure() << "longer than the golden";
  actual.resize(expected.size(), pad);
  if (actual == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << json(actual).dump() << "\n expected " << json(expected).dump();
}

// ---- results against the goldens ----

TEST(CApi, VersionIsTheProjects) { EXPECT_STREQ(invar_version(), kVersion); }

TEST(CApi, TokenizeMatchesTheGolden) {
  for (const std::string folder : {"core/bert-wordpiece", "core/marian"}) {
    auto model = open(folder);
    const auto golden = load_json(fixture(folder + "/golden.json"));
    for (const auto& c : golden["cases"]) {
      const auto tokens = model.tokenize(c["text"].get<std::string>());
      const auto ids = c["input_ids"].get<std::vector<std::int32_t>>();
      ASSERT_EQ(tokens->count, ids.size()) << folder << ": " << c["text"];
      EXPECT_EQ(std::vector<std::int32_t>(tokens->ids, tokens->ids + tokens->count), ids);
      const auto golden_tokens = c["tokens"].get<std::vector<std::string>>();
      for (std::size_t i = 0; i < tokens->count; ++i) EXPECT_EQ(tokens->tokens[i], golden_tokens[i]);
    }
  }
}

TEST(CApi, ModelKind) {
  EXPECT_EQ(open("core/bert-wordpiece").kind(), INVAR_MODEL_ENCODER);
  EXPECT_EQ(open("core/marian").kind(), INVAR_MODEL_SEQ2SEQ);
}

TEST(CApi, EmbedIsTheSentenceTransformersEmbedding) {
  auto model = open("core/bert-wordpiece");
  const auto golden = load_json(fixture("core/bert-wordpiece/golden.json"));
  const auto texts = case_strings(golden, "text");
  const auto embeddings = model.embed(texts);
  ASSERT_EQ(embeddings->count, texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto expected = golden["cases"][i]["mean_pooled_normalized"][0].get<std::vector<double>>();
    ASSERT_EQ(embeddings->dimension, expected.size());
    for (std::size_t d = 0; d < expected.size(); ++d)
      EXPECT_NEAR(embeddings->values[i * embeddings->dimension + d], expected[d], kTolerance) << texts[i] << " " << d;
  }
}

// As `--linear openblas`: the linear layers on OpenBLAS, embeddings as the default's (oneDNN).
TEST(CApi, LinearOpenBlasEmbedsAsOneDnnDoes) {
  invar_model_options options;
  invar_model_options_init(&options);
  EXPECT_EQ(options.linear, INVAR_LINEAR_ONEDNN);
  options.threads = 1;
  options.linear = INVAR_LINEAR_OPENBLAS;
  api::Model openblas(fixture("core/bert-wordpiece"), &options);
  const auto texts = case_strings(load_json(fixture("core/bert-wordpiece/golden.json")), "text");
  const auto got = openblas.embed(texts), want = open("core/bert-wordpiece").embed(texts);
  ASSERT_EQ(got->count, want->count);
  ASSERT_EQ(got->dimension, want->dimension);
  for (std::size_t i = 0; i < got->count * got->dimension; ++i) EXPECT_NEAR(got->values[i], want->values[i], 1e-5) << i;
}

// As `--weights int8` (CliEncoder.Int8WeightsEmbedCloseToF32): close to the golden, not equal to f32.
TEST(CApi, Int8WeightsEmbedCloseToF32) {
  invar_model_options options;
  invar_model_options_init(&options);
  options.threads = 1;
  options.weights = INVAR_WEIGHTS_INT8;
  api::Model int8(fixture("core/bert-wordpiece"), &options);
  const auto golden = load_json(fixture("core/bert-wordpiece/golden.json"));
  const auto texts = case_strings(golden, "text");
  const auto embeddings = int8.embed(texts), f32 = open("core/bert-wordpiece").embed(texts);
  ASSERT_EQ(embeddings->count, texts.size());
  double differences = 0.0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto expected = golden["cases"][i]["mean_pooled_normalized"][0].get<std::vector<double>>();
    ASSERT_EQ(embeddings->dimension, expected.size());
    double dot = 0.0, norm = 0.0, golden_norm = 0.0;
    for (std::size_t d = 0; d < expected.size(); ++d) {
      const double value = embeddings->values[i * embeddings->dimension + d];
      dot += value * expected[d];
      norm += value * value;
      golden_norm += expected[d] * expected[d];
      differences += std::abs(value - f32->values[i * embeddings->dimension + d]);
    }
    EXPECT_GE(dot / std::sqrt(norm * golden_norm), 0.995) << texts[i];
  }
  EXPECT_GT(differences, 0.0);  // the products did run in int8
}

TEST(CApi, EmbedOfNoTextsIsEmpty) {
  auto model = open("core/bert-wordpiece");
  invar_embeddings* embeddings = nullptr;
  ASSERT_EQ(invar_embed(model.get(), nullptr, 0, &embeddings), INVAR_OK) << invar_last_error();
  EXPECT_EQ(embeddings->count, 0u);
  invar_embeddings_free(embeddings);
}

TEST(CApi, ClassifyPairsGivesLogitsProbabilitiesAndLabel) {
  auto model = open("core/bert-pair-cls");
  const auto golden = load_json(fixture("core/bert-pair-cls/golden.json"));
  const auto out = model.classify_pairs(case_strings(golden, "text"), case_strings(golden, "text_pair"));
  ASSERT_EQ(out->count, golden["cases"].size());
  ASSERT_EQ(out->labels, 2u);
  EXPECT_EQ(out->regression, 0);
  EXPECT_STREQ(out->label_names[0], "not_paraphrase");
  EXPECT_STREQ(out->label_names[1], "paraphrase");
  for (std::size_t i = 0; i < out->count; ++i) {
    const auto logits = golden["cases"][i]["logits"][0].get<std::vector<double>>();
    const auto probs = golden["cases"][i]["probs"][0].get<std::vector<double>>();
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_NEAR(out->logits[i * 2 + k], logits[k], kTolerance);
      EXPECT_NEAR(out->probabilities[i * 2 + k], probs[k], kTolerance);
    }
    EXPECT_EQ(out->best[i], logits[1] > logits[0] ? 1 : 0);
  }
}

TEST(CApi, ClassifyRegressionGivesTheScore) {
  auto model = open("core/xlmr-regression");
  const auto golden = load_json(fixture("core/xlmr-regression/golden.json"));
  const auto out = model.classify(case_strings(golden, "text"));
  ASSERT_EQ(out->labels, 1u);
  EXPECT_NE(out->regression, 0);
  EXPECT_EQ(out->probabilities, nullptr);
  for (std::size_t i = 0; i < out->count; ++i) {
    EXPECT_NEAR(out->logits[i], golden["cases"][i]["score"].get<double>(), kTolerance);
    EXPECT_EQ(out->best[i], -1);
  }
}

TEST(CApi, PseudoLogLikelihoodMatchesTheGolden) {
  auto model = open("core/bert-mlm");
  const auto golden = load_json(fixture("core/bert-mlm/golden.json"));
  for (const auto& c : golden["cases"]) {
    const auto pll = model.pseudo_log_likelihood(c["text"].get<std::string>());
    const auto expected = c["pll_per_token"].get<std::vector<double>>();
    ASSERT_EQ(pll->tokens, expected.size()) << c["text"];
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(pll->per_token[i], expected[i], kTolerance);
    EXPECT_NEAR(pll->total, c["pll"].get<double>(), kTolerance * static_cast<double>(expected.size()));
    EXPECT_EQ(pll->windows, 1u);
  }
}

class CApiGenerate : public ::testing::Test {
 protected:
  CApiGenerate()
      : model_(open("core/marian")),
        golden_(load_json(fixture("core/marian/golden.json"))),
        pad_(load_json(fixture("core/marian/config.json"))["pad_token_id"].get<std::int32_t>()) {}

  // The search options of the golden's recorded generate() arguments.
  invar_search_options options(const std::string& name) const {
    invar_search_options o;
    invar_search_options_init(&o);
    const auto& recorded = golden_["generation"][name];
    o.num_beams = recorded["num_beams"].get<int>();
    o.max_length = recorded["max_length"].get<int>();
    if (recorded.contains("num_return_sequences")) o.num_return_sequences = recorded["num_return_sequences"].get<int>();
    if (recorded.contains("length_penalty")) o.length_penalty = recorded["length_penalty"].get<double>();
    if (recorded.contains("early_stopping")) o.early_stopping = recorded["early_stopping"].get<bool>() ? 1 : 0;
    return o;
  }

  api::Model model_;
  json golden_;
  std::int32_t pad_;
};

TEST_F(CApiGenerate, GreedyIdsAndTexts) {
  const auto greedy = options("greedy");
  const auto texts = case_strings(golden_, "text");
  const auto generation = model_.generate(texts, &greedy);
  ASSERT_EQ(generation->count, texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto& c = golden_["cases"][i];
    ASSERT_EQ(generation->inputs[i].count, 1u) << texts[i];
    const invar_hypothesis& best = generation->inputs[i].items[0];
    EXPECT_TRUE(same_ids(best.ids, best.length, c["greedy_ids"], pad_)) << texts[i];
    EXPECT_EQ(std::string(best.text), c["greedy_text"].get<std::string>());
  }
  const auto translations = model_.translate(texts, &greedy);
  ASSERT_EQ(translations->count, texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i)
    EXPECT_EQ(std::string(translations->texts[i]), golden_["cases"][i]["greedy_text"].get<std::string>());
}

TEST_F(CApiGenerate, BeamIdsScoresAndTexts) {
  const auto beam = options("beam");
  const auto texts = case_strings(golden_, "text");
  const auto generation = model_.generate(texts, &beam);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto& c = golden_["cases"][i];
    ASSERT_EQ(generation->inputs[i].count, c["beam_ids"].size()) << texts[i];
    for (std::size_t k = 0; k < generation->inputs[i].count; ++k) {
      const invar_hypothesis& h = generation->inputs[i].items[k];
      EXPECT_TRUE(same_ids(h.ids, h.length, c["beam_ids"][k], pad_)) << texts[i] << " hypothesis " << k;
      EXPECT_NEAR(h.score, c["beam_scores"][k].get<double>(), kTolerance);
      EXPECT_EQ(std::string(h.text), c["beam_texts"][k].get<std::string>());
    }
  }
}

TEST_F(CApiGenerate, AnEmptyTextHasNoHypotheses) {
  const auto generation = model_.generate({"", "The cat sat on the mat."});
  EXPECT_EQ(generation->inputs[0].count, 0u);
  EXPECT_GE(generation->inputs[1].count, 1u);
}

// ---- metrics against sacrebleu's goldens ----

// The golden case of `metric` whose settings match `settings`.
json metric_case(const std::string& metric, const json& settings) {
  const auto golden = load_json(fixture("metrics/sacrebleu.json"));
  for (const auto& c : golden["cases"]) {
    if (c["metric"] != metric) continue;
    bool match = true;
    for (const auto& [key, value] : settings.items()) match = match && c[key] == value;
    if (match) return c;
  }
  throw std::runtime_error("no golden case for " + metric + " " + settings.dump());
}

std::vector<std::string> golden_strings(const std::string& key) {
  return load_json(fixture("metrics/sacrebleu.json"))[key].get<std::vector<std::string>>();
}

void expect_scores(const api::Metric& metric, const json& golden, const char* sentence_key) {
  const auto hyps = golden_strings("hyps"), refs = golden_strings("refs");
  const auto corpus = metric.corpus_score(hyps, {refs});
  const json expected_corpus = golden["corpus"].is_object() ? golden["corpus"]["score"] : golden["corpus"];
  EXPECT_TRUE(near_golden(corpus->score, expected_corpus));
  EXPECT_EQ(std::string(corpus->signature), golden["signature"].get<std::string>());
  const auto sentences = metric.sentence_score(hyps, {refs});
  ASSERT_EQ(sentences->count, hyps.size());
  for (std::size_t i = 0; i < hyps.size(); ++i)
    EXPECT_TRUE(near_golden(sentences->scores[i], golden[sentence_key][i])) << "segment " << i;
}

TEST(CApiMetrics, BleuCorpusAndSentenceWithSignature) {
  const auto golden = metric_case("bleu", {{"tokenize", "13a"}, {"smooth_method", "exp"}, {"lowercase", false}});
  const auto bleu = api::Metric::bleu();
  expect_scores(bleu, golden, "sentence_effective_order");
  const auto corpus = bleu.corpus_score(golden_strings("hyps"), {golden_strings("refs")});
  EXPECT_STREQ(corpus->name, "BLEU");
  EXPECT_NE(std::string(corpus->verbose).find("BP = "), std::string::npos) << corpus->verbose;
}

TEST(CApiMetrics, BleuOptionsReachTheMetric) {
  const auto golden = metric_case("bleu", {{"tokenize", "intl"}, {"smooth_method", "floor"}, {"lowercase", true}});
  invar_bleu_options options;
  invar_bleu_options_init(&options);
  options.tokenize = "intl";
  options.smooth = "floor";
  options.lowercase = 1;
  const auto corpus = api::Metric::bleu(&options).corpus_score(golden_strings("hyps"), {golden_strings("refs")});
  EXPECT_TRUE(near_golden(corpus->score, golden["corpus"]["score"]));
  EXPECT_EQ(std::string(corpus->signature), golden["signature"].get<std::string>());
}

TEST(CApiMetrics, ChrfPlusPlus) {
  const auto golden =
      metric_case("chrf", {{"char_order", 6}, {"word_order", 2}, {"beta", 2}, {"whitespace", false}});
  invar_chrf_options options;
  invar_chrf_options_init(&options);
  options.word_order = 2;
  const auto chrf = api::Metric::chrf(&options);
  expect_scores(chrf, golden, "sentence");
  EXPECT_STREQ(chrf.corpus_score({"a"}, {{"a"}})->name, "chrF2++");
}

TEST(CApiMetrics, TerCaseSensitive) {
  const auto golden = metric_case("ter", {{"normalized", false}, {"case_insensitive", false}});
  invar_ter_options options;
  invar_ter_options_init(&options);
  options.case_sensitive = 1;
  expect_scores(api::Metric::ter(&options), golden, "sentence");
}

TEST(CApiMetrics, SeveralReferenceStreamsAndMissingReferences) {
  const auto bleu = api::Metric::bleu();
  const auto one = bleu.corpus_score({"the cat sat", "a dog"}, {{"the cat sat", "a dog ran"}});
  // Two streams, the second without a reference for segment 2: nrefs:var, as sacrebleu says.
  const char* hyps[] = {"the cat sat", "a dog"};
  const char* refs[] = {"the cat sat", "a dog ran", "the cat sat down", nullptr};
  invar_score* score = nullptr;
  ASSERT_EQ(invar_corpus_score(bleu.get(), hyps, 2, refs, 2, &score), INVAR_OK) << invar_last_error();
  EXPECT_NE(std::string(score->signature).find("nrefs:var"), std::string::npos) << score->signature;
  EXPECT_NE(std::string(one->signature).find("nrefs:1"), std::string::npos);
  invar_score_free(score);
}

// ---- file jobs: resume, shards ----

// A model of the fixtures on one thread with batches of one text: chunks of 8 lines.
invar_model* open_for_files(const std::string& folder) {
  invar_model_options options;
  invar_model_options_init(&options);
  options.threads = 1;
  options.batch_size = 1;
  invar_model* model = nullptr;
  EXPECT_EQ(invar_model_open(fixture(folder).c_str(), &options, &model), INVAR_OK) << invar_last_error();
  return model;
}

// 20 lines of the Marian golden's sources, varied so that lengths differ: three chunks.
std::string file_job_input() {
  const auto texts = case_strings(load_json(fixture("core/marian/golden.json")), "text");
  std::string lines;
  for (std::size_t i = 0; i < 20; ++i) lines += texts[i % texts.size()] + std::string(i % 3, '!') + "\n";
  return lines;
}

// Stops the job before its chunk `stop_at` (0-based), counting the calls.
struct StopAt {
  std::size_t stop_at = 0;
  std::size_t calls = 0;
  static int callback(size_t done, size_t total, void* user) {
    auto& self = *static_cast<StopAt*>(user);
    EXPECT_EQ(total, 20u);
    EXPECT_EQ(done, 8 * self.calls);
    return self.calls++ == self.stop_at ? 1 : 0;
  }
};

TEST(CApiFileJobs, AnEmbeddingJobStoppedAndResumedGivesTheBytesOfOneCall) {
  const std::string dir = temp_dir(), input = dir + "/in.txt", whole = dir + "/whole.jsonl", out = dir + "/out.jsonl";
  write_file(input, file_job_input());
  invar_model* model = open_for_files("core/bert-wordpiece");
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(invar_embed_file(model, input.c_str(), whole.c_str(), nullptr), INVAR_OK) << invar_last_error();
  // The command line's bytes, as the header says.
  const auto cli = run_cli({"-q", "embed", "-m", fixture("core/bert-wordpiece"), "-i", input, "-o", dir + "/cli.jsonl",
                            "--batch-size", "1", "--threads", "1"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(read_file(whole), read_file(dir + "/cli.jsonl"));

  invar_run_options run;
  invar_run_options_init(&run);
  StopAt stop{.stop_at = 2};
  run.progress = &StopAt::callback;
  run.user = &stop;
  EXPECT_EQ(invar_embed_file(model, input.c_str(), out.c_str(), &run), INVAR_ERROR_STOPPED);
  EXPECT_NE(std::string(invar_last_error()).find("stopped by the progress callback after 16 of 20 lines"),
            std::string::npos)
      << invar_last_error();
  EXPECT_FALSE(std::filesystem::exists(out));
  ASSERT_TRUE(std::filesystem::exists(out + ".invar-progress"));
  // Resumed: the two finished chunks are taken from the progress file, the third computed.
  StopAt count{.stop_at = 99};
  run.user = &count;
  run.resume = 1;
  ASSERT_EQ(invar_embed_file(model, input.c_str(), out.c_str(), &run), INVAR_OK) << invar_last_error();
  EXPECT_EQ(count.calls, 1u);
  EXPECT_EQ(read_file(out), read_file(whole));
  EXPECT_FALSE(std::filesystem::exists(out + ".invar-progress"));
  invar_model_free(model);
}

TEST(CApiFileJobs, TranslationShardsJoinedGiveTheBytesOfOneCall) {
  const std::string dir = temp_dir(), input = dir + "/in.txt", whole = dir + "/whole.txt";
  write_file(input, file_job_input());
  invar_model* model = open_for_files("core/marian");
  ASSERT_NE(model, nullptr);
  invar_search_options search;
  invar_search_options_init(&search);
  search.num_beams = 2;
  search.max_length = 24;
  ASSERT_EQ(invar_translate_file(model, input.c_str(), whole.c_str(), &search, nullptr), INVAR_OK) << invar_last_error();
  const std::string translated = read_file(whole);
  EXPECT_EQ(std::count(translated.begin(), translated.end(), '\n'), 20);

  std::vector<std::string> parts;
  for (std::size_t k = 2; k-- > 0;) {  // last first: the join takes them in any order
    parts.push_back(dir + "/part" + std::to_string(k));
    invar_run_options run;
    invar_run_options_init(&run);
    run.shard = k;
    run.shards = 2;
    ASSERT_EQ(invar_translate_file(model, input.c_str(), parts.back().c_str(), &search, &run), INVAR_OK)
        << invar_last_error();
  }
  invar_run_options bad;
  invar_run_options_init(&bad);
  bad.shard = 2;
  bad.shards = 2;
  EXPECT_EQ(invar_translate_file(model, input.c_str(), whole.c_str(), &search, &bad), INVAR_ERROR_ARGUMENT);
  EXPECT_EQ(invar_embed_file(model, input.c_str(), whole.c_str(), nullptr), INVAR_ERROR_MODEL_KIND);
  std::vector<const char*> names{parts[0].c_str(), parts[1].c_str()};
  invar_run_options join;
  invar_run_options_init(&join);
  join.parts = names.data();
  join.part_count = 1;
  EXPECT_EQ(invar_translate_file(model, input.c_str(), (dir + "/joined").c_str(), &search, &join), INVAR_ERROR_INPUT);
  EXPECT_NE(std::string(invar_last_error()).find("shard 0/2 is missing"), std::string::npos) << invar_last_error();
  join.part_count = 2;
  // Parts of a job with other settings are refused.
  invar_search_options greedy = search;
  greedy.num_beams = 1;
  EXPECT_EQ(invar_translate_file(model, input.c_str(), (dir + "/joined").c_str(), &greedy, &join), INVAR_ERROR_INPUT);
  EXPECT_NE(std::string(invar_last_error()).find("other input files or options"), std::string::npos)
      << invar_last_error();
  ASSERT_EQ(invar_translate_file(model, input.c_str(), (dir + "/joined").c_str(), &search, &join), INVAR_OK)
      << invar_last_error();
  EXPECT_EQ(read_file(dir + "/joined"), translated);
  // A join that fails after taking the parts leaves nothing behind: the thread's next job computes.
  EXPECT_EQ(invar_translate_file(model, input.c_str(), (dir + "/missing/joined").c_str(), &search, &join),
            INVAR_ERROR_INPUT);
  EXPECT_NE(std::string(invar_last_error()).find("does not exist"), std::string::npos) << invar_last_error();
  invar_run_options first_half;
  invar_run_options_init(&first_half);
  first_half.shards = 2;
  ASSERT_EQ(invar_translate_file(model, input.c_str(), (dir + "/again").c_str(), &search, &first_half), INVAR_OK)
      << invar_last_error();
  EXPECT_EQ(read_file(dir + "/again"), read_file(parts[1]));  // parts[1] is shard 0
  invar_model_free(model);

  // The C++ wrapper: the same job, and a failure as api::Error with the status.
  invar_model_options options;
  invar_model_options_init(&options);
  options.threads = 1;
  options.batch_size = 1;
  api::Model wrapped(fixture("core/marian"), &options);
  wrapped.translate_file(input, dir + "/wrapped", &search);
  EXPECT_EQ(read_file(dir + "/wrapped"), translated);
  try {
    wrapped.embed_file(input, dir + "/never");
    ADD_FAILURE() << "embed_file on a seq2seq model did not throw";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.status(), INVAR_ERROR_MODEL_KIND);
  }
}

}  // namespace
}  // namespace invar::test
