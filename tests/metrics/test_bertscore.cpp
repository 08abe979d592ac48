// BERTScore against bert_score v0.3.13's goldens (tests/fixtures/stmetrics/bertscore_*.json, README
// in ../shared/fixtures/stmetrics): every config and set, with the README's tolerances — token ids
// and idf keys exact, idf values 1e-12 relative, raw P/R/F 2e-5, rescaled 2e-5/(1−b), empty
// sentences 0 exactly (rescaled −b/(1−b) to 1e-6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "eval/metrics/bertscore/bertscore.hpp"
#include "backends/cpu/backend.hpp"
#include "backends/registry.hpp"
#include "support/golden.hpp"
#include "support/opencl_support.hpp"
#include "support/test_support.hpp"

using namespace invar;
using nlohmann::json;

namespace {

constexpr double kRawTolerance = 2e-5;

std::string golden_path(const std::string& model) { return test::fixture("stmetrics/bertscore_" + model + ".json"); }
std::string baseline_path(const std::string& model) {
  return test::fixture("stmetrics/bertscore_baseline_" + model + ".tsv");
}

// A fixture model on the CPU backend behind a TextEncoder.
struct Model {
  std::unique_ptr<ModelSource> source;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<TextEncoder> encoder;

  explicit Model(const std::string& name)
      : source(ModelSource::open(test::fixture("core/" + name))),
        backend(make_cpu_backend({.threads = 1})),
        encoder(std::make_unique<TextEncoder>(*source, *backend)) {}
};

metrics::BertScoreOptions options_of(const json& settings) {
  metrics::BertScoreOptions o;
  o.layer = settings["num_layers"].get<std::int64_t>();
  o.idf = settings["idf"].get<bool>();
  o.batch_size = settings["batch_size"].get<std::size_t>();
  if (settings["model_max_length"].is_number()) o.max_length = settings["model_max_length"].get<std::size_t>();
  return o;
}

struct Inputs {
  std::vector<std::string> hyps;
  std::vector<std::vector<std::string>> refs;
};

Inputs inputs_of(const json& run) {
  Inputs in;
  for (const auto& item : run["items"]) {
    in.hyps.push_back(item["cand"].get<std::string>());
    in.refs.push_back(item.contains("refs") ? item["refs"].get<std::vector<std::string>>()
                                            : std::vector<std::string>{item["ref"].get<std::string>()});
  }
  return in;
}

bool is_blank_text(const std::string& text) { return text.find_first_not_of(" \t\n") == std::string::npos; }

class BertScoreGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(BertScoreGolden, EveryRunMatchesBertScore) {
  const std::string name = GetParam();
  const json golden = test::load_json(golden_path(name));
  Model model(name);
  ASSERT_EQ(golden["runs"].size(), 14u);
  for (const auto& run : golden["runs"]) {
    SCOPED_TRACE(run["config"].get<std::string>() + " / " + run["set"].get<std::string>());
    const json& settings = run["settings"];
    metrics::BertScorer scorer(*model.encoder, options_of(settings));
    const Inputs in = inputs_of(run);
    auto scores = scorer.score(in.hyps, in.refs);
    ASSERT_EQ(scores.size(), run["items"].size());

    const bool rescaled = settings["rescale_with_baseline"].get<bool>();
    std::optional<metrics::BertScoreBaseline> baseline;
    if (rescaled) {
      baseline = metrics::read_bertscore_baseline(baseline_path(name), options_of(settings).layer);
      const auto& row = run["baseline_row_used"];
      EXPECT_EQ(baseline->layer, row[0].get<std::int64_t>());
      EXPECT_EQ(baseline->precision, static_cast<float>(row[1].get<double>()));
      EXPECT_EQ(baseline->recall, static_cast<float>(row[2].get<double>()));
      EXPECT_EQ(baseline->f1, static_cast<float>(row[3].get<double>()));
      for (auto& s : scores) s = metrics::rescale(s, *baseline);
    }
    EXPECT_EQ(metrics::bertscore_hash(name, options_of(settings).layer, options_of(settings).idf, rescaled),
              run["hash"].get<std::string>());

    for (std::size_t i = 0; i < scores.size(); ++i) {
      const json& item = run["items"][i];
      SCOPED_TRACE("item " + std::to_string(i) + ": " + item["cand"].get<std::string>());
      const double values[] = {scores[i].precision, scores[i].recall, scores[i].f1};
      const double b[] = {baseline ? baseline->precision : 0.0, baseline ? baseline->recall : 0.0,
                          baseline ? baseline->f1 : 0.0};
      const char* keys[] = {"P", "R", "F"};
      for (int k = 0; k < 3; ++k) {
        const double expected = item[keys[k]].get<double>();
        if (is_blank_text(item["cand"].get<std::string>())) {
          // Empty candidate: exactly 0, or −b/(1−b) after rescaling.
          EXPECT_NEAR(values[k], -b[k] / (1 - b[k]), baseline ? 1e-6 : 0.0) << keys[k];
          EXPECT_NEAR(expected, -b[k] / (1 - b[k]), 1e-6) << keys[k];
        } else {
          EXPECT_NEAR(values[k], expected, kRawTolerance / (1 - b[k])) << keys[k];
        }
      }
    }
  }
}

TEST_P(BertScoreGolden, SentEncodeGivesBertScoresTokens) {
  const std::string name = GetParam();
  const json golden = test::load_json(golden_path(name));
  Model model(name);
  for (const auto& run : golden["runs"]) {
    SCOPED_TRACE(run["config"].get<std::string>());
    metrics::BertScorer scorer(*model.encoder, options_of(run["settings"]));
    for (const auto& [text, expected] : run["tokenization"].items()) {
      const Encoding e = scorer.encode(text);
      EXPECT_EQ(e.ids, expected["ids"].get<std::vector<std::int32_t>>()) << text;
      EXPECT_EQ(e.tokens, expected["tokens"].get<std::vector<std::string>>()) << text;
    }
  }
}

TEST_P(BertScoreGolden, IdfFromReferencesAsBertScore) {
  const std::string name = GetParam();
  const json golden = test::load_json(golden_path(name));
  Model model(name);
  int checked = 0;
  for (const auto& run : golden["runs"]) {
    if (!run.contains("idf")) continue;
    SCOPED_TRACE(run["config"].get<std::string>() + " / " + run["set"].get<std::string>());
    metrics::BertScorer scorer(*model.encoder, options_of(run["settings"]));
    const Inputs in = inputs_of(run);
    scorer.score(in.hyps, in.refs);
    const auto& weights = scorer.weights();
    const json& idf = run["idf"];
    EXPECT_EQ(weights.documents(), idf["n_docs"].get<std::size_t>());
    EXPECT_TRUE(test::near_golden(weights.default_weight(), idf["default_for_unseen_ids"], 1e-12));
    ASSERT_EQ(weights.table().size(), idf["by_token_id"].size());
    for (const auto& [id, value] : idf["by_token_id"].items()) {
      const auto it = weights.table().find(std::stoi(id));
      ASSERT_NE(it, weights.table().end()) << "id " << id;
      EXPECT_TRUE(test::near_golden(it->second, value, 1e-12)) << "id " << id;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4);  // L2_idf and L2_idf_rescale_bs3, both sets
}

INSTANTIATE_TEST_SUITE_P(Models, BertScoreGolden, ::testing::Values("bert-wordpiece", "xlmr"),
                         [](const auto& info) { return test::param_name(info.param); });

TEST(BertScore, IdenticalSentencesScoreOne) {
  Model model("xlmr");
  metrics::BertScorer scorer(*model.encoder, {.layer = 2});
  const auto s = scorer.score({"Ein kleiner Test.", "Another one"}, {{"Ein kleiner Test."}, {"Another one"}});
  for (const auto& x : s) {
    EXPECT_NEAR(x.precision, 1.0, 1e-6);
    EXPECT_NEAR(x.recall, 1.0, 1e-6);
    EXPECT_NEAR(x.f1, 1.0, 1e-6);
  }
}

TEST(BertScore, MultipleReferencesMaxEachScoreIndependently) {
  Model model("bert-wordpiece");
  // A longer reference holding the hypothesis gives the best precision, a fragment of it the best recall.
  const std::string hyp = "The cat sat on the mat.";
  const std::vector<std::string> refs = {"The cat sat on the mat and the dog ate a bone.", "the cat"};
  metrics::BertScorer scorer(*model.encoder, {.layer = 2});
  const auto both = scorer.score({hyp}, {refs});
  const auto first = scorer.score({hyp}, {{refs[0]}});
  const auto second = scorer.score({hyp}, {{refs[1]}});
  ASSERT_GT(first[0].precision, second[0].precision);
  ASSERT_GT(second[0].recall, first[0].recall);
  // Other batch compositions change the float32 arithmetic slightly.
  EXPECT_NEAR(both[0].precision, first[0].precision, 1e-6);
  EXPECT_NEAR(both[0].recall, second[0].recall, 1e-6);
  EXPECT_NEAR(both[0].f1, std::max(first[0].f1, second[0].f1), 1e-6);
}

// bert_score's batch padding quirk on hand-made unit vectors: the hypothesis' content token has
// only negative cosines (−0.8 best) with the reference; padding the reference in its batch floors
// that best cosine at 0.
TEST(BertScore, PaddedReferenceFloorsNegativeCosinesAtZero) {
  const metrics::TokenEmbeddings hyp{{1, 0, 0, 1, 1, 0}, {0, 1, 0}, 3};
  const metrics::TokenEmbeddings ref{{0.6f, -0.8f, 0.6f, -0.8f, 0.6f, -0.8f}, {0, 1, 0}, 3};
  const auto plain = metrics::greedy_match(hyp, ref, 2, false, false);
  EXPECT_FLOAT_EQ(plain.precision, -0.8f);
  EXPECT_FLOAT_EQ(plain.recall, 0.6f);  // the reference token's best is the hypothesis' [CLS]
  EXPECT_FLOAT_EQ(plain.f1, 2 * -0.8f * 0.6f / (-0.8f + 0.6f));
  const auto padded = metrics::greedy_match(hyp, ref, 2, true, false);
  EXPECT_EQ(padded.precision, 0.0f);
  EXPECT_FLOAT_EQ(padded.recall, 0.6f);
  EXPECT_EQ(padded.f1, 0.0f);
  // The special tokens alone (an empty text): P = R = F = 0.
  const metrics::TokenEmbeddings empty{{1, 0, 1, 0}, {0, 0}, 2};
  const auto none = metrics::greedy_match(empty, ref, 2, false, false);
  EXPECT_EQ(none.precision, 0.0f);
  EXPECT_EQ(none.recall, 0.0f);
  EXPECT_EQ(none.f1, 0.0f);
}

TEST(BertScore, BaselineFileWithoutTheLayerFails) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/base.tsv", "LAYER,P,R,F\n0,0.5,0.5,0.5\n1,0.6,0.6,0.6\n");
  try {
    metrics::read_bertscore_baseline(dir + "/base.tsv", 9);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no baseline row for layer 9"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("base.tsv"), std::string::npos) << e.what();
  }
  test::write_file(dir + "/bad.tsv", "LAYER,P,R,F\n0,0.5,x,0.5\n");
  EXPECT_THROW(metrics::read_bertscore_baseline(dir + "/bad.tsv", 0), Error);
  EXPECT_FLOAT_EQ(metrics::read_bertscore_baseline(dir + "/base.tsv", 1).recall, 0.6f);
}

// Rescaling divides by 1 − b: a baseline of 1 gave infinite scores ("F": null without a warning).
TEST(BertScore, BaselineValuesOutsideZeroToOneAreRefused) {
  const auto dir = test::temp_dir();
  for (const char* value : {"1", "1.5", "-0.1", "-1e-9"}) {
    test::write_file(dir + "/base.tsv", std::string("LAYER,P,R,F\n0,0.5,0.5,0.5\n1,0.6,0.6,") + value + "\n");
    try {
      metrics::read_bertscore_baseline(dir + "/base.tsv", 1);
      ADD_FAILURE() << value << ": expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("base.tsv:3: F: a baseline lies in [0, 1), got " + std::string(value)),
                std::string::npos)
          << e.what();
    }
  }
  test::write_file(dir + "/base.tsv", "LAYER,P,R,F\n0,0,0.999,0.5\n");
  EXPECT_FLOAT_EQ(metrics::read_bertscore_baseline(dir + "/base.tsv", 0).recall, 0.999f);
}

TEST(BertScore, LayerMustExistAndDefaultsFollowBertScoresTable) {
  Model model("bert-wordpiece");
  EXPECT_THROW(metrics::BertScorer(*model.encoder, {.layer = 3}), Error);
  EXPECT_THROW(metrics::BertScorer(*model.encoder, {.layer = -1}), Error);
  EXPECT_EQ(metrics::bertscore_default_layer("roberta-large"), 17);
  EXPECT_EQ(metrics::bertscore_default_layer("bert-base-multilingual-cased"), 9);
  EXPECT_EQ(metrics::bertscore_default_layer("xlm-roberta-large"), 17);
  EXPECT_FALSE(metrics::bertscore_default_layer("bert-wordpiece").has_value());
}

TEST(BertScore, MismatchedInputsFail) {
  Model model("bert-wordpiece");
  metrics::BertScorer scorer(*model.encoder, {.layer = 1});
  EXPECT_THROW(scorer.score({"a", "b"}, {{"a"}}), Error);
  EXPECT_THROW(scorer.score({"a"}, {{}}), Error);
}

class BertScoreOpenCl : public test::OpenClTest {};

// --device opencl gives the golden values too (the hidden states are the only device work).
TEST_F(BertScoreOpenCl, GoldenRunOnTheDevice) {
  const json golden = test::load_json(golden_path("xlmr"));
  const json& run = golden["runs"][2];  // L2_idf, pairs
  ASSERT_EQ(run["config"], "L2_idf");
  const auto source = ModelSource::open(test::fixture("core/xlmr"));
  const auto backend = make_backend("opencl");
  TextEncoder encoder(*source, *backend);
  metrics::BertScorer scorer(encoder, options_of(run["settings"]));
  const Inputs in = inputs_of(run);
  const auto scores = scorer.score(in.hyps, in.refs);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    EXPECT_NEAR(scores[i].precision, run["items"][i]["P"].get<double>(), kRawTolerance) << i;
    EXPECT_NEAR(scores[i].recall, run["items"][i]["R"].get<double>(), kRawTolerance) << i;
    EXPECT_NEAR(scores[i].f1, run["items"][i]["F"].get<double>(), kRawTolerance) << i;
  }
}

// ---- the CLI: invar metric bertscore ----

const json& run_named(const json& golden, const std::string& config, const std::string& set) {
  for (const auto& run : golden["runs"])
    if (run["config"] == config && run["set"] == set) return run;
  throw std::runtime_error("no run " + config + " / " + set);
}

// Writes the candidates and references of a "pairs" run to files; returns {hyps, refs}.
std::pair<std::string, std::string> write_pairs(const json& run) {
  const auto dir = test::temp_dir();
  std::string hyps, refs;
  for (const auto& item : run["items"]) {
    hyps += item["cand"].get<std::string>() + "\n";
    refs += item["ref"].get<std::string>() + "\n";
  }
  test::write_file(dir + "/hyps.txt", hyps);
  test::write_file(dir + "/refs.txt", refs);
  return {dir + "/hyps.txt", dir + "/refs.txt"};
}

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

TEST(CliBertScore, SentenceJsonLinesAreAlignedAndMatchTheGolden) {
  const json golden = test::load_json(golden_path("xlmr"));
  const json& run = run_named(golden, "L2_noidf", "pairs");
  const auto [hyps, refs] = write_pairs(run);
  const auto result = test::run_cli({"-q", "metric", "bertscore", "-m", test::fixture("core/xlmr"), "--layer", "2",
                                     "-r", refs, "--sentence", "--json", "--empty-as-zero"},
                                    test::read_file(hyps));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto lines = json_lines(result.out);
  ASSERT_EQ(lines.size(), run["items"].size());
  for (std::size_t i = 0; i < lines.size(); ++i)
    for (const char* key : {"P", "R", "F"})
      EXPECT_NEAR(lines[i][key].get<double>(), run["items"][i][key].get<double>(), kRawTolerance) << i << key;
  // The summary with bert_score's hash goes to stderr, after the empty-candidate warning.
  EXPECT_NE(result.err.find("1 empty hypotheses"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find(run["hash"].get<std::string>() + " P: "), std::string::npos) << result.err;
}

TEST(CliBertScore, IdfBaselineAndBatchSizeGiveTheGoldenMeans) {
  const json golden = test::load_json(golden_path("bert-wordpiece"));
  const json& run = run_named(golden, "L2_idf_rescale_bs3", "pairs");
  const auto [hyps, refs] = write_pairs(run);
  const auto out = test::temp_dir() + "/summary.json";
  const auto result = test::run_cli({"metric", "bertscore", "-m", test::fixture("core/bert-wordpiece"), "--layer", "2",
                                     "--idf", "--batch-size", "3", "--baseline", baseline_path("bert-wordpiece"), "-r",
                                     refs, "-i", hyps, "--json", "-o", out, "--empty-as-zero"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json summary = json::parse(test::read_file(out));
  EXPECT_EQ(summary["hash"], run["hash"]);
  EXPECT_EQ(summary["segments"], run["items"].size());
  const double b[] = {0.71236, 0.698454, 0.705039};
  const char* keys[] = {"P", "R", "F"};
  for (int k = 0; k < 3; ++k) {
    double mean = 0;
    for (const auto& item : run["items"]) mean += item[keys[k]].get<double>();
    mean /= static_cast<double>(run["items"].size());
    EXPECT_NEAR(summary[keys[k]].get<double>(), mean, kRawTolerance / (1 - b[k])) << keys[k];
  }
}

// bert_score's list of lists with a different number of references per candidate (3, 2, 1, 2, 3, 2;
// one whitespace-only): P, R, F each maxed over the line's references, idf from all 13 references.
TEST(CliBertScore, RefListsOfDifferentLengthsMatchTheMultiReferenceGoldens) {
  const json golden = test::load_json(golden_path("bert-wordpiece"));
  for (const char* config : {"L2_idf", "L2_idf_rescale_bs3", "L2_noidf"}) {
    SCOPED_TRACE(config);
    const json& run = run_named(golden, config, "multiref");
    const auto dir = test::temp_dir();
    std::string hyps, lists;
    for (const auto& item : run["items"]) {
      hyps += item["cand"].get<std::string>() + "\n";
      lists += item["refs"].dump() + "\n";
    }
    test::write_file(dir + "/hyps.txt", hyps);
    test::write_file(dir + "/refs.jsonl", lists);
    std::vector<std::string> args{"-q", "metric", "bertscore", "-m", test::fixture("core/bert-wordpiece"), "--layer",
                                  "2", "--ref-lists", dir + "/refs.jsonl", "-i", dir + "/hyps.txt", "--sentence",
                                  "--json", "--batch-size", std::to_string(run["settings"]["batch_size"].get<int>())};
    const bool rescale = std::string(config).find("rescale") != std::string::npos;
    if (std::string(config).find("_idf") != std::string::npos) args.push_back("--idf");
    if (rescale) args.insert(args.end(), {"--baseline", baseline_path("bert-wordpiece")});
    const auto result = test::run_cli(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto lines = json_lines(result.out);
    ASSERT_EQ(lines.size(), run["items"].size());
    const double tolerance = rescale ? 1e-4 : kRawTolerance;
    for (std::size_t i = 0; i < lines.size(); ++i)
      for (const char* key : {"P", "R", "F"})
        EXPECT_NEAR(lines[i][key].get<double>(), run["items"][i][key].get<double>(), tolerance) << i << key;
  }
}

TEST(CliBertScore, RefListsAreCheckedAndExclusiveWithRef) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/hyps.txt", "a cat\nHallo\n");
  auto run_with = [&](const std::string& lists, std::vector<std::string> extra = {}) {
    test::write_file(dir + "/refs.jsonl", lists);
    std::vector<std::string> args{"metric", "bertscore", "-m", test::fixture("core/bert-wordpiece"), "--layer", "2",
                                  "--ref-lists", dir + "/refs.jsonl", "-i", dir + "/hyps.txt"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_cli(args);
  };
  EXPECT_EQ(run_with("[\"the cat\"]\n[]\n").err,
            "invar: error: " + dir + "/refs.jsonl:2: expected a JSON array of one or more reference strings\n");
  EXPECT_EQ(run_with("[\"the cat\"]\n[\"x\", 3]\n").err, "invar: error: " + dir + "/refs.jsonl:2: reference 2 is not a string\n");
  EXPECT_EQ(run_with("[\"the cat\"]\n").err, "invar: error: " + dir + "/refs.jsonl has 1 reference lists but the hypotheses (" +
                                                 dir + "/hyps.txt) have 2; they must be line-aligned\n");
  EXPECT_EQ(run_with("[\"the cat\"]\n[\"Hallo\"]\n", {"-r", dir + "/hyps.txt"}).exit_code, 2);  // both: usage error
  // One list of two references equals two -r files.
  test::write_file(dir + "/r1.txt", "the cat\nHallo Welt\n");
  test::write_file(dir + "/r2.txt", "a dog\nHallo\n");
  const auto lists = run_with("[\"the cat\", \"a dog\"]\n[\"Hallo Welt\", \"Hallo\"]\n", {"--sentence", "--json"});
  const auto files = test::run_cli({"metric", "bertscore", "-m", test::fixture("core/bert-wordpiece"), "--layer", "2", "-r",
                                    dir + "/r1.txt", "-r", dir + "/r2.txt", "-i", dir + "/hyps.txt", "--sentence", "--json"});
  ASSERT_EQ(lists.exit_code, 0) << lists.err;
  EXPECT_EQ(lists.out, files.out);
}

TEST(CliBertScore, SeveralReferenceFilesAndTextOutput) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/r1.txt", "The cat sat on the mat and the dog ate a bone.\nHallo Welt\n");
  test::write_file(dir + "/r2.txt", "the cat\nHallo Welt!\n");
  const auto result = test::run_cli({"metric", "bertscore", "-m", test::fixture("core/bert-wordpiece"), "--layer", "2",
                                     "-r", dir + "/r1.txt", "-r", dir + "/r2.txt", "--sentence"},
                                    "The cat sat on the mat.\nHallo Welt\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::istringstream in(result.out);
  std::string first, second, extra;
  ASSERT_TRUE(std::getline(in, first) && std::getline(in, second));
  EXPECT_FALSE(std::getline(in, extra));
  EXPECT_EQ(second, "1.000000\t1.000000\t1.000000");  // identical to its first reference
  EXPECT_NE(first, second);
}

// The warning counts the distinct texts cut to --max-length, as the records carry them: the same
// in a whole run and in a merge of shards, which scores nothing itself.
TEST(CliBertScore, TruncationWarningCountsTheCutTextsAcrossShards) {
  const auto dir = test::temp_dir();
  // 10 segments in chunks of 8 (batch size 1): the long texts are segments 0 and 9 (hypotheses) and
  // 5 (reference), in both shards.
  std::string hyps, refs;
  for (int i = 0; i < 10; ++i) {
    hyps += (i == 0 ? "a b c d e f g h" : i == 9 ? "h g f e d c b a" : "short " + std::to_string(i)) + "\n";
    refs += (i == 5 ? "one two three four five six seven" : "ref " + std::to_string(i)) + "\n";
  }
  test::write_file(dir + "/hyp.txt", hyps);
  test::write_file(dir + "/ref.txt", refs);
  const std::vector<std::string> args{"metric", "bertscore", "-m", test::fixture("core/bert-wordpiece"), "--layer",
                                      "2", "-i", dir + "/hyp.txt", "-r", dir + "/ref.txt", "--max-length", "6",
                                      "--batch-size", "1"};
  const std::string expected = "invar: warning: 3 of 20 distinct texts were longer than 6 tokens and were truncated\n";
  const auto whole = test::run_cli(args);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_NE(whole.err.find(expected), std::string::npos) << whole.err;
  for (const char* shard : {"0/2", "1/2"}) {
    auto part = args;
    part.insert(part.end(), {"--shard", shard, "-o", dir + "/part" + shard[0]});
    ASSERT_EQ(test::run_cli(part).exit_code, 0);
  }
  const auto merged = test::run_cli({"merge", dir + "/part0", dir + "/part1"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.err.find(expected), std::string::npos) << merged.err;
  EXPECT_EQ(test::without_provenance(merged.out), test::without_provenance(whole.out));
}

// The command scores 1100 segments in chunks of 512 (run/row_run.hpp), each chunk whole
// matching batches: every segment gets the score of one whole score() call, to the float32 noise of
// other embedding batches (1e-6). The first 600 segments' references are the golden's, the rest the
// candidates of other items, so idf weights from one chunk's references would differ.
TEST(CliBertScore, ChunkedRunScoresEverySegmentAsOneWholeCall) {
  const json golden = test::load_json(golden_path("bert-wordpiece"));
  const json& items = run_named(golden, "L2_idf", "pairs")["items"];
  Inputs in;
  std::string hyps, refs, refs2;
  for (std::size_t i = 0; i < 1100; ++i) {
    const json& item = items[i % items.size()];
    in.hyps.push_back(item["cand"].get<std::string>());
    const json& other = items[(i * 7 + 3) % items.size()];
    in.refs.push_back({i < 600 ? item["ref"].get<std::string>() : other["cand"].get<std::string>(),
                       other["ref"].get<std::string>()});
    hyps += in.hyps.back() + "\n";
    refs += in.refs.back()[0] + "\n";
    refs2 += in.refs.back()[1] + "\n";
  }
  const auto dir = test::temp_dir();
  test::write_file(dir + "/hyps", hyps);
  test::write_file(dir + "/refs", refs);
  test::write_file(dir + "/refs2", refs2);
  const auto result = test::run_cli({"-q", "metric", "bertscore", "-m", test::fixture("core/bert-wordpiece"), "--layer",
                                     "2", "--idf", "-i", dir + "/hyps", "-r", dir + "/refs", "-r", dir + "/refs2",
                                     "--sentence", "--json", "--empty-as-zero"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto lines = json_lines(result.out);
  Model model("bert-wordpiece");
  metrics::BertScorer scorer(*model.encoder, {.layer = 2, .idf = true});
  const auto expected = scorer.score(in.hyps, in.refs);
  ASSERT_EQ(lines.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(lines[i]["P"].get<double>(), expected[i].precision, 1e-6) << i;
    EXPECT_NEAR(lines[i]["R"].get<double>(), expected[i].recall, 1e-6) << i;
    EXPECT_NEAR(lines[i]["F"].get<double>(), expected[i].f1, 1e-6) << i;
  }
}

TEST(CliBertScore, BadInputFailsWithOneClearLine) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/refs.txt", "one\ntwo\n");
  const auto model = test::fixture("core/bert-wordpiece");
  auto expect_error = [](const test::CliResult& r, const std::string& text) {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  expect_error(test::run_cli({"metric", "bertscore", "-m", model, "--layer", "1", "-r", dir + "/refs.txt"}, "one\n"),
               "refs.txt has 2 lines but the hypotheses (standard input) have 1");
  expect_error(test::run_cli({"metric", "bertscore", "-m", model, "-r", dir + "/refs.txt"}, "one\ntwo\n"),
               "not in bert_score's table of default layers");
  expect_error(test::run_cli({"metric", "bertscore", "-m", model, "--layer", "7", "-r", dir + "/refs.txt", "--baseline",
                              baseline_path("bert-wordpiece")},
                             "one\ntwo\n"),
               "no baseline row for layer 7");
  expect_error(test::run_cli({"metric", "bertscore", "-m", model, "--layer", "3", "-r", dir + "/refs.txt"}, "one\ntwo\n"),
               "layer 3 does not exist");
  // bert_score scores an empty candidate 0; invar asks for --empty-as-zero to do so.
  expect_error(test::run_cli({"metric", "bertscore", "-m", model, "--layer", "1", "-r", dir + "/refs.txt"}, "one\n \n"),
               "standard input:2: empty hypothesis");
  expect_error(test::run_cli({"metric", "bertscore", "-m", model, "--layer", "1", "-r", dir + "/refs.txt", "--empty",
                              "error"},
                             "one\n \n"),
               "standard input:2: empty hypothesis");
  // --empty reference is --empty-as-zero's newer spelling: the same scores.
  const auto zero = test::run_cli({"-q", "metric", "bertscore", "-m", model, "--layer", "1", "-r", dir + "/refs.txt",
                                   "--sentence", "--empty-as-zero"},
                                  "one\n \n");
  const auto reference = test::run_cli({"-q", "metric", "bertscore", "-m", model, "--layer", "1", "-r",
                                        dir + "/refs.txt", "--sentence", "--empty", "reference"},
                                       "one\n \n");
  EXPECT_EQ(zero.exit_code, 0) << zero.err;
  EXPECT_EQ(reference.exit_code, 0) << reference.err;
  EXPECT_EQ(reference.out, zero.out);
}

}  // namespace
