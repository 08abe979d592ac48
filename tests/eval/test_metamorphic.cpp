// Metamorphic testing (Manino et al. 2022): the O(n log n) pairwise counters against a plain
// O(n²) reference on random inputs with ties, hand-computed cases, single-input relations,
// transformations, relation diagrams, and `invar metamorphic` end to end on the fixture models.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "engine/cosine.hpp"
#include "eval/metamorphic/compositionality.hpp"
#include "eval/metamorphic/pairwise.hpp"
#include "eval/metamorphic/relation.hpp"
#include "eval/metamorphic/single.hpp"
#include "eval/metamorphic/systematicity.hpp"
#include "eval/metamorphic/transforms.hpp"
#include "eval/metamorphic/transitivity.hpp"
#include "support/pairwise_reference.hpp"
#include "core/version.hpp"
#include "support/test_support.hpp"

using namespace invar;
using namespace invar::metamorphic;
using invar::test::reference_classes;
using invar::test::reference_cosine;
using invar::test::reference_order;
using invar::test::reference_similarity;

namespace {

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

TEST(MetamorphicPairwise, CosineEqualsReferenceOnRandomEmbeddings) {
  std::mt19937_64 rng(17);
  std::normal_distribution<float> normal;
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t n = 2 + rng() % 600, dimension = 1 + rng() % 12;
    auto draw = [&] {
      std::vector<std::vector<float>> rows(n, std::vector<float>(dimension));
      for (auto& row : rows)
        for (auto& v : row) v = normal(rng);
      // Repeated and zero vectors: cosine 1 with their twins, 0 with everything.
      for (std::size_t i = 0; i + 1 < n; i += 7) rows[i + 1] = rows[i];
      for (std::size_t i = 3; i < n; i += 11) std::fill(rows[i].begin(), rows[i].end(), 0.0f);
      return rows;
    };
    const auto s = draw(), t = draw();
    // Thresholds clear of the values both sides compute exactly (0 for zero vectors, ~1 for twins),
    // where the blocked products and the reference's sums could round to opposite sides.
    const double delta = std::array{-0.3, 0.15, 0.5, 0.9}[trial % 4];
    expect_same(count_cosine_violations(s, t, delta), reference_cosine(s, t, delta));
  }
}

TEST(MetamorphicPairwise, CosineRejectsRaggedAndNonFiniteEmbeddings) {
  const std::vector<std::vector<float>> two{{1, 0}, {0, 1}};
  EXPECT_THROW(count_cosine_violations(two, {{1, 0}}, 0.5), Error);
  EXPECT_THROW(count_cosine_violations(two, {{1, 0}, {0, 1, 2}}, 0.5), Error);
  EXPECT_THROW(count_cosine_violations(two, {{1, 0}, {0, NAN}}, 0.5), Error);
  EXPECT_THROW(count_cosine_violations(two, two, NAN), Error);
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
  EXPECT_NEAR(cosine_similarity(a[0], b[0]), std::sqrt(0.5), 1e-12);
  // A zero vector has cosine 0 with every vector, itself included (torch's norms clamped to 1e-8).
  const std::vector<float> zero{0, 0};
  EXPECT_EQ(cosine_similarity(zero, a[0]), 0.0);
  EXPECT_EQ(cosine_similarity(zero, zero), 0.0);
  EXPECT_EQ(check_cosine_similarity({zero}, {zero}, 0.0).violating, std::vector<std::size_t>{});
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

// ---- `invar metamorphic` end to end on the fixture models ----

namespace {

using nlohmann::json;

std::string model(const std::string& name) { return test::fixture("core/" + name); }

std::vector<json> jsonl(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

const char* const kReviews =
    "A wonderful film with great acting.\nTerrible plot and boring characters.\nI liked it a lot.\n"
    "Not worth the money.\nAn average movie.\nThe best thing I have seen this year.\n";

// The error line of a failed run: exit status 1, one line naming the problem.
std::string error_of(const test::CliResult& result) {
  EXPECT_EQ(result.exit_code, 1) << result.out;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  return result.err;
}

}  // namespace

TEST(MetamorphicCli, PairwiseOnAClassifierMatchesClassifyAndTheReference) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/reviews.txt", kReviews);
  const auto run = test::run_cli({"-q", "metamorphic", "pairwise", "-m", model("bert-pair-cls"), "--label", "paraphrase",
                                  "--sources", dir + "/reviews.txt", "--transform", "neutral", "--json", "--per-source",
                                  dir + "/per-source.jsonl", "--csv", dir + "/counts.csv", "--report", dir + "/report.html"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto result = json::parse(run.out);
  ASSERT_EQ(result["transformations"].size(), 6u);
  EXPECT_EQ(result["provenance"]["invar"], kVersion);
  EXPECT_EQ(result["provenance"]["models"][0]["model_type"], "bert");
  EXPECT_EQ(result["provenance"]["data"][0]["path"], dir + "/reviews.txt");
  EXPECT_EQ(test::read_file(dir + "/counts.csv").rfind(std::string("# invar: ") + kVersion + "\n", 0), 0u);
  EXPECT_NE(test::read_file(dir + "/report.html").find("<details class=\"provenance\">"), std::string::npos);
  const auto sources = jsonl(test::read_file(dir + "/per-source.jsonl"));
  ASSERT_EQ(sources.size(), 6u);

  // The source scores are what `invar classify` gives for the label.
  const auto classified = test::run_cli({"-q", "classify", "-m", model("bert-pair-cls")}, kReviews);
  ASSERT_EQ(classified.exit_code, 0) << classified.err;
  const auto probs = jsonl(classified.out);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    EXPECT_EQ(sources[i]["line"], i + 1);
    EXPECT_NEAR(sources[i]["score"].get<double>(), probs[i]["probs"][1].get<double>(), 1e-6);
    EXPECT_EQ(sources[i]["label"], probs[i]["label"]);
  }
  // Each transformation's counts are the reference's on the scores the per-source file reports.
  for (const auto& t : result["transformations"]) {
    const std::string name = t["name"];
    std::vector<double> s, f;
    for (const auto& line : sources) {
      s.push_back(line["score"]);
      f.push_back(line["transformations"][name]["score"]);
    }
    const auto expected = reference_order(s, f);
    EXPECT_EQ(t["tests"].get<std::uint64_t>(), expected.tests) << name;
    EXPECT_EQ(t["violations"].get<std::uint64_t>(), expected.violations) << name;
    for (std::size_t i = 0; i < sources.size(); ++i)
      EXPECT_EQ(sources[i]["transformations"][name]["violations"].get<std::uint64_t>(), expected.source_violations[i]);
  }
  EXPECT_EQ(test::without_provenance(test::read_file(dir + "/counts.csv")).rfind("transformation,tests,violations,rate\nprefix-1,", 0), 0u);
  const auto html = test::read_file(dir + "/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("stroke-dasharray"), std::string::npos);  // the relation's diagram
  EXPECT_NE(html.find("prefix-3"), std::string::npos);
}

TEST(MetamorphicCli, SingleInputOnARegressorWithFollowUpFiles) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/reviews.txt", kReviews);
  test::write_file(dir + "/shouted.txt", "A WONDERFUL FILM!\nTERRIBLE!\nLIKED IT!\nNOT WORTH IT!\nAVERAGE!\nTHE BEST!\n");
  const auto run = test::run_cli({"-q", "metamorphic", "single", "-m", model("xlmr-regression"), "--sources",
                                  dir + "/reviews.txt", "--follow-ups", "shouted=" + dir + "/shouted.txt", "--transform",
                                  "typo=noise:0.2", "--property", "order", "--direction", "decrease", "--json",
                                  "--per-source", dir + "/per-source.jsonl"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto result = json::parse(run.out);
  ASSERT_EQ(result["transformations"].size(), 2u);
  EXPECT_EQ(result["transformations"][0]["name"], "typo");
  EXPECT_EQ(result["transformations"][1]["name"], "shouted");
  const auto classified = jsonl(test::run_cli({"-q", "classify", "-m", model("xlmr-regression")}, kReviews).out);
  const auto sources = jsonl(test::read_file(dir + "/per-source.jsonl"));
  std::uint64_t violations = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    EXPECT_NEAR(sources[i]["score"].get<double>(), classified[i]["score"].get<double>(), 1e-6);
    const bool violated = sources[i]["transformations"]["shouted"]["score"].get<double>() > sources[i]["score"].get<double>();
    EXPECT_EQ(sources[i]["transformations"]["shouted"]["violations"].get<std::uint64_t>(), violated ? 1u : 0u);
    violations += violated;
  }
  EXPECT_EQ(result["transformations"][1]["tests"], 6);
  EXPECT_EQ(result["transformations"][1]["violations"], violations);
  EXPECT_EQ(result["transformations"][1]["violating_lines"].size(), violations);
}

TEST(MetamorphicCli, SingleSimilarityOfEmbeddingsAndPairwiseEquivalence) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/reviews.txt", kReviews);
  const auto cosine = test::run_cli({"-q", "metamorphic", "single", "-m", model("xlmr"), "--sources", dir + "/reviews.txt",
                                     "--transform", "suffix:Thanks.", "--property", "similarity", "--embeddings",
                                     "--delta", "1.5", "--json"});
  ASSERT_EQ(cosine.exit_code, 0) << cosine.err;
  EXPECT_EQ(json::parse(cosine.out)["transformations"][0]["violations"], 6);  // a cosine is never ≥ 1.5
  const auto equivalence = test::run_cli({"-q", "metamorphic", "pairwise", "-m", model("xlmr-pair-cls"), "--sources",
                                          dir + "/reviews.txt", "--transform", "neutral", "--property", "equivalence", "--json"});
  ASSERT_EQ(equivalence.exit_code, 0) << equivalence.err;
  const auto pairwise = json::parse(equivalence.out);
  for (const auto& t : pairwise["transformations"]) EXPECT_LE(t["violations"], t["tests"]);
}

TEST(MetamorphicCli, PairwiseSimilarityOfEmbeddingsMatchesEmbedAndTheReference) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/reviews.txt", kReviews);
  const std::string follow_ups =
      "A wonderful film.\nTerrible plot.\nI liked it.\nNot worth it.\nAn average film.\nThe best thing this year.\n";
  test::write_file(dir + "/short.txt", follow_ups);
  auto embeddings = [](const std::string& texts) {
    const auto run = test::run_cli({"-q", "embed", "-m", model("xlmr")}, texts);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    std::vector<std::vector<float>> rows;
    for (const auto& line : jsonl(run.out)) rows.push_back(line["embedding"].get<std::vector<float>>());
    return rows;
  };
  const auto s = embeddings(kReviews), t = embeddings(follow_ups);
  ASSERT_EQ(s.size(), 6u);
  // δ halfway between the 5th and 6th largest of the 15 source cosines: a margin against the
  // rounding of the printed embeddings, and some pairs on each side of the premise.
  std::vector<double> cosines;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = i + 1; j < s.size(); ++j) cosines.push_back(cosine_similarity(s[i], s[j]));
  std::sort(cosines.rbegin(), cosines.rend());
  const double delta = (cosines[4] + cosines[5]) / 2;
  const auto run = test::run_cli({"-q", "metamorphic", "pairwise", "-m", model("xlmr"), "--sources", dir + "/reviews.txt",
                                  "--follow-ups", "short=" + dir + "/short.txt", "--property", "similarity", "--embeddings",
                                  "--delta", fmt::format("{:.17g}", delta), "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto result = json::parse(run.out)["transformations"][0];
  const auto expected = reference_cosine(s, t, delta);
  EXPECT_EQ(result["tests"], 5u);
  EXPECT_EQ(result["tests"], expected.tests);
  EXPECT_EQ(result["violations"], expected.violations);
}

TEST(MetamorphicCli, ScoreFileRunsWithoutAModel) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/scores.tsv", "source\tprefix\n0.1\t0.5\n0.2\t0.4\n0.3\t0.9\n");
  const auto run = test::run_cli({"metamorphic", "pairwise", "--scores", dir + "/scores.tsv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("prefix              3           1  0.3333"), std::string::npos) << run.out;
}

// δ is checked as isometry's ε is: a negative or NaN δ on scores would report every test violated,
// an infinite one none; refused before any model runs, naming the option.
TEST(MetamorphicCli, SimilarityDeltaOutsideItsRangeIsRefused) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/scores.tsv", "source\tprefix\n0.1\t0.5\n0.2\t0.4\n0.3\t0.9\n");
  test::write_file(dir + "/reviews.txt", kReviews);
  for (const char* delta : {"-1", "nan", "inf", "-0.001"}) {
    for (const char* arity : {"single", "pairwise"}) {
      const auto run = test::run_cli({"metamorphic", arity, "--scores", dir + "/scores.tsv", "--property", "similarity",
                                      "--delta", delta});
      EXPECT_EQ(run.exit_code, 1) << delta << " " << arity << ": " << run.err;
      EXPECT_NE(run.err.find("--delta must be a finite number"), std::string::npos) << run.err;
    }
  }
  const auto cosine = test::run_cli({"metamorphic", "single", "-m", model("xlmr"), "--sources", dir + "/reviews.txt",
                                     "--transform", "neutral", "--property", "similarity", "--embeddings", "--delta",
                                     "nan"});
  EXPECT_EQ(cosine.exit_code, 1) << cosine.err;
  EXPECT_NE(cosine.err.find("--delta must be a finite number, got nan"), std::string::npos) << cosine.err;
  EXPECT_EQ(test::run_cli({"metamorphic", "pairwise", "--scores", dir + "/scores.tsv", "--property", "similarity",
                           "--delta", "0"})
                .exit_code,
            0);
  EXPECT_THROW(validate_delta(-1, false), Error);
  EXPECT_NO_THROW(validate_delta(-1, true));  // cosine ≥ -1: every pair similar, a threshold that means something
}

TEST(MetamorphicCli, CompositionalityOnAnNliModel) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/contexts.tsv", "I saw a {} in the garden.\tupward\nI did not see a {} in the garden.\tdownward\n"
                                          "Every {} likes to run.\tdownward\nSome {} was sleeping.\tupward\n");
  test::write_file(dir + "/insertions.tsv", "animal\tdog\thypernym\ndog\tanimal\thyponym\nbird\tsparrow\thypernym\n"
                                            "sparrow\tbird\thyponym\ncat\ttable\tnone\nflower\trose\thypernym\n"
                                            "rose\tflower\thyponym\ncar\ttree\tnone\n");
  for (const auto* name : {"bert-pair-cls", "xlmr-pair-cls"}) {
    const auto run = test::run_cli({"-q", "metamorphic", "compositionality", "-m", model(name), "--label", "1", "--contexts",
                                    dir + "/contexts.tsv", "--insertions", dir + "/insertions.tsv", "--json", "--report",
                                    dir + "/c.html"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto result = json::parse(run.out);
    EXPECT_EQ(result["provenance"]["models"][0]["path"], model(name));
    EXPECT_EQ(result["provenance"]["data"].size(), 2u);  // contexts and insertions; not the report
    EXPECT_NE(test::read_file(dir + "/c.html").find("<details class=\"provenance\">"), std::string::npos);
    EXPECT_EQ(result["overall"]["tests"], 4 * 28);  // 8 insertions: 28 pairs per context, unless probe scores tie
    EXPECT_EQ(result["overall"]["violations"].get<int>(),
              result["upward"]["violations"].get<int>() + result["downward"]["violations"].get<int>());
    int insertion_tests = 0;
    for (const auto& m : result["insertions"]) insertion_tests += m["tests"].get<int>();
    EXPECT_EQ(insertion_tests, 2 * 4 * 28);
    EXPECT_EQ(result["probe"]["layer"], 1);
    EXPECT_EQ(result["probe"]["train"].get<int>() + result["probe"]["held_out"].get<int>(), 32);
    EXPECT_TRUE(result["probe"]["accuracy"].is_number());
    EXPECT_NE(test::read_file(dir + "/c.html").find("stroke-dasharray"), std::string::npos);
  }
  test::write_file(dir + "/glued.tsv", "I saw a{} there.\tupward\n");
  const auto glued = test::run_cli({"metamorphic", "compositionality", "-m", model("xlmr-pair-cls"), "--contexts",
                                    dir + "/glued.tsv", "--insertions", dir + "/insertions.tsv"});
  EXPECT_NE(error_of(glued).find("glued.tsv:1: the insertion 'sparrow' cannot be located"), std::string::npos);
}

TEST(MetamorphicCli, TransitivityOnAPairModel) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/triplets.tsv", "car\tauto\tvehicle\ten\nbig\tlarge\thuge\ten\nHund\tKöter\tTier\tde\n");
  const auto run = test::run_cli({"-q", "metamorphic", "transitivity", "-m", model("bert-pair-cls"), "--label", "paraphrase",
                                  "--label", "not_paraphrase", "--triplets", dir + "/triplets.tsv", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto result = json::parse(run.out);
  ASSERT_EQ(result["relations"].size(), 2u);
  // Every pair gets one of the two labels: each triplet's premise holds for at most one relation.
  int tests = 0;
  for (const auto& r : result["relations"]) {
    EXPECT_EQ(r["candidates"], 3);
    EXPECT_EQ(r["groups"]["de"]["candidates"], 1);
    tests += r["tests"].get<int>();
  }
  EXPECT_LE(tests, 3);
  test::write_file(dir + "/labels.tsv", "car\tauto\tsyn\nauto\tvehicle\tsyn\ncar\tvehicle\tnone\n");
  test::write_file(dir + "/one.tsv", "car\tauto\tvehicle\n");
  const auto from_file = test::run_cli({"metamorphic", "transitivity", "--pair-labels", dir + "/labels.tsv", "--label", "syn",
                                        "--triplets", dir + "/one.tsv", "--json"});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(json::parse(from_file.out)["relations"][0]["violations"], 1);
  const auto unknown = test::run_cli({"metamorphic", "transitivity", "-m", model("bert-pair-cls"), "--label", "synonym",
                                      "--triplets", dir + "/triplets.tsv"});
  EXPECT_NE(error_of(unknown).find("unknown label 'synonym'"), std::string::npos);
}

TEST(MetamorphicCli, DiagramAsSvgOrDot) {
  const auto dir = test::temp_dir();
  const auto svg = test::run_cli({"metamorphic", "diagram", "pairwise-order", "-o", dir + "/p.svg"});
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_EQ(test::read_file(dir + "/p.svg").rfind("<svg", 0), 0u);
  const auto dot = test::run_cli({"metamorphic", "diagram", "transitivity", "--dot"});
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_EQ(dot.out.rfind("digraph", 0), 0u);
  test::write_file(dir + "/empty.json", R"({"name": "nothing", "nodes": []})");
  EXPECT_NE(error_of(test::run_cli({"metamorphic", "diagram", "--relation", dir + "/empty.json"})).find("empty.json: the relation is empty"),
            std::string::npos);
}

TEST(MetamorphicCli, BadInputFailsWithOneLineNamingTheFile) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/one.txt", "Only one review.\n");
  test::write_file(dir + "/reviews.txt", kReviews);
  test::write_file(dir + "/short.txt", "a\nb\n");
  const std::vector<std::string> base{"metamorphic", "pairwise", "-m", model("bert-pair-cls")};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return error_of(test::run_cli(args));
  };
  EXPECT_NE(with({"--sources", dir + "/one.txt", "--transform", "neutral"}).find("at least two sources"), std::string::npos);
  EXPECT_NE(with({"--sources", dir + "/reviews.txt", "--follow-ups", "x=" + dir + "/short.txt"}).find("short.txt: 2 follow-ups"),
            std::string::npos);
  EXPECT_NE(with({"--sources", dir + "/reviews.txt", "--transform", "neutral", "--label", "happy"}).find("unknown label 'happy'"),
            std::string::npos);
  EXPECT_NE(with({"--sources", dir + "/reviews.txt"}).find("no transformation"), std::string::npos);
  test::write_file(dir + "/contexts.tsv", "No placeholder here.\tupward\n");
  test::write_file(dir + "/insertions.tsv", "animal\tdog\thypernym\ndog\tanimal\thyponym\n");
  EXPECT_NE(error_of(test::run_cli({"metamorphic", "compositionality", "-m", model("bert-pair-cls"), "--contexts",
                                    dir + "/contexts.tsv", "--insertions", dir + "/insertions.tsv"}))
                .find("contexts.tsv:1: the context has no placeholder"),
            std::string::npos);
}
