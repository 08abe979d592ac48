#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "eval/stats/classification.hpp"
#include "eval/stats/stats.hpp"
#include "support/golden.hpp"
#include "support/test_support.hpp"

using namespace invar;
using namespace invar::stats;
using nlohmann::json;

namespace {

const json& goldens() {
  static const json data = test::load_json(test::fixture("metrics/stats.json"));
  return data;
}

using test::near_golden;

}  // namespace

TEST(Correlation, MatchesScipyGoldens) {
  int index = 0;
  for (const auto& c : goldens()["correlation"]) {
    SCOPED_TRACE(::testing::Message() << "correlation case " << index++);
    auto x = c["x"].get<std::vector<double>>(), y = c["y"].get<std::vector<double>>();
    auto p = pearson(x, y);
    EXPECT_TRUE(near_golden(p.statistic, c["pearson_r"]));
    EXPECT_TRUE(near_golden(p.pvalue, c["pearson_p_two_sided"]));
    auto t = correlation_t_test(p.statistic, x.size());
    EXPECT_TRUE(near_golden(t.t, c["pearson_t"]));
    EXPECT_TRUE(near_golden(t.pvalue, c["pearson_p_one_sided_greater"]));
    auto s = spearman(x, y);
    EXPECT_TRUE(near_golden(s.statistic, c["spearman_rho"]));
    EXPECT_TRUE(near_golden(s.pvalue, c["spearman_p"]));
    auto k = kendall_tau_b(x, y);
    EXPECT_TRUE(near_golden(k.tau, c["kendall_tau_b"]));
    EXPECT_TRUE(near_golden(k.pvalue, c["kendall_p"]));
    EXPECT_EQ(k.concordant + k.discordant + k.ties_x + k.ties_y - k.ties_joint, k.total);
  }
}

TEST(Correlation, KendallPairCountsAgainstBruteForce) {
  std::vector<double> x{1, 2, 2, 3, 3, 3, 4, 5, 1, 2}, y{3, 1, 2, 2, 5, 5, 4, 1, 3, 0};
  long long con = 0, dis = 0, tx = 0, ty = 0, both = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      const double dx = x[i] - x[j], dy = y[i] - y[j];
      if (dx == 0 && dy == 0) ++both;
      if (dx == 0) ++tx;
      if (dy == 0) ++ty;
      if (dx * dy > 0) ++con;
      if (dx * dy < 0) ++dis;
    }
  auto k = kendall_tau_b(x, y);
  EXPECT_EQ(k.concordant, con);
  EXPECT_EQ(k.discordant, dis);
  EXPECT_EQ(k.ties_x, tx);
  EXPECT_EQ(k.ties_y, ty);
  EXPECT_EQ(k.ties_joint, both);
  EXPECT_EQ(k.method, KendallMethod::Asymptotic);
  EXPECT_DOUBLE_EQ(k.tau, (con - dis) / std::sqrt(double(45 - tx) * double(45 - ty)));
}

TEST(Correlation, EdgeCasesFollowScipy) {
  // n = 2: r = ±1 with p = 1; Spearman's p is NaN (0 degrees of freedom).
  auto p2 = pearson({1, 2}, {5, 3});
  EXPECT_EQ(p2.statistic, -1.0);
  EXPECT_EQ(p2.pvalue, 1.0);
  EXPECT_TRUE(std::isnan(spearman({1, 2}, {5, 3}).pvalue));
  EXPECT_TRUE(std::isnan(correlation_t_test(1.0, 2).t));
  // A constant input: NaN everywhere.
  EXPECT_TRUE(std::isnan(pearson({1, 1, 1}, {1, 2, 3}).statistic));
  EXPECT_TRUE(std::isnan(spearman({1, 2, 3}, {4, 4, 4}).pvalue));
  EXPECT_TRUE(std::isnan(kendall_tau_b({1, 1, 1}, {1, 2, 3}).tau));
  // |r| = 1 exactly: t = ±inf, one-tailed p = 0 or 1.
  auto t = correlation_t_test(1.0, 5);
  EXPECT_EQ(t.t, std::numeric_limits<double>::infinity());
  EXPECT_EQ(t.pvalue, 0.0);
  EXPECT_EQ(correlation_t_test(-1.0, 5).pvalue, 1.0);
  // Perfect monotone data: exact Kendall p = 2/n!.
  auto k = kendall_tau_b({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10});
  EXPECT_DOUBLE_EQ(k.tau, 1.0);
  EXPECT_DOUBLE_EQ(k.pvalue, 2.0 / 120);
  EXPECT_DOUBLE_EQ(kendall_tau_b({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10}, Alternative::Greater).pvalue, 1.0 / 120);
  EXPECT_DOUBLE_EQ(kendall_tau_b({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10}, Alternative::Less).pvalue, 1.0);
  EXPECT_THROW(pearson({1, 2, 3}, {1, 2}), Error);
  EXPECT_THROW(pearson({1}, {1}), Error);
}

TEST(Correlation, OneSidedAlternativesSplitTheTwoSidedP) {
  const auto& c = goldens()["correlation"][3];
  auto x = c["x"].get<std::vector<double>>(), y = c["y"].get<std::vector<double>>();
  auto two = pearson(x, y), greater = pearson(x, y, Alternative::Greater), less = pearson(x, y, Alternative::Less);
  EXPECT_NEAR(greater.pvalue, two.pvalue / 2, 1e-15);
  EXPECT_NEAR(less.pvalue, 1 - two.pvalue / 2, 1e-15);
  // For Pearson's r the beta and t formulations agree: P(r > r_obs) = t.sf(t_obs).
  EXPECT_NEAR(greater.pvalue, correlation_t_test(two.statistic, x.size()).pvalue, 1e-13);
  auto s2 = spearman(x, y), sg = spearman(x, y, Alternative::Greater);
  EXPECT_NEAR(sg.pvalue, s2.pvalue / 2, 1e-15);
}

TEST(Correlation, AverageRanksAndSchober) {
  EXPECT_EQ(average_ranks({10, 20, 10, 30, 20, 20}), (std::vector<double>{1.5, 4, 1.5, 6, 4, 4}));
  EXPECT_EQ(schober_strength(0.0999), "negligible");
  EXPECT_EQ(schober_strength(-0.1), "weak");
  EXPECT_EQ(schober_strength(0.4), "moderate");
  EXPECT_EQ(schober_strength(-0.7), "strong");
  EXPECT_EQ(schober_strength(0.9), "very strong");
  EXPECT_EQ(schober_strength(std::nan("")), std::nullopt);
}

TEST(Divergence, KlMatchesScipyEntropy) {
  for (const auto& c : goldens()["kl_divergence"]) {
    auto p = c["p"].get<std::vector<double>>(), q = c["q"].get<std::vector<double>>();
    EXPECT_TRUE(near_golden(kl_divergence(p, q), c["kl_natural"]));
    EXPECT_TRUE(near_golden(kl_divergence(p, q, {.base = 2}), c["kl_base2"]));
  }
}

TEST(Divergence, ZeroBinsAndSmoothing) {
  EXPECT_EQ(kl_divergence({0.5, 0.5}, {1, 0}), std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(kl_divergence({1, 0}, {0.5, 0.5}), std::log(2.0));
  // Smoothing adds to every bin of both inputs before normalising.
  const double eps = 0.01;
  const double p0 = 0.5 + eps, p1 = 0.5 + eps, q0 = 1 + eps, q1 = eps, s = 1 + 2 * eps;
  EXPECT_NEAR(kl_divergence({0.5, 0.5}, {1, 0}, {.smoothing = eps}),
              p0 / s * std::log(p0 / q0) + p1 / s * std::log(p1 / q1), 1e-14);
  EXPECT_DOUBLE_EQ(entropy({1, 1, 1, 1}, 2), 2.0);
  EXPECT_DOUBLE_EQ(entropy({3, 0}), 0.0);
  EXPECT_THROW(kl_divergence({1, -1}, {1, 1}), Error);
  EXPECT_THROW(kl_divergence({0, 0}, {1, 1}), Error);
  EXPECT_THROW(kl_divergence({1, 1}, {1, 1, 1}), Error);
}

TEST(ChiSquared, GoodnessOfFitMatchesScipy) {
  for (const auto& c : goldens()["chisquare"]) {
    auto r = chisquare(c["observed"].get<std::vector<double>>(), c["expected"].get<std::vector<double>>());
    EXPECT_TRUE(near_golden(r.statistic, c["chi2"]));
    EXPECT_TRUE(near_golden(r.pvalue, c["p"]));
  }
  auto uniform = chisquare({10, 20, 30});
  EXPECT_DOUBLE_EQ(uniform.statistic, 10.0);
  EXPECT_EQ(uniform.dof, 2);
  EXPECT_THROW(chisquare({10, 20}, {10, 21}), Error);
}

TEST(ChiSquared, ContingencyMatchesScipy) {
  for (const auto& c : goldens()["chi2_contingency"]) {
    auto table = c["table"].get<std::vector<std::vector<double>>>();
    auto r = chi2_contingency(table, c["yates"].get<bool>());
    EXPECT_TRUE(near_golden(r.statistic, c["chi2"]));
    EXPECT_TRUE(near_golden(r.pvalue, c["p"]));
    EXPECT_EQ(r.dof, c["dof"].get<double>());
    auto expected = c["expected"].get<std::vector<std::vector<double>>>();
    ASSERT_EQ(r.expected.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
      for (std::size_t j = 0; j < expected[i].size(); ++j) EXPECT_TRUE(near_golden(r.expected[i][j], expected[i][j]));
  }
}

TEST(ChiSquared, ContingencyEdgeCases) {
  // A zero column makes an expected count zero: scipy raises.
  EXPECT_THROW(chi2_contingency({{1, 0, 3}, {2, 0, 4}}), Error);
  EXPECT_THROW(chi2_contingency({{1, 2}, {3}}), Error);
  // One row: dof = 0, statistic 0, p 1.
  auto single = chi2_contingency({{4, 5, 6}});
  EXPECT_EQ(single.dof, 0);
  EXPECT_EQ(single.statistic, 0);
  EXPECT_EQ(single.pvalue, 1);
  // Yates: |O − E| shrinks by min(0.5, |O − E|), so a difference of 0.25 vanishes entirely.
  auto near = chi2_contingency({{10.25, 9.75}, {9.75, 10.25}});
  EXPECT_EQ(near.statistic, 0);
  EXPECT_GT(chi2_contingency({{10.25, 9.75}, {9.75, 10.25}}, false).statistic, 0);
}

TEST(Votes, MajorityOfThreeBinaryDetectors) {
  for (const auto& c : goldens()["majority_binary"]) {
    auto votes = c["votes"].get<std::vector<int>>();
    EXPECT_EQ(strict_majority(votes), std::optional<int>(c["majority"].get<int>()));
  }
}

TEST(Votes, ModeOfPairsOverThreeDetectors) {
  for (const auto& c : goldens()["mode_of_pairs_over_3_detectors"]) {
    std::vector<std::pair<int, int>> detectors;
    for (const auto& d : c["detectors"]) detectors.emplace_back(d[0].get<int>(), d[1].get<int>());
    auto m = mode_of_pairs(detectors);
    if (c["mode"].is_null()) {
      EXPECT_FALSE(m.mode.has_value());
      EXPECT_EQ(m.agreement, Agreement::None);
    } else {
      ASSERT_TRUE(m.mode.has_value());
      EXPECT_EQ(*m.mode, std::make_pair(c["mode"][0].get<int>(), c["mode"][1].get<int>()));
      EXPECT_EQ(m.agreement, detectors[0] == detectors[1] && detectors[1] == detectors[2] ? Agreement::All
                                                                                           : Agreement::Two);
    }
  }
}

TEST(Votes, ModesWithoutMajority) {
  EXPECT_EQ(strict_majority(std::vector<int>{1, 2, 1, 2}), std::nullopt);
  EXPECT_EQ(strict_majority(std::vector<int>{2, 1, 2}), 2);
  auto m = scipy_mode({3, 1, 3, 1, 2});
  EXPECT_EQ(m.value, 1);
  EXPECT_EQ(m.count, 2u);
  EXPECT_EQ(multimode({3, 1, 3, 1, 2}), (std::vector<double>{3, 1}));
  EXPECT_EQ(multimode({5}), (std::vector<double>{5}));
  EXPECT_STREQ(agreement_name(mode_of_pairs({{0, 1}, {1, 1}, {1, 0}}).agreement), "none");
}

// ---- t-tests: closed forms of Student's t for 2 and 4 degrees of freedom -----------------------

TEST(TTest, OneSampleMatchesClosedForm) {
  // n = 3: mean 3, variance 7, t = 3 / sqrt(7/3); with 2 df, P(|T| > t) = 1 − t / sqrt(2 + t²).
  auto r = ttest_1samp({1, 2, 6}, 0);
  EXPECT_NEAR(r.t, 3 * std::sqrt(3.0 / 7), 1e-14);
  EXPECT_EQ(r.df, 2);
  EXPECT_NEAR(r.pvalue, 1 - std::sqrt(27.0 / 41), 1e-14);
  EXPECT_NEAR(ttest_1samp({1, 2, 6}, 0, Alternative::Greater).pvalue, (1 - std::sqrt(27.0 / 41)) / 2, 1e-14);
  EXPECT_NEAR(ttest_1samp({1, 2, 6}, 0, Alternative::Less).pvalue, 1 - (1 - std::sqrt(27.0 / 41)) / 2, 1e-14);
  // Constant samples: t = ±inf with p = 0, or NaN when the mean equals popmean.
  EXPECT_EQ(ttest_1samp({2, 2, 2}, 1).t, std::numeric_limits<double>::infinity());
  EXPECT_EQ(ttest_1samp({2, 2, 2}, 1).pvalue, 0.0);
  EXPECT_TRUE(std::isnan(ttest_1samp({2, 2, 2}, 2).pvalue));
  EXPECT_THROW(ttest_1samp({}, 0), Error);
}

TEST(TTest, IndependentPooledAndWelch) {
  // Means 2 and 5, both variances 1: t = −3 / sqrt(2/3) with 4 df, where
  // P(|T| > t) = 1 − 3/2 (u − u³/3), u = t / sqrt(t² + 4).
  const double t = -3 / std::sqrt(2.0 / 3);
  const double u = std::fabs(t) / std::sqrt(t * t + 4);
  const double p = 1 - 1.5 * (u - u * u * u / 3);
  auto pooled = ttest_ind({1, 2, 3}, {4, 5, 6});
  EXPECT_NEAR(pooled.t, t, 1e-14);
  EXPECT_EQ(pooled.df, 4);
  EXPECT_NEAR(pooled.pvalue, p, 1e-14);
  // Equal sizes and variances: Welch's df is also 4.
  auto welch = ttest_ind({1, 2, 3}, {4, 5, 6}, false);
  EXPECT_NEAR(welch.t, t, 1e-14);
  EXPECT_NEAR(welch.df, 4, 1e-12);
  EXPECT_NEAR(welch.pvalue, p, 1e-13);
  // Unequal variances: Welch's df lies between min(n)−1 and n1+n2−2.
  auto uneven = ttest_ind({1, 2, 3, 4, 5}, {10, 30}, false);
  EXPECT_GT(uneven.df, 1);
  EXPECT_LT(uneven.df, 5);
  // Paired = one-sample test of the differences.
  auto rel = ttest_rel({3, 5, 9, 4}, {1, 2, 6, 4});
  auto diff = ttest_1samp({2, 3, 3, 0}, 0);
  EXPECT_EQ(rel.t, diff.t);
  EXPECT_EQ(rel.pvalue, diff.pvalue);
  EXPECT_THROW(ttest_rel({1, 2}, {1}), Error);
}

// ---- Binomial test: exact sums over the binomial distribution -----------------------------------

namespace {
double binomial_pmf_exact(int x, int n, double p) {
  double c = 1;
  for (int i = 0; i < x; ++i) c = c * (n - i) / (i + 1);
  return c * std::pow(p, x) * std::pow(1 - p, n - x);
}

double two_sided_binomial(int k, int n, double p) {
  const double d = binomial_pmf_exact(k, n, p);
  double sum = 0;
  for (int x = 0; x <= n; ++x)
    if (binomial_pmf_exact(x, n, p) <= d * (1 + 1e-7)) sum += binomial_pmf_exact(x, n, p);
  return sum;
}
}  // namespace

TEST(BinomialTest, PValuesAndClopperPearson) {
  // n = 10, p = 1/2: two-sided p for k = 2 is P(X <= 2) + P(X >= 8) = 112/1024.
  EXPECT_NEAR(binomtest(2, 10).pvalue, 112.0 / 1024, 1e-15);
  EXPECT_NEAR(binomtest(8, 10).pvalue, 112.0 / 1024, 1e-15);
  EXPECT_NEAR(binomtest(2, 10, 0.5, Alternative::Less).pvalue, 56.0 / 1024, 1e-15);
  EXPECT_NEAR(binomtest(2, 10, 0.5, Alternative::Greater).pvalue, 1013.0 / 1024, 1e-15);
  EXPECT_EQ(binomtest(5, 10).pvalue, 1.0);
  EXPECT_EQ(binomtest(2, 10).statistic, 0.2);
  // Asymmetric p: the outcomes no more likely than k, summed by brute force.
  EXPECT_NEAR(binomtest(6, 10, 0.3).pvalue, two_sided_binomial(6, 10, 0.3), 1e-13);
  EXPECT_NEAR(binomtest(1, 10, 0.3).pvalue, two_sided_binomial(1, 10, 0.3), 1e-13);
  EXPECT_NEAR(binomtest(0, 7, 0.2).pvalue, two_sided_binomial(0, 7, 0.2), 1e-13);
  // Clopper–Pearson: the bounds where the tail probabilities equal 2.5%.
  auto ci = binomtest(3, 10);
  double upper_tail = 0, lower_tail = 0;
  for (int x = 3; x <= 10; ++x) upper_tail += binomial_pmf_exact(x, 10, ci.ci_low);
  for (int x = 0; x <= 3; ++x) lower_tail += binomial_pmf_exact(x, 10, ci.ci_high);
  EXPECT_NEAR(upper_tail, 0.025, 1e-12);
  EXPECT_NEAR(lower_tail, 0.025, 1e-12);
  auto none = binomtest(0, 10);
  EXPECT_EQ(none.ci_low, 0.0);
  EXPECT_NEAR(none.ci_high, 1 - std::pow(0.025, 0.1), 1e-14);
  auto all = binomtest(10, 10);
  EXPECT_NEAR(all.ci_low, std::pow(0.025, 0.1), 1e-14);
  EXPECT_EQ(all.ci_high, 1.0);
  EXPECT_THROW(binomtest(11, 10), Error);
  EXPECT_THROW(binomtest(1, 10, 1.5), Error);
}

// ---- classification metrics (scikit-learn 1.2's formulas, values computed by hand) ------------------

TEST(Classification, ThreeClassesAsSklearnsDocumentationExample) {
  // sklearn's precision_recall_fscore_support docstring: y_true [0,1,2,0,1,2], y_pred [0,2,1,0,0,1].
  const auto s = classification_scores({"0", "1", "2", "0", "1", "2"}, {"0", "2", "1", "0", "0", "1"});
  EXPECT_EQ(s.labels, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(s.confusion, (std::vector<std::vector<std::size_t>>{{2, 0, 0}, {1, 0, 1}, {0, 2, 0}}));
  EXPECT_EQ(s.correct, 2u);
  EXPECT_DOUBLE_EQ(s.accuracy, 2.0 / 6);
  // label 0: tp 2 of 3 predicted, 2 true -> P 2/3, R 1, F 2·(2/3)·1/(5/3) = 0.8; labels 1 and 2: tp 0.
  EXPECT_DOUBLE_EQ(s.per_class[0].precision, 2.0 / 3);
  EXPECT_DOUBLE_EQ(s.per_class[0].recall, 1.0);
  EXPECT_DOUBLE_EQ(s.per_class[0].f1, 0.8);
  EXPECT_EQ(s.per_class[1].f1, 0.0);
  EXPECT_EQ(s.per_class[2].predicted, 1u);
  EXPECT_EQ(s.per_class[2].support, 2u);
  EXPECT_DOUBLE_EQ(s.macro.precision, 2.0 / 9);  // sklearn's docstring: 0.22...
  EXPECT_DOUBLE_EQ(s.macro.recall, 1.0 / 3);
  EXPECT_DOUBLE_EQ(s.macro.f1, 0.8 / 3);  // 0.26...
  EXPECT_DOUBLE_EQ(s.micro.precision, 1.0 / 3);
  EXPECT_DOUBLE_EQ(s.micro.f1, 1.0 / 3);
  EXPECT_DOUBLE_EQ(s.weighted.precision, 2.0 / 9);  // equal supports: weighted = macro
  EXPECT_EQ(s.weighted.support, 6u);
  for (const auto& c : s.per_class) EXPECT_FALSE(c.precision_ill_defined || c.recall_ill_defined);
}

TEST(Classification, ZeroDivisionForALabelNeverPredictedOrNeverTrue) {
  // b is never predicted: its precision is 0/0.
  const std::vector<std::string> truth{"a", "a", "b"}, predicted{"a", "a", "a"};
  const auto warn = classification_scores(truth, predicted);
  EXPECT_TRUE(warn.per_class[1].precision_ill_defined);
  EXPECT_FALSE(warn.per_class[1].recall_ill_defined);
  EXPECT_EQ(warn.per_class[1].precision, 0.0);
  EXPECT_EQ(warn.per_class[1].f1, 0.0);
  EXPECT_DOUBLE_EQ(warn.macro.precision, 1.0 / 3);           // (2/3 + 0) / 2
  EXPECT_DOUBLE_EQ(warn.weighted.precision, 4.0 / 9);        // (2/3·2 + 0·1) / 3
  EXPECT_DOUBLE_EQ(warn.weighted.recall, warn.accuracy);     // weighted recall is accuracy
  EXPECT_DOUBLE_EQ(warn.macro.f1, 0.4);                      // (0.8 + 0) / 2
  const auto one = classification_scores(truth, predicted, ZeroDivision::One);
  EXPECT_EQ(one.per_class[1].precision, 1.0);
  EXPECT_EQ(one.per_class[1].f1, 0.0);  // P 1, R 0: 2·1·0/1
  EXPECT_DOUBLE_EQ(one.macro.precision, 5.0 / 6);
  EXPECT_DOUBLE_EQ(one.weighted.precision, 7.0 / 9);
  EXPECT_EQ(classification_scores(truth, predicted, ZeroDivision::Zero).macro.precision, warn.macro.precision);

  // y only predicted: its recall is 0/0, and the label still counts in the macro mean.
  const auto only_predicted = classification_scores({"x", "x"}, {"x", "y"}, ZeroDivision::One);
  EXPECT_TRUE(only_predicted.per_class[1].recall_ill_defined);
  EXPECT_EQ(only_predicted.per_class[1].recall, 1.0);
  EXPECT_EQ(only_predicted.per_class[1].precision, 0.0);
  EXPECT_DOUBLE_EQ(only_predicted.macro.recall, 0.75);  // (1/2 + 1) / 2
  EXPECT_DOUBLE_EQ(only_predicted.weighted.recall, 0.5);  // y has no support
}

TEST(Classification, NumericLabelsSortAsNumbersAndLengthsMustMatch) {
  EXPECT_EQ(classification_scores({"10", "9", "2"}, {"10", "9", "2.5"}).labels,
            (std::vector<std::string>{"2", "2.5", "9", "10"}));
  EXPECT_EQ(classification_scores({"formal", "10"}, {"informal", "9"}).labels,
            (std::vector<std::string>{"10", "9", "formal", "informal"}));  // not all numbers: code point order
  EXPECT_THROW(classification_scores({"a"}, {"a", "b"}), Error);
  EXPECT_THROW(classification_scores({}, {}), Error);
  EXPECT_FALSE(parse_zero_division("2"));
}

TEST(Classification, CommandPrintsTheReportAndJson) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/gold.txt", "formal\nformal\ninformal\ninformal\ninformal\n");
  test::write_file(dir + "/pred.tsv", "id\tlabel\n1\tformal\n2\tinformal\n3\tinformal\n4\tinformal\n5\tformal\n");
  auto run = test::run_cli({"stats", "classification", "--gold", dir + "/gold.txt", "--pred", dir + "/pred.tsv",
                            "--pred-column", "label", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto out = json::parse(run.out);
  EXPECT_DOUBLE_EQ(out["accuracy"].get<double>(), 0.6);
  // formal: tp 1 of 2 predicted, 2 true -> P = R = F = 0.5; informal: tp 2 of 3, 3 true -> 2/3.
  EXPECT_DOUBLE_EQ(out["per_class"][0]["f1"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(out["per_class"][1]["precision"].get<double>(), 2.0 / 3);
  EXPECT_DOUBLE_EQ(out["macro"]["f1"].get<double>(), (0.5 + 2.0 / 3) / 2);
  EXPECT_DOUBLE_EQ(out["weighted"]["f1"].get<double>(), (0.5 * 2 + 2.0 / 3 * 3) / 5);
  EXPECT_EQ(out["confusion_matrix"]["counts"], json::parse("[[1, 1], [1, 2]]"));
  EXPECT_EQ(out["zero_division"], "warn");
  auto text = test::run_cli({"stats", "classification", "--gold", dir + "/gold.txt", "--pred", dir + "/pred.tsv",
                             "--pred-column", "label"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("    formal     0.5000     0.5000     0.5000        2"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("    accuracy                           0.6000        5"), std::string::npos) << text.out;
  auto mismatch = test::run_cli({"stats", "classification", "--gold", dir + "/gold.txt", "--pred", dir + "/gold.txt",
                                 "--zero-division", "x"});
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_EQ(mismatch.err, "invar: error: --zero-division must be warn, 0 or 1, got 'x'\n");
}
