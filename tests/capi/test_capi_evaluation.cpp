// The C API's calls of 0.3 on the fixtures, each against the command line's numbers for the same
// inputs (the CLI runs the same library code, so the values agree exactly): the log callback,
// progress and stop callbacks of the in-memory calls, the truncation counts, hidden states,
// BERTScore and METEOR.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "invar/invar.h"
#include "invar/invar.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

namespace invar::test {
namespace {

using json = nlohmann::json;

struct ModelFree {
  void operator()(invar_model* m) const { invar_model_free(m); }
};
using Model = std::unique_ptr<invar_model, ModelFree>;

Model open_model(const std::string& path, std::size_t batch_size = 32) {
  invar_model_options options;
  invar_model_options_init(&options);
  options.threads = 1;
  options.batch_size = batch_size;
  invar_model* model = nullptr;
  EXPECT_EQ(invar_model_open(path.c_str(), &options, &model), INVAR_OK) << invar_last_error();
  return Model(model);
}

std::vector<const char*> pointers(const std::vector<std::string>& texts) {
  std::vector<const char*> out;
  for (const auto& t : texts) out.push_back(t.c_str());
  return out;
}

std::string write_lines(const std::vector<std::string>& lines) {
  static const std::string dir = temp_dir();
  static int files = 0;
  std::string content;
  for (const auto& line : lines) content += line + "\n";
  const std::string path = fmt::format("{}/{}.txt", dir, files++);
  write_file(path, content);
  return path;
}

CliResult run_ok(const std::vector<std::string>& args, const std::string& input = "") {
  auto result = run_cli(args, input);
  EXPECT_EQ(result.exit_code, 0) << fmt::format("{}", fmt::join(args, " ")) << "\n" << result.err;
  return result;
}

std::vector<json> json_lines(const std::string& out) {
  std::vector<json> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
  return rows;
}

std::string long_text() {
  std::string text;
  for (int i = 0; i < 600; ++i) text += "the cat sat on the mat ";
  return text;
}

// ---- warnings ----

struct Logged {
  std::vector<std::pair<invar_log_level, std::string>> lines;
};

void collect(invar_log_level level, const char* message, void* user) {
  static_cast<Logged*>(user)->lines.emplace_back(level, message);
}

// A config without model_type is read from architectures with a warning (once per file): it goes
// to the callback, without the prefix, and to stderr again once the callback is unset.
TEST(CApiLog, WarningsGoToTheCallbackThenToStderrAgain) {
  const auto without_model_type = [] {
    const std::string dir = model_copy(fixture("core/bert-wordpiece"));
    json config = load_json(dir + "/config.json");
    config.erase("model_type");
    write_file(dir + "/config.json", config.dump());
    return dir;
  };
  Logged logged;
  const std::string first = without_model_type();
  invar_log_set(collect, &logged);
  ::testing::internal::CaptureStderr();
  Model model = open_model(first);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  const std::string said = first + "/config.json: no model_type; read as 'bert' from architectures' BertModel";
  ASSERT_EQ(logged.lines.size(), 1u);
  EXPECT_EQ(logged.lines[0].first, INVAR_LOG_WARNING);
  EXPECT_EQ(logged.lines[0].second, said);

  invar_log_set(nullptr, nullptr);
  const std::string second = without_model_type();
  ::testing::internal::CaptureStderr();
  Model again = open_model(second);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "invar: warning: " + second + "/config.json: no model_type; read as 'bert' from architectures' BertModel\n");
  EXPECT_EQ(logged.lines.size(), 1u);
}

// ---- progress and stop ----

struct Progress {
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  std::size_t stop_at = 0;  // stop once done reaches this (0 = never)
};

int progress(std::size_t done, std::size_t total, void* user) {
  auto* p = static_cast<Progress*>(user);
  p->calls.emplace_back(done, total);
  return p->stop_at != 0 && done >= p->stop_at ? 1 : 0;
}

TEST(CApiProgress, EmbedReportsEachBatchAndStopsWhenAsked) {
  Model model = open_model(fixture("core/bert-wordpiece"), 2);
  const std::vector<std::string> texts{"one", "two words", "three words here", "four", "five five"};
  const auto ptrs = pointers(texts);
  Progress seen;
  ASSERT_EQ(invar_model_set_progress(model.get(), progress, &seen), INVAR_OK);
  invar_embeddings* embeddings = nullptr;
  ASSERT_EQ(invar_embed(model.get(), ptrs.data(), ptrs.size(), &embeddings), INVAR_OK) << invar_last_error();
  invar_embeddings_free(embeddings);
  // Batches of at most 2 (in length order): three calls, the running count, ending at 5 of 5.
  ASSERT_EQ(seen.calls.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(seen.calls[k].second, 5u);
    EXPECT_GT(seen.calls[k].first, k == 0 ? 0 : seen.calls[k - 1].first);
  }
  EXPECT_EQ(seen.calls.back().first, 5u);

  Progress stopping{.stop_at = 1};
  ASSERT_EQ(invar_model_set_progress(model.get(), progress, &stopping), INVAR_OK);
  embeddings = nullptr;
  EXPECT_EQ(invar_embed(model.get(), ptrs.data(), ptrs.size(), &embeddings), INVAR_ERROR_STOPPED);
  EXPECT_EQ(embeddings, nullptr);
  ASSERT_EQ(stopping.calls.size(), 1u);
  EXPECT_EQ(invar_last_error(),
            fmt::format("stopped by the progress callback after {} of 5 inputs", stopping.calls[0].first));

  // Unset: the call runs through.
  ASSERT_EQ(invar_model_set_progress(model.get(), nullptr, nullptr), INVAR_OK);
  ASSERT_EQ(invar_embed(model.get(), ptrs.data(), ptrs.size(), &embeddings), INVAR_OK);
  invar_embeddings_free(embeddings);
  EXPECT_EQ(invar_model_set_progress(nullptr, progress, nullptr), INVAR_ERROR_ARGUMENT);
}

TEST(CApiProgress, TranslateReportsSourcesAndStops) {
  Model model = open_model(fixture("core/marian"), 2);
  const std::vector<std::string> texts{"Hallo Welt.", "Guten Morgen.", "Danke."};
  const auto ptrs = pointers(texts);
  Progress seen;
  ASSERT_EQ(invar_model_set_progress(model.get(), progress, &seen), INVAR_OK);
  invar_texts* out = nullptr;
  ASSERT_EQ(invar_translate(model.get(), ptrs.data(), ptrs.size(), nullptr, &out), INVAR_OK) << invar_last_error();
  invar_texts_free(out);
  ASSERT_FALSE(seen.calls.empty());
  EXPECT_EQ(seen.calls.back(), (std::pair<std::size_t, std::size_t>{3, 3}));
  Progress stopping{.stop_at = 1};
  ASSERT_EQ(invar_model_set_progress(model.get(), progress, &stopping), INVAR_OK);
  out = nullptr;
  EXPECT_EQ(invar_translate(model.get(), ptrs.data(), ptrs.size(), nullptr, &out), INVAR_ERROR_STOPPED);
  EXPECT_EQ(out, nullptr);
}

// ---- truncation ----

// The count `invar embed` warns of: the same texts, the same count.
TEST(CApiTruncation, EmbedAndClassifyCountTheTextsTheyCut) {
  const std::string folder = fixture("core/bert-wordpiece");
  Model model = open_model(folder);
  const std::vector<std::string> texts{"short", long_text(), "also short", long_text() + "x"};
  const auto ptrs = pointers(texts);
  invar_embeddings* embeddings = nullptr;
  ASSERT_EQ(invar_embed(model.get(), ptrs.data(), ptrs.size(), &embeddings), INVAR_OK) << invar_last_error();
  EXPECT_EQ(embeddings->truncated, 2u);
  invar_embeddings_free(embeddings);
  const auto cli = run_ok({"embed", "-m", folder}, fmt::format("{}\n", fmt::join(texts, "\n")));
  EXPECT_NE(cli.err.find("warning: 2 of 4 input lines were longer than"), std::string::npos) << cli.err;

  Model classifier = open_model(fixture("core/distilbert-sst2"));
  invar_classification* classes = nullptr;
  ASSERT_EQ(invar_classify(classifier.get(), ptrs.data(), nullptr, ptrs.size(), &classes), INVAR_OK) << invar_last_error();
  EXPECT_EQ(classes->truncated, 2u);
  invar_classification_free(classes);
}

// ---- hidden states ----

TEST(CApiHidden, StatesAreTheCommandLinesAtEveryLayer) {
  const std::string folder = fixture("core/bert-wordpiece");
  Model model = open_model(folder);
  const std::vector<std::string> texts{"The cat sat on the mat.", "Guten Morgen!", "ok"};
  const auto ptrs = pointers(texts);
  const std::string input = fmt::format("{}\n", fmt::join(texts, "\n"));
  for (const std::int64_t layer : {0, 1, -1}) {
    SCOPED_TRACE(layer);
    invar_hidden* states = nullptr;
    ASSERT_EQ(invar_hidden_states(model.get(), ptrs.data(), ptrs.size(), layer, &states), INVAR_OK) << invar_last_error();
    const auto rows = json_lines(run_ok({"hidden", "-m", folder, "--layer=" + std::to_string(layer)}, input).out);
    ASSERT_EQ(rows.size(), texts.size());
    ASSERT_EQ(states->count, texts.size());
    EXPECT_EQ(states->truncated, 0u);
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const auto& hidden = rows[i]["hidden"];
      ASSERT_EQ(states->lengths[i], hidden.size());
      ASSERT_EQ(states->lengths[i], rows[i]["tokens"].size());
      for (std::size_t t = 0; t < hidden.size(); ++t) {
        ASSERT_EQ(states->width, hidden[t].size());
        for (std::size_t d = 0; d < states->width; ++d)
          ASSERT_FLOAT_EQ(states->values[i][t * states->width + d], hidden[t][d].get<float>()) << i << " " << t << " " << d;
      }
    }
    // The ids are the tokenizer's.
    invar_tokens* tokens = nullptr;
    ASSERT_EQ(invar_tokenize(model.get(), ptrs[0], &tokens), INVAR_OK);
    EXPECT_EQ(std::vector<std::int32_t>(states->ids[0], states->ids[0] + states->lengths[0]),
              std::vector<std::int32_t>(tokens->ids, tokens->ids + tokens->count));
    invar_tokens_free(tokens);
    invar_hidden_free(states);
  }
  invar_hidden* states = nullptr;
  EXPECT_EQ(invar_hidden_states(model.get(), ptrs.data(), ptrs.size(), 3, &states), INVAR_ERROR_ARGUMENT);
  EXPECT_STREQ(invar_last_error(), "layer 3 does not exist: the model has layers 0 (embeddings) to 2");
  EXPECT_EQ(states, nullptr);
  invar_hidden_free(nullptr);
}

// ---- BERTScore ----

struct BertScoresFree {
  void operator()(invar_bertscores* s) const { invar_bertscores_free(s); }
};

TEST(CApiBertScore, ScoresAreTheCommandLinesWithAndWithoutIdfAndRescaling) {
  const std::string folder = fixture("core/bert-wordpiece");
  const json golden = load_json(fixture("stmetrics/bertscore_bert-wordpiece.json"));
  std::vector<std::string> hyps, refs;
  for (const auto& item : golden["runs"][0]["items"]) {
    hyps.push_back(item["cand"].get<std::string>());
    refs.push_back(item["ref"].get<std::string>());
  }
  const auto hyp_ptrs = pointers(hyps), ref_ptrs = pointers(refs);
  const std::string hyp_file = write_lines(hyps), ref_file = write_lines(refs);
  const std::string baseline = fixture("stmetrics/bertscore_baseline_bert-wordpiece.tsv");
  Model model = open_model(folder, 64);
  struct Case {
    std::int64_t layer;
    bool idf;
    bool rescale;
  };
  for (const Case c : {Case{2, false, false}, Case{2, true, false}, Case{1, false, true}}) {
    SCOPED_TRACE(fmt::format("layer {} idf {} rescale {}", c.layer, c.idf, c.rescale));
    invar_bertscore_options options;
    invar_bertscore_options_init(&options);
    options.layer = c.layer;
    options.idf = c.idf;
    options.baseline = c.rescale ? baseline.c_str() : nullptr;
    invar_bertscores* raw = nullptr;
    ASSERT_EQ(invar_bertscore(model.get(), hyp_ptrs.data(), hyps.size(), ref_ptrs.data(), 1, &options, &raw), INVAR_OK)
        << invar_last_error();
    std::unique_ptr<invar_bertscores, BertScoresFree> scores(raw);
    // The fixture has an empty hypothesis: the C API scores it 0, as bert_score and --empty reference do.
    std::vector<std::string> args{"metric", "bertscore", "-m", folder, "-i", hyp_file, "-r", ref_file, "--layer",
                                  std::to_string(c.layer), "--empty", "reference"};
    if (c.idf) args.push_back("--idf");
    if (c.rescale) args.insert(args.end(), {"--baseline", baseline});
    auto sentence_args = args;
    sentence_args.insert(sentence_args.end(), {"--sentence", "--json"});
    const auto rows = json_lines(run_ok(sentence_args).out);
    ASSERT_EQ(rows.size(), hyps.size());
    ASSERT_EQ(scores->count, hyps.size());
    for (std::size_t i = 0; i < hyps.size(); ++i) {
      EXPECT_FLOAT_EQ(scores->precision[i], rows[i]["P"].get<float>()) << i;
      EXPECT_FLOAT_EQ(scores->recall[i], rows[i]["R"].get<float>()) << i;
      EXPECT_FLOAT_EQ(scores->f1[i], rows[i]["F"].get<float>()) << i;
    }
    args.push_back("--json");
    const auto summary = json::parse(run_ok(args).out);
    EXPECT_FLOAT_EQ(scores->mean[0], summary["P"].get<float>());
    EXPECT_FLOAT_EQ(scores->mean[1], summary["R"].get<float>());
    EXPECT_FLOAT_EQ(scores->mean[2], summary["F"].get<float>());
    EXPECT_EQ(scores->hash, summary["hash"].get<std::string>());
    EXPECT_EQ(scores->layer, c.layer);
    EXPECT_EQ(scores->truncated, 0u);
  }
  // The golden of the first run (layer 2, no idf): bert_score's own values and hash.
  invar_bertscore_options options;
  invar_bertscore_options_init(&options);
  options.layer = 2;
  invar_bertscores* raw = nullptr;
  ASSERT_EQ(invar_bertscore(model.get(), hyp_ptrs.data(), hyps.size(), ref_ptrs.data(), 1, &options, &raw), INVAR_OK);
  std::unique_ptr<invar_bertscores, BertScoresFree> scores(raw);
  EXPECT_EQ(scores->hash, golden["runs"][0]["hash"].get<std::string>());
  for (std::size_t i = 0; i < hyps.size(); ++i)
    EXPECT_NEAR(scores->f1[i], golden["runs"][0]["items"][i]["F"].get<double>(), 1e-5) << i;
}

TEST(CApiBertScore, RefusesWhatTheCommandLineRefuses) {
  Model model = open_model(fixture("core/bert-wordpiece"));
  const char* hyp[] = {"a cat"};
  const char* ref[] = {"the cat"};
  invar_bertscores* scores = nullptr;
  // bert-wordpiece is not in bert_score's table of default layers: the layer must be given.
  EXPECT_EQ(invar_bertscore(model.get(), hyp, 1, ref, 1, nullptr, &scores), INVAR_ERROR_INPUT);
  EXPECT_NE(std::string(invar_last_error()).find("is not in bert_score's table of default layers"), std::string::npos)
      << invar_last_error();
  EXPECT_EQ(scores, nullptr);
  invar_bertscore_options options;
  invar_bertscore_options_init(&options);
  options.layer = 7;
  EXPECT_NE(invar_bertscore(model.get(), hyp, 1, ref, 1, &options, &scores), INVAR_OK);
  options.layer = 1;
  const char* missing[] = {nullptr};
  EXPECT_EQ(invar_bertscore(model.get(), hyp, 1, missing, 1, &options, &scores), INVAR_ERROR_ARGUMENT);
  EXPECT_STREQ(invar_last_error(), "hypotheses[0] has no reference");
  Model marian = open_model(fixture("core/marian"));
  EXPECT_EQ(invar_bertscore(marian.get(), hyp, 1, ref, 1, &options, &scores), INVAR_ERROR_MODEL_KIND);
}

// ---- METEOR ----

TEST(CApiMeteor, ScoresAreTheCommandLinesForBothNltkVersions) {
  const json records = load_json(fixture("stmetrics/meteor.json"))["records"];
  std::vector<std::string> hyps, refs;
  for (const auto& r : records) {
    const auto hyp = r["hyp"].get<std::string>();
    if (r["refs"].size() != 1 || hyp.find_first_not_of(" \t") == std::string::npos || hyp.find('\n') != std::string::npos)
      continue;
    hyps.push_back(hyp);
    refs.push_back(r["refs"][0].get<std::string>());
  }
  ASSERT_GT(hyps.size(), 30u);
  const auto hyp_ptrs = pointers(hyps), ref_ptrs = pointers(refs);
  const std::string hyp_file = write_lines(hyps), ref_file = write_lines(refs);
  for (const std::string version : {"3.8", "3.6.2"}) {
    SCOPED_TRACE(version);
    invar_meteor_options options;
    invar_meteor_options_init(&options);
    options.nltk = version.c_str();
    invar_metric* metric = nullptr;
    ASSERT_EQ(invar_metric_meteor(&options, &metric), INVAR_OK) << invar_last_error();
    invar_sentence_scores* sentences = nullptr;
    ASSERT_EQ(invar_sentence_score(metric, hyp_ptrs.data(), hyps.size(), ref_ptrs.data(), 1, &sentences), INVAR_OK);
    const std::vector<std::string> args{"metric", "meteor", "-i", hyp_file, "-r", ref_file, "--nltk", version};
    auto sentence_args = args;
    sentence_args.insert(sentence_args.end(), {"--sentence", "--json"});
    const auto rows = json_lines(run_ok(sentence_args).out);
    ASSERT_EQ(rows.size(), sentences->count);
    for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(sentences->scores[i], rows[i]["score"].get<double>()) << i;
    invar_score* corpus = nullptr;
    ASSERT_EQ(invar_corpus_score(metric, hyp_ptrs.data(), hyps.size(), ref_ptrs.data(), 1, &corpus), INVAR_OK);
    auto json_args = args;
    json_args.push_back("--json");
    const auto summary = json::parse(run_ok(json_args).out);
    EXPECT_STREQ(corpus->name, "METEOR");
    EXPECT_DOUBLE_EQ(corpus->score, summary["score"].get<double>());
    EXPECT_EQ(corpus->signature, summary["signature"].get<std::string>());
    EXPECT_EQ(sentences->signature, summary["signature"].get<std::string>());
    EXPECT_EQ(corpus->verbose, fmt::format("mean of {} segments", hyps.size()));
    invar_score_free(corpus);
    invar_sentence_scores_free(sentences);
    invar_metric_free(metric);
  }
}

TEST(CApiMeteor, RefusesAnUnknownVersionAndAMissingWordNet) {
  invar_meteor_options options;
  invar_meteor_options_init(&options);
  options.nltk = "3.7";
  invar_metric* metric = nullptr;
  EXPECT_EQ(invar_metric_meteor(&options, &metric), INVAR_ERROR_ARGUMENT);
  EXPECT_STREQ(invar_last_error(), "nltk must be \"3.8\" or \"3.6.2\", got \"3.7\"");
  EXPECT_EQ(metric, nullptr);
  invar_meteor_options_init(&options);
  const std::string nowhere = temp_dir() + "/no-wordnet";
  options.wordnet = nowhere.c_str();
  EXPECT_EQ(invar_metric_meteor(&options, &metric), INVAR_ERROR_INPUT);
  EXPECT_NE(std::string(invar_last_error()).find(nowhere), std::string::npos) << invar_last_error();
  EXPECT_EQ(metric, nullptr);
}

// ---- the C++ wrapper ----

int stop_at_once(std::size_t, std::size_t, void*) { return 1; }

TEST(CApiWrapper, NewCallsOwnTheirResultsAndThrowTheirStatus) {
  invar_model_options options;
  invar_model_options_init(&options);
  options.threads = 1;
  api::Model model(fixture("core/bert-wordpiece"), &options);
  const auto states = model.hidden_states({"ok", "the cat"}, 1);
  EXPECT_EQ(states->count, 2u);
  EXPECT_EQ(states->lengths[0], 4u);  // [CLS] o ##k [SEP]
  invar_bertscore_options bs;
  invar_bertscore_options_init(&bs);
  bs.layer = 2;
  const auto scores = model.bertscore({"a cat", "the dog"}, {{"the cat", "a dog"}}, &bs);
  EXPECT_EQ(scores->count, 2u);
  EXPECT_THROW(model.bertscore({"a cat"}, {{"x", "y"}}, &bs), std::invalid_argument);
  model.set_progress(stop_at_once);
  try {
    model.embed({"one", "two"});
    ADD_FAILURE() << "not stopped";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.status(), INVAR_ERROR_STOPPED);
  }
  const auto meteor = api::Metric::meteor().corpus_score({"the cat sat"}, {{"the cat sat"}});
  EXPECT_STREQ(meteor->name, "METEOR");
  EXPECT_GT(meteor->score, 0.9);
}

}  // namespace
}  // namespace invar::test
