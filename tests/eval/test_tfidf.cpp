// TF-IDF features checked against values worked out by hand with scikit-learn 1.2's definition:
// idf = ln((1 + n) / (1 + df)) + 1, tf = count (or 1 + ln(count) with sublinear_tf), rows L2-normalised.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "eval/learn/tfidf.hpp"

using namespace invar;

namespace {

learn::TfidfOptions bigrams(learn::NgramAnalyzer analyzer = learn::NgramAnalyzer::Char) {
  learn::TfidfOptions options;
  options.analyzer = analyzer;
  options.ngram_min = 2;
  options.ngram_max = 2;
  return options;
}

}  // namespace

TEST(PythonLower, SpecialCasesOfStrLower) {
  EXPECT_EQ(python_lower("ABC Straße"), "abc straße");
  // U+0130 has the only multi-code-point lowercase mapping: "i" + combining dot above.
  EXPECT_EQ(python_lower("\u0130"), "i\u0307");
  // Final sigma: a cased letter before, none after (the '.' is case-ignorable); a lone Σ stays σ.
  EXPECT_EQ(python_lower("ΟΔΟΣ ΑΣ. Σ"), "οδος ας. σ");
  EXPECT_EQ(python_lower("ΣΑ"), "σα");
}

TEST(PythonSpace, MatchesStrIsspace) {
  for (char32_t c : {U' ', U'\t', U'\n', U'\v', U'\f', U'\r', U'\x1c', U'\x1f', U'\x85', U'\xa0', U'\u1680',
                     U'\u2000', U'\u200a', U'\u2028', U'\u2029', U'\u202f', U'\u205f', U'\u3000'})
    EXPECT_TRUE(is_python_space(c)) << static_cast<unsigned>(c);
  for (char32_t c : {U'a', U'\u200b', U'\ufeff', U'\x1b', U'\u180e'}) EXPECT_FALSE(is_python_space(c));
}

TEST(Tfidf, CharBigramsByHand) {
  // Documents "abab", "AB", "bc" (lowercased first). Bigrams: {ab: 2, ba: 1}, {ab: 1}, {bc: 1}.
  // n = 3; df(ab) = 2, df(ba) = df(bc) = 1.
  // idf(ab) = ln(4/3) + 1 = 1.2876820724517808; idf(ba) = idf(bc) = ln(4/2) + 1 = 1.6931471805599454.
  learn::TfidfVectorizer vectorizer(bigrams());
  vectorizer.fit({"abab", "AB", "bc"});
  ASSERT_EQ(vectorizer.vocabulary(), (std::vector<std::string>{"ab", "ba", "bc"}));
  EXPECT_EQ(vectorizer.document_frequency(), (std::vector<std::size_t>{2, 1, 1}));
  EXPECT_NEAR(vectorizer.idf()[0], 1.2876820724517808, 1e-15);
  EXPECT_NEAR(vectorizer.idf()[1], 1.6931471805599454, 1e-15);
  // Row "abab": (2 * 1.28768..., 1 * 1.69314...) / sqrt(2.57536...^2 + 1.69314...^2)
  //           = (0.8355915419449177, 0.5493512310263033).
  // Row "zzab" (unseen "zz", "za" ignored): ab alone, normalised to 1. Row "zz": no known n-gram, all zero.
  auto X = vectorizer.transform({"abab", "zzab", "zz"});
  EXPECT_NEAR(X.at(0, 0), 0.8355915419449177, 1e-12);
  EXPECT_NEAR(X.at(0, 1), 0.5493512310263033, 1e-12);
  EXPECT_EQ(X.at(0, 2), 0.0);
  EXPECT_EQ(X.row_size(0), 2u);
  EXPECT_NEAR(X.at(1, 0), 1.0, 1e-15);
  EXPECT_EQ(X.row_size(1), 1u);
  EXPECT_EQ(X.row_size(2), 0u);
}

TEST(Tfidf, SublinearTfByHand) {
  // Same documents; tf(ab in "abab") = 1 + ln 2. Row = ((1 + ln 2) * 1.28768..., 1.69314...) / norm
  //   = (0.7898069290660905, 0.6133555370249717).
  auto options = bigrams();
  options.sublinear_tf = true;
  learn::TfidfVectorizer vectorizer(options);
  vectorizer.fit({"abab", "AB", "bc"});
  auto X = vectorizer.transform({"abab"});
  EXPECT_NEAR(X.at(0, 0), 0.7898069290660905, 1e-12);
  EXPECT_NEAR(X.at(0, 1), 0.6133555370249717, 1e-12);
}

TEST(Tfidf, CharAnalyzerCollapsesOnlyRunsOfWhitespace) {
  learn::TfidfVectorizer vectorizer(bigrams());
  // "a  b\tc": the two spaces become one, the single tab stays: "a b\tc".
  EXPECT_EQ(vectorizer.analyze("a  b\tc"), (std::vector<std::string>{"a ", " b", "b\t", "\tc"}));
  // U+3000 + space is a run of Python whitespace; U+200B is not whitespace.
  EXPECT_EQ(vectorizer.analyze("x\u3000 y\u200bz"),
            (std::vector<std::string>{"x ", " y", "y\u200b", "\u200bz"}));
  auto options = bigrams();
  options.ngram_max = 3;
  learn::TfidfVectorizer up_to_three(options);
  // All bigrams first, then all trigrams; n-grams count code points, not bytes.
  EXPECT_EQ(up_to_three.analyze("Éte"), (std::vector<std::string>{"ét", "te", "éte"}));
  EXPECT_EQ(up_to_three.analyze("a"), (std::vector<std::string>{}));
}

TEST(Tfidf, CharWbPadsWordsAndKeepsShortWordsOnce) {
  auto options = bigrams(learn::NgramAnalyzer::CharWb);
  options.ngram_max = 3;
  learn::TfidfVectorizer vectorizer(options);
  // " ab ": bigrams " a", "ab", "b ", trigrams " ab", "ab "; " c ": bigrams " c", "c ", then the padded
  // word itself (3 code points) once for n = 3.
  EXPECT_EQ(vectorizer.analyze("ab  c"),
            (std::vector<std::string>{" a", "ab", "b ", " ab", "ab ", " c", "c ", " c "}));
  options.ngram_min = 4;
  options.ngram_max = 6;
  learn::TfidfVectorizer long_grams(options);
  EXPECT_EQ(long_grams.analyze("ab c"), (std::vector<std::string>{" ab ", " c "}));
}

TEST(Tfidf, DocumentFrequencyPruning) {
  // "aab", "ab", "bb": df(aa) = 1, df(ab) = 2, df(bb) = 1; n = 3.
  const std::vector<std::string> docs{"aab", "ab", "bb"};
  auto options = bigrams();
  options.max_df = learn::DocumentFrequencyBound::parse("0.6");  // 0.6 * 3 = 1.8: ab goes
  learn::TfidfVectorizer high(options);
  high.fit(docs);
  EXPECT_EQ(high.vocabulary(), (std::vector<std::string>{"aa", "bb"}));
  EXPECT_EQ(high.pruned_terms(), 1u);
  // idf uses the number of documents, not of kept terms: ln(4/2) + 1.
  EXPECT_NEAR(high.idf()[0], std::log(2.0) + 1.0, 1e-15);

  options.max_df = learn::DocumentFrequencyBound::parse("1.0");
  options.min_df = learn::DocumentFrequencyBound::parse("2");
  learn::TfidfVectorizer low(options);
  low.fit(docs);
  EXPECT_EQ(low.vocabulary(), (std::vector<std::string>{"ab"}));

  options.min_df = learn::DocumentFrequencyBound::parse("0.5");  // 1.5 documents
  learn::TfidfVectorizer low_share(options);
  low_share.fit(docs);
  EXPECT_EQ(low_share.vocabulary(), (std::vector<std::string>{"ab"}));

  options.min_df = learn::DocumentFrequencyBound::parse("3");
  learn::TfidfVectorizer none_left(options);
  EXPECT_THROW(none_left.fit(docs), Error);
  options.min_df = learn::DocumentFrequencyBound::parse("2");
  options.max_df = learn::DocumentFrequencyBound::parse("1");
  learn::TfidfVectorizer crossed(options);
  EXPECT_THROW(crossed.fit(docs), Error);
}

TEST(Tfidf, VocabularyIsInCodePointOrder) {
  learn::TfidfVectorizer vectorizer(bigrams());
  vectorizer.fit({"\U0001F600a \u00e9a Za"});
  auto vocabulary = vectorizer.vocabulary();
  ASSERT_FALSE(vocabulary.empty());
  for (std::size_t i = 1; i < vocabulary.size(); ++i) {
    auto previous = decode_utf8(vocabulary[i - 1]), current = decode_utf8(vocabulary[i]);
    EXPECT_LT(previous, current);
  }
  EXPECT_EQ(vocabulary.back(), "\U0001F600a");
}

TEST(Tfidf, ParsesDocumentFrequencyBounds) {
  auto count = learn::DocumentFrequencyBound::parse("2");
  EXPECT_FALSE(count.proportion);
  EXPECT_EQ(count.limit(10), 2.0);
  auto share = learn::DocumentFrequencyBound::parse("0.001");
  EXPECT_TRUE(share.proportion);
  EXPECT_DOUBLE_EQ(share.limit(2000), 2.0);
  EXPECT_THROW(learn::DocumentFrequencyBound::parse("0"), Error);
  EXPECT_THROW(learn::DocumentFrequencyBound::parse("1.5"), Error);
  EXPECT_THROW(learn::DocumentFrequencyBound::parse("many"), Error);
  learn::TfidfOptions bad;
  bad.ngram_min = 3;
  bad.ngram_max = 2;
  EXPECT_THROW(learn::TfidfVectorizer{bad}, Error);
}
