// The LIP tool's classifier (MilaNLProc/language-invariant-properties, classifiers/sklearn_wrapper.py)
// against scikit-learn 1.2.1 goldens: fixtures/metrics/tfidf_logreg.json (the unpenalised-intercept,
// multinomial objective solved to its optimum) and fixtures/stmetrics/lip_synthetic.json (fold
// assignment, per-fold micro-F1, chosen C, predictions, distributions, KL and χ² of the whole run).
// Tolerances are the READMEs': objectives 1e-6 relative, probabilities 1e-3 absolute, labels exact
// except the goldens' fragile (near-tie) texts, grid scores / KL / χ² exact or 1e-12 relative.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "eval/learn/lbfgs_logreg.hpp"
#include "eval/learn/logreg.hpp"
#include "eval/learn/model_selection.hpp"
#include "eval/learn/tfidf.hpp"
#include "eval/lip/classifier_preset.hpp"
#include "eval/lip/cross_validation.hpp"
#include "eval/lip/datasets.hpp"
#include "eval/lip/lip.hpp"
#include "tests/support/test_support.hpp"

using namespace invar;
using nlohmann::json;

namespace {

const json& tfidf_logreg() {
  static const json golden = test::load_json(test::fixture("metrics/tfidf_logreg.json"));
  return golden;
}

const json& lip_synthetic() {
  static const json golden = test::load_json(test::fixture("stmetrics/lip_synthetic.json"));
  return golden;
}

learn::TfidfOptions vectorizer_from(const json& params) {
  learn::TfidfOptions options;
  options.analyzer = params["analyzer"] == "char" ? learn::NgramAnalyzer::Char : learn::NgramAnalyzer::CharWb;
  options.ngram_min = params["ngram_range"][0];
  options.ngram_max = params["ngram_range"][1];
  options.sublinear_tf = params.value("sublinear_tf", false);
  if (params.contains("min_df")) options.min_df = {params["min_df"].get<double>(), true};
  if (params.contains("max_df")) options.max_df = {params["max_df"].get<double>(), true};
  return options;
}

std::vector<int> indices_of(const std::vector<std::string>& labels, const std::vector<std::string>& classes) {
  std::vector<int> out;
  for (const auto& label : labels)
    out.push_back(static_cast<int>(std::find(classes.begin(), classes.end(), label) - classes.begin()));
  return out;
}

std::set<std::size_t> as_set(const json& indices) { return {indices.begin(), indices.end()}; }

void expect_labels(const std::vector<int>& predicted, const std::vector<std::string>& classes, const json& golden,
                   const std::set<std::size_t>& fragile, const std::string& what) {
  ASSERT_EQ(predicted.size(), golden.size()) << what;
  for (std::size_t i = 0; i < predicted.size(); ++i)
    if (!fragile.count(i)) {
      EXPECT_EQ(classes[static_cast<std::size_t>(predicted[i])], golden[i]) << what << " text " << i;
    }
}

void expect_probabilities(const std::vector<std::vector<double>>& p, const json& golden, const std::string& what) {
  ASSERT_EQ(p.size(), golden.size()) << what;
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t k = 0; k < p[i].size(); ++k) EXPECT_NEAR(p[i][k], golden[i][k].get<double>(), 1e-3) << what << " text " << i;
}

}  // namespace

// Every lbfgs and saga case: the same problem (intercept unpenalised, multinomial for 3 classes) solved
// to the optimum the golden's tight scipy L-BFGS-B solve found.
TEST(LbfgsLogisticRegression, ReachesTheGoldenOptimumOfSklearnsObjective) {
  std::size_t checked = 0;
  for (const auto& c : tfidf_logreg()["logistic_regression"]) {
    const std::string solver = c["logistic_regression"]["solver"];
    if (solver == "liblinear") continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::string set = c["name"].get<std::string>().substr(0, c["name"].get<std::string>().find('/'));
    const auto& data = tfidf_logreg()["datasets"][set];
    std::vector<std::string> train, train_labels, test;
    for (const auto& row : data["train"]) {
      train.push_back(row["text"]);
      train_labels.push_back(row["label"]);
    }
    for (const auto& row : data["test"]) test.push_back(row["text"]);
    const auto classes = c["classes"].get<std::vector<std::string>>();
    const auto labels = indices_of(train_labels, classes);

    learn::TfidfVectorizer vectorizer(vectorizer_from(c["vectorizer"]));
    vectorizer.fit(train);
    ASSERT_EQ(vectorizer.vocabulary().size(), c["vocabulary_size"].get<std::size_t>());
    learn::LogisticRegressionOptions options;
    options.solver = learn::LogisticSolver::Lbfgs;
    options.tolerance = 1e-10;
    options.C = c["logistic_regression"]["C"];
    options.class_weight = c["logistic_regression"]["class_weight"].is_null() ? learn::ClassWeighting::None : learn::ClassWeighting::Balanced;
    learn::LogisticRegression model;
    const auto X = vectorizer.transform(train);
    model.fit(X, labels, classes.size(), options);
    EXPECT_EQ(model.class_weights(), c["class_weights_used"].get<std::vector<double>>());

    // The golden states this objective as sum_i s_i loss_i + |W|^2 / (2C): ours / C.
    learn::LinearScores solution{model.weights(), model.intercepts(), 0};
    const double objective =
        learn::logistic_objective(X, labels, classes.size(), model.sample_weights(labels), options.C, solution) / options.C;
    const double target = c["objective"]["at_optimum"];
    EXPECT_NEAR(objective, target, 1e-6 * target);
    EXPECT_LT(objective, c["objective"]["at_zero"].get<double>());

    const auto Xtest = vectorizer.transform(test);
    expect_labels(model.predict(Xtest), classes, c["optimum"]["test_labels"], as_set(c["optimum"]["fragile_test_indices"]),
                  "test labels");
    expect_probabilities(model.predict_proba(Xtest), c["optimum"]["test_proba"], "test probabilities");
    ++checked;
  }
  EXPECT_EQ(checked, 6u);
}

TEST(StratifiedKFold, SklearnsFoldsWithoutShuffling) {
  const auto& g = lip_synthetic();
  const auto classes = g["classes"].get<std::vector<std::string>>();
  const auto labels = indices_of(g["data"]["train_labels"].get<std::vector<std::string>>(), classes);
  const auto folds = learn::stratified_kfold(labels, 5);
  EXPECT_EQ(folds, g["cv"]["test_fold_of_train_index"].get<std::vector<std::size_t>>());
  // Hand-checkable case: class b first seen, a 7 members, b 3; sorted encoded labels dealt round-robin.
  EXPECT_EQ(learn::stratified_kfold({1, 0, 0, 1, 0, 0, 1, 0, 0, 0}, 3), (std::vector<std::size_t>{0, 0, 0, 1, 0, 1, 2, 1, 2, 2}));
  EXPECT_THROW(learn::stratified_kfold({0, 0, 1, 1}, 3), Error);
}

TEST(ModelSelection, MicroF1AndTheFirstBestCandidate) {
  // 48/60 correct: sklearn's 2PR/(P+R) gives 0.8000000000000002, not 0.8.
  std::vector<int> truth(60, 0), predicted(60, 0);
  for (std::size_t i = 0; i < 12; ++i) predicted[i] = 1;
  EXPECT_EQ(learn::f1_micro(truth, predicted), 0.8000000000000002);
  EXPECT_EQ(learn::best_candidate({0.7, 0.8, 0.8, 0.5}), 1u);
}

TEST(LipToolGridSearch, FoldScoresAndChosenCAtTheOptimum) {
  const auto& g = lip_synthetic();
  const auto classes = g["classes"].get<std::vector<std::string>>();
  const auto texts = g["data"]["train_texts"].get<std::vector<std::string>>();
  const auto labels = indices_of(g["data"]["train_labels"].get<std::vector<std::string>>(), classes);
  const auto preset = lip::classifier_preset("lip-tool");
  lip::FeaturizerFactory featurizer = [&] { return std::make_unique<lip::TfidfFeaturizer>(preset.tfidf); };
  auto cv = lip::cross_validate(texts, labels, classes.size(), featurizer, preset.regression, preset.c_grid, preset.folds);
  const auto& golden = g["cv"]["grid_at_optimum"];
  ASSERT_TRUE(cv.grid);
  ASSERT_EQ(cv.grid->candidates.size(), golden["grid"].size());
  for (std::size_t c = 0; c < cv.grid->candidates.size(); ++c) {
    const auto& row = golden["grid"][c];
    EXPECT_EQ(cv.grid->candidates[c], row["C"].get<double>());
    // Near-tie texts of a fold may go either way at a slightly different optimum.
    bool fragile = false;
    for (const auto& n : row["fold_n_fragile"]) fragile |= n.get<int>() > 0;
    for (std::size_t f = 0; f < 5; ++f)
      if (row["fold_n_fragile"][f] == 0) {
        EXPECT_EQ(cv.grid->fold_scores[c][f], row["fold_f1_micro"][f].get<double>()) << "C " << row["C"] << " fold " << f;
      }
    if (!fragile) {
      EXPECT_EQ(cv.grid->means[c], row["mean"].get<double>()) << "C " << row["C"];
    }
  }
  EXPECT_EQ(cv.C, golden["best_C"].get<double>());
  EXPECT_EQ(cv.test_folds, g["cv"]["test_fold_of_train_index"].get<std::vector<std::size_t>>());
}

// `invar lip` with the default preset on the synthetic set, read through the TrustPilot adapter: the
// tool's whole run, compared with the solver-independent optimum record.
TEST(LipToolCli, ReproducesTheToolsRunOnTheSyntheticSet) {
  const auto& g = lip_synthetic();
  const auto& optimum = g["solvers"]["lbfgs"]["optimum_at_best_C"];
  const auto dir = test::temp_dir();
  const auto folder = test::fixture("stmetrics/lip_synthetic");
  auto run = test::run_cli({"lip", "--train", folder + "/train/english.csv", "--original", folder + "/test/english.csv",
                            "--transformed", folder + "/transformed/english.csv", "--text-column", "text",
                            "--label-column", "polarity", "--transformed-column", "text", "--json", "--predictions",
                            dir + "/predictions.jsonl"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto out = json::parse(run.out);
  EXPECT_EQ(out["preset"], "lip-tool");
  EXPECT_EQ(out["verdict"], "transformation bias");
  const auto& r = out["per_run"][0];
  EXPECT_EQ(r["C"].get<double>(), g["cv"]["grid_at_optimum"]["best_C"].get<double>());
  EXPECT_EQ(r["cross_validation"]["test_folds"], g["cv"]["test_fold_of_train_index"]);

  // Per-text predictions and probabilities.
  const auto classes = g["classes"].get<std::vector<std::string>>();
  std::vector<std::string> pred_a, pred_b;
  std::vector<std::vector<double>> proba_a, proba_b;
  std::istringstream lines(test::read_file(dir + "/predictions.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    auto row = json::parse(line);
    pred_a.push_back(row["original"][0]);
    pred_b.push_back(row["transformed"][0]);
    std::vector<double> pa, pb;
    for (const auto& c : classes) {
      pa.push_back(row["p_original"][0][c]);
      pb.push_back(row["p_transformed"][0][c]);
    }
    proba_a.push_back(pa);
    proba_b.push_back(pb);
  }
  expect_labels(indices_of(pred_a, classes), classes, optimum["pred_A"], as_set(optimum["fragile_test_indices_A"]), "pred_A");
  expect_labels(indices_of(pred_b, classes), classes, optimum["pred_B"], as_set(optimum["fragile_test_indices_B"]), "pred_B");
  expect_probabilities(proba_a, optimum["proba_A"], "proba_A");
  expect_probabilities(proba_b, optimum["proba_B"], "proba_B");

  // The tool's report, exactly.
  const auto& tool = out["tool"];
  EXPECT_EQ(tool["KL_O_PO"], optimum["KL_O_PO"]);
  EXPECT_EQ(tool["KL_O_PT"], optimum["KL_O_PT"]);
  EXPECT_EQ(tool["significance_source"], optimum["significance_source"]);
  EXPECT_EQ(tool["significance_transformed"], optimum["significance_transformed"]);
  // The golden's dictionaries keep the tool's first-seen key order only when read in order.
  const auto ordered = nlohmann::ordered_json::parse(test::read_file(test::fixture("stmetrics/lip_synthetic.json")));
  const auto& ordered_optimum = ordered["solvers"]["lbfgs"]["optimum_at_best_C"];
  auto expect_distribution = [](const json& ours, const nlohmann::ordered_json& golden, const char* what) {
    ASSERT_EQ(ours.size(), golden.size()) << what;
    std::size_t i = 0;
    for (const auto& [label, share] : golden.items()) {
      EXPECT_EQ(ours[i][0], label) << what;  // first-seen order
      EXPECT_EQ(ours[i][1].get<double>(), share.get<double>()) << what;
      ++i;
    }
  };
  expect_distribution(tool["distribution_O"], ordered["p_A"]["tool_rounded"], "distribution_O");
  expect_distribution(tool["distribution_PO"], ordered_optimum["phat_A"]["tool_rounded"], "distribution_PO");
  expect_distribution(tool["distribution_PT"], ordered_optimum["phat_B"]["tool_rounded"], "distribution_PT");
  EXPECT_NEAR(r["kl_truth_original"].get<double>(), optimum["KL_O_PO_full"].get<double>(), 1e-12 * optimum["KL_O_PO_full"].get<double>());
  EXPECT_NEAR(r["kl_truth_transformed"].get<double>(), optimum["KL_O_PT_full"].get<double>(), 1e-12 * optimum["KL_O_PT_full"].get<double>());
  for (const auto& [ours, theirs] : {std::pair{"truth_vs_original", "chi2_source"}, std::pair{"truth_vs_transformed", "chi2_transformed"}}) {
    const auto& chi2 = r["chi2"][ours];
    const auto& golden = optimum[theirs];
    EXPECT_NEAR(chi2["chi2"].get<double>(), golden["chi2"].get<double>(), 1e-12 * golden["chi2"].get<double>()) << ours;
    EXPECT_NEAR(chi2["p"].get<double>(), golden["p_value"].get<double>(), 1e-12 * golden["p_value"].get<double>()) << ours;
    EXPECT_EQ(chi2["dof"].get<double>(), golden["dof"].get<double>()) << ours;
  }
  std::vector<std::size_t> truth, original, transformed;
  for (const auto& c : classes) {
    truth.push_back(g["p_A"]["counts"][c]);
    original.push_back(optimum["phat_A"]["counts"][c]);
    transformed.push_back(optimum["phat_B"]["counts"][c]);
  }
  EXPECT_EQ(r["counts"]["truth"].get<std::vector<std::size_t>>(), truth);
  EXPECT_EQ(r["counts"]["original"].get<std::vector<std::size_t>>(), original);
  EXPECT_EQ(r["counts"]["transformed"].get<std::vector<std::size_t>>(), transformed);
}

TEST(LipToolCli, TrustPilotLayoutGivesTheSameRun) {
  // The synthetic set has the TrustPilotPara layout: {train,test,transformed}/english.csv.
  const auto folder = test::fixture("stmetrics/lip_synthetic");
  auto by_dataset = test::run_cli({"lip", "--dataset", "trustpilot", "--data-dir", folder, "--property", "polarity", "--json"});
  ASSERT_EQ(by_dataset.exit_code, 0) << by_dataset.err;
  auto by_files = test::run_cli({"lip", "--train", folder + "/train/english.csv", "--original", folder + "/test/english.csv",
                                 "--transformed", folder + "/transformed/english.csv", "--text-column", "text",
                                 "--label-column", "polarity", "--transformed-column", "text", "--json"});
  ASSERT_EQ(by_files.exit_code, 0) << by_files.err;
  EXPECT_EQ(json::parse(by_dataset.out)["per_run"], json::parse(by_files.out)["per_run"]);
  EXPECT_EQ(json::parse(by_dataset.out)["tool"]["KL_O_PT"], "0.129");

  auto missing = test::run_cli({"lip", "--dataset", "trustpilot", "--data-dir", folder});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "invar: error: --dataset trustpilot needs --property (gender or age_cat)\n");
  auto unknown = test::run_cli({"lip", "--dataset", "sst", "--data-dir", folder});
  EXPECT_EQ(unknown.err, "invar: error: unknown --dataset 'sst' (known: trustpilot, hateval, affect)\n");
}

TEST(LipDatasets, TheToolsTweetCleaning) {
  // \B@\w+: a mention not preceded by a word character, Unicode letters included.
  EXPECT_EQ(lip::replace_user_mentions("@bob hi, mail me@x.com or @José_2!"), "@user hi, mail me@x.com or @user!");
  // ASCII hashtags only, as the tool's pattern has it.
  EXPECT_EQ(lip::remove_hashtags("#Hate speech #über #a_1b."), " speech #über .");
}

TEST(LipDatasets, HatEvalAndAffectLayouts) {
  const auto dir = test::temp_dir();
  std::filesystem::create_directories(dir + "/hateval/train");
  std::filesystem::create_directories(dir + "/hateval/test");
  test::write_file(dir + "/hateval/train/english.csv", "id,text,HS,TR\n1,@ann go home #Out,1,0\n2,nice day @bob,0,0\n");
  test::write_file(dir + "/hateval/train/spanish.csv", "id,text,HS,TR\n1,vete @ann,1,0\n2,buen día,0,0\n");
  test::write_file(dir + "/hateval/test/english.csv", "id,text,HS,TR\n1,#Tag only words,0,0\n");
  auto hateval = lip::read_lip_dataset({"hateval", dir + "/hateval", "", "english", "spanish"});
  EXPECT_EQ(hateval.train.texts, (std::vector<std::string>{"@user go home ", "nice day @user"}));
  EXPECT_EQ(hateval.train.labels, (std::vector<std::string>{"Hate", "Not Hate"}));
  ASSERT_TRUE(hateval.train_target);
  EXPECT_EQ(hateval.train_target->texts[0], "vete @user");
  EXPECT_EQ(hateval.original.texts, (std::vector<std::string>{" only words"}));
  EXPECT_FALSE(hateval.transformed);

  std::filesystem::create_directories(dir + "/affect/train");
  std::filesystem::create_directories(dir + "/affect/test");
  test::write_file(dir + "/affect/train/english.csv", "text,emotion\nyay @kim,joy\nugh,anger\nsad,sadness\neek,fear\nhm,optimism\n");
  test::write_file(dir + "/affect/test/english.csv", "text,emotion\nok #fine,joy\n");
  auto sentiment = lip::read_lip_dataset({"affect", dir + "/affect", "sentiment", "english", ""});
  EXPECT_EQ(sentiment.train.labels, (std::vector<std::string>{"positive", "negative", "negative", "negative", "optimism"}));
  EXPECT_EQ(sentiment.train.texts[0], "yay @user");
  EXPECT_EQ(sentiment.original.texts[0], "ok #fine");  // Affect keeps hashtags
  EXPECT_FALSE(sentiment.train_target);
  auto emotion = lip::read_lip_dataset({"affect", dir + "/affect", "", "english", ""});
  EXPECT_EQ(emotion.train.labels[0], "joy");

  test::write_file(dir + "/hateval/test/english.csv", "id,text,HS,TR\n1,words,yes,0\n");
  try {
    lip::read_lip_dataset({"hateval", dir + "/hateval", "", "english", ""});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/hateval/test/english.csv:2: HS is 'yes', expected 1 or 0");
  }
}

namespace {

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// 20 separable TSV rows: "lovely great thing I<TAB>pos" and "awful broken thing I<TAB>neg".
std::vector<std::string> two_class_training_rows() {
  std::vector<std::string> train;
  for (int i = 0; i < 10; ++i) {
    train.push_back(fmt::format("lovely great thing {}\tpos", i));
    train.push_back(fmt::format("awful broken thing {}\tneg", i));
  }
  return train;
}

std::string lines(const std::vector<std::string>& rows) {
  std::string out;
  for (const auto& row : rows) out += row + "\n";
  return out;
}

}  // namespace

TEST(LipToolCli, EmptyTextsSkippedAndCountedOrNamed) {
  const auto dir = test::temp_dir();
  std::vector<std::string> train = two_class_training_rows();
  train.push_back("  \tpos");
  train.push_back("\tneg");
  test::write_file(dir + "/train.tsv", lines(train));
  test::write_file(dir + "/a.tsv", lines({"lovely thing\tpos", "\tneg", "awful thing\tneg", "great\tpos"}));
  test::write_file(dir + "/b.tsv", lines({"lovely item", "awful item", " ", "great"}));
  std::vector<std::string> args{"lip", "--train", dir + "/train.tsv", "--original", dir + "/a.tsv", "--transformed",
                                dir + "/b.tsv", "--min-df", "1", "--json"};
  auto error = test::run_cli(args);
  EXPECT_EQ(error.exit_code, 1);
  EXPECT_EQ(error.err, "invar: error: " + dir + "/train.tsv:21: empty text (--empty skip leaves empty texts out; --empty nan reads "
            "them as the LIP tool does)\n");

  args.insert(args.end(), {"--empty", "skip"});
  auto run = test::run_cli(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto out = json::parse(run.out);
  EXPECT_EQ(out["texts"], 2);  // pairs 2 (empty A) and 3 (empty B) dropped
  EXPECT_EQ(out["empty_texts_skipped"][dir + "/train.tsv"], 2);
  EXPECT_EQ(out["empty_texts_skipped"][dir + "/a.tsv"], 1);
  EXPECT_EQ(out["empty_texts_skipped"][dir + "/b.tsv"], 1);
  EXPECT_EQ(out["classifier_check"]["source"]["texts"], 20);
}

TEST(LipTool, PandasNaMarkersAreReadAsNan) {
  for (const char* cell : {"", "nan", "NaN", "NA", "N/A", "n/a", "null", "NULL", "#N/A", "<NA>", "-nan", "1.#QNAN"})
    EXPECT_TRUE(lip::pandas_na_marker(cell)) << cell;
  // pandas 1.x keeps these as text: "None" became NA only in pandas 2; whitespace is not stripped.
  for (const char* cell : {"None", " ", " nan", "na", "Nan", "NAN", "nan "}) EXPECT_FALSE(lip::pandas_na_marker(cell)) << cell;
}

TEST(LipToolCli, EmptyNanReadsEmptyTextsAsTheWordNan) {
  // --empty nan on files with an empty cell and a pandas NA marker must give exactly what the same
  // files give with the literal text "nan" written in those cells.
  const auto dir = test::temp_dir();
  std::vector<std::string> train = two_class_training_rows();
  auto literal = train;
  train.insert(train.end(), {"\tneg", "NA\tneg", "  \tpos"});
  literal.insert(literal.end(), {"nan\tneg", "nan\tneg", "  \tpos"});
  test::write_file(dir + "/train.tsv", lines(train));
  test::write_file(dir + "/train_nan.tsv", lines(literal));
  test::write_file(dir + "/a.tsv", lines({"lovely thing\tpos", "\tneg", "awful thing\tneg", "great\tpos"}));
  test::write_file(dir + "/a_nan.tsv", lines({"lovely thing\tpos", "nan\tneg", "awful thing\tneg", "great\tpos"}));
  test::write_file(dir + "/b.tsv", lines({"lovely item", "awful item", "nan", "great"}));
  auto run_on = [&](const std::string& suffix) {
    const std::string predictions = dir + "/predictions" + suffix + ".jsonl";
    auto run = test::run_cli({"lip", "--train", dir + "/train" + suffix + ".tsv", "--original", dir + "/a" + suffix + ".tsv",
                              "--transformed", dir + "/b.tsv", "--min-df", "1", "--empty", "nan", "--json",
                              "--predictions", predictions});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return std::pair{json::parse(run.out), test::read_file(predictions)};
  };
  const auto [out, predictions] = run_on("");
  const auto [out_literal, predictions_literal] = run_on("_nan");
  EXPECT_EQ(out["texts"], 4);  // nothing dropped
  EXPECT_EQ(out["empty_texts_read_as_nan"][dir + "/train.tsv"], 2);  // the empty cell and NA; "  " is kept
  EXPECT_EQ(out["empty_texts_read_as_nan"][dir + "/a.tsv"], 1);
  EXPECT_EQ(out["empty_texts_read_as_nan"][dir + "/b.tsv"], 1);  // a literal nan is NaN to pandas too
  EXPECT_TRUE(out["empty_texts_skipped"].empty());
  EXPECT_EQ(out["tool"], out_literal["tool"]);
  EXPECT_EQ(out["per_run"][0]["cross_validation"], out_literal["per_run"][0]["cross_validation"]);
  EXPECT_EQ(predictions, predictions_literal);
}

TEST(LipToolCli, SourceOnlyGivesTheSourceSideOfTheFullRun) {
  const auto dir = test::temp_dir();
  std::vector<std::string> train = two_class_training_rows();
  test::write_file(dir + "/train.tsv", lines(train));
  test::write_file(dir + "/a.tsv", lines({"lovely thing\tpos", "awful\tneg", "awful thing\tneg", "great\tpos", "broken\tpos"}));
  test::write_file(dir + "/b.tsv", lines({"lovely item", "awful item", "thing", "great", "broken"}));
  const std::vector<std::string> common{"lip", "--train", dir + "/train.tsv", "--original", dir + "/a.tsv", "--min-df", "1",
                                        "--json"};
  auto full_run = test::run_cli(concat(common, {"--transformed", dir + "/b.tsv", "--predictions", dir + "/full.jsonl"}));
  auto source_run = test::run_cli(concat(common, {"--source-only", "--predictions", dir + "/source.jsonl"}));
  ASSERT_EQ(full_run.exit_code, 0) << full_run.err;
  ASSERT_EQ(source_run.exit_code, 0) << source_run.err;
  const auto full = json::parse(full_run.out), source = json::parse(source_run.out);
  EXPECT_EQ(source["source_only"], true);
  for (const char* key : {"KL_O_PO", "significance_source", "distribution_O", "distribution_PO"})
    EXPECT_EQ(source["tool"][key], full["tool"][key]) << key;
  EXPECT_FALSE(source["tool"].contains("KL_O_PT"));
  EXPECT_EQ(source["kl_truth_original"], full["per_run"][0]["kl_truth_original"]);
  EXPECT_EQ(source["cross_validation"], full["per_run"][0]["cross_validation"]);
  const auto full_lines = test::read_file(dir + "/full.jsonl"), source_lines = test::read_file(dir + "/source.jsonl");
  std::istringstream full_in(full_lines), source_in(source_lines);
  std::size_t n = 0;
  for (std::string f, s; std::getline(full_in, f) && std::getline(source_in, s); ++n) {
    const auto fj = json::parse(f), sj = json::parse(s);
    EXPECT_EQ(sj["original"], fj["original"]) << n;
    EXPECT_EQ(sj["p_original"], fj["p_original"]) << n;
    EXPECT_FALSE(sj.contains("transformed")) << n;
  }
  EXPECT_EQ(n, 5u);
  auto text = test::run_cli({"lip", "--train", dir + "/train.tsv", "--original", dir + "/a.tsv", "--min-df", "1",
                             "--source-only"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.find("transformed B"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("KL_O_PT"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Classifier bias on A: "), std::string::npos) << text.out;
  auto refused = test::run_cli(concat(common, {"--source-only", "--transformed", dir + "/b.tsv"}));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err.rfind("invar: error: --source-only scores the classifier on A alone", 0), 0u) << refused.err;
}

TEST(LipToolCli, AWeakClassifierGetsNoVerdict) {
  // Every training text is the same, so no classifier can separate the labels: it predicts one class.
  const auto dir = test::temp_dir();
  std::vector<std::string> train;
  for (int i = 0; i < 10; ++i) {
    train.push_back("the same words\tpos");
    train.push_back("the same words\tneg");
  }
  test::write_file(dir + "/train.tsv", lines(train));
  test::write_file(dir + "/a.tsv", lines({"lovely\tpos", "awful\tneg", "great\tpos", "bad\tneg"}));
  test::write_file(dir + "/b.tsv", lines({"lovely", "awful", "great", "bad"}));
  auto run = test::run_cli({"lip", "--train", dir + "/train.tsv", "--original", dir + "/a.tsv", "--transformed",
                            dir + "/b.tsv", "--min-df", "1", "--max-df", "1.0", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto out = json::parse(run.out);
  EXPECT_EQ(out["verdict"], "inconclusive (weak classifier)");
  ASSERT_FALSE(out["weak_check"].empty());
  EXPECT_NE(out["weak_check"][0].get<std::string>().find("predicts a single class"), std::string::npos) << out["weak_check"];
  EXPECT_EQ(out["reading"].get<std::string>().rfind("No verdict: the classifier check is weak", 0), 0u) << out["reading"];
}

TEST(LipToolCli, TransformTakesGenerationOptionsAndTruncates) {
  const auto dir = test::temp_dir();
  std::vector<std::string> train = two_class_training_rows();
  test::write_file(dir + "/train.tsv", lines(train));
  std::string long_text;
  for (int i = 0; i < 80; ++i) long_text += "lovely great thing ";
  test::write_file(dir + "/a.tsv", lines({"lovely great thing\tpos", long_text + "\tpos", "awful broken thing\tneg"}));
  const auto model = test::fixture("core/marian");  // 64 positions
  std::vector<std::string> args{"lip", "--train", dir + "/train.tsv", "--original", dir + "/a.tsv", "--min-df", "1",
                                "--transform", model, "--beam", "2", "--max-length", "8", "--threads", "1",
                                "--save-transformed", dir + "/b.txt", "--json"};
  auto too_long = test::run_cli(args);
  EXPECT_EQ(too_long.exit_code, 1);
  EXPECT_NE(too_long.err.find(dir + "/a.tsv:2: "), std::string::npos) << too_long.err;
  EXPECT_NE(too_long.err.find("more than the model's 64 positions"), std::string::npos) << too_long.err;

  args.push_back("--truncate");
  auto run = test::run_cli(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("1 of 3 texts of A were longer than the model's 64 positions and were truncated"),
            std::string::npos) << run.err;
  EXPECT_EQ(json::parse(run.out)["transformed"], dir + "/b.txt (1 of 3 sources truncated to 64 tokens)");

  // B is what `invar translate` writes with the same options.
  auto translated = test::run_cli({"translate", "-m", model, "--beam", "2", "--max-length", "8", "--truncate", "--threads", "1"},
                                  "lovely great thing\n" + long_text + "\nawful broken thing\n");
  ASSERT_EQ(translated.exit_code, 0) << translated.err;
  EXPECT_NE(translated.err.find("1 of 3 sources were longer than the model's 64 positions"), std::string::npos);
  const auto saved = test::read_file(dir + "/b.txt");
  EXPECT_EQ(saved, translated.out);
  // ... which is not what the model's own settings give (so the options reached the search).
  auto plain = test::run_cli({"translate", "-m", model, "--threads", "1"}, "lovely great thing\n");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(saved.substr(0, saved.find('\n') + 1), plain.out);
}

TEST(LipToolVocabulary, SameFeatureCountsAsTheToolsPipeline) {
  // The final vectorizer (all training texts) and the one of every fold's training part.
  const auto& g = lip_synthetic();
  const auto texts = g["data"]["train_texts"].get<std::vector<std::string>>();
  const auto preset = lip::classifier_preset("lip-tool");
  learn::TfidfVectorizer all(preset.tfidf);
  all.fit(texts);
  EXPECT_EQ(all.vocabulary().size(), g["solvers"]["lbfgs"]["final_model"]["n_features"].get<std::size_t>());
  const auto folds = g["cv"]["test_fold_of_train_index"].get<std::vector<std::size_t>>();
  for (std::size_t fold = 0; fold < 5; ++fold) {
    std::vector<std::string> part;
    for (std::size_t i = 0; i < texts.size(); ++i)
      if (folds[i] != fold) part.push_back(texts[i]);
    learn::TfidfVectorizer vectorizer(preset.tfidf);
    vectorizer.fit(part);
    EXPECT_EQ(vectorizer.vocabulary().size(), g["cv"]["n_features_per_fold_train_part"][fold].get<std::size_t>()) << fold;
  }
}
