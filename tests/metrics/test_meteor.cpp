// METEOR against NLTK 3.8 and 3.6.2 (tests/fixtures/stmetrics/meteor.json, README tolerances:
// scores 1e-12 absolute, round-4 scores, tokens, stems, synonyms, matches and chunks exact).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <random>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "eval/metrics/lexical/meteor.hpp"
#include "eval/metrics/lexical/porter_stemmer.hpp"
#include "support/golden.hpp"
#include "support/test_support.hpp"

using namespace invar;
using namespace invar::metrics;
using nlohmann::json;

namespace {

const json& records() {
  static const json data = test::load_json(test::fixture("stmetrics/meteor.json"));
  return data["records"];
}

const WordNet& wordnet() {
  static const WordNet db;
  return db;
}

std::vector<WordMatch> golden_matches(const json& list) {
  std::vector<WordMatch> out;
  for (const auto& m : list) out.emplace_back(m[0].get<int>(), m[1].get<int>());
  return out;
}

std::vector<IndexedWord> golden_words(const json& list) {
  std::vector<IndexedWord> out;
  for (const auto& w : list) out.push_back({w[0].get<int>(), w[1].get<std::string>()});
  return out;
}

// Python's round(x, 4): correctly rounded from the binary value, as fmt's fixed notation is.
double round4(double x) { return std::stod(fmt::format("{:.4f}", x)); }

void expect_stage_by_stage(const Meteor& meteor, const std::string& hyp, const std::string& ref, const json& g) {
  const auto a = meteor.align(hyp, ref);
  EXPECT_EQ(meteor.tokens(hyp), g["hyp_lower"].get<std::vector<std::string>>());
  EXPECT_EQ(meteor.tokens(ref), g["ref_lower"].get<std::vector<std::string>>());
  EXPECT_EQ(a.exact, golden_matches(g["exact_matches"]));
  for (const char* side : {"hyp", "ref"})
    for (const auto& w : g["stem_stage_input"][side])
      EXPECT_EQ(porter_stem(w[1].get<std::string>()), w[2].get<std::string>()) << w[1];
  EXPECT_EQ(a.stem, golden_matches(g["stem_matches"]));
  for (const auto& [stem, syns] : g["wordnet_synonyms_of_hyp"].items())
    EXPECT_EQ(meteor.synonyms(stem), syns.get<std::vector<std::string>>()) << stem;
  EXPECT_EQ(a.synonym, golden_matches(g["wordnet_matches"]));
  EXPECT_EQ(a.matches, golden_matches(g["matches_sorted"]));
  EXPECT_EQ(a.unmatched_hyp, golden_words(g["unmatched_hyp"]));
  EXPECT_EQ(a.unmatched_ref, golden_words(g["unmatched_ref"]));
  EXPECT_EQ(a.zero_division, g.value("zero_division", false));
  if (!a.zero_division) {
    EXPECT_NEAR(a.precision, g["precision"].get<double>(), 1e-12);
    EXPECT_NEAR(a.recall, g["recall"].get<double>(), 1e-12);
    EXPECT_NEAR(a.fmean, g["fmean"].get<double>(), 1e-12);
    EXPECT_EQ(a.chunks, g["chunks"].get<int>());
    EXPECT_NEAR(a.fragmentation, g["frag_frac"].get<double>(), 1e-12);
    EXPECT_NEAR(a.penalty, g["penalty"].get<double>(), 1e-12);
  }
  EXPECT_NEAR(a.score, g["score"].get<double>(), 1e-12);
}

// NLTK's own matching loop, quadratic as it is: the reference the indexed one must equal.
std::vector<WordMatch> nltk_match(std::vector<IndexedWord>& hyp, std::vector<IndexedWord>& ref,
                                  const std::function<bool(const std::string&, const std::string&)>& fits) {
  std::vector<WordMatch> found;
  for (std::size_t i = hyp.size(); i-- > 0;)
    for (std::size_t j = ref.size(); j-- > 0;)
      if (fits(hyp[i].word, ref[j].word)) {
        found.emplace_back(hyp[i].index, ref[j].index);
        hyp.erase(hyp.begin() + static_cast<std::ptrdiff_t>(i));
        ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(j));
        break;
      }
  return found;
}

std::vector<IndexedWord> indexed(const std::vector<std::string>& tokens, bool stem) {
  std::vector<IndexedWord> out;
  for (std::size_t i = 0; i < tokens.size(); ++i) out.push_back({static_cast<int>(i), stem ? porter_stem(tokens[i]) : tokens[i]});
  return out;
}

}  // namespace

// Lines of a few hundred words from a small vocabulary of synonyms, stems and repeats: every stage
// finds the matches NLTK's loop finds, in the same order, and leaves the same words.
TEST(Meteor, IndexedMatchingEqualsNltksLoopOnLongRepetitiveLines) {
  const Meteor meteor(wordnet());
  const std::vector<std::string> vocabulary{"good", "well", "dog", "dogs", "cat", "cats", "happy", "glad", "big",
                                            "large", "running", "runs", "the", "a", "film", "movie", "car", "auto"};
  std::mt19937 rng(7);
  std::size_t synonyms = 0;
  for (int trial = 0; trial < 20; ++trial) {
    auto line = [&] {
      std::string text;
      for (int k = 0, n = 200 + static_cast<int>(rng() % 200); k < n; ++k) text += vocabulary[rng() % vocabulary.size()] + " ";
      return text;
    };
    const std::string hyp = line(), ref = line();
    const auto a = meteor.align(hyp, ref);
    auto h = indexed(meteor.tokens(hyp), false), r = indexed(meteor.tokens(ref), false);
    EXPECT_EQ(a.exact, nltk_match(h, r, [](const auto& x, const auto& y) { return x == y; }));
    std::vector<IndexedWord> hs, rs;
    for (const auto& w : h) hs.push_back({w.index, porter_stem(w.word)});
    for (const auto& w : r) rs.push_back({w.index, porter_stem(w.word)});
    EXPECT_EQ(a.stem, nltk_match(hs, rs, [](const auto& x, const auto& y) { return x == y; }));
    EXPECT_EQ(a.synonym, nltk_match(hs, rs, [&](const auto& x, const auto& y) {
                const auto syns = meteor.synonyms(x);
                return std::binary_search(syns.begin(), syns.end(), y);
              }));
    EXPECT_EQ(a.unmatched_hyp, hs);
    EXPECT_EQ(a.unmatched_ref, rs);
    synonyms += a.synonym.size();
  }
  EXPECT_GT(synonyms, 20u);  // the vocabulary's synonyms are exercised
}

// A 120,000-word line (NLTK's loop: quadratic, over a minute) is aligned exactly: identical lines
// match word for word in one chunk.
TEST(Meteor, VeryLongLineAlignsExactly) {
  const Meteor meteor(wordnet());
  std::string line;
  for (int k = 0; k < 20000; ++k) line += "the cat sat on the mat ";
  const auto a = meteor.align(line, line);
  ASSERT_EQ(a.exact.size(), 120000u);
  for (const auto& [h, r] : a.exact) ASSERT_EQ(h, r);
  EXPECT_EQ(a.chunks, 1);
  EXPECT_DOUBLE_EQ(a.score, 1 - 0.5 * std::pow(1.0 / 120000, 3));
}

TEST(Meteor, EveryGoldenCaseStageByStageNltk38) {
  const Meteor meteor(wordnet());
  ASSERT_EQ(records().size(), 42u);
  for (const auto& r : records()) {
    SCOPED_TRACE(r["id"].get<std::string>());
    const auto hyp = r["hyp"].get<std::string>();
    const auto refs = r["refs"].get<std::vector<std::string>>();
    const auto split = python_split(hyp);
    EXPECT_EQ(std::vector<std::string>(split.begin(), split.end()), r["hyp_tokens"].get<std::vector<std::string>>());
    ASSERT_EQ(r["per_ref"].size(), refs.size());
    for (std::size_t k = 0; k < refs.size(); ++k) expect_stage_by_stage(meteor, hyp, refs[k], r["per_ref"][k]);
    const double score = meteor.score(hyp, refs);
    EXPECT_NEAR(score, r["score"].get<double>(), 1e-12);
    EXPECT_EQ(round4(score), r["score_round4"].get<double>());
  }
}

TEST(Meteor, EveryGoldenCaseNltk362Strings) {
  const Meteor meteor(wordnet(), {.version = MeteorVersion::Nltk362});
  int differing = 0;
  for (const auto& r : records()) {
    SCOPED_TRACE(r["id"].get<std::string>());
    const auto& g = r["nltk_3.6.2_strings"];
    const double score = meteor.score(r["hyp"].get<std::string>(), r["refs"].get<std::vector<std::string>>());
    EXPECT_NEAR(score, g["score"].get<double>(), 1e-12);
    EXPECT_EQ(round4(score), g["score_round4"].get<double>());
    differing += g["score"].get<double>() != r["score"].get<double>();
  }
  EXPECT_EQ(differing, 13);  // the README's count: the versions really differ on these inputs
}

TEST(Meteor, SignatureNamesVersionAndParameters) {
  const Meteor meteor(wordnet(), {.version = MeteorVersion::Nltk362});
  EXPECT_EQ(meteor.signature(), "nltk:3.6.2|alpha:0.9|beta:3|gamma:0.5|stem:porter-nltk|wordnet:" +
                                    WordNet::default_directory());
}

TEST(PorterStemmer, NltkExtensionsDepartures) {
  // Each line exercises one of NLTK_EXTENSIONS' departures from the 1980 paper.
  EXPECT_EQ(porter_stem("skies"), "sky");
  EXPECT_EQ(porter_stem("dying"), "die");
  EXPECT_EQ(porter_stem("is"), "is");
  EXPECT_EQ(porter_stem("ties"), "tie");
  EXPECT_EQ(porter_stem("died"), "die");
  EXPECT_EQ(porter_stem("happy"), "happi");
  EXPECT_EQ(porter_stem("conformabli"), "conform");
  EXPECT_EQ(porter_stem("generalli"), "gener");
  EXPECT_EQ(porter_stem("café"), "café");
}

TEST(WordNet, MorphyUsesExceptionsThenRules) {
  EXPECT_EQ(wordnet().morphy("mice", 0), std::vector<std::string>{"mouse"});
  EXPECT_EQ(wordnet().morphy("went", 1), std::vector<std::string>{"go"});
  EXPECT_EQ(wordnet().morphy("dogs", 0), std::vector<std::string>{"dog"});
  EXPECT_TRUE(wordnet().morphy("xyzzy", 0).empty());
}

TEST(WordNet, MissingFilesNameThePathAndThePackage) {
  const auto dir = test::temp_dir();
  try {
    WordNet missing(dir);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(dir + "/data.noun"), std::string::npos) << message;
    EXPECT_NE(message.find("wordnet-base"), std::string::npos) << message;
  }
}
