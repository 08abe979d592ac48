// Metamorphic testing (Manino et al. 2022): the O(n log n) pairwise counters against a plain
// O(n²) reference on random inputs with ties, hand-computed cases, single-input relations,
// transformations, relation diagrams, and `invar metamorphic` end to end on the fixture models.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <map>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "engine/cosine.hpp"
#include "eval/metamorphic/compositionality.hpp"
#include "eval/metamorphic/pairwise.hpp"
#include "eval/metamorphic/relation.hpp"
#include "eval/metamorphic/report.hpp"
#include "eval/metamorphic/single.hpp"
#include "eval/metamorphic/systematicity.hpp"
#include "eval/metamorphic/transforms.hpp"
#include "eval/metamorphic/transitivity.hpp"
#include "eval/metrics/lexical/wordnet.hpp"
#include "eval/stats/random.hpp"
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
  EXPECT_EQ(parse_transformation("neutral", {}).size(), 6u);
  const auto named = parse_transformation("hello=prefix:Hello there.", {});
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].name, "hello");
  EXPECT_EQ(named[0].apply("Hi.", 0), "Hello there. Hi.");
  EXPECT_EQ(parse_transformation("suffix:Bye.", {})[0].apply("Hi.", 0), "Hi. Bye.");
  EXPECT_THROW(parse_transformation("noise:lots", {}), Error);
  EXPECT_THROW(parse_transformation("shuffle:1", {}), Error);
}

namespace {

bool ascii_letter(char c) { return static_cast<unsigned char>(c) < 0x80 && std::isalpha(static_cast<unsigned char>(c)); }

// The documented draws: source `row` reads mt19937_64(seed + row); "with probability RATE" is a draw
// below 10⁹ under RATE × 10⁹.
struct Draws {
  std::mt19937_64 rng;
  Draws(std::uint64_t seed, std::size_t row) : rng(seed + row) {}
  bool chance(double rate) { return stats::uniform_below(rng, 1000000000) < static_cast<std::uint64_t>(rate * 1e9); }
  std::uint64_t below(std::uint64_t n) { return stats::uniform_below(rng, n); }
};

const metrics::WordNet& wordnet() {
  static const metrics::WordNet db;  // Debian's wordnet-base, as the METEOR tests read it
  return db;
}

std::shared_ptr<const metrics::WordNet> shared_wordnet() { return {&wordnet(), [](const metrics::WordNet*) {}}; }

}  // namespace

TEST(MetamorphicTransforms, CharDeleteFollowsTheDocumentedDraws) {
  const std::string text = "Héllo, wörld 42!";
  const auto t = char_delete_transformation("d", 0.3, 11);
  for (std::size_t row = 0; row < 5; ++row) {
    Draws draws(11, row);
    std::string expected;
    for (char c : text)
      if (!ascii_letter(c) || !draws.chance(0.3)) expected += c;
    EXPECT_EQ(t.apply(text, row), expected) << row;
  }
  EXPECT_NE(t.apply(text, 0), t.apply(text, 1));
  // Rate 1: every ASCII letter goes; UTF-8 letters, digits and punctuation stay.
  EXPECT_EQ(char_delete_transformation("d", 1, 3).apply(text, 0), "é, ö 42!");
  EXPECT_THROW(char_delete_transformation("d", 0, 3), Error);
  EXPECT_THROW(char_delete_transformation("d", 1.5, 3), Error);
}

TEST(MetamorphicTransforms, CharInsertAddsALetterAfterLettersOnly) {
  const std::string text = "Ab c-D 9";
  // Rate 1: a letter after each of A, b, c, D, in the case of the letter before it.
  const auto all = char_insert_transformation("i", 1, 5).apply(text, 2);
  ASSERT_EQ(all.size(), text.size() + 4) << all;
  Draws draws(5, 2);
  std::string expected;
  for (char c : text) {
    expected += c;
    if (!ascii_letter(c)) continue;
    ASSERT_TRUE(draws.chance(1));
    const char letter = static_cast<char>('a' + draws.below(26));
    expected += std::isupper(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(letter)) : letter;
  }
  EXPECT_EQ(all, expected);
  EXPECT_TRUE(std::isupper(static_cast<unsigned char>(all[1])) && std::islower(static_cast<unsigned char>(all[3])));
  EXPECT_EQ(all.substr(all.size() - 2), " 9");
  const auto some = char_insert_transformation("i", 0.5, 5);
  EXPECT_EQ(some.apply(text, 0), some.apply(text, 0));
}

TEST(MetamorphicTransforms, CharShuffleKeepsEachWordsLettersAndEnds) {
  const std::string text = "The quick brown fox, jumps! A long sentence with interesting words.";
  const auto t = char_shuffle_transformation("s", 1, 9);
  const auto out = t.apply(text, 0);
  ASSERT_EQ(out.size(), text.size());
  EXPECT_NE(out, text);
  EXPECT_EQ(out, t.apply(text, 0));
  for (std::size_t i = 0; i < text.size();) {  // word by word
    if (!ascii_letter(text[i])) {
      EXPECT_EQ(out[i], text[i]) << i;
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && ascii_letter(text[end])) ++end;
    auto a = text.substr(i, end - i), b = out.substr(i, end - i);
    if (a.size() < 4) {
      EXPECT_EQ(a, b);  // "The", "fox", "A" are too short
    }
    EXPECT_EQ(a.front(), b.front());
    EXPECT_EQ(a.back(), b.back());
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
    i = end;
  }
  // "abcd" has two inner orders; the draw picks one of them by Fisher–Yates on "bc".
  Draws draws(9, 4);
  ASSERT_TRUE(draws.chance(1));
  EXPECT_EQ(t.apply("abcd", 4), draws.below(2) == 1 ? "abcd" : "acbd");
}

TEST(MetamorphicTransforms, SentenceShuffleSplitsAtSentenceEnds) {
  const auto t = sentence_shuffle_transformation("s", 2);
  const std::string text = "He said \"Stop.\" It costs 3.5 euros!  Really?! Fine";
  const std::vector<std::string> sentences{"He said \"Stop.\"", "It costs 3.5 euros!", "Really?!", "Fine"};
  std::set<std::string> seen;
  for (std::size_t row = 0; row < 12; ++row) {
    const auto out = t.apply(text, row);
    EXPECT_EQ(out, t.apply(text, row));
    // The same four sentences joined with single spaces, in the order Fisher–Yates draws.
    auto order = sentences;
    Draws draws(2, row);
    for (std::size_t n = order.size(); n > 1; --n) std::swap(order[n - 1], order[draws.below(n)]);
    std::string expected = order[0];
    for (std::size_t k = 1; k < order.size(); ++k) expected += " " + order[k];
    EXPECT_EQ(out, expected) << row;
    seen.insert(out);
  }
  EXPECT_GT(seen.size(), 2u);
  EXPECT_EQ(t.apply("Only one sentence here.", 0), "Only one sentence here.");
  EXPECT_EQ(t.apply("Version 2.0 is out", 0), "Version 2.0 is out");
}

TEST(MetamorphicTransforms, WordNetSensesAndAntonymsAsTheDataFilesList) {
  // index.adj lists happy in 01148283 (happy; antonym unhappy), 01048406 (felicitous, happy),
  // 02565584 (glad, happy), 01000442 (happy, well-chosen).
  const auto happy = wordnet().senses("Happy");
  ASSERT_EQ(happy.size(), 4u);
  EXPECT_EQ(happy[0].lemma_names, std::vector<std::string>{"happy"});
  EXPECT_EQ(happy[0].antonyms, std::vector<std::string>{"unhappy"});
  EXPECT_EQ(happy[1].lemma_names, (std::vector<std::string>{"felicitous", "happy"}));
  EXPECT_EQ(happy[3].lemma_names, (std::vector<std::string>{"happy", "well-chosen"}));
  EXPECT_TRUE(happy[1].antonyms.empty());
  // good: 4 noun, 21 adjective, 2 adverb synsets. Antonyms of the lemma good itself: evil (noun
  // 04849241, pointer 0101), bad (noun 05142180), bad (adjective 01123148), evil (adjective 01129977);
  // the adverb 00011093's antonym belongs to its other lemma, well.
  const auto good = wordnet().senses("good");
  EXPECT_EQ(good.size(), 27u);
  std::vector<std::string> antonyms;
  for (const auto& sense : good) antonyms.insert(antonyms.end(), sense.antonyms.begin(), sense.antonyms.end());
  EXPECT_EQ(antonyms, (std::vector<std::string>{"evil", "bad", "bad", "evil"}));
  EXPECT_TRUE(wordnet().senses("happier").empty());  // no morphy: inflected forms are not lemmas
}

TEST(MetamorphicTransforms, WordNetSynonymsAndAntonymsReplaceLemmasOnly) {
  const std::vector<std::string> movie{"film", "picture", "moving picture", "moving-picture show", "motion picture",
                                       "motion-picture show", "picture show", "pic", "flick"};
  const std::vector<std::string> happy{"felicitous", "glad", "well-chosen"};
  const auto synonym = wordnet_transformation("syn", WordRelation::Synonym, shared_wordnet(), 1, 4);
  std::set<std::string> seen;
  for (std::size_t row = 0; row < 10; ++row) {
    // "The" is no lemma, "was" a function word; movie and happy are replaced, in WordNet's order of candidates.
    Draws draws(4, row);
    ASSERT_TRUE(draws.chance(1));
    const auto first = movie[draws.below(movie.size())];
    ASSERT_TRUE(draws.chance(1));
    const auto second = happy[draws.below(happy.size())];
    const auto out = synonym.apply("The movie was happy.", row);
    EXPECT_EQ(out, "The " + first + " was " + second + ".") << row;
    seen.insert(out);
  }
  EXPECT_GT(seen.size(), 2u);
  // A capitalised word's replacement is capitalised; an inflected form ("movies") is kept.
  EXPECT_EQ(wordnet_transformation("ant", WordRelation::Antonym, shared_wordnet(), 1, 0).apply("Happy movies", 0), "Unhappy movies");
  const auto good = wordnet_transformation("ant", WordRelation::Antonym, shared_wordnet(), 1, 0).apply("good", 3);
  EXPECT_TRUE(good == "evil" || good == "bad") << good;
  // Function words stay although WordNet lists them (can: tin, will: volition).
  EXPECT_EQ(synonym.apply("I can and will", 0), "I can and will");
  EXPECT_EQ(wordnet_transformation("syn", WordRelation::Synonym, shared_wordnet(), 1e-9, 4).apply("The movie was happy.", 0),
            "The movie was happy.");
  const auto parsed = parse_transformation("syn=synonym:0.5", {.seed = 4, .wordnet = wordnet().directory()});
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].name, "syn");
  EXPECT_EQ(parsed[0].description, "WordNet synonyms, rate 0.5, seed 4");
  EXPECT_THROW(parse_transformation("antonym:x", {}), Error);
  EXPECT_THROW(parse_transformation("synonym:0.5", {.wordnet = test::temp_dir()}), Error);  // no WordNet there
}

TEST(MetamorphicTransforms, ParsesTheNewKinds) {
  EXPECT_EQ(parse_transformation("char-insert:0.1", {})[0].name, "char-insert");
  EXPECT_EQ(parse_transformation("x=char-delete:0.1", {})[0].name, "x");
  EXPECT_EQ(parse_transformation("char-shuffle:1", {.seed = 3})[0].apply("abcdef", 0),
            char_shuffle_transformation("c", 1, 3).apply("abcdef", 0));
  EXPECT_EQ(parse_transformation("sentence-shuffle", {.seed = 1})[0].apply("A. B. C.", 5),
            sentence_shuffle_transformation("s", 1).apply("A. B. C.", 5));
  EXPECT_THROW(parse_transformation("char-delete:2", {}), Error);
  EXPECT_THROW(parse_transformation("paraphrase:model", {}), Error);  // nothing to run a model with
  // A model transformation's follow-ups come from one batched call.
  std::size_t calls = 0;
  const TransformTools tools{.seq2seq = [&calls](const std::string& model) -> TextMap {
    return [&calls, model](const std::vector<std::string>& texts) {
      ++calls;
      std::vector<std::string> out;
      for (const auto& t : texts) out.push_back(model + ": " + t);
      return out;
    };
  }};
  const auto paraphrase = parse_transformation("paraphrase:m", tools);
  ASSERT_EQ(paraphrase.size(), 1u);
  EXPECT_EQ(paraphrase[0].description, "paraphrase by m");
  EXPECT_EQ(follow_up_texts(paraphrase[0], {"a", "b", "c"}), (std::vector<std::string>{"m: a", "m: b", "m: c"}));
  EXPECT_EQ(calls, 1u);
  EXPECT_EQ(follow_up_texts(char_delete_transformation("d", 1, 0), {"ab1", "c2"}), (std::vector<std::string>{"1", "2"}));
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

namespace {

// A relation's arrows as "from-label -f-> to-label", by the nodes' labels.
std::multiset<std::string> arrow_strings(const Relation& relation) {
  std::map<std::string, std::string> label;
  for (const auto& node : relation.nodes) label[node.id] = node.label;
  std::multiset<std::string> out;
  for (const auto& arrow : relation.arrows) out.insert(label.at(arrow.from) + " -" + arrow.label + "-> " + label.at(arrow.to));
  return out;
}

std::set<std::string> source_labels(const Relation& relation) {
  std::set<std::string> out;
  for (const auto& node : relation.nodes)
    if (node.source) out.insert(node.label);
  return out;
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

}  // namespace

TEST(MetamorphicRelation, CompositionalityIsThePapersFigure4) {
  // f = f₂ ∘ f₁: the probe g reads f₁'s representation, f₂ gives the entailment score; no t.
  const auto r = compositionality_relation();
  EXPECT_EQ(source_labels(r), (std::set<std::string>{"x₁", "x₂"}));
  EXPECT_EQ(arrow_strings(r), (std::multiset<std::string>{"x₁ -f₁-> f₁(x₁)", "x₂ -f₁-> f₁(x₂)", "f₁(x₁) -g-> g(f₁(x₁))",
                                                          "f₁(x₂) -g-> g(f₁(x₂))", "f₁(x₁) -f₂-> f(x₁)", "f₁(x₂) -f₂-> f(x₂)"}));
  for (const auto& node : r.nodes) EXPECT_EQ(node.kind == NodeKind::Text, node.source) << node.label;
  ASSERT_EQ(r.constraints.size(), 2u);
  EXPECT_EQ(r.constraints[0].nodes, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(r.constraints[0].label, "premise ≤");
  EXPECT_EQ(r.constraints[1].nodes, (std::vector<std::string>{"f1", "f2"}));
  const auto svg = relation_svg(r);
  for (const auto* label : {"f₁(x₁)", "g(f₁(x₁))", "f(x₂)", "f₂", "premise ≤", "f = f₂ ∘ f₁"}) EXPECT_NE(svg.find(label), std::string::npos) << label;
  EXPECT_EQ(svg.find(">t<"), std::string::npos);  // no transformation arrow
}

TEST(MetamorphicRelation, TransitivityIsThePapersFigure5) {
  // Pair texts built from the three source words, f on each, one property on the three outputs.
  const auto r = transitivity_relation();
  EXPECT_EQ(source_labels(r), (std::set<std::string>{"a", "b", "c"}));
  EXPECT_EQ(arrow_strings(r), (std::multiset<std::string>{"a --> (a, b)", "b --> (a, b)", "b --> (b, c)", "c --> (b, c)",
                                                          "a --> (a, c)", "c --> (a, c)", "(a, b) -f-> f(a, b)",
                                                          "(b, c) -f-> f(b, c)", "(a, c) -f-> f(a, c)"}));
  for (const auto& node : r.nodes) EXPECT_EQ(node.kind == NodeKind::Text, node.label.find("f(") == std::string::npos) << node.label;
  ASSERT_EQ(r.constraints.size(), 1u);
  EXPECT_EQ(r.constraints[0].nodes, (std::vector<std::string>{"ab", "bc", "ac"}));
  EXPECT_EQ(r.constraints[0].label, "R(a, b) ∧ R(b, c) ⇒ R(a, c)");
  // Drawn as one point joined by a dashed line from each output, carrying the property's label once.
  const auto dot = relation_dot(r);
  EXPECT_EQ(count_of(dot, "shape=point"), 1u);
  EXPECT_EQ(count_of(dot, "-> \"property 1\" [style=dashed"), 3u);
  EXPECT_EQ(count_of(dot, "R(a, b) ∧ R(b, c) ⇒ R(a, c)"), 1u);
  const auto svg = relation_svg(r);
  EXPECT_EQ(count_of(svg, "stroke-dasharray"), 3u);
  for (const auto* label : {"(a, b)", "(b, c)", "(a, c)", "f(a, c)", "R(a, b) ∧ R(b, c) ⇒ R(a, c)"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
}

TEST(MetamorphicRelation, AHubNeverTakesAUserNodesId) {
  Relation r{"three", {{"property 1", "p", NodeKind::Numeric, true}, {"q", "q", NodeKind::Numeric, false},
                       {"s", "s", NodeKind::Numeric, false}}, {}, {{{"property 1", "q", "s"}, "all equal"}}};
  const auto dot = relation_dot(r);
  EXPECT_EQ(count_of(dot, "-> \"property 1'\" [style=dashed"), 3u);
  EXPECT_NE(relation_svg(r).find("all equal"), std::string::npos);
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

TEST(MetamorphicSuite, ReportsShowTheSourceTextsAndEachTransformationsSentence) {
  Suite suite;
  suite.path = "reviews.txt";
  suite.line_numbers = {1, 2, 3};
  suite.texts = {"A wonderful film.", "Terrible plot.", "A very long review that goes on and on about the film, its actors and its music."};
  suite.source.scores = {0.9, 0.1, 0.5};
  const auto t = prefix_transformation("prefix-1", "Seen on a Tuesday.");
  suite.names = {t.name};
  suite.descriptions = {t.description};
  Outputs follow_up;
  follow_up.scores = {0.2, 0.3, 0.6};  // (wonderful, terrible) and (wonderful, long) reversed
  suite.follow_ups = {follow_up};
  const auto result = run_suite(suite, {Arity::Pairwise, Property::Order});
  const auto text = suite_text(suite, result, {});
  EXPECT_NE(text.find("prefix-1        “Seen on a Tuesday.” before the text      3           2  0.6667"), std::string::npos) << text;
  // Sources worst first, each with its text (cut to 60 characters).
  const auto worst = text.find("A wonderful film.");
  ASSERT_NE(worst, std::string::npos) << text;
  EXPECT_LT(worst, text.find("Terrible plot."));
  EXPECT_NE(text.find("A very long review that goes on and on about the film, its …"), std::string::npos) << text;
  EXPECT_EQ(suite_json(suite, result, {}, {})["transformations"][0]["description"], "“Seen on a Tuesday.” before the text");
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

TEST(MetamorphicCompositionality, PerInputResultsByHand) {
  // The case above: in each context the pair (1, 2) is violated, so inputs 1 and 2 have one violation
  // in their two pairs and input 0 none.
  const std::vector<Context> contexts{{"I saw a {}.", Monotonicity::Upward, "c:1"}, {"I saw no {}.", Monotonicity::Downward, "c:2"}};
  const std::vector<Insertion> insertions{{"animal", "dog", LexicalRelation::Hypernym, "i:1"},
                                          {"dog", "animal", LexicalRelation::Hyponym, "i:2"},
                                          {"cat", "car", LexicalRelation::None, "i:3"}};
  const auto result = count_compositionality(contexts, insertions, {{0.9, 0.5, 0.1}, {0.9, 0.5, 0.1}},
                                             {{0.1, 0.8, 0.3}, {0.9, 0.2, 0.4}});
  ASSERT_EQ(result.inputs.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(result.inputs[i].counts.tests, 2u) << i;
    EXPECT_EQ(result.inputs[i].counts.violations, i % 3 == 0 ? 0u : 1u) << i;
  }
  EXPECT_EQ(result.inputs[4].entailment, 0.2);
  const auto dir = test::temp_dir();
  write_compositionality_per_source(dir + "/inputs.jsonl", contexts, insertions, result);
  const auto lines = test::read_file(dir + "/inputs.jsonl");
  ASSERT_EQ(std::count(lines.begin(), lines.end(), '\n'), 6);
  std::istringstream in(lines);
  std::string line;
  for (int k = 0; k < 5; ++k) std::getline(in, line);  // the fifth: context 2 with (dog, animal)
  const auto fifth = nlohmann::json::parse(line);
  EXPECT_EQ(fifth["input"], 5);
  EXPECT_EQ(fifth["context"], "I saw no {}.");
  EXPECT_EQ(fifth["context_where"], "c:2");
  EXPECT_EQ(fifth["monotonicity"], "downward");
  EXPECT_EQ(fifth["premise"], "I saw no dog.");
  EXPECT_EQ(fifth["hypothesis"], "I saw no animal.");
  EXPECT_EQ(fifth["relation"], "hyponym");
  EXPECT_EQ(fifth["insertion_where"], "i:2");
  EXPECT_EQ(fifth["probe"], 0.5);
  EXPECT_EQ(fifth["entailment"], 0.2);
  EXPECT_EQ(fifth["held_out"], false);
  EXPECT_EQ(fifth["tests"], 2);
  EXPECT_EQ(fifth["violations"], 1);
  EXPECT_EQ(fifth["rate"], 0.5);
  // The text report lists the inputs, worst first, by their premise and hypothesis.
  const auto text = compositionality_text(contexts, insertions, result, {});
  const auto worst = text.find("Inputs with the highest violation rates");
  ASSERT_NE(worst, std::string::npos) << text;
  EXPECT_LT(text.find("I saw a dog."), text.find("I saw a animal.", worst)) << text;
  EXPECT_NE(text.find("I saw no cat.", worst), std::string::npos) << text;
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

TEST(MetamorphicTransitivity, PerTripletResultsByHand) {
  const std::set<std::pair<std::string, std::string>> related{{"a", "b"}, {"b", "c"}, {"a", "c"}, {"x", "y"}, {"y", "z"}, {"b", "a"}};
  const PairJudge judge = [&](const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<std::vector<bool>> out(2);
    for (const auto& p : pairs) {
      out[0].push_back(related.count(p) > 0);
      out[1].push_back(!related.count(p));  // "unrelated"
    }
    return out;
  };
  const std::vector<Triplet> triplets{{"a", "b", "c", "en", "t:1"}, {"x", "y", "z", "de", "t:2"}, {"c", "b", "a", "", "t:3"}};
  const auto results = run_transitivity(triplets, {"R", "U"}, judge);
  const auto dir = test::temp_dir();
  write_transitivity_per_source(dir + "/triplets.jsonl", triplets, results);
  std::istringstream in(test::read_file(dir + "/triplets.jsonl"));
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1]["triplet"], 2);
  EXPECT_EQ(lines[1]["where"], "t:2");
  EXPECT_EQ(lines[1]["a"], "x");
  EXPECT_EQ(lines[1]["group"], "de");
  EXPECT_EQ(lines[1]["relations"]["R"], (nlohmann::json{{"ab", true}, {"bc", true}, {"ac", false}, {"test", true}, {"violated", true}}));
  EXPECT_EQ(lines[1]["relations"]["U"], (nlohmann::json{{"ab", false}, {"bc", false}, {"ac", true}, {"test", false}, {"violated", false}}));
  EXPECT_EQ(lines[0]["relations"]["R"]["violated"], false);
  EXPECT_EQ(lines[0]["relations"]["R"]["test"], true);
  EXPECT_FALSE(lines[2].contains("group"));
  // (c, b): unrelated, (b, a): related; no premise for either relation.
  EXPECT_EQ(lines[2]["relations"]["R"], (nlohmann::json{{"ab", false}, {"bc", true}, {"ac", false}, {"test", false}, {"violated", false}}));
  EXPECT_EQ(lines[2]["relations"]["U"], (nlohmann::json{{"ab", true}, {"bc", false}, {"ac", true}, {"test", false}, {"violated", false}}));
  // The text report names the violating triplet's words.
  const auto text = transitivity_text(triplets, results, {});
  EXPECT_NE(text.find("Violating triplets of R (1 of 1):"), std::string::npos) << text;
  EXPECT_NE(text.find("x  y  z  de     t:2"), std::string::npos) << text;
  EXPECT_EQ(text.find("Violating triplets of U"), std::string::npos) << text;
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
  EXPECT_NE(html.find(">violation rate ↓</text>"), std::string::npos);  // lower is better, on the axis
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

// paraphrase:MODEL gives the follow-ups `invar translate` gives with the model's own settings, and
// the WordNet and character transformations run from the command line.
TEST(MetamorphicCli, ParaphraseFollowUpsAreTheSeq2seqModelsOutputs) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/reviews.txt", kReviews);
  const auto marian = test::fixture("core/marian");
  const auto translated = test::run_cli({"-q", "translate", "-m", marian, "-i", dir + "/reviews.txt", "-o", dir + "/para.txt"});
  ASSERT_EQ(translated.exit_code, 0) << translated.err;
  const std::vector<std::string> common{"-q", "metamorphic", "single", "-m", model("xlmr-regression"), "--sources",
                                        dir + "/reviews.txt", "--property", "order", "--json"};
  const auto with = [&common](std::vector<std::string> more) {
    more.insert(more.begin(), common.begin(), common.end());
    return more;
  };
  const auto with_model = with({"--transform", "para=paraphrase:" + marian, "--per-source", dir + "/a.jsonl"});
  const auto with_file = with({"--follow-ups", "para=" + dir + "/para.txt", "--per-source", dir + "/b.jsonl"});
  const auto a = test::run_cli(with_model), b = test::run_cli(with_file);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(test::read_file(dir + "/a.jsonl"), test::read_file(dir + "/b.jsonl"));
  EXPECT_EQ(json::parse(a.out)["transformations"][0]["description"], "paraphrase by " + marian);
  EXPECT_EQ(json::parse(a.out)["transformations"][0]["violations"], json::parse(b.out)["transformations"][0]["violations"]);

  const auto run = test::run_cli(with({"--transform", "synonym:1", "--transform", "char-shuffle:0.5", "--transform",
                                       "sentence-shuffle", "--seed", "3", "--wordnet", wordnet().directory()}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto result = json::parse(run.out);
  ASSERT_EQ(result["transformations"].size(), 3u);
  EXPECT_EQ(result["transformations"][0]["description"], "WordNet synonyms, rate 1, seed 3");
  EXPECT_EQ(result["settings"]["seed"], "3");
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
                                    dir + "/c.html", "--per-source", dir + "/inputs.jsonl"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto result = json::parse(run.out);
    EXPECT_EQ(result["provenance"]["models"][0]["path"], model(name));
    EXPECT_EQ(result["provenance"]["data"].size(), 2u);  // contexts and insertions; not the report
    EXPECT_NE(test::read_file(dir + "/c.html").find("<details class=\"provenance\">"), std::string::npos);
    // One line per input, context by context; each pair counted once for each of its two inputs.
    const auto inputs = jsonl(test::read_file(dir + "/inputs.jsonl"));
    ASSERT_EQ(inputs.size(), 32u);
    int input_tests = 0, input_violations = 0, held_out = 0;
    for (const auto& input : inputs) {
      input_tests += input["tests"].get<int>();
      input_violations += input["violations"].get<int>();
      held_out += input["held_out"].get<bool>();
    }
    EXPECT_EQ(input_tests, 2 * result["overall"]["tests"].get<int>());
    EXPECT_EQ(input_violations, 2 * result["overall"]["violations"].get<int>());
    EXPECT_EQ(held_out, result["probe"]["held_out"].get<int>());
    EXPECT_EQ(inputs[9]["premise"], "I did not see a dog in the garden.");
    EXPECT_EQ(inputs[9]["hypothesis"], "I did not see a animal in the garden.");
    EXPECT_EQ(inputs[9]["context_where"], dir + "/contexts.tsv:2");
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
                                        "--triplets", dir + "/one.tsv", "--json", "--per-source", dir + "/t.jsonl"});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(json::parse(from_file.out)["relations"][0]["violations"], 1);
  const auto triplet = jsonl(test::read_file(dir + "/t.jsonl"));
  ASSERT_EQ(triplet.size(), 1u);
  EXPECT_EQ(triplet[0]["where"], dir + "/one.tsv:1");
  EXPECT_EQ(triplet[0]["relations"]["syn"]["violated"], true);
  EXPECT_EQ(triplet[0]["relations"]["syn"]["ac"], false);
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
