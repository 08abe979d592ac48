// Metamorphic testing (Manino et al. 2022): the O(n log n) pairwise counters against a plain
// O(n²) reference on random inputs with ties, hand-computed cases, single-input relations,
// transformations, relation diagrams, and `invar metamorphic` end to end on the fixture models.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "core/error.hpp"
#include "eval/metamorphic/compositionality.hpp"
#include "eval/metamorphic/pairwise.hpp"
#include "eval/metamorphic/relation.hpp"
#include "eval/metamorphic/single.hpp"
#include "eval/metamorphic/systematicity.hpp"
#include "eval/metamorphic/transforms.hpp"
#include "eval/metamorphic/transitivity.hpp"
#include "support/test_support.hpp"

using namespace invar;
using namespace invar::metamorphic;

namespace {

// The definitions of eval/metamorphic/pairwise.hpp, pair by pair.
template <typename Premise, typename Violated>
PairwiseCounts reference(std::size_t n, Premise premise, Violated violated) {
  PairwiseCounts counts;
  counts.source_tests.assign(n, 0);
  counts.source_violations.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      if (!premise(i, j)) continue;
      ++counts.tests;
      ++counts.source_tests[i];
      ++counts.source_tests[j];
      if (!violated(i, j)) continue;
      ++counts.violations;
      ++counts.source_violations[i];
      ++counts.source_violations[j];
    }
  return counts;
}

PairwiseCounts reference_order(const std::vector<double>& s, const std::vector<double>& t) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return s[i] != s[j]; },
      [&](std::size_t i, std::size_t j) { return s[i] < s[j] ? t[i] > t[j] : t[i] < t[j]; });
}

PairwiseCounts reference_classes(const std::vector<int>& s, const std::vector<int>& t) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return s[i] == s[j]; },
      [&](std::size_t i, std::size_t j) { return t[i] != t[j]; });
}

PairwiseCounts reference_similarity(const std::vector<double>& s, const std::vector<double>& t, double delta) {
  return reference(
      s.size(), [&](std::size_t i, std::size_t j) { return std::abs(s[i] - s[j]) <= delta; },
      [&](std::size_t i, std::size_t j) { return !(std::abs(t[i] - t[j]) <= delta); });
}

void expect_same(const PairwiseCounts& fast, const PairwiseCounts& slow) {
  EXPECT_EQ(fast.tests, slow.tests);
  EXPECT_EQ(fast.violations, slow.violations);
  EXPECT_EQ(fast.source_tests, slow.source_tests);
  EXPECT_EQ(fast.source_violations, slow.source_violations);
}

// Scores drawn from `levels` values (many ties when levels is small), or continuous when 0.
std::vector<double> random_scores(std::mt19937_64& rng, std::size_t n, int levels) {
  std::vector<double> out(n);
  for (auto& v : out) v = levels > 0 ? static_cast<double>(rng() % levels) / 10.0 : static_cast<double>(rng() % 1000003) / 1000003.0;
  return out;
}

}  // namespace

TEST(MetamorphicPairwise, OrderByHand) {
  // Sources 0.1 < 0.2 < 0.3 = 0.3; follow-ups reverse the first two, tie the last two.
  const std::vector<double> s{0.1, 0.2, 0.3, 0.3}, t{0.5, 0.4, 0.9, 0.9};
  const auto counts = count_order_violations(s, t);
  EXPECT_EQ(counts.tests, 5u);       // 6 pairs less the tied (2, 3)
  EXPECT_EQ(counts.violations, 1u);  // (0, 1)
  EXPECT_EQ(counts.source_tests, (std::vector<std::uint64_t>{3, 3, 2, 2}));
  EXPECT_EQ(counts.source_violations, (std::vector<std::uint64_t>{1, 1, 0, 0}));
  EXPECT_DOUBLE_EQ(counts.rate(), 0.2);
  EXPECT_DOUBLE_EQ(counts.source_rate(0), 1.0 / 3);
}

TEST(MetamorphicPairwise, FollowUpTieIsNotAViolation) {
  const auto counts = count_order_violations(std::vector<double>{1, 2}, std::vector<double>{5, 5});
  EXPECT_EQ(counts.tests, 1u);
  EXPECT_EQ(counts.violations, 0u);
}

TEST(MetamorphicPairwise, FullReversalViolatesEveryPair) {
  std::vector<double> s, t;
  for (int i = 0; i < 50; ++i) {
    s.push_back(i);
    t.push_back(-i);
  }
  const auto counts = count_order_violations(s, t);
  EXPECT_EQ(counts.tests, 50u * 49 / 2);
  EXPECT_EQ(counts.violations, counts.tests);
}

TEST(MetamorphicPairwise, OrderEqualsReferenceOnRandomInputsWithTies) {
  std::mt19937_64 rng(14);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 2 + rng() % 300;
    const int levels = trial % 3 == 0 ? 0 : static_cast<int>(1 + rng() % 12);
    const auto s = random_scores(rng, n, levels), t = random_scores(rng, n, levels);
    expect_same(count_order_violations(s, t), reference_order(s, t));
  }
}

TEST(MetamorphicPairwise, ClassesEqualReferenceOnRandomInputs) {
  std::mt19937_64 rng(15);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 2 + rng() % 300;
    std::vector<int> s(n), t(n);
    for (auto& v : s) v = static_cast<int>(rng() % 4);
    for (auto& v : t) v = static_cast<int>(rng() % 4);
    expect_same(count_class_violations(s, t), reference_classes(s, t));
  }
}

TEST(MetamorphicPairwise, SimilarityEqualsReferenceOnRandomInputsWithTies) {
  std::mt19937_64 rng(16);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 2 + rng() % 300;
    const int levels = trial % 3 == 0 ? 0 : static_cast<int>(1 + rng() % 12);
    const auto s = random_scores(rng, n, levels), t = random_scores(rng, n, levels);
    // δ on the grid of the tied scores (0.1, 0.2, ...) puts pairs exactly on the boundary.
    const double delta = static_cast<double>(rng() % 4) / 10.0;
    expect_same(count_similarity_violations(s, t, delta), reference_similarity(s, t, delta));
  }
}

TEST(MetamorphicPairwise, RejectsMisalignedAndNonFiniteScores) {
  EXPECT_THROW(count_order_violations(std::vector<double>{1, 2}, std::vector<double>{1}), Error);
  EXPECT_THROW(count_order_violations(std::vector<double>{1, NAN}, std::vector<double>{1, 2}), Error);
  EXPECT_THROW(count_similarity_violations(std::vector<double>{1, 2}, std::vector<double>{1, 2}, -1), Error);
}

TEST(MetamorphicSingle, ViolationsByHand) {
  EXPECT_EQ(check_equivalence(std::vector<int>{0, 1, 1}, std::vector<int>{0, 0, 1}).violating, std::vector<std::size_t>{1});
  const auto order = check_order(std::vector<double>{0.5, 0.5, 0.5}, std::vector<double>{0.4, 0.5, 0.6}, Direction::Increase);
  EXPECT_EQ(order.violating, std::vector<std::size_t>{0});
  EXPECT_DOUBLE_EQ(order.rate(), 1.0 / 3);
  EXPECT_EQ(check_order(std::vector<double>{0.5, 0.5}, std::vector<double>{0.4, 0.6}, Direction::Decrease).violating,
            std::vector<std::size_t>{1});
  EXPECT_EQ(check_score_similarity(std::vector<double>{0.5, 0.5}, std::vector<double>{0.75, 0.5}, 0.2).violating,
            std::vector<std::size_t>{0});
  const std::vector<std::vector<float>> a{{1, 0}, {1, 0}}, b{{1, 1}, {2, 0}};
  EXPECT_NEAR(cosine(a[0], b[0]), std::sqrt(0.5), 1e-12);
  EXPECT_EQ(check_cosine_similarity(a, b, 0.9).violating, std::vector<std::size_t>{0});
}

// ---- transformations ----

TEST(MetamorphicTransforms, SixNeutralSentencesThreeBeforeThreeAfter) {
  const auto all = neutral_transformations();
  ASSERT_EQ(all.size(), 6u);
  const auto& sentences = neutral_sentences();
  EXPECT_EQ(all[0].name, "prefix-1");
  EXPECT_EQ(all[0].apply("Great film.", 0), sentences[0] + " Great film.");
  EXPECT_EQ(all[5].name, "suffix-3");
  EXPECT_EQ(all[5].apply("Great film.", 0), "Great film. " + sentences[5]);
}

TEST(MetamorphicTransforms, LexiconReplacesWholeWordsKeepingCapitals) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/lexicon.tsv", "good\tfine\nfilm\tmovie\n");
  const auto t = substitution_transformation("syn", read_lexicon(dir + "/lexicon.tsv"));
  EXPECT_EQ(t.apply("Good film, goodness! A films-good film.", 0), "Fine movie, goodness! A films-good movie.");
  test::write_file(dir + "/bad.tsv", "good\tfine\ntwo words\tx\n");
  EXPECT_THROW(read_lexicon(dir + "/bad.tsv"), Error);
}

TEST(MetamorphicTransforms, NoiseIsSeededPerRowAndOnlyTouchesLetters) {
  const auto t = noise_transformation("noise", 0.5, 7);
  const std::string text = "The quick brown fox jumps over the lazy dog 123.";
  const auto a = t.apply(text, 3);
  EXPECT_EQ(a, t.apply(text, 3));
  EXPECT_NE(a, text);
  EXPECT_NE(a, t.apply(text, 4));
  EXPECT_EQ(a.size(), text.size());
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!std::isalpha(static_cast<unsigned char>(text[i]))) {
      EXPECT_EQ(a[i], text[i]) << i;
    }
  EXPECT_EQ(noise_transformation("n", 1e-9, 7).apply(text, 0), text);
  EXPECT_THROW(noise_transformation("n", 0, 7), Error);
}

TEST(MetamorphicTransforms, ParsesTransformArguments) {
  EXPECT_EQ(parse_transformation("neutral", 0).size(), 6u);
  const auto named = parse_transformation("hello=prefix:Hello there.", 0);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].name, "hello");
  EXPECT_EQ(named[0].apply("Hi.", 0), "Hello there. Hi.");
  EXPECT_EQ(parse_transformation("suffix:Bye.", 0)[0].apply("Hi.", 0), "Hi. Bye.");
  EXPECT_THROW(parse_transformation("noise:lots", 0), Error);
  EXPECT_THROW(parse_transformation("shuffle:1", 0), Error);
}

// ---- relations and diagrams ----

TEST(MetamorphicRelation, BuiltInDiagramsFollowTheNotation) {
  for (const auto& name : builtin_relation_names()) {
    const auto relation = builtin_relation(name);
    const auto dot = relation_dot(relation);
    EXPECT_NE(dot.find("shape=circle, fillcolor=\"#c8c8c8\""), std::string::npos) << name;  // a shaded source
    EXPECT_NE(dot.find("shape=box"), std::string::npos) << name;                            // numeric outputs
    EXPECT_NE(dot.find("style=dashed"), std::string::npos) << name;                         // the property
    const auto svg = relation_svg(relation);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u) << name;
    EXPECT_NE(svg.find("<ellipse"), std::string::npos) << name;
    EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos) << name;
  }
}

TEST(MetamorphicRelation, UserDefinedRelationIsDrawnFromItsDefinition) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/r.json", R"json({"name": "negation", "nodes": [
      {"id": "x", "source": true}, {"id": "nx", "label": "not x"},
      {"id": "fx", "label": "f(x)", "kind": "numeric"}, {"id": "fnx", "label": "f(not x)", "kind": "numeric"}],
    "arrows": [{"from": "x", "to": "nx", "label": "negate"}, {"from": "x", "to": "fx", "label": "f"},
               {"from": "nx", "to": "fnx", "label": "f"}],
    "constraints": [{"nodes": ["fx", "fnx"], "label": "sum to 1"}]})json");
  const auto relation = read_relation(dir + "/r.json");
  EXPECT_EQ(relation.nodes.size(), 4u);
  const auto svg = relation_svg(relation);
  EXPECT_NE(svg.find("negate"), std::string::npos);
  EXPECT_NE(svg.find("sum to 1"), std::string::npos);
  EXPECT_NE(svg.find("not x"), std::string::npos);
}

TEST(MetamorphicRelation, BadRelationsFailNamingTheField) {
  const auto dir = test::temp_dir();
  auto message = [&](const std::string& content) {
    test::write_file(dir + "/bad.json", content);
    try {
      read_relation(dir + "/bad.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(R"({"nodes": []})").find("empty"), std::string::npos);
  EXPECT_NE(message(R"({"nodes": [{"id": "x"}]})").find("no node is a source"), std::string::npos);
  EXPECT_NE(message(R"({"nodes": [{"id": "x", "source": true}, {"id": "x"}]})").find("nodes[1].id"), std::string::npos);
  EXPECT_NE(message(R"({"nodes": [{"id": "x", "source": true}], "arrows": [{"from": "x", "to": "y"}]})").find("arrows[0].to"),
            std::string::npos);
  EXPECT_NE(message(R"({"nodes": [{"id": "x", "source": true, "kind": "round"}]})").find("nodes[0].kind"), std::string::npos);
  EXPECT_NE(message("{").find("not valid JSON"), std::string::npos);
}

// ---- suites and score files ----

TEST(MetamorphicSuite, ScoreFileGivesTheCountsOfEachTransformation) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/scores.tsv", "text\tsource\tlabel\tprefix\tsuffix\n"
                                        "a\t0.1\tneg\t0.5\t0.1\n"
                                        "b\t0.2\tneg\t0.4\t0.2\n"
                                        "c\t0.3\tpos\t0.9\t0.3\n");
  const auto suite = read_score_file(dir + "/scores.tsv", Property::Order);
  EXPECT_EQ(suite.names, (std::vector<std::string>{"prefix", "suffix"}));
  EXPECT_EQ(suite.texts, (std::vector<std::string>{"a", "b", "c"}));
  const auto result = run_suite(suite, {Arity::Pairwise, Property::Order});
  EXPECT_EQ(result.transformations[0].tests, 3u);
  EXPECT_EQ(result.transformations[0].violations, 1u);  // (a, b) reversed
  EXPECT_EQ(result.transformations[1].violations, 0u);
  EXPECT_EQ(result.violations, 1u);
  const auto single = run_suite(suite, {Arity::Single, Property::Order, Direction::Increase});
  EXPECT_EQ(single.transformations[0].violations, 0u);
  const auto similar = run_suite(suite, {Arity::Single, Property::Similarity, Direction::Increase, 0.25});
  EXPECT_EQ(similar.transformations[0].violations, 2u);  // a: 0.4 apart, c: 0.6 apart
}

TEST(MetamorphicSuite, JsonlScoresAndClassNames) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/scores.jsonl", R"({"source": "pos", "typo": "pos"})" "\n"
                                          R"({"source": "pos", "typo": "neg"})" "\n"
                                          R"({"source": "neg", "typo": "neg"})" "\n");
  const auto suite = read_score_file(dir + "/scores.jsonl", Property::Equivalence);
  const auto pairwise = run_suite(suite, {Arity::Pairwise, Property::Equivalence});
  EXPECT_EQ(pairwise.transformations[0].tests, 1u);
  EXPECT_EQ(pairwise.transformations[0].violations, 1u);
  const auto single = run_suite(suite, {Arity::Single, Property::Equivalence});
  EXPECT_EQ(single.transformations[0].violations, 1u);
  EXPECT_EQ(single.transformations[0].source_violations, (std::vector<std::uint64_t>{0, 1, 0}));
}

TEST(MetamorphicSuite, BadScoreFilesFailNamingFileLineAndColumn) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/bad.tsv", "source\tprefix\n0.1\t0.2\n0.3\tnan\n");
  try {
    read_score_file(dir + "/bad.tsv", Property::Order);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.tsv:3:prefix"), std::string::npos) << e.what();
  }
  test::write_file(dir + "/one.tsv", "source\tprefix\n0.1\t0.2\n");
  EXPECT_THROW(run_suite(read_score_file(dir + "/one.tsv", Property::Order), {Arity::Pairwise, Property::Order}), Error);
  test::write_file(dir + "/none.tsv", "source\n0.1\n0.2\n");
  EXPECT_THROW(run_suite(read_score_file(dir + "/none.tsv", Property::Order), {Arity::Pairwise, Property::Order}), Error);
}

// ---- compositionality and transitivity on given scores ----

TEST(MetamorphicCompositionality, CountsByHand) {
  const std::vector<Context> contexts{{"I saw a {}.", Monotonicity::Upward, "c:1"}, {"I saw no {}.", Monotonicity::Downward, "c:2"}};
  const std::vector<Insertion> insertions{{"animal", "dog", LexicalRelation::Hypernym, "i:1"},
                                          {"dog", "animal", LexicalRelation::Hyponym, "i:2"},
                                          {"cat", "car", LexicalRelation::None, "i:3"}};
  // Probe: 0.9 > 0.5 > 0.1. Upward expects entailment reversed: 0.1 < 0.8 > 0.3 keeps (0,1), (0,2) and
  // breaks (1,2). Downward expects the same order: 0.9 > 0.2 < 0.4 keeps (0,1), (0,2) and breaks (1,2).
  const std::vector<std::vector<double>> probe{{0.9, 0.5, 0.1}, {0.9, 0.5, 0.1}};
  const std::vector<std::vector<double>> entailment{{0.1, 0.8, 0.3}, {0.9, 0.2, 0.4}};
  const auto result = count_compositionality(contexts, insertions, probe, entailment);
  EXPECT_EQ(result.upward.tests, 3u);
  EXPECT_EQ(result.upward.violations, 1u);
  EXPECT_EQ(result.downward.violations, 1u);
  EXPECT_EQ(result.overall.tests, 6u);
  EXPECT_EQ(result.insertions[0].violations, 0u);
  EXPECT_EQ(result.insertions[1].violations, 2u);
  EXPECT_EQ(result.insertions[1].tests, 4u);
}

TEST(MetamorphicCompositionality, ContextsAndInsertionsAreValidated) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/c.tsv", "I saw a {}.\tupward\nI saw nothing.\tdownward\n");
  try {
    read_contexts(dir + "/c.tsv");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("c.tsv:2: the context has no placeholder"), std::string::npos) << e.what();
  }
  test::write_file(dir + "/m.tsv", "I saw a {}.\tsideways\n");
  EXPECT_THROW(read_contexts(dir + "/m.tsv"), Error);
  test::write_file(dir + "/i.tsv", "animal\tdog\thypernym\ndog\tanimal\tsynonym\n");
  EXPECT_THROW(read_insertions(dir + "/i.tsv"), Error);
}

TEST(MetamorphicTransitivity, CountsByHandPerRelationAndGroup) {
  // R holds for pairs listed in `related`; (x, y, z) has the premise but not the conclusion.
  const std::set<std::pair<std::string, std::string>> related{{"a", "b"}, {"b", "c"}, {"a", "c"}, {"x", "y"}, {"y", "z"}};
  const PairJudge judge = [&](const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<std::vector<bool>> out(1);
    for (const auto& p : pairs) out[0].push_back(related.count(p) > 0);
    return out;
  };
  const std::vector<Triplet> triplets{{"a", "b", "c", "en", ""}, {"x", "y", "z", "de", ""}, {"c", "b", "a", "de", ""}};
  const auto results = run_transitivity(triplets, {"R"}, judge);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].overall.candidates, 3u);
  EXPECT_EQ(results[0].overall.tests, 2u);
  EXPECT_EQ(results[0].overall.violations, 1u);
  EXPECT_EQ(results[0].violating, std::vector<std::size_t>{1});
  EXPECT_EQ(results[0].groups.at("de").tests, 1u);
  EXPECT_EQ(results[0].groups.at("de").violations, 1u);
  EXPECT_EQ(results[0].groups.at("en").violations, 0u);
}

TEST(MetamorphicTransitivity, SamplingIsSeededAndStaysInAGroup) {
  std::vector<Word> words;
  for (const auto* w : {"a", "b", "c", "d"}) words.push_back({w, "en"});
  for (const auto* w : {"w", "x", "y"}) words.push_back({w, "de"});
  words.push_back({"lonely", "fr"});
  const auto first = sample_triplets(words, 100, 3);
  const auto again = sample_triplets(words, 100, 3);
  ASSERT_EQ(first.size(), 100u);
  std::set<std::string> groups;
  for (std::size_t k = 0; k < first.size(); ++k) {
    const auto& t = first[k];
    EXPECT_EQ(t.a, again[k].a);
    EXPECT_EQ(t.c, again[k].c);
    EXPECT_TRUE(t.a != t.b && t.b != t.c && t.a != t.c);
    const bool german = t.group == "de";
    for (const auto* w : {&t.a, &t.b, &t.c}) EXPECT_EQ(*w >= "w", german) << *w;
    groups.insert(t.group);
  }
  EXPECT_EQ(groups, (std::set<std::string>{"de", "en"}));
}
