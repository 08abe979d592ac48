// The LIP benchmark: the paper's KL / χ² helpers (language_invariant_properties/metrics.py) on top of
// eval/stats, the held-out split, and `invar lip` end to end, including its errors on bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.hpp"
#include "engine/text_encoder.hpp"
#include "eval/learn/model_selection.hpp"
#include "eval/lip/lip.hpp"
#include "eval/lip/property_classifier.hpp"
#include "backends/cpu/backend.hpp"
#include "core/version.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

const nlohmann::json& stats_golden() {
  static const auto golden = test::load_json(test::fixture("metrics/stats.json"));
  return golden;
}

std::vector<std::size_t> counts(const nlohmann::json& row) {
  std::vector<std::size_t> out;
  for (const auto& v : row) out.push_back(static_cast<std::size_t>(v.get<double>()));
  return out;
}

}  // namespace

TEST(LipKl, EpsilonChangesScipyEntropyOnlyInTheLastDigits) {
  // get_kl on label lists with counts p and q is scipy.stats.entropy(p, q) up to the ε = 1e-8 added to
  // each count, which moves the value by about ε / count relative: compare with the scipy goldens whose
  // inputs are counts to 1e-8 relative.
  for (const auto& record : stats_golden()["kl_divergence"]) {
    bool integral = true;
    for (const auto& v : record["p"]) integral = integral && v.get<double>() == std::floor(v.get<double>()) && v.get<double>() >= 1;
    for (const auto& v : record["q"]) integral = integral && v.get<double>() == std::floor(v.get<double>()) && v.get<double>() >= 1;
    if (!integral) continue;
    double expected = record["kl_natural"].get<double>();
    EXPECT_NEAR(lip::lip_kl(counts(record["p"]), counts(record["q"])), expected, 1e-8 * expected) << record.dump();
  }
}

TEST(LipKl, MatchesThePapersGetKlExactly) {
  // Values from get_kl(a, b) evaluated in Python on these label lists:
  //   a = [0]*52 + [1]*48, b = [0]*64 + [1]*36 → 0.030114925079565702
  //   a = [0]*10 + [1]*20 + [2]*30, b = [0]*20 + [1]*20 + [2]*20 → 0.08720802386920697
  EXPECT_NEAR(lip::lip_kl({52, 48}, {64, 36}), 0.030114925079565702, 1e-15);
  EXPECT_NEAR(lip::lip_kl({10, 20, 30}, {20, 20, 20}), 0.08720802386920697, 1e-15);
}

TEST(LipKl, ZeroBinsFollowTheEpsilonConvention) {
  // a = [0]*10 + [1]*5 (class 2 never a true label), b = [1]*12 + [2]*3 (class 0 never predicted).
  // Only classes 0 and 1 enter; q(0) = ε / (15 + 2ε) keeps the divergence finite; the 3 predictions
  // of class 2 count in q's total only. get_kl gives 13.300544090787936 ('13.301').
  EXPECT_NEAR(lip::lip_kl({10, 5, 0}, {0, 12, 3}), 13.300544090787936, 1e-12);
  EXPECT_THROW(lip::lip_kl({0, 0}, {1, 1}), Error);
}

TEST(LipSignificance, ChiSquaredContingencyGoldens) {
  for (const auto& record : stats_golden()["chi2_contingency"]) {
    if (!record["yates"].get<bool>()) continue;  // get_significance uses scipy's default correction
    auto result = lip::lip_significance(counts(record["table"][0]), counts(record["table"][1]));
    double chi2 = record["chi2"].get<double>(), p = record["p"].get<double>();
    EXPECT_NEAR(result.chi2, chi2, 1e-9 * chi2) << record.dump();
    EXPECT_NEAR(result.pvalue, p, 1e-9 * p) << record.dump();
    EXPECT_EQ(result.dof, record["dof"].get<double>());
    EXPECT_EQ(result.stars, p <= 0.01 ? "**" : p <= 0.05 ? "*" : "");
  }
}

TEST(LipSignificance, ClassesAbsentFromBothRowsAreLeftOut) {
  // [[52, 0, 48], [64, 0, 36]] is tested as [[52, 48], [64, 36]] (dof 1, Yates): the golden values.
  auto result = lip::lip_significance({52, 0, 48}, {64, 0, 36});
  EXPECT_EQ(result.classes, (std::vector<std::size_t>{0, 2}));
  EXPECT_NEAR(result.chi2, 2.483579638752053, 1e-12);
  EXPECT_NEAR(result.pvalue, 0.11504016122838726, 1e-12);
  EXPECT_EQ(result.dof, 1.0);
  // One class left: nothing to compare; scipy's dof = 0 case gives χ² = 0 and p = 1.
  auto single = lip::lip_significance({0, 30}, {0, 25});
  EXPECT_EQ(single.dof, 0.0);
  EXPECT_EQ(single.chi2, 0.0);
  EXPECT_EQ(single.pvalue, 1.0);
  EXPECT_EQ(single.stars, "");
  EXPECT_EQ(lip::significance_stars(0.01), "**");
  EXPECT_EQ(lip::significance_stars(0.0100001), "*");
  EXPECT_EQ(lip::significance_stars(0.05), "*");
  EXPECT_EQ(lip::significance_stars(0.0500001), "");
}

TEST(LipSplit, StratifiedDeterministicAndDisjoint) {
  std::vector<int> labels;
  for (int i = 0; i < 50; ++i) labels.push_back(i % 5 == 0 ? 1 : 0);  // 40 of class 0, 10 of class 1
  labels.push_back(2);                                                // a class with a single member
  auto split = learn::stratified_split(labels, 3, 0.2, 7);
  std::size_t held[3] = {0, 0, 0};
  for (auto i : split.held_out) ++held[labels[i]];
  EXPECT_EQ(held[0], 8u);
  EXPECT_EQ(held[1], 2u);
  EXPECT_EQ(held[2], 0u);  // at least one member of every class stays for training
  std::set<std::size_t> all(split.train.begin(), split.train.end());
  all.insert(split.held_out.begin(), split.held_out.end());
  EXPECT_EQ(all.size(), labels.size());
  EXPECT_EQ(split.train.size() + split.held_out.size(), labels.size());
  auto again = learn::stratified_split(labels, 3, 0.2, 7);
  EXPECT_EQ(again.held_out, split.held_out);
  EXPECT_NE(learn::stratified_split(labels, 3, 0.2, 8).held_out, split.held_out);
  EXPECT_TRUE(learn::stratified_split(labels, 3, 0.0, 7).held_out.empty());
  EXPECT_THROW(learn::stratified_split(labels, 3, 1.0, 7), Error);
}

TEST(LipClassifierScores, AccuracyAndMacroF1) {
  // Class 0: tp 2, fp 1, fn 0 → P 2/3, R 1, F1 0.8. Class 1: tp 1, fp 0, fn 2 → P 1, R 1/3, F1 0.5.
  // Class 2 only predicted, never true: F1 0. Macro-F1 = (0.8 + 0.5 + 0) / 3.
  auto scores = lip::score_classifier({0, 0, 1, 1, 1}, {0, 0, 0, 1, 2});
  EXPECT_DOUBLE_EQ(scores.accuracy, 0.6);
  EXPECT_NEAR(scores.macro_f1, 1.3 / 3.0, 1e-15);
  EXPECT_EQ(lip::mean_std({1.0, 2.0, 3.0}).std, 1.0);
  EXPECT_EQ(lip::mean_std({4.0}).std, 0.0);
}

// ---- `invar lip` ----------------------------------------------------------------------------------

namespace {

struct Files {
  std::string dir, train, original, transformed;
};

const char* kPositive[] = {"great lovely product", "really great, love it", "lovely and great quality",
                           "love it, lovely", "great value, love the colour", "lovely finish, great",
                           "great great great", "so lovely, love it", "love the great design", "lovely, really lovely"};
const char* kNegative[] = {"awful broken product", "really awful, hate it", "broken and awful quality",
                           "hate it, broken", "awful value, hate the colour", "broken finish, awful",
                           "awful awful awful", "so broken, hate it", "hate the awful design", "broken, really broken"};

Files write_files(const std::string& original, const std::string& transformed) {
  Files files;
  files.dir = test::temp_dir();
  files.train = files.dir + "/train.tsv";
  files.original = files.dir + "/original.tsv";
  files.transformed = files.dir + "/transformed.tsv";
  std::string train;
  for (auto* text : kPositive) train += std::string(text) + "\tpos\n";
  for (auto* text : kNegative) train += std::string(text) + "\tneg\n";
  test::write_file(files.train, train);
  test::write_file(files.original, original);
  test::write_file(files.transformed, transformed);
  return files;
}

std::vector<std::string> lip_args(const Files& f) {
  return {"lip", "--train", f.train, "--original", f.original, "--transformed", f.transformed, "--min-df", "1",
          "--max-df", "1.0"};
}

}  // namespace

TEST(LipCli, ExampleRunsAndFindsTheTransformationBias) {
  auto dir = test::temp_dir();
  // Several runs need the held-out check of the invar preset (cross-validation is deterministic).
  auto result = test::run_cli({"lip", "--example", "--preset", "invar", "--runs", "2", "--json", "--report", dir + "/lip.html",
                               "--predictions", dir + "/predictions.jsonl"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["verdict"], "transformation bias");
  EXPECT_EQ(json["classes"], (nlohmann::json{"negative", "neutral", "positive"}));
  EXPECT_EQ(json["texts"], 240);
  EXPECT_EQ(json["provenance"]["invar"], kVersion);
  EXPECT_EQ(json["provenance"]["settings"]["--runs"], "2");
  EXPECT_NE(test::read_file(dir + "/lip.html").find("<details class=\"provenance\">"), std::string::npos);
  ASSERT_EQ(json["per_run"].size(), 2u);
  for (const auto& run : json["per_run"]) {
    for (const char* key : {"truth", "original", "transformed"}) {
      std::size_t total = 0;
      for (const auto& c : run["counts"][key]) total += c.get<std::size_t>();
      EXPECT_EQ(total, 240u) << key;
    }
    EXPECT_EQ(run["kl_truth_transformed_formatted"], fmt::format("{:.3f}", run["kl_truth_transformed"].get<double>()));
    EXPECT_LE(run["chi2"]["original_vs_transformed"]["p"].get<double>(), 0.01);
  }
  EXPECT_GT(json["classifier_check"]["source"]["accuracy"]["mean"].get<double>(), 0.8);
  auto lines = test::read_file(dir + "/predictions.jsonl");
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 240);
  auto first = nlohmann::json::parse(lines.substr(0, lines.find('\n')));
  EXPECT_EQ(first["line"], 1);
  EXPECT_EQ(first["original"].size(), 2u);
  EXPECT_EQ(first["p_transformed"][0].size(), 3u);
  auto html = test::read_file(dir + "/lip.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("Transformation bias"), std::string::npos);

  // The default preset, the LIP tool's classifier, reads the example the same way.
  auto table = test::run_cli({"lip", "--example"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("(preset lip-tool)"), std::string::npos);
  EXPECT_NE(table.out.find("Grid search"), std::string::npos);
  EXPECT_NE(table.out.find("significance_transformed"), std::string::npos);
  EXPECT_NE(table.out.find("Classifier check"), std::string::npos);
  EXPECT_LT(table.out.find("Classifier check"), table.out.find("Distributions"));
  EXPECT_NE(table.out.find("Transformation bias: the LIP is broken."), std::string::npos);
}

TEST(LipCli, PreservedPropertyAndAClassAbsentFromB) {
  // B keeps every text positive: class "neg" gets no prediction on B. KL(p̂(A) ‖ p(B)) stays finite
  // through ε, and the χ² test still compares both classes (neg occurs in p(A)).
  auto f = write_files("lovely great thing\tpos\nawful broken thing\tneg\nlove it lovely\tpos\n",
                       "lovely great item\nreally lovely, great\nlove it, lovely\n");
  auto args = lip_args(f);
  args.push_back("--json");
  auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  const auto& run = json["per_run"][0];
  EXPECT_EQ(run["counts"]["truth"], (nlohmann::json{1, 2}));
  EXPECT_EQ(run["counts"]["original"], (nlohmann::json{1, 2}));
  EXPECT_EQ(run["counts"]["transformed"], (nlohmann::json{0, 3}));
  EXPECT_NEAR(run["kl_truth_transformed"].get<double>(), lip::lip_kl({1, 2}, {0, 3}), 1e-12);
  EXPECT_LT(run["kl_truth_transformed"].get<double>(), 10.0);
  EXPECT_EQ(run["chi2"]["original_vs_transformed"]["classes"], (nlohmann::json{"neg", "pos"}));
  EXPECT_EQ(json["verdict"], "preserved");
}

TEST(LipCli, BadInputNamesFileLineAndField) {
  auto expect_error = [](const std::vector<std::string>& args, const std::string& message) {
    auto result = test::run_cli(args);
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err, "invar: error: " + message + "\n");
    EXPECT_TRUE(result.out.empty());
  };
  {  // A and B of different lengths
    auto f = write_files("lovely\tpos\nawful\tneg\nlove it\tpos\n", "lovely\nawful\n");
    expect_error(lip_args(f), f.original + " has 3 texts but " + f.transformed +
                                  " has 2; the original and transformed texts must be line-aligned");
  }
  {  // an empty text in B
    auto f = write_files("lovely\tpos\nawful\tneg\n", "lovely\n  \n");
    expect_error(lip_args(f), f.transformed + ":2: empty text (--empty skip leaves empty texts out; --empty nan reads them as the LIP tool does)");
  }
  {  // an empty text in A
    auto f = write_files("lovely\tpos\n\tneg\n", "lovely\nawful\n");
    expect_error(lip_args(f), f.original + ":2: empty text (--empty skip leaves empty texts out; --empty nan reads them as the LIP tool does)");
  }
  {  // a label of A the training data does not know
    auto f = write_files("lovely\tpos\nso-so\tneutral\n", "lovely\nfine\n");
    expect_error(lip_args(f), f.original + ":2: label 'neutral' does not occur in the training data " + f.train +
                                  " (labels: neg, pos)");
  }
  {  // training sets with different label sets
    auto f = write_files("lovely\tpos\nawful\tneg\n", "lovely\nawful\n");
    auto target = f.dir + "/target.tsv";
    test::write_file(target, "schön\tpos\nso lala\tneutral\nschrecklich\tneg\n");
    auto args = lip_args(f);
    args.insert(args.end(), {"--train-target", target});
    expect_error(args, "label sets differ: " + f.train + " has {neg, pos}, " + target + " has {neg, neutral, pos}");
  }
  {  // a single label in the training data
    auto f = write_files("lovely\tpos\n", "lovely\n");
    test::write_file(f.train, "lovely\tpos\ngreat\tpos\n");
    expect_error(lip_args(f), f.train + ": only one label ('pos'); the property classifier needs at least two");
  }
  {  // an empty label
    auto f = write_files("lovely\t\n", "lovely\n");
    expect_error(lip_args(f), f.original + ":1: empty label");
  }
}

TEST(LipCli, ColumnsByHeaderNameAndJsonl) {
  auto f = write_files("", "");
  test::write_file(f.original, "id\treview\tsentiment\n1\tlovely great\tpos\n2\tawful broken\tneg\n");
  test::write_file(f.transformed, "{\"translation\": \"lovely\"}\n{\"translation\": \"awful\"}\n");
  auto args = lip_args(f);
  // One column selection applies to every labelled file, so the training file has the same header.
  std::string train = "id\treview\tsentiment\n";
  for (auto* text : kPositive) train += std::string("0\t") + text + "\tpos\n";
  for (auto* text : kNegative) train += std::string("0\t") + text + "\tneg\n";
  test::write_file(f.train, train);
  auto jsonl = f.dir + "/transformed.jsonl";
  test::write_file(jsonl, test::read_file(f.transformed));
  args[6] = jsonl;
  args.insert(args.end(), {"--text-column", "review", "--label-column", "sentiment", "--transformed-column",
                           "translation", "--json"});
  auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["per_run"][0]["counts"]["truth"], (nlohmann::json{1, 1}));
  EXPECT_EQ(json["per_run"][0]["counts"]["transformed"], (nlohmann::json{1, 1}));
}

// ---- models inside `invar lip` ---------------------------------------------------------------------

TEST(LipSentenceEmbeddings, FeaturesAreTheGoldenSentenceTransformersEmbeddings) {
  auto source = ModelSource::open(test::fixture("core/bert-wordpiece"));
  auto backend = make_cpu_backend({.threads = 1});
  TextEncoder encoder(*source, *backend);
  lip::SentenceEmbeddings embeddings(encoder, BatchOptions{2, {}});
  const auto golden = test::load_json(test::fixture("core/bert-wordpiece/golden.json"));
  std::vector<std::string> texts;
  for (const auto& c : golden["cases"]) texts.push_back(c["text"]);
  texts.push_back(texts.front());  // a repeated text is embedded once and served from the cache
  const auto rows = embeddings.rows(texts);
  ASSERT_EQ(rows.rows(), texts.size());
  for (std::size_t r = 0; r < texts.size(); ++r) {
    const auto& expected = golden["cases"][r % golden["cases"].size()]["mean_pooled_normalized"][0];  // [1, dims]
    ASSERT_EQ(rows.cols, expected.size());
    for (std::size_t c = 0; c < rows.cols; ++c) EXPECT_NEAR(rows.at(r, c), expected[c].get<double>(), 1e-4) << r;
  }
}

TEST(LipCli, SentenceEmbeddingClassifierWithATinyEncoder) {
  // The SE classifier: the bert-wordpiece fixture's sentence-transformers embeddings (mean pooling,
  // Normalize) + balanced L2 logistic regression.
  auto f = write_files("lovely great thing\tpos\nawful broken thing\tneg\nlove it lovely\tpos\n",
                       "lovely great item\nreally awful, broken\nlove it, lovely\n");
  const auto model = test::fixture("core/bert-wordpiece");
  auto args = lip_args(f);
  args.insert(args.end(), {"--classifier", "se", "-m", model, "--preset", "invar", "--runs", "2", "--json", "--threads", "1"});
  auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  EXPECT_NE(json["classifier"].get<std::string>().find("sentence embeddings of " + model + " (mean pooling, normalized"),
            std::string::npos)
      << json["classifier"];
  ASSERT_EQ(json["per_run"].size(), 2u);
  for (const auto& run : json["per_run"]) {
    std::size_t total = 0;
    for (const auto& c : run["counts"]["transformed"]) total += c.get<std::size_t>();
    EXPECT_EQ(total, 3u);
    EXPECT_NEAR(run["kl_truth_transformed"].get<double>(),
                lip::lip_kl(run["counts"]["truth"].get<std::vector<std::size_t>>(),
                       run["counts"]["transformed"].get<std::vector<std::size_t>>()),
                1e-12);
  }
  // Deterministic across thread counts.
  args[args.size() - 1] = "2";
  auto again = test::run_cli(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["per_run"], json["per_run"]);

  auto missing = lip_args(f);
  missing.insert(missing.end(), {"--classifier", "se"});
  auto error = test::run_cli(missing);
  EXPECT_EQ(error.exit_code, 1);
  EXPECT_EQ(error.err, "invar: error: --classifier se needs a sentence encoder: -m MODEL\n");
}

TEST(LipCli, TransformProducesBWithASeq2seqModel) {
  // --transform runs the Marian fixture over A; B must be exactly what `invar translate` writes.
  auto f = write_files("lovely great thing\tpos\nawful broken thing\tneg\nlove it lovely\tpos\n", "");
  const auto model = test::fixture("core/marian");
  auto args = lip_args(f);
  args.erase(args.begin() + 5, args.begin() + 7);  // --transformed FILE
  const auto saved = f.dir + "/b.txt";
  args.insert(args.end(), {"--transform", model, "--save-transformed", saved, "--json"});
  auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  std::size_t total = 0;
  for (const auto& c : json["per_run"][0]["counts"]["transformed"]) total += c.get<std::size_t>();
  EXPECT_EQ(total, 3u);

  auto translated = test::run_cli({"translate", "-m", model},
                                  "lovely great thing\nawful broken thing\nlove it lovely\n");
  ASSERT_EQ(translated.exit_code, 0) << translated.err;
  EXPECT_EQ(test::read_file(saved), translated.out);

  auto both = lip_args(f);
  both.insert(both.end(), {"--transform", model});
  auto error = test::run_cli(both);
  EXPECT_EQ(error.exit_code, 1);
  EXPECT_EQ(error.err, "invar: error: --transform produces the transformed texts; leave out --transformed\n");
}
