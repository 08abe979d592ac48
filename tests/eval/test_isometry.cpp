// Isometry of translation: categories of the detectors' mode on every combination of three
// detectors (scipy goldens), chrF̄2 and Pearson/t against the sacrebleu and scipy goldens,
// frequencies, agreement patterns, and `invar isometry` end to end with its errors on bad input.
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "eval/isometry/isometry.hpp"
#include "eval/metrics/corpus/chrf.hpp"
#include "eval/isometry/report.hpp"
#include "support/golden.hpp"
#include "core/version.hpp"
#include "support/test_support.hpp"

using namespace invar;
using nlohmann::json;
using test::near_golden;

namespace {

const json& stats_golden() {
  static const json data = test::load_json(test::fixture("metrics/stats.json"));
  return data;
}

const json& sacrebleu_golden() {
  static const json data = test::load_json(test::fixture("metrics/sacrebleu.json"));
  return data;
}

// A probability on the side of ε that gives the judgement.
double probability(int judgement) { return judgement ? 0.8 : 0.2; }

// A data set whose pairs are all ("a b", "a c") → ("x y", "x z"), scored by the given judgements:
// judgements[pair][detector] = [S_X, S_Y].
isometry::IsometryDataSet judged_data_set(const std::string& name, const std::vector<std::vector<std::pair<int, int>>>& judgements,
                                const std::vector<std::string>& detectors) {
  isometry::SentencePairs source{name + ".tsv", {}, {}, {}}, target{name + ".translations.tsv", {}, {}, {}};
  isometry::DetectorScores scores{name + ".scores.tsv", detectors, {}, {}};
  scores.source.assign(detectors.size(), {});
  scores.target.assign(detectors.size(), {});
  for (std::size_t i = 0; i < judgements.size(); ++i) {
    source.first.push_back("a b");
    source.second.push_back("a c");
    source.line_numbers.push_back(i + 1);
    target.first.push_back("x y");
    target.second.push_back("x z");
    target.line_numbers.push_back(i + 1);
    for (std::size_t d = 0; d < detectors.size(); ++d) {
      scores.source[d].push_back(probability(judgements[i][d].first));
      scores.target[d].push_back(probability(judgements[i][d].second));
    }
  }
  return isometry::make_isometry_data_set(name, std::move(source), std::move(target), std::move(scores));
}

const std::vector<std::string> kThree{"bert", "xlmr", "mpnet"};

}  // namespace

// ---- Categories ---------------------------------------------------------------------------------

TEST(IsometryCategory, MapsJudgementsToThePapersCategories) {
  EXPECT_EQ(isometry::isometry_category(std::pair{1, 1}), isometry::IsometryCategory::Isometric);
  EXPECT_EQ(isometry::isometry_category(std::pair{0, 0}), isometry::IsometryCategory::Ambiguous);
  EXPECT_EQ(isometry::isometry_category(std::pair{0, 1}), isometry::IsometryCategory::Type1Anisometry);
  EXPECT_EQ(isometry::isometry_category(std::pair{1, 0}), isometry::IsometryCategory::Type2Anisometry);
  EXPECT_EQ(isometry::isometry_category(std::nullopt), isometry::IsometryCategory::NoMajority);
  EXPECT_STREQ(category_label(isometry::IsometryCategory::Type1Anisometry), "[0,1] type-1 anisometry");
  EXPECT_STREQ(category_key(isometry::IsometryCategory::NoMajority), "none");
}

TEST(IsometryCategory, EveryCombinationOfThreeDetectorsMatchesTheModeGoldens) {
  const auto& cases = stats_golden()["mode_of_pairs_over_3_detectors"];
  ASSERT_EQ(cases.size(), 64u);
  std::vector<std::vector<std::pair<int, int>>> judgements;
  for (const auto& c : cases) {
    std::vector<std::pair<int, int>> detectors;
    for (const auto& d : c["detectors"]) detectors.emplace_back(d[0].get<int>(), d[1].get<int>());
    judgements.push_back(detectors);
  }
  const auto data = judged_data_set("all64", judgements, kThree);
  const auto result = isometry::run_isometry({data}, {});
  ASSERT_EQ(result.data_sets.size(), 1u);
  const auto& pairs = result.data_sets[0].pairs;
  ASSERT_EQ(pairs.size(), 64u);
  isometry::CategoryCounts expected_counts{};
  std::vector<std::size_t> expected_patterns(result.patterns.size(), 0);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].dump());
    const auto& golden = cases[i]["mode"];
    std::optional<std::pair<int, int>> mode;
    if (!golden.is_null()) mode = std::pair{golden[0].get<int>(), golden[1].get<int>()};
    EXPECT_EQ(pairs[i].judgements, judgements[i]);
    EXPECT_EQ(pairs[i].mode.mode, mode);
    EXPECT_EQ(pairs[i].category, isometry::isometry_category(mode));
    // The agreement pattern names exactly the detectors holding the mode.
    std::string pattern = "none";
    if (mode) {
      std::vector<std::string> holding;
      for (std::size_t d = 0; d < 3; ++d)
        if (judgements[i][d] == *mode) holding.push_back(kThree[d]);
      pattern = holding.size() == 3 ? "all" : holding[0] + "+" + holding[1];
    }
    EXPECT_EQ(result.patterns[pairs[i].pattern].name, pattern);
    ++expected_counts[static_cast<std::size_t>(isometry::isometry_category(mode))];
    ++expected_patterns[pairs[i].pattern];
  }
  EXPECT_EQ(result.data_sets[0].categories, expected_counts);
  EXPECT_EQ(result.data_sets[0].patterns, expected_patterns);
  // 4 unanimous combinations, 4·3·3 = 36 where two of three agree, 4·3·2 = 24 without a majority.
  EXPECT_EQ(expected_patterns.front(), 4u);
  EXPECT_EQ(expected_patterns.back(), 24u);
  EXPECT_EQ(expected_counts[static_cast<std::size_t>(isometry::IsometryCategory::NoMajority)], 24u);
  EXPECT_EQ(expected_counts[static_cast<std::size_t>(isometry::IsometryCategory::Isometric)], 10u);
}

TEST(IsometryCategory, ThresholdIsInclusiveAndPerDetectorCountsAreKept) {
  // P = ε counts as a paraphrase; just below does not.
  auto data = judged_data_set("eps", {{{1, 1}}, {{0, 0}}}, {"only"});
  data.scores.source[0] = {0.3, 0.2999999};
  data.scores.target[0] = {0.3, 0.31};
  isometry::IsometryOptions options;
  options.epsilon = 0.3;
  const auto result = isometry::run_isometry({data}, options);
  EXPECT_EQ(result.data_sets[0].pairs[0].category, isometry::IsometryCategory::Isometric);
  EXPECT_EQ(result.data_sets[0].pairs[1].category, isometry::IsometryCategory::Type1Anisometry);
  EXPECT_EQ(result.data_sets[0].detector_categories[0], result.data_sets[0].categories);
  // One detector always agrees with itself.
  EXPECT_EQ(result.patterns.size(), 2u);
  EXPECT_EQ(result.data_sets[0].patterns, (std::vector<std::size_t>{2, 0}));
}

TEST(IsometryAgreement, PatternsAreTheStrictMajorities) {
  auto names = [](const std::vector<isometry::AgreementPattern>& patterns) {
    std::vector<std::string> out;
    for (const auto& p : patterns) out.push_back(p.name);
    return out;
  };
  EXPECT_EQ(names(isometry::agreement_patterns({"a"})), (std::vector<std::string>{"all", "none"}));
  EXPECT_EQ(names(isometry::agreement_patterns({"a", "b"})), (std::vector<std::string>{"all", "none"}));
  EXPECT_EQ(names(isometry::agreement_patterns({"a", "b", "c"})), (std::vector<std::string>{"all", "a+b", "a+c", "b+c", "none"}));
  // Five detectors: 5 sets of four, 10 of three.
  const auto five = isometry::agreement_patterns({"a", "b", "c", "d", "e"});
  ASSERT_EQ(five.size(), 17u);
  EXPECT_EQ(five[1].name, "a+b+c+d");
  EXPECT_EQ(five[6].name, "a+b+c");
  EXPECT_EQ(five[15].name, "c+d+e");
  EXPECT_EQ(isometry::agreement_patterns(std::vector<std::string>(9, "d")).size(), 257u);
  EXPECT_THROW(isometry::agreement_patterns({}), Error);
  EXPECT_THROW(isometry::agreement_patterns(std::vector<std::string>(10, "d")), Error);
}

// ---- chrF̄2 and the correlation ------------------------------------------------------------------

TEST(IsometryChrf, CommutativeChrf2MatchesSacrebleu) {
  const auto hyps = sacrebleu_golden()["hyps"].get<std::vector<std::string>>();
  const auto refs = sacrebleu_golden()["refs"].get<std::vector<std::string>>();
  const json* golden = nullptr;
  for (const auto& c : sacrebleu_golden()["cases"])
    if (c["metric"] == "chrf" && c["char_order"] == 6 && c["word_order"] == 0 && c["beta"] == 2 && c["whitespace"] == false)
      golden = &c;
  ASSERT_NE(golden, nullptr);
  std::vector<std::vector<std::pair<int, int>>> judgements(hyps.size(), {{1, 1}});
  auto data = judged_data_set("chrf", judgements, {"d"});
  data.source.first = hyps;
  data.source.second = refs;
  // Target pairs in the other order: the mean of both orders is the same.
  data.target.first = refs;
  data.target.second = hyps;
  const auto result = isometry::run_isometry({data}, {});
  EXPECT_EQ(result.chrf_name, "chrF2");
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "segment " << i);
    const auto& pair = result.data_sets[0].pairs[i];
    EXPECT_TRUE(near_golden(pair.chrf_source.forward, (*golden)["sentence"][i]));
    EXPECT_TRUE(near_golden(pair.chrf_source.backward, (*golden)["sentence_reversed"][i]));
    EXPECT_TRUE(near_golden(pair.chrf_source.mean, (*golden)["commutative"][i]));
    EXPECT_TRUE(near_golden(pair.chrf_target.mean, (*golden)["commutative"][i]));
  }
}

TEST(IsometryCorrelation, PearsonAndOneTailedTMatchScipy) {
  int index = 0;
  for (const auto& c : stats_golden()["correlation"]) {
    SCOPED_TRACE(::testing::Message() << "correlation case " << index++);
    const auto x = c["x"].get<std::vector<double>>(), y = c["y"].get<std::vector<double>>();
    const auto r = isometry::isometry_correlation(x, y);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->n, x.size());
    EXPECT_TRUE(near_golden(r->r, c["pearson_r"]));
    EXPECT_TRUE(near_golden(r->test.t, c["pearson_t"]));
    EXPECT_TRUE(near_golden(r->test.pvalue, c["pearson_p_one_sided_greater"]));
    EXPECT_EQ(r->test.df, static_cast<double>(x.size() - 2));
    EXPECT_EQ(r->strength, stats::schober_strength(c["pearson_r"].get<double>()));
  }
  EXPECT_FALSE(isometry::isometry_correlation({42.0}, {1.0}).has_value());
}

TEST(IsometryCorrelation, UsesTheModeAndLeavesOutNoMajorityPairs) {
  // Four pairs with distinct chrF̄2 on both sides; the third has no majority and must not count.
  auto data = judged_data_set("corr", {{{1, 1}, {1, 1}, {1, 0}},
                                       {{0, 0}, {0, 0}, {0, 0}},
                                       {{1, 1}, {0, 0}, {0, 1}},
                                       {{1, 0}, {1, 0}, {0, 0}}},
                              kThree);
  data.source.first = {"the cat sat", "a dog ran far", "birds sing", "the cat sat down"};
  data.source.second = {"the cat sat", "green ideas", "fish swim", "the cat sits"};
  data.target.first = {"die Katze sass", "ein Hund", "Vögel singen", "die Katze"};
  data.target.second = {"die Katze sass", "grüne Ideen", "Fische", "der Hund bellt"};
  const auto result = isometry::run_isometry({data}, {});
  const auto& r = result.data_sets[0];
  ASSERT_TRUE(r.source && r.target);
  EXPECT_EQ(r.source->n, 3u);
  std::vector<double> source_chrf, target_chrf;
  for (std::size_t i : {0u, 1u, 3u}) {
    source_chrf.push_back(r.pairs[i].chrf_source.mean);
    target_chrf.push_back(r.pairs[i].chrf_target.mean);
  }
  EXPECT_DOUBLE_EQ(r.source->r, stats::pearson(source_chrf, {1, 0, 1}).statistic);
  EXPECT_DOUBLE_EQ(r.target->r, stats::pearson(target_chrf, {1, 0, 0}).statistic);
  EXPECT_DOUBLE_EQ(r.pairs[0].chrf_source.mean, 100.0);
}

namespace {

// Pearson's r from its definition, Σ(x − x̄)(y − ȳ) / sqrt(Σ(x − x̄)² Σ(y − ȳ)²), independent of eval/stats.
double textbook_r(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / static_cast<double>(x.size());
    my += y[i] / static_cast<double>(y.size());
  }
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

// Three pairs with distinct chrF̄2 on both sides, the second without a majority.
isometry::IsometryDataSet three_pairs(const std::string& name, const std::string& translator) {
  auto data = judged_data_set(name, {{{1, 1}, {1, 0}, {1, 1}}, {{1, 1}, {0, 0}, {0, 1}}, {{0, 0}, {0, 1}, {0, 0}}}, kThree);
  data.source.first = {"the cat sat", "a dog ran far", "birds sing"};
  data.source.second = {"the cat sat down", "green ideas", "fish swim"};
  data.target.first = {"die Katze sass", "ein Hund", "Vögel singen"};
  data.target.second = {"die Katze sass da", "grüne Ideen", "Fische"};
  data.translator = translator;
  return data;
}

}  // namespace

TEST(IsometryCorrelation, PooledTakesEveryDetectorsJudgementOnBothSidesAndKeepsNoMajority) {
  const auto data = three_pairs("pooled", "t");
  const auto result = isometry::run_isometry({data}, {});
  const auto& r = result.data_sets[0];
  ASSERT_TRUE(r.pooled && r.source && r.target);
  // By hand: side × detector × pair = 2 × 3 × 3 judgements, each beside its pair's chrF̄2 on that side.
  std::vector<double> chrf, judged;
  const std::vector<std::vector<std::pair<int, int>>> judgements{{{1, 1}, {1, 0}, {1, 1}}, {{1, 1}, {0, 0}, {0, 1}},
                                                                 {{0, 0}, {0, 1}, {0, 0}}};
  for (bool target : {false, true})
    for (std::size_t d = 0; d < 3; ++d)
      for (std::size_t i = 0; i < 3; ++i) {
        chrf.push_back(target ? r.pairs[i].chrf_target.mean : r.pairs[i].chrf_source.mean);
        judged.push_back(target ? judgements[i][d].second : judgements[i][d].first);
      }
  EXPECT_EQ(r.pooled->n, 18u);
  EXPECT_NEAR(r.pooled->r, textbook_r(chrf, judged), 1e-12);
  EXPECT_EQ(r.pooled->test.df, 16.0);
  // The mode procedure leaves out pair 2 (no majority): two pairs per side, r = ±1, no t-test.
  EXPECT_EQ(r.pairs[1].category, isometry::IsometryCategory::NoMajority);
  EXPECT_EQ(r.source->n, 2u);
  EXPECT_NE(r.pooled->r, r.source->r);
}

TEST(IsometryCorrelation, PooledRoundsAsRDoesHalfToEven) {
  // R's round(0.5) is 0 (half to even), so a probability of exactly ε = 0.5 is a paraphrase for the
  // mode procedure (P ≥ ε, the paper's definition) but not for the pooled one (the R script).
  EXPECT_EQ(isometry::pooled_judgement(0.5, 0.5), 0);
  EXPECT_EQ(isometry::pooled_judgement(std::nextafter(0.5, 1.0), 0.5), 1);
  EXPECT_EQ(isometry::pooled_judgement(1.0, 0.5), 1);
  EXPECT_EQ(isometry::pooled_judgement(0.0, 0.5), 0);
  auto data = three_pairs("half", "t");
  data.scores.source[0][0] = 0.5;  // bert on the first source pair
  const auto result = isometry::run_isometry({data}, {});
  const auto& r = result.data_sets[0];
  EXPECT_EQ(r.pairs[0].judgements[0].first, 1);
  std::vector<double> chrf, judged;
  for (bool target : {false, true})
    for (std::size_t d = 0; d < 3; ++d)
      for (std::size_t i = 0; i < 3; ++i) {
        const double p = target ? data.scores.target[d][i] : data.scores.source[d][i];
        chrf.push_back(target ? r.pairs[i].chrf_target.mean : r.pairs[i].chrf_source.mean);
        judged.push_back(std::nearbyint(p));  // IEC 60559 round half to even, as R's round()
      }
  EXPECT_EQ(judged[0], 0.0);
  EXPECT_NEAR(r.pooled->r, textbook_r(chrf, judged), 1e-12);
}

TEST(IsometryTranslators, SideBySideWithMacroAveragesPerTranslator) {
  const std::pair<int, int> iso{1, 1}, type2{1, 0};
  auto a1 = judged_data_set("legacy", {{iso, iso, iso}, {type2, type2, iso}}, kThree);
  auto a2 = three_pairs("ar", "fair");
  auto b1 = judged_data_set("legacy", {{type2, type2, type2}, {iso, iso, type2}, {iso, iso, iso}, {iso, iso, iso}}, kThree);
  a1.translator = "fair";
  b1.translator = "standard";
  const auto result = isometry::run_isometry({a1, b1, a2}, {});
  ASSERT_EQ(result.translators.size(), 2u);
  EXPECT_EQ(result.translators[0].name, "fair");
  EXPECT_EQ(result.translators[0].data_sets, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(result.translators[1].data_sets, (std::vector<std::size_t>{1}));
  // fair: legacy 1/2 isometric, ar 1/3 (pair 1 [1,1], pair 2 Ø, pair 3 [0,0]); standard: 3/4.
  EXPECT_DOUBLE_EQ(result.translators[0].macro_average[0], (0.5 + 1.0 / 3) / 2);
  EXPECT_DOUBLE_EQ(result.translators[1].macro_average[0], 0.75);
  EXPECT_DOUBLE_EQ(result.translators[1].macro_average[3], 0.25);
  // μ of r: the mean over the data sets with an r. Every pair of judged_data_set has the same
  // sentences, so legacy's chrF̄2 is constant and its r NaN (as scipy gives); only ar's counts.
  EXPECT_TRUE(std::isnan(result.data_sets[0].pooled->r));
  EXPECT_DOUBLE_EQ(result.translators[0].mean_pooled_r, result.data_sets[2].pooled->r);

  const auto text = isometry::isometry_text_report({a1, b1, a2}, result);
  for (const char* column : {"fair: legacy", "fair: ar", "fair: μ", "standard: legacy", "standard: μ", "pooled r"})
    EXPECT_NE(text.find(column), std::string::npos) << column;
  // The Table 2 header lists fair's data sets and μ before standard's.
  const auto table2 = text.find("M(S_XY)");
  EXPECT_LT(text.find("fair: μ", table2), text.find("standard: legacy", table2));
  const auto j = isometry::isometry_json({a1, b1, a2}, result, {.version = "1.2.3"});
  EXPECT_EQ(j["provenance"]["invar"], "1.2.3");
  EXPECT_EQ(j["translators"][0]["data_sets"], (json{"legacy", "ar"}));
  EXPECT_EQ(j["translators"][1]["macro_average"]["type2"], 0.25);
  EXPECT_TRUE(j["translators"][0]["mean_r"]["pooled"].is_number());
  EXPECT_EQ(j["data_sets"][1]["translator"], "standard");
  EXPECT_EQ(j["data_sets"][2]["correlation"]["pooled"]["n"], 18);
  EXPECT_NO_THROW(json::parse(j.dump()));
}

// ---- Frequencies over data sets -------------------------------------------------------------------

TEST(IsometryFrequencies, SharesPerDataSetAndTheirMacroAverage) {
  const std::pair<int, int> iso{1, 1}, type1{0, 1}, type2{1, 0};
  // Data set A: 3 isometric, 1 type-2. Data set B: 1 isometric, 1 type-1.
  auto a = judged_data_set("A", {{iso, iso, iso}, {iso, iso, type1}, {iso, iso, iso}, {type2, type2, iso}}, kThree);
  auto b = judged_data_set("B", {{iso, type1, iso}, {type1, type1, type2}}, kThree);
  const auto result = isometry::run_isometry({a, b}, {});
  EXPECT_DOUBLE_EQ(isometry::category_share(result.data_sets[0].categories, isometry::IsometryCategory::Isometric), 0.75);
  EXPECT_DOUBLE_EQ(isometry::category_share(result.data_sets[0].categories, isometry::IsometryCategory::Type2Anisometry), 0.25);
  EXPECT_DOUBLE_EQ(isometry::category_share(result.data_sets[1].categories, isometry::IsometryCategory::Type1Anisometry), 0.5);
  // Macro-average: the mean of the two data sets' shares, not the pooled share (4/6).
  EXPECT_DOUBLE_EQ(result.translators[0].macro_average[0], (0.75 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(result.translators[0].macro_average[2], 0.25);
  EXPECT_DOUBLE_EQ(result.translators[0].macro_average[3], 0.125);
  EXPECT_DOUBLE_EQ(result.translators[0].macro_average[4], 0.0);
  // Per detector: xlmr judged A as 3 × [1,1] and 1 × [1,0].
  EXPECT_EQ(result.data_sets[0].detector_categories[1], (isometry::CategoryCounts{3, 0, 0, 1, 0}));

  const auto j = isometry::isometry_json({a, b}, result, {});
  EXPECT_EQ(j["data_sets"][0]["counts"]["isometric"], 3);
  EXPECT_EQ(j["data_sets"][1]["frequencies"]["type1"], 0.5);
  EXPECT_EQ(j["translators"][0]["macro_average"]["isometric"], 0.625);
  EXPECT_EQ(j["data_sets"][0]["agreement"]["all"], 2);
  EXPECT_EQ(j["data_sets"][0]["agreement"]["bert+xlmr"], 2);
  EXPECT_EQ(j["data_sets"][1]["agreement"]["bert+mpnet"], 1);
  EXPECT_EQ(j["data_sets"][1]["agreement"]["bert+xlmr"], 1);
  EXPECT_EQ(j["agreement_patterns"], (json{"all", "bert+xlmr", "bert+mpnet", "xlmr+mpnet", "none"}));
  EXPECT_EQ(j["data_sets"][0]["per_detector"]["mpnet"]["counts"]["type1"], 1);
}

TEST(IsometryData, DifferentDetectorsAcrossDataSetsAreAnError) {
  auto a = judged_data_set("A", {{{1, 1}, {1, 1}}}, {"bert", "xlmr"});
  auto b = judged_data_set("B", {{{1, 1}, {1, 1}}}, {"bert", "mpnet"});
  try {
    isometry::run_isometry({a, b}, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "A.scores.tsv scores detectors {bert, xlmr} but B.scores.tsv scores {bert, mpnet}; every "
                           "data set needs the same detectors");
  }
  isometry::IsometryOptions options;
  options.epsilon = 1.0;
  EXPECT_THROW(isometry::run_isometry({a}, options), Error);
}

TEST(IsometryData, ComputedDetectorsAndTranslatorKeepTheOrder) {
  isometry::SentencePairs source{"pairs.tsv", {"one", "two"}, {"uno", "dos"}, {1, 2}};
  const isometry::TextTranslator upper = [](const std::vector<std::string>& texts) {
    std::vector<std::string> out;
    for (auto t : texts) {
      std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      out.push_back(t);
    }
    return out;
  };
  auto target = isometry::translate_pairs(source, upper, "upper");
  EXPECT_EQ(target.first, (std::vector<std::string>{"ONE", "TWO"}));
  EXPECT_EQ(target.second, (std::vector<std::string>{"UNO", "DOS"}));
  const isometry::ParaphraseDetector same_length{"len", [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
                                         std::vector<double> p;
                                         for (std::size_t i = 0; i < a.size(); ++i) p.push_back(a[i].size() == b[i].size());
                                         return p;
                                       }};
  auto scores = isometry::detect_paraphrases(source, target, {same_length});
  EXPECT_EQ(scores.source[0], (std::vector<double>{1, 1}));
  const isometry::ParaphraseDetector broken{"broken", [](const std::vector<std::string>&, const std::vector<std::string>&) {
                                    return std::vector<double>{0.5};
                                  }};
  EXPECT_THROW(isometry::detect_paraphrases(source, target, {broken}), Error);
  const isometry::TextTranslator drops = [](const std::vector<std::string>&) { return std::vector<std::string>{"x"}; };
  EXPECT_THROW(isometry::translate_pairs(source, drops, "drops"), Error);
}

// ---- The command ------------------------------------------------------------------------------------

namespace {

struct Files {
  std::string dir, pairs, translations, scores;
};

Files write_example() {
  Files f;
  f.dir = test::temp_dir();
  f.pairs = f.dir + "/pairs.tsv";
  f.translations = f.dir + "/translations.tsv";
  f.scores = f.dir + "/scores.tsv";
  test::write_file(f.pairs,
                   "The cat sat on the mat.\tA cat was sitting on the mat.\n"
                   "He bought a new car.\tHe purchased a new automobile.\n"
                   "The meeting starts at noon.\tThe meeting ends at noon.\n"
                   "She likes green tea.\tGreen tea is what she likes.\n"
                   "The train was late.\tThe bus was early.\n");
  test::write_file(f.translations,
                   "Die Katze sass auf der Matte.\tEine Katze sass auf der Matte.\n"
                   "Er kaufte ein neues Auto.\tEr erwarb ein neues Automobil.\n"
                   "Das Treffen beginnt mittags.\tDas Treffen beginnt mittags.\n"
                   "Sie mag grünen Tee.\tSie trinkt Kaffee.\n"
                   "Der Zug war spät.\tDer Bus war früh.\n");
  test::write_file(f.scores,
                   "source:bert\ttarget:bert\tsource:xlmr\ttarget:xlmr\tsource:mpnet\ttarget:mpnet\n"
                   "0.97\t0.95\t0.91\t0.88\t0.99\t0.93\n"
                   "0.90\t0.85\t0.40\t0.70\t0.95\t0.91\n"
                   "0.30\t0.90\t0.20\t0.80\t0.60\t0.10\n"
                   "0.80\t0.10\t0.75\t0.20\t0.30\t0.60\n"
                   "0.05\t0.02\t0.10\t0.60\t0.40\t0.70\n");
  return f;
}

std::vector<std::string> example_args(const Files& f) {
  return {"isometry", "--pairs", f.pairs, "--translations", f.translations, "--detector-scores", f.scores};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void expect_error(const std::vector<std::string>& args, const std::string& message) {
  auto result = test::run_cli(args);
  EXPECT_EQ(result.exit_code, 1) << result.out;
  EXPECT_EQ(result.err, "invar: error: " + message + "\n");
  EXPECT_TRUE(result.out.empty());
}

}  // namespace

TEST(IsometryCli, JsonPerPairOutputAndReport) {
  auto f = write_example();
  auto args = example_args(f);
  args.insert(args.end(), {"--json", "--per-pair", f.dir + "/pairs.jsonl", "--report", f.dir + "/report.html"});
  auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto j = json::parse(result.out);
  EXPECT_EQ(j["detectors"], (json{"bert", "xlmr", "mpnet"}));
  EXPECT_EQ(j["provenance"]["invar"], kVersion);
  EXPECT_EQ(j["provenance"]["data"][0]["option"], "--pairs");
  EXPECT_NE(test::read_file(f.dir + "/report.html").find("<details class=\"provenance\">"), std::string::npos);
  EXPECT_EQ(j["epsilon"], 0.5);
  EXPECT_EQ(j["chrf"], "chrF2");
  const auto& set = j["data_sets"][0];
  EXPECT_EQ(set["name"], "pairs");
  EXPECT_EQ(set["pairs"], 5);
  // Pair by pair: [1,1] all; [1,1] bert+mpnet; [0,1] bert+xlmr; [1,0] bert+xlmr; pair 5 has
  // [0,0], [0,1], [0,1] → [0,1] xlmr+mpnet.
  EXPECT_EQ(set["counts"], (json{{"isometric", 2}, {"ambiguous", 0}, {"type1", 2}, {"type2", 1}, {"none", 0}}));
  EXPECT_EQ(set["agreement"], (json{{"all", 1}, {"bert+xlmr", 2}, {"bert+mpnet", 1}, {"xlmr+mpnet", 1}, {"none", 0}}));
  EXPECT_EQ(j["translators"][0]["macro_average"]["isometric"], 0.4);
  EXPECT_EQ(set["correlation"]["mode"]["source"]["n"], 5);
  EXPECT_TRUE(set["correlation"]["mode"]["target"]["strength"].is_string());

  const auto lines = test::read_file(f.dir + "/pairs.jsonl");
  ASSERT_EQ(std::count(lines.begin(), lines.end(), '\n'), 5);
  std::vector<json> rows;
  for (std::size_t start = 0, end; (end = lines.find('\n', start)) != std::string::npos; start = end + 1)
    rows.push_back(json::parse(lines.substr(start, end - start)));
  EXPECT_EQ(rows[0]["translator"], "translations");
  EXPECT_EQ(rows[0]["line"], 1);
  EXPECT_EQ(rows[4]["line"], 5);
  EXPECT_EQ(rows[2]["source"][1], "The meeting ends at noon.");
  EXPECT_EQ(rows[2]["target"][0], "Das Treffen beginnt mittags.");
  EXPECT_EQ(rows[2]["mode"], (json{0, 1}));
  EXPECT_EQ(rows[2]["category"], "type1");
  EXPECT_EQ(rows[2]["agreement"], "bert+xlmr");
  EXPECT_EQ(rows[2]["judgements"]["mpnet"], (json{1, 0}));
  EXPECT_EQ(rows[2]["p_target"]["xlmr"], 0.8);
  EXPECT_EQ(rows[2]["chrf_target"], 100.0);
  EXPECT_EQ(rows[1]["agreement"], "bert+mpnet");

  const auto html = test::read_file(f.dir + "/report.html");
  const auto svgs = count(html, "<svg");
  // Categories, density contours, Figures 5 and 6, box plots, and at this size the two scatter plots.
  EXPECT_EQ(svgs, 7u);
  // Figure 5: the counts above, split by agreement.
  for (const char* segment : {"[1,1] isometric — all: 1.00", "[1,1] isometric — bert+mpnet: 1.00",
                              "[0,1] type-1 anisometry — bert+xlmr: 1.00", "[0,1] type-1 anisometry — xlmr+mpnet: 1.00",
                              "[1,0] type-2 anisometry — bert+xlmr: 1.00", "[0,0] ambiguous — all: 0.00"})
    EXPECT_NE(html.find(segment), std::string::npos) << segment;
  // Figure 6: every pair counted in one bin.
  std::size_t binned = 0;
  for (auto at = html.find("<rect class=\"bin\""); at != std::string::npos; at = html.find("<rect class=\"bin\"", at + 1)) {
    const auto colon = html.find("): ", at);
    binned += std::stoul(html.substr(colon + 3, html.find('<', colon) - colon - 3));
  }
  EXPECT_EQ(binned, 5u);
  EXPECT_NE(html.find("[0,1] type-1 anisometry"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("class=\"contour\""), std::string::npos);
  // One box per side and S_L: both judgements occur on both sides.
  EXPECT_EQ(count(html, "<g class=\"box\">"), 4u);
  // Table 4: one example for each of the three categories that occur, the first in input order.
  EXPECT_NE(html.find("Table 4"), std::string::npos);
  EXPECT_EQ(count(html, "<td>translations</td>"), 3u);
  EXPECT_NE(html.find("<td>pairs:3</td>"), std::string::npos);

  // Identical across runs (but for the date the provenance records).
  auto again = test::run_cli(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(test::without_provenance(again.out), test::without_provenance(result.out));
  EXPECT_EQ(test::read_file(f.dir + "/pairs.jsonl"), lines);
}

TEST(IsometryCli, TablesAndSeveralDataSets) {
  auto f = write_example();
  auto jsonl_pairs = f.dir + "/second.jsonl", jsonl_translations = f.dir + "/second_translations.jsonl",
       jsonl_scores = f.dir + "/second_scores.jsonl";
  test::write_file(jsonl_pairs, "{\"sentence1\": \"Yes.\", \"sentence2\": \"Indeed.\"}\n"
                                "{\"sentence1\": \"No.\", \"sentence2\": \"Never.\"}\n");
  test::write_file(jsonl_translations, "{\"sentence1\": \"Ja.\", \"sentence2\": \"In der Tat.\"}\n"
                                       "{\"sentence1\": \"Nein.\", \"sentence2\": \"Nie.\"}\n");
  test::write_file(jsonl_scores,
                   "{\"source:bert\": 0.9, \"target:bert\": 0.9, \"source:xlmr\": 0.9, \"target:xlmr\": 0.9, "
                   "\"source:mpnet\": 0.9, \"target:mpnet\": 0.9}\n"
                   "{\"source:bert\": 0.9, \"target:bert\": 0.1, \"source:xlmr\": 0.1, \"target:xlmr\": 0.9, "
                   "\"source:mpnet\": 0.1, \"target:mpnet\": 0.1}\n");
  auto args = example_args(f);
  args.insert(args.end(), {"--pairs", jsonl_pairs, "--translations", jsonl_translations, "--detector-scores",
                           jsonl_scores, "--name", "tsv", "--name", "jsonl"});
  auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("μ"), std::string::npos);
  EXPECT_NE(result.out.find("[1,0] type-2 anisometry"), std::string::npos);
  EXPECT_NE(result.out.find("bert+xlmr"), std::string::npos);
  EXPECT_NE(result.out.find("target (Y)"), std::string::npos);
  args.push_back("--json");
  auto j = json::parse(test::run_cli(args).out);
  ASSERT_EQ(j["data_sets"].size(), 2u);
  EXPECT_EQ(j["data_sets"][1]["name"], "jsonl");
  EXPECT_EQ(j["data_sets"][1]["counts"]["none"], 1);
  EXPECT_EQ(j["data_sets"][1]["counts"]["isometric"], 1);
  EXPECT_DOUBLE_EQ(j["translators"][0]["macro_average"]["isometric"].get<double>(), (0.4 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(j["translators"][0]["macro_average"]["none"].get<double>(), 0.25);
  // Two pairs of which one has a mode: no correlation.
  EXPECT_TRUE(j["data_sets"][1]["correlation"]["mode"]["source"].is_null());
}

TEST(IsometryCli, BadInputNamesFileLineAndField) {
  auto f = write_example();
  // The example's arguments with the file at `position` (2 pairs, 4 translations, 6 scores) replaced
  // by `name` holding `content`.
  auto replacing = [&](std::size_t position, const std::string& name, const std::string& content) {
    auto args = example_args(f);
    args[position] = f.dir + "/" + name;
    test::write_file(args[position], content);
    return args;
  };
  const auto one = f.dir + "/one.tsv", shorter = f.dir + "/short.tsv", scores = f.dir + "/scores2.tsv";
  expect_error(replacing(2, "one.tsv", "The cat sat.\nThe dog ran.\n"),
               one + ":1: no column 2 for sentence 2: the file has 1 column");
  expect_error(replacing(2, "empty.tsv", "A.\tB.\n \tC.\n"), f.dir + "/empty.tsv:2: empty sentence 1");
  expect_error(replacing(4, "short.tsv", "Die Katze.\tEine Katze.\n"),
               f.pairs + " has 5 pairs but " + shorter + " has 1 translated pairs; they must be line-aligned");
  expect_error(replacing(6, "scores2.tsv", "source:bert\ttarget:bert\n0.5\t0.5\n"),
               f.pairs + " has 5 pairs but " + scores + " has 1 score rows; they must be line-aligned");
  expect_error(replacing(6, "scores2.tsv", "source:bert\ttarget:bert\n0.5\t0.5\n0.5\t1.5\n"),
               scores + ":3: target:bert: expected a probability in [0, 1], got '1.5'");
  expect_error(replacing(6, "scores2.tsv", "source:bert\ttarget:bert\nhigh\t0.5\n"),
               scores + ":2: source:bert: expected a probability in [0, 1], got 'high'");
  expect_error(replacing(6, "scores2.tsv", "source:bert\tsource:xlmr\ttarget:xlmr\n0.5\t0.5\t0.5\n"),
               scores + ": detector 'bert' has a source:bert column but no target:bert column");
  expect_error(replacing(6, "scores2.tsv", "id\tsource:bert\ttarget:bert\n1\t0.5\t0.5\n"),
               scores + ": column 'id' is not named source:DETECTOR or target:DETECTOR");
  for (const char* epsilon : {"0", "1", "-0.5", "1.5"}) {
    auto args = example_args(f);
    args.insert(args.end(), {"--epsilon", epsilon});
    expect_error(args, fmt::format("--epsilon must lie in (0, 1), got {}", epsilon));
  }
  // Files given once per data set.
  auto args = example_args(f);
  args.insert(args.end(), {"--pairs", f.pairs});
  expect_error(args, "--translations given 1 times but --pairs 2 times; give one per data set, in the same order");
  expect_error({"isometry", "--pairs", f.pairs, "--detector-scores", f.scores},
               "isometry needs --translations FILE (one per --pairs) or --translator MODEL");
}

TEST(IsometryCli, SeveralTranslatorsFromFilesSideBySide) {
  auto f = write_example();
  // A second translator: the same pairs, its own translations and scores (every detector agrees [1,1]).
  const auto other = f.dir + "/other.tsv", other_scores = f.dir + "/other_scores.tsv";
  test::write_file(other, "A.\tB.\nC.\tD.\nE.\tF.\nG.\tH.\nI.\tJ.\n");
  std::string scores = "source:bert\ttarget:bert\tsource:xlmr\ttarget:xlmr\tsource:mpnet\ttarget:mpnet\n";
  for (int i = 0; i < 5; ++i) scores += "0.9\t0.9\t0.9\t0.9\t0.9\t0.9\n";
  test::write_file(other_scores, scores);
  std::vector<std::string> args{"isometry", "--pairs", f.pairs, "--translations", "mt1=" + f.translations,
                                "--translations", "mt2=" + other, "--detector-scores", "mt2=" + other_scores,
                                "--detector-scores", "mt1=" + f.scores};
  auto text = test::run_cli(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* column : {"mt1: pairs", "mt1: μ", "mt2: pairs", "mt2: μ", "pooled r", "mode, source r"})
    EXPECT_NE(text.out.find(column), std::string::npos) << column;
  args.push_back("--json");
  auto out = test::run_cli(args);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto j = json::parse(out.out);
  ASSERT_EQ(j["translators"].size(), 2u);
  EXPECT_EQ(j["translators"][0]["name"], "mt1");
  EXPECT_EQ(j["translators"][0]["macro_average"]["isometric"], 0.4);
  EXPECT_EQ(j["translators"][1]["macro_average"]["isometric"], 1.0);
  // mt2's S_L is 1 everywhere: a constant, so no r (null in JSON, as scipy's NaN).
  EXPECT_TRUE(j["data_sets"][1]["correlation"]["pooled"]["r"].is_null());
  EXPECT_TRUE(j["translators"][1]["mean_r"]["pooled"].is_null());
  EXPECT_EQ(j["data_sets"][0]["correlation"]["pooled"]["n"], 30);
  // --correlation picks the procedure the tables show.
  auto pooled_only = args;
  pooled_only.back() = "--correlation=pooled";
  const auto pooled = test::run_cli(pooled_only).out;
  EXPECT_NE(pooled.find("pooled r"), std::string::npos);
  EXPECT_EQ(pooled.find("mode, source"), std::string::npos);

  expect_error({"isometry", "--pairs", f.pairs, "--translations", "mt1=" + f.translations, "--translations",
                "mt2=" + other, "--detector-scores", f.scores},
               "2 translators: name the one each --detector-scores file scores, NAME=FILE");
  expect_error({"isometry", "--pairs", f.pairs, "--translations", "mt1=" + f.translations, "--translations",
                "mt2=" + other, "--detector-scores", "mt1=" + f.scores},
               "no --detector-scores for the translator 'mt2' (give --detector-scores mt2=FILE per --pairs, or "
               "--detector MODEL)");
  expect_error({"isometry", "--pairs", f.pairs, "--translations", f.translations, "--detector-scores", f.scores,
                "--save-translations", f.dir + "/saved.tsv"},
               "--save-translations keeps what --translator produces, and no --translator is given");
  expect_error({"isometry", "--pairs", f.pairs, "--pairs", f.pairs, "--translations", "mt1=" + f.translations,
                "--detector-scores", "mt1=" + f.scores},
               "--translations mt1= given 1 times but --pairs 2 times; give one per data set, in the same order");
}

TEST(IsometryCli, TheReportScalesToLargeStudies) {
  // 450 pairs: no scatter plots (a solid block of colour at this size), the densities, bins and boxes instead.
  const auto dir = test::temp_dir();
  std::string pairs, translations, scores = "source:a\ttarget:a\tsource:b\ttarget:b\tsource:c\ttarget:c\n";
  for (int i = 0; i < 450; ++i) {
    pairs += fmt::format("w{} x{} y\tw{} x{} z{}\n", i % 7, i % 11, i % 5, i % 3, i % 13);
    translations += fmt::format("v{} u{}\tv{} t{}\n", i % 9, i % 4, i % 6, i % 17);
    std::vector<std::string> cells;
    for (int c = 0; c < 6; ++c) cells.push_back(fmt::format("{:.3f}", ((i * (7 + 2 * c) + 3 * c) % 101) / 100.0));
    scores += fmt::format("{}\n", fmt::join(cells, "\t"));
  }
  test::write_file(dir + "/pairs.tsv", pairs);
  test::write_file(dir + "/translations.tsv", translations);
  test::write_file(dir + "/scores.tsv", scores);
  auto result = test::run_cli({"isometry", "--pairs", dir + "/pairs.tsv", "--translations", dir + "/translations.tsv",
                               "--detector-scores", dir + "/scores.tsv", "--report", dir + "/report.html"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto html = test::read_file(dir + "/report.html");
  EXPECT_EQ(count(html, "<svg"), 5u);  // Figures 5 and 6 at any size
  EXPECT_EQ(count(html, "<circle cx") - count(html, "r=\"2\" fill=\"none\""), 0u);  // only box-plot outliers
  // One panel per detector, each with contour lines.
  EXPECT_GE(count(html, "class=\"contour\""), 3u);
  EXPECT_EQ(count(html, "<g class=\"box\">"), 4u);
}

// ---- Models inside invar: the tiny Marian translator and pair classifiers of tests/fixtures/core --

namespace {

struct ModelRun {
  json summary;
  std::vector<json> pairs;
  std::string per_pair;
};

ModelRun run_with_models(const std::string& pairs, const std::vector<std::string>& extra) {
  const auto dir = test::temp_dir();
  std::vector<std::string> args{"isometry", "--pairs", pairs, "--translator", test::fixture("core/marian"),
                                "--detector", "bert=" + test::fixture("core/bert-pair-cls"),
                                "--detector", "xlmr=" + test::fixture("core/xlmr-pair-cls"),
                                "--detector", test::fixture("core/bert-pair-cls"),
                                "--epsilon", "0.455", "--json", "--per-pair", dir + "/pairs.jsonl"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto result = test::run_cli(args);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  ModelRun run;
  if (result.exit_code != 0) return run;
  run.summary = json::parse(result.out);
  run.summary.erase("provenance");  // names each run's own command line and date
  run.per_pair = test::read_file(dir + "/pairs.jsonl");
  for (std::size_t start = 0, end; (end = run.per_pair.find('\n', start)) != std::string::npos; start = end + 1)
    run.pairs.push_back(json::parse(run.per_pair.substr(start, end - start)));
  return run;
}

// Two runs agree on everything, the detectors' probabilities to 1e-6.
void expect_same_study(const ModelRun& run, const ModelRun& other) {
  ASSERT_EQ(other.pairs.size(), run.pairs.size());
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    auto a = run.pairs[i], b = other.pairs[i];
    for (const char* side : {"p_source", "p_target"}) {
      for (const auto& [detector, p] : a[side].items()) EXPECT_NEAR(b[side][detector].get<double>(), p.get<double>(), 1e-6);
      a.erase(side);
      b.erase(side);
    }
    EXPECT_EQ(a, b) << "pair " << i;
  }
  EXPECT_EQ(other.summary, run.summary);
}

}  // namespace

TEST(IsometryModels, TranslatesDetectsVotesAndScoresEndToEnd) {
  const auto bert = test::load_json(test::fixture("core/bert-pair-cls/golden.json"));
  const auto xlmr = test::load_json(test::fixture("core/xlmr-pair-cls/golden.json"));
  const auto marian = test::load_json(test::fixture("core/marian/golden.json"));
  std::map<std::string, std::string> beam4;  // Hugging Face's best beam (num_beams 4) per source text
  for (const auto& c : marian["cases"]) beam4[c["text"].get<std::string>()] = c["beam_texts"][0].get<std::string>();
  const auto dir = test::temp_dir();
  const auto pairs = dir + "/pairs.tsv";
  std::string lines;
  for (const auto& c : bert["cases"]) lines += c["text"].get<std::string>() + "\t" + c["text_pair"].get<std::string>() + "\n";
  test::write_file(pairs, lines);

  const auto run = run_with_models(pairs, {"--beam", "4", "--threads", "1", "--save-translations", dir + "/saved.tsv"});
  ASSERT_EQ(run.pairs.size(), bert["cases"].size());
  EXPECT_EQ(run.summary["detectors"], (json{"bert", "xlmr", "bert-pair-cls"}));
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "pair " << i);
    const auto& row = run.pairs[i];
    const auto& c = bert["cases"][i];
    EXPECT_EQ(row["line"], i + 1);
    EXPECT_EQ(row["source"], (json{c["text"], c["text_pair"]}));
    // The translations are Hugging Face's beam search outputs; the source probabilities its softmax.
    EXPECT_EQ(row["target"][0], beam4.at(c["text"].get<std::string>()));
    EXPECT_EQ(row["target"][1], beam4.at(c["text_pair"].get<std::string>()));
    const double p_bert = c["probs"][0][1].get<double>(), p_xlmr = xlmr["cases"][i]["probs"][0][1].get<double>();
    EXPECT_NEAR(row["p_source"]["bert"].get<double>(), p_bert, 1e-4);
    EXPECT_NEAR(row["p_source"]["bert-pair-cls"].get<double>(), p_bert, 1e-4);
    EXPECT_NEAR(row["p_source"]["xlmr"].get<double>(), p_xlmr, 1e-4);
    EXPECT_EQ(row["judgements"]["bert"][0], p_bert >= 0.455 ? 1 : 0);
    EXPECT_EQ(row["judgements"]["xlmr"][0], p_xlmr >= 0.455 ? 1 : 0);
    // The vote over the three detectors, and its category.
    std::vector<std::pair<int, int>> judgements;
    for (const char* d : {"bert", "xlmr", "bert-pair-cls"})
      judgements.emplace_back(row["judgements"][d][0].get<int>(), row["judgements"][d][1].get<int>());
    const auto mode = stats::mode_of_pairs(judgements).mode;
    const json expected_mode = mode ? json{mode->first, mode->second} : json(nullptr);
    EXPECT_EQ(row["mode"], expected_mode);
    EXPECT_EQ(row["category"], category_key(isometry::isometry_category(mode)));
    const metrics::ChrF chrf;
    EXPECT_DOUBLE_EQ(row["chrf_target"].get<double>(),
                     metrics::commutative_score(row["target"][0].get<std::string>(), row["target"][1].get<std::string>(), chrf).mean);
  }
  // Both bert detectors (the same checkpoint) judge 0.4586 and 0.4574 paraphrases, 0.4505 and 0.4508 not.
  EXPECT_EQ(run.pairs[0]["judgements"]["bert"][0], 1);
  EXPECT_EQ(run.pairs[3]["judgements"]["bert"][0], 0);

  // Identical across runs.
  const auto again = run_with_models(pairs, {"--beam-size", "4", "--threads", "1"});
  EXPECT_EQ(again.per_pair, run.per_pair);
  // With --deterministic, byte-identical across thread counts too.
  const auto fixed = run_with_models(pairs, {"--beam-size", "4", "--deterministic", "--threads", "1"});
  for (const char* threads : {"2", "3"}) {
    const auto other = run_with_models(pairs, {"--beam-size", "4", "--deterministic", "--threads", threads});
    EXPECT_EQ(other.per_pair, fixed.per_pair) << threads << " threads";
    EXPECT_EQ(other.summary, fixed.summary) << threads << " threads";
  }
  // OpenBLAS (the default) rounds its sums differently with the thread count (the encoder promises
  // 1e-6, EncoderThreads), and the fixed order differs from OpenBLAS likewise: translations,
  // judgements, votes and scores are identical, the probabilities equal to that tolerance.
  expect_same_study(run, run_with_models(pairs, {"--beam-size", "4", "--threads", "2"}));
  expect_same_study(run, fixed);

  // The same study from the files the models produced gives the same numbers.
  std::string translations, scores = "source:bert\ttarget:bert\tsource:xlmr\ttarget:xlmr\tsource:bert-pair-cls\ttarget:bert-pair-cls\n";
  for (const auto& row : run.pairs) {
    translations += row["target"][0].get<std::string>() + "\t" + row["target"][1].get<std::string>() + "\n";
    std::vector<std::string> cells;
    for (const char* d : {"bert", "xlmr", "bert-pair-cls"})
      for (const char* side : {"p_source", "p_target"}) cells.push_back(fmt::format("{:.17g}", row[side][d].get<double>()));
    scores += fmt::format("{}\n", fmt::join(cells, "\t"));
  }
  // --save-translations kept exactly those translations, line-aligned with the pairs.
  EXPECT_EQ(test::read_file(dir + "/saved.tsv"), translations);
  test::write_file(dir + "/translations.tsv", translations);
  test::write_file(dir + "/scores.tsv", scores);
  auto from_files = test::run_cli({"isometry", "--pairs", pairs, "--translations", dir + "/translations.tsv",
                                   "--detector-scores", dir + "/scores.tsv", "--epsilon", "0.455", "--json"});
  ASSERT_EQ(from_files.exit_code, 0) << from_files.err;
  auto files_summary = json::parse(from_files.out);
  for (const char* key : {"counts", "agreement", "correlation", "per_detector"})
    EXPECT_EQ(files_summary["data_sets"][0][key], run.summary["data_sets"][0][key]) << key;
}

TEST(IsometryModels, TheDefaultBeamIsFive) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/pairs.tsv", "The cat sat on the mat.\tLe chien mange une pomme rouge.\n");
  const auto five = run_with_models(dir + "/pairs.tsv", {});
  const auto explicit_five = run_with_models(dir + "/pairs.tsv", {"--beam", "5"});
  ASSERT_EQ(five.pairs.size(), 1u);
  EXPECT_EQ(five.per_pair, explicit_five.per_pair);
  // --beam-size is the name isometry had before it shared translate's options; greedy differs here.
  const auto greedy = run_with_models(dir + "/pairs.tsv", {"--beam", "1"});
  EXPECT_EQ(run_with_models(dir + "/pairs.tsv", {"--beam-size", "1"}).per_pair, greedy.per_pair);
  EXPECT_NE(greedy.per_pair, five.per_pair);
}

TEST(IsometryModels, OptionNamesOfTranslateAndTheirOldAliases) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/pairs.tsv", "The cat sat on the mat.\tA cat was sitting on the mat.\n");
  auto run = [&](const char* option) {
    return test::run_cli({"isometry", "--pairs", dir + "/pairs.tsv", "--translator", test::fixture("core/marian"),
                          "--detector", test::fixture("core/bert-pair-cls"), option, "xx"});
  };
  // Accepted under both names; the one-language Marian model then has no language to set.
  for (auto [name, alias] : {std::pair{"--src-lang", "--source-language"}, std::pair{"--tgt-lang", "--target-language"}}) {
    const auto given = run(name), old = run(alias);
    EXPECT_EQ(given.exit_code, 1) << name;
    EXPECT_TRUE(given.err.starts_with("invar: error: ")) << given.err;
    // The source side is refused by the model, the target side by its tokenizer class.
    EXPECT_TRUE(given.err.find("the marian model takes no source language") != std::string::npos ||
                given.err.find("MarianTokenizer has no language codes") != std::string::npos)
        << given.err;
    EXPECT_NE(given.err.find("xx"), std::string::npos) << given.err;
    EXPECT_EQ(old.err, given.err) << alias;
  }
}

TEST(IsometryModels, SeveralTranslatorModelsSaveIntoAFolder) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/pairs.tsv", "The cat sat on the mat.\tA cat was sitting on the mat.\n");
  auto result = test::run_cli({"isometry", "--pairs", dir + "/pairs.tsv", "--pairs", dir + "/pairs.tsv", "--name", "a",
                               "--name", "b", "--translator", "m1=" + test::fixture("core/marian"), "--translator",
                               "m2=" + test::fixture("core/marian"), "--beam", "2", "--detector",
                               test::fixture("core/bert-pair-cls"), "--save-translations", dir + "/saved", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto j = json::parse(result.out);
  ASSERT_EQ(j["translators"].size(), 2u);
  EXPECT_EQ(j["translators"][1]["name"], "m2");
  EXPECT_EQ(j["translators"][1]["data_sets"], (json{"a", "b"}));
  // The same model twice: the same numbers side by side.
  EXPECT_EQ(j["translators"][0]["macro_average"], j["translators"][1]["macro_average"]);
  for (const char* file : {"m1.a.jsonl", "m1.b.jsonl", "m2.a.jsonl", "m2.b.jsonl"}) {
    const auto saved = test::read_file(dir + "/saved/" + file);
    ASSERT_EQ(std::count(saved.begin(), saved.end(), '\n'), 1) << file;
    EXPECT_TRUE(json::parse(saved).contains("sentence2")) << file;
  }
}

TEST(IsometryModels, DetectorInputLengthIsAnOption) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/pairs.tsv",
                   "The cat sat on the mat near the door of the old house.\tA cat was sitting on a mat by the door.\n"
                   "He bought a car.\tHe purchased an automobile.\n");
  const auto full = run_with_models(dir + "/pairs.tsv", {"--beam", "1"});
  const auto cut = run_with_models(dir + "/pairs.tsv", {"--beam", "1", "--detector-max-length", "8"});
  const auto ample = run_with_models(dir + "/pairs.tsv", {"--beam", "1", "--detector-max-length", "100000"});
  ASSERT_EQ(cut.pairs.size(), 2u);
  // Eight tokens cut both pairs (each longer than that); a length beyond the model's changes nothing.
  EXPECT_NE(cut.pairs[0]["p_source"], full.pairs[0]["p_source"]);
  EXPECT_EQ(ample.per_pair, full.per_pair);
}

TEST(IsometryModels, ADetectorMustBeAPairClassifier) {
  const auto f = write_example();
  auto with_detector = [&](const std::string& model) {
    return std::vector<std::string>{"isometry", "--pairs", f.pairs, "--translations", f.translations, "--detector", model};
  };
  expect_error(with_detector(test::fixture("core/xlmr")),
               test::fixture("core/xlmr") + ": not a pair classifier (the checkpoint has no sequence-classification head)");
  expect_error(with_detector(test::fixture("core/xlmr-regression")),
               test::fixture("core/xlmr-regression") + ": a regression model (num_labels = 1), not a pair classifier");
  auto labelled = with_detector(test::fixture("core/bert-pair-cls"));
  labelled.insert(labelled.end(), {"--paraphrase-label", "equivalent"});
  expect_error(labelled, test::fixture("core/bert-pair-cls") + ": no label 'equivalent' (labels: not_paraphrase, paraphrase)");
  auto both = with_detector(test::fixture("core/bert-pair-cls"));
  both.insert(both.end(), {"--detector-scores", f.scores});
  expect_error(both, "give --detector-scores or --detector, not both");
  auto twice = with_detector(test::fixture("core/bert-pair-cls"));
  twice.insert(twice.end(), {"--detector", test::fixture("core/bert-pair-cls")});
  expect_error(twice, "two detectors are named 'bert-pair-cls'; name them with --detector NAME=MODEL");
}
