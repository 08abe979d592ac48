// Every error path of the C API (include/invar/invar.h): NULL arguments, a bad path, the wrong kind
// of model for a call, options out of range, input the library refuses. Each returns its status,
// leaves the output NULL, and puts the message — the one the command line prints — in
// invar_last_error(); nothing throws across the boundary and nothing leaks (the sanitizer run).
#include <gtest/gtest.h>

#include <cmath>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "capi/guard.hpp"
#include "core/error.hpp"
#include "invar/invar.h"
#include "invar/invar.hpp"
#include "support/test_support.hpp"

namespace invar::test {
namespace {

// `status` and a last error that contains `message`.
::testing::AssertionResult fails(invar_status status, invar_status expected, const std::string& message) {
  if (status != expected)
    return ::testing::AssertionFailure() << "status " << status << ", expected " << expected << " ("
                                         << invar_last_error() << ")";
  if (std::string(invar_last_error()).find(message) == std::string::npos)
    return ::testing::AssertionFailure() << "message '" << invar_last_error() << "' lacks '" << message << "'";
  return ::testing::AssertionSuccess();
}

invar_model_options one_thread() {
  invar_model_options options;
  invar_model_options_init(&options);
  options.threads = 1;
  return options;
}

api::Model open(const std::string& folder) {
  const auto options = one_thread();
  return api::Model(fixture(folder), &options);
}

const char* const kTexts[] = {"The cat sat on the mat.", "A second text."};

// The boundary tells refused input from invar's own bugs: a broken invariant (fail_internal, a
// std::logic_error) or an exception of no known kind is INVAR_ERROR_INTERNAL, never INVAR_ERROR_INPUT.
TEST(CApiErrors, EachKindOfFailureHasItsOwnStatus) {
  using capi::guarded;
  EXPECT_TRUE(fails(guarded([] { fail("in.tsv:3: empty text"); }), INVAR_ERROR_INPUT, "in.tsv:3: empty text"));
  EXPECT_TRUE(fails(guarded([] { fail_internal("no weight named {}", "pooler.dense.weight"); }), INVAR_ERROR_INTERNAL,
                    "internal: no weight named pooler.dense.weight"));
  EXPECT_TRUE(fails(guarded([] { throw std::logic_error("vector::_M_range_check"); }), INVAR_ERROR_INTERNAL,
                    "vector::_M_range_check"));
  EXPECT_TRUE(fails(guarded([] { throw std::bad_alloc(); }), INVAR_ERROR_MEMORY, "out of memory"));
  EXPECT_TRUE(fails(guarded([] { throw 42; }), INVAR_ERROR_INTERNAL, "unknown exception"));
  EXPECT_EQ(guarded([] {}), INVAR_OK);
}

TEST(CApiErrors, OpenWithNullArguments) {
  invar_model* model = reinterpret_cast<invar_model*>(0x1);
  EXPECT_TRUE(fails(invar_model_open(nullptr, nullptr, &model), INVAR_ERROR_ARGUMENT, "path is NULL"));
  EXPECT_EQ(model, nullptr);
  EXPECT_TRUE(fails(invar_model_open(fixture("core/bert-wordpiece").c_str(), nullptr, nullptr), INVAR_ERROR_ARGUMENT,
                    "model is NULL"));
}

TEST(CApiErrors, OpenABadPathNamesIt) {
  invar_model* model = nullptr;
  EXPECT_TRUE(fails(invar_model_open("/nonexistent/model", nullptr, &model), INVAR_ERROR_INPUT, "/nonexistent/model"));
  EXPECT_EQ(model, nullptr);
  // A folder that is no model: the message names the file missing, as the CLI's does.
  EXPECT_TRUE(fails(invar_model_open(fixture("metrics").c_str(), nullptr, &model), INVAR_ERROR_INPUT, "metrics"));
  EXPECT_EQ(model, nullptr);
}

TEST(CApiErrors, MessagesAreTheCommandLines) {
  // The CLI prints "invar: error: MESSAGE" for the same failure.
  for (const std::string& path : std::vector<std::string>{"/nonexistent/model", fixture("metrics")}) {
    invar_model* model = nullptr;
    ASSERT_NE(invar_model_open(path.c_str(), nullptr, &model), INVAR_OK);
    const auto cli = run_cli({"embed", "-m", path}, "a text\n");
    EXPECT_EQ(cli.err, "invar: error: " + std::string(invar_last_error()) + "\n");
  }
}

TEST(CApiErrors, OpenWithBadOptions) {
  invar_model* model = nullptr;
  const std::string path = fixture("core/bert-wordpiece");
  auto options = one_thread();
  options.threads = -1;
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_ARGUMENT, "threads"));
  // Bounded as --threads is: a million threads is refused before the system is asked for one.
  options.threads = 1000000;
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_ARGUMENT,
                    "threads must be 0 (every core) to 1024, got 1000000"));
  EXPECT_EQ(model, nullptr);
  options = one_thread();
  options.batch_size = 0;
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_ARGUMENT, "batch_size"));
  options = one_thread();
  options.weights = 7;
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_ARGUMENT, "weights"));
  options = one_thread();
  options.tokenizer = 7;
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_ARGUMENT, "tokenizer"));
  options = one_thread();
  options.linear = 7;
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_ARGUMENT,
                    "linear must be INVAR_LINEAR_ONEDNN or INVAR_LINEAR_OPENBLAS, got 7"));
  options = one_thread();
  options.linear = INVAR_LINEAR_OPENBLAS;
  options.weights = INVAR_WEIGHTS_INT8;
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_INPUT,
                    "int8 weights run on oneDNN only"));
  options = one_thread();
  options.tokenizer = INVAR_TOKENIZER_JSON;  // the folder has only the slow files
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_INPUT,
                    "missing tokenizer file tokenizer.json"));
  options = one_thread();
  options.device = "quantum";
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_INPUT, "unknown device \"quantum\""));
  options = one_thread();
  options.target_language = "de";
  EXPECT_TRUE(fails(invar_model_open(path.c_str(), &options, &model), INVAR_ERROR_ARGUMENT, "seq2seq models"));
  // f16 weights are an OpenCL device's: the CPU backend refuses them.
  options = one_thread();
  options.weights = INVAR_WEIGHTS_F16;
  EXPECT_NE(invar_model_open(path.c_str(), &options, &model), INVAR_OK);
  EXPECT_EQ(model, nullptr);
}

TEST(CApiErrors, UnknownLanguageOfASeq2SeqModel) {
  invar_model* model = nullptr;
  auto options = one_thread();
  options.target_language = "xx";
  EXPECT_NE(invar_model_open(fixture("core/marian").c_str(), &options, &model), INVAR_OK);
  EXPECT_NE(std::string(invar_last_error()), "");
  EXPECT_EQ(model, nullptr);
}

TEST(CApiErrors, WrongKindOfModel) {
  auto marian = open("core/marian");
  auto bert = open("core/bert-wordpiece");
  auto pair_classifier = open("core/bert-pair-cls");
  invar_embeddings* embeddings = nullptr;
  EXPECT_TRUE(fails(invar_embed(marian.get(), kTexts, 2, &embeddings), INVAR_ERROR_MODEL_KIND, "embed needs an encoder"));
  EXPECT_EQ(embeddings, nullptr);
  invar_texts* texts = nullptr;
  EXPECT_TRUE(fails(invar_translate(bert.get(), kTexts, 2, nullptr, &texts), INVAR_ERROR_MODEL_KIND,
                    "translate needs a seq2seq model"));
  EXPECT_EQ(texts, nullptr);
  invar_generation* generation = nullptr;
  EXPECT_TRUE(fails(invar_generate(bert.get(), kTexts, 2, nullptr, &generation), INVAR_ERROR_MODEL_KIND,
                    "generate needs a seq2seq model"));
  invar_classification* classification = nullptr;
  EXPECT_EQ(invar_classify(bert.get(), kTexts, nullptr, 2, &classification), INVAR_ERROR_MODEL_KIND);
  EXPECT_EQ(classification, nullptr);
  invar_pll* pll = nullptr;
  EXPECT_EQ(invar_pseudo_log_likelihood(pair_classifier.get(), kTexts[0], &pll), INVAR_ERROR_MODEL_KIND);
  EXPECT_EQ(pll, nullptr);
  EXPECT_EQ(invar_pseudo_log_likelihood(marian.get(), kTexts[0], &pll), INVAR_ERROR_MODEL_KIND);
}

TEST(CApiErrors, NullModelTextsAndOutputs) {
  auto bert = open("core/bert-wordpiece");
  const char* const with_null[] = {"a text", nullptr};
  invar_embeddings* embeddings = nullptr;
  EXPECT_TRUE(fails(invar_embed(nullptr, kTexts, 2, &embeddings), INVAR_ERROR_ARGUMENT, "model is NULL"));
  EXPECT_TRUE(fails(invar_embed(bert.get(), nullptr, 2, &embeddings), INVAR_ERROR_ARGUMENT, "texts is NULL"));
  EXPECT_TRUE(fails(invar_embed(bert.get(), with_null, 2, &embeddings), INVAR_ERROR_ARGUMENT, "texts[1] is NULL"));
  EXPECT_TRUE(fails(invar_embed(bert.get(), kTexts, 2, nullptr), INVAR_ERROR_ARGUMENT, "embeddings is NULL"));
  EXPECT_EQ(embeddings, nullptr);
  invar_tokens* tokens = nullptr;
  EXPECT_TRUE(fails(invar_tokenize(nullptr, "x", &tokens), INVAR_ERROR_ARGUMENT, "model is NULL"));
  EXPECT_TRUE(fails(invar_tokenize(bert.get(), nullptr, &tokens), INVAR_ERROR_ARGUMENT, "text is NULL"));
  EXPECT_TRUE(fails(invar_tokenize(bert.get(), "x", nullptr), INVAR_ERROR_ARGUMENT, "tokens is NULL"));
  invar_classification* classification = nullptr;
  EXPECT_TRUE(fails(invar_classify(nullptr, kTexts, nullptr, 2, &classification), INVAR_ERROR_ARGUMENT, "model"));
  auto classifier = open("core/bert-pair-cls");
  EXPECT_TRUE(fails(invar_classify(classifier.get(), kTexts, with_null, 2, &classification), INVAR_ERROR_ARGUMENT,
                    "second_texts[1] is NULL"));
  invar_pll* pll = nullptr;
  EXPECT_TRUE(fails(invar_pseudo_log_likelihood(nullptr, "x", &pll), INVAR_ERROR_ARGUMENT, "model is NULL"));
  invar_texts* texts = nullptr;
  EXPECT_TRUE(fails(invar_translate(nullptr, kTexts, 2, nullptr, &texts), INVAR_ERROR_ARGUMENT, "model is NULL"));
  invar_generation* generation = nullptr;
  EXPECT_TRUE(fails(invar_generate(nullptr, kTexts, 2, nullptr, &generation), INVAR_ERROR_ARGUMENT, "model is NULL"));
  invar_model_kind kind;
  EXPECT_TRUE(fails(invar_model_kind_of(nullptr, &kind), INVAR_ERROR_ARGUMENT, "model is NULL"));
  EXPECT_TRUE(fails(invar_model_kind_of(bert.get(), nullptr), INVAR_ERROR_ARGUMENT, "kind is NULL"));
}

TEST(CApiErrors, BadSearchOptions) {
  auto marian = open("core/marian");
  struct Case {
    void (*set)(invar_search_options&);
    const char* message;
  };
  const Case cases[] = {
      {[](invar_search_options& o) { o.num_beams = 0; }, "num_beams"},
      {[](invar_search_options& o) { o.early_stopping = 2; }, "early_stopping"},
      {[](invar_search_options& o) { o.encoder_no_repeat_ngram_size = -2; }, "encoder_no_repeat_ngram_size"},
      {[](invar_search_options& o) {
         o.do_sample = 1;
         o.top_p = 2.0;
       },
       "top_p"},
      {[](invar_search_options& o) {
         o.num_beams = 1;
         o.num_return_sequences = 3;
       },
       "num_return_sequences"},
      {[](invar_search_options& o) {
         o.do_sample = 1;
         o.num_beams = 4;
       },
       "beam"},
  };
  for (const Case& c : cases) {
    invar_search_options options;
    invar_search_options_init(&options);
    c.set(options);
    invar_generation* generation = nullptr;
    EXPECT_TRUE(fails(invar_generate(marian.get(), kTexts, 2, &options, &generation), INVAR_ERROR_ARGUMENT, c.message));
    EXPECT_EQ(generation, nullptr);
  }
}

TEST(CApiErrors, OverLongSourceFailsUnlessTruncated) {
  auto marian = open("core/marian");
  std::string long_text;
  for (int i = 0; i < 400; ++i) long_text += "word ";
  const char* texts[] = {kTexts[0], long_text.c_str()};
  invar_generation* generation = nullptr;
  invar_search_options options;
  invar_search_options_init(&options);
  options.max_new_tokens = 4;
  EXPECT_TRUE(fails(invar_generate(marian.get(), texts, 2, &options, &generation), INVAR_ERROR_INPUT, "texts[1]"));
  options.truncate = 1;
  ASSERT_EQ(invar_generate(marian.get(), texts, 2, &options, &generation), INVAR_OK) << invar_last_error();
  EXPECT_EQ(generation->truncated, 1u);
  invar_generation_free(generation);
}

TEST(CApiErrors, BadMetricOptions) {
  invar_metric* metric = nullptr;
  invar_bleu_options bleu;
  invar_bleu_options_init(&bleu);
  bleu.tokenize = "13b";
  EXPECT_TRUE(fails(invar_metric_bleu(&bleu, &metric), INVAR_ERROR_ARGUMENT, "'13b'"));
  invar_bleu_options_init(&bleu);
  bleu.smooth = "tropical";
  EXPECT_TRUE(fails(invar_metric_bleu(&bleu, &metric), INVAR_ERROR_ARGUMENT, "'tropical'"));
  invar_bleu_options_init(&bleu);
  bleu.max_ngram_order = 0;
  EXPECT_TRUE(fails(invar_metric_bleu(&bleu, &metric), INVAR_ERROR_ARGUMENT, "max_ngram_order"));
  invar_chrf_options chrf;
  invar_chrf_options_init(&chrf);
  chrf.char_order = 0;
  chrf.word_order = 0;
  EXPECT_TRUE(fails(invar_metric_chrf(&chrf, &metric), INVAR_ERROR_ARGUMENT, "orders"));
  EXPECT_EQ(metric, nullptr);
  EXPECT_TRUE(fails(invar_metric_ter(nullptr, nullptr), INVAR_ERROR_ARGUMENT, "metric is NULL"));
}

TEST(CApiErrors, BadMetricInputs) {
  const auto ter = api::Metric::ter();
  const char* const refs[] = {"a reference", "another"};
  invar_score* score = nullptr;
  EXPECT_TRUE(fails(invar_corpus_score(nullptr, kTexts, 2, refs, 1, &score), INVAR_ERROR_ARGUMENT, "metric is NULL"));
  EXPECT_TRUE(fails(invar_corpus_score(ter.get(), nullptr, 2, refs, 1, &score), INVAR_ERROR_ARGUMENT, "hypotheses"));
  EXPECT_TRUE(fails(invar_corpus_score(ter.get(), kTexts, 2, nullptr, 1, &score), INVAR_ERROR_ARGUMENT, "references"));
  EXPECT_TRUE(fails(invar_corpus_score(ter.get(), kTexts, 2, refs, 0, &score), INVAR_ERROR_ARGUMENT,
                    "num_references"));
  EXPECT_TRUE(fails(invar_corpus_score(ter.get(), kTexts, 2, refs, 1, nullptr), INVAR_ERROR_ARGUMENT, "score is NULL"));
  // A segment without any reference, and a corpus without segments, as the metrics refuse them.
  const char* const missing[] = {"a reference", nullptr};
  EXPECT_TRUE(fails(invar_corpus_score(ter.get(), kTexts, 2, missing, 1, &score), INVAR_ERROR_INPUT, "segment 2"));
  EXPECT_TRUE(fails(invar_corpus_score(ter.get(), kTexts, 0, refs, 1, &score), INVAR_ERROR_INPUT, "no segments"));
  EXPECT_EQ(score, nullptr);
  invar_sentence_scores* scores = nullptr;
  EXPECT_TRUE(fails(invar_sentence_score(ter.get(), kTexts, 2, refs, 1, nullptr), INVAR_ERROR_ARGUMENT, "scores"));
  EXPECT_TRUE(fails(invar_sentence_score(ter.get(), kTexts, 2, missing, 1, &scores), INVAR_ERROR_INPUT, "segment 2"));
  EXPECT_EQ(scores, nullptr);
}

TEST(CApiErrors, FreeFunctionsTakeNull) {
  invar_model_free(nullptr);
  invar_tokens_free(nullptr);
  invar_embeddings_free(nullptr);
  invar_classification_free(nullptr);
  invar_pll_free(nullptr);
  invar_generation_free(nullptr);
  invar_texts_free(nullptr);
  invar_metric_free(nullptr);
  invar_score_free(nullptr);
  invar_sentence_scores_free(nullptr);
  invar_model_options_init(nullptr);
  invar_search_options_init(nullptr);
  invar_bleu_options_init(nullptr);
  invar_chrf_options_init(nullptr);
  invar_ter_options_init(nullptr);
}

TEST(CApiErrors, LastErrorIsPerThread) {
  invar_model* model = nullptr;
  ASSERT_NE(invar_model_open("/nonexistent/here", nullptr, &model), INVAR_OK);
  const std::string mine = invar_last_error();
  std::string theirs;
  std::thread other([&] {
    theirs = invar_last_error();  // nothing failed on this thread yet
    invar_model_open("/nonexistent/there", nullptr, &model);
  });
  other.join();
  EXPECT_EQ(theirs, "");
  EXPECT_EQ(std::string(invar_last_error()), mine);
}

TEST(CApiErrors, MessagesAreOneLine) {
  // A path holding a line break is quoted with it escaped, as the command line prints it.
  invar_model* model = nullptr;
  ASSERT_NE(invar_model_open("/nonexistent/a\nb", nullptr, &model), INVAR_OK);
  EXPECT_EQ(std::string(invar_last_error()).find('\n'), std::string::npos) << invar_last_error();
  EXPECT_NE(std::string(invar_last_error()).find("a\\nb"), std::string::npos) << invar_last_error();
}

TEST(CApiErrors, TheCppWrapperThrowsTheStatus) {
  try {
    api::Model model("/nonexistent/model");
    FAIL() << "opened a model that does not exist";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.status(), INVAR_ERROR_INPUT);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model"), std::string::npos);
  }
}

}  // namespace
}  // namespace invar::test
