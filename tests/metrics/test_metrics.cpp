#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "eval/metrics/corpus/bleu.hpp"
#include "eval/metrics/corpus/chrf.hpp"
#include "eval/metrics/corpus/registry.hpp"
#include "eval/metrics/tokenizers/mt_tokenize.hpp"
#include "eval/metrics/tokenizers/registry.hpp"
#include "eval/metrics/corpus/ter.hpp"
#include "support/golden.hpp"
#include "support/test_support.hpp"

using namespace invar;
using namespace invar::metrics;
using nlohmann::json;
using test::near_golden;

namespace {

const json& goldens() {
  static const json data = test::load_json(test::fixture("metrics/sacrebleu.json"));
  return data;
}

std::vector<std::string> hyps() { return goldens()["hyps"].get<std::vector<std::string>>(); }

std::vector<std::vector<std::string>> single_refs() {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : goldens()["refs"]) out.push_back({r.get<std::string>()});
  return out;
}

}  // namespace

// ---- Goldens: sacrebleu 2.4.3 on tests/fixtures/metrics/sacrebleu.json ---------------------------

TEST(BleuGolden, CorpusSentenceAndSignature) {
  const auto h = hyps();
  const auto refs = single_refs();
  int checked = 0;
  for (const auto& c : goldens()["cases"]) {
    if (c["metric"] != "bleu") continue;
    SCOPED_TRACE(c["signature"].get<std::string>());
    BleuOptions options;
    options.tokenize = c["tokenize"].get<std::string>();
    options.smooth = *parse_bleu_smoothing(c["smooth_method"].get<std::string>());
    options.lowercase = c["lowercase"].get<bool>();
    const Bleu bleu(options);
    const auto score = bleu.corpus_score(h, refs);
    const auto& g = c["corpus"];
    EXPECT_TRUE(near_golden(score.score, g["score"]));
    EXPECT_TRUE(near_golden(score.bp, g["bp"]));
    EXPECT_EQ(score.sys_len, g["sys_len"].get<std::int64_t>());
    EXPECT_EQ(score.ref_len, g["ref_len"].get<std::int64_t>());
    for (int n = 0; n < 4; ++n) {
      EXPECT_EQ(score.counts[n], g["counts"][n].get<double>());
      EXPECT_EQ(score.totals[n], g["totals"][n].get<double>());
    }
    EXPECT_EQ(bleu.signature(1).format(), c["signature"].get<std::string>());

    options.effective_order = true;
    const Bleu sentence_bleu(options);
    const auto& expected = c["sentence_effective_order"];
    ASSERT_EQ(expected.size(), h.size());
    for (std::size_t i = 0; i < h.size(); ++i)
      EXPECT_TRUE(near_golden(sentence_bleu.sentence_score(h[i], refs[i]).score, expected[i])) << "segment " << i;
    ++checked;
  }
  EXPECT_EQ(checked, 40);
}

TEST(ChrfGolden, SentenceReversedCommutativeCorpus) {
  const auto h = hyps();
  const auto refs = single_refs();
  int checked = 0;
  for (const auto& c : goldens()["cases"]) {
    if (c["metric"] != "chrf") continue;
    SCOPED_TRACE(c["signature"].get<std::string>());
    ChrfOptions options;
    options.char_order = c["char_order"].get<int>();
    options.word_order = c["word_order"].get<int>();
    options.beta = c["beta"].get<int>();
    options.whitespace = c["whitespace"].get<bool>();
    const ChrF chrf(options);
    EXPECT_TRUE(near_golden(chrf.corpus_score(h, refs), c["corpus"]));
    EXPECT_EQ(chrf.signature(1).format(), c["signature"].get<std::string>());
    for (std::size_t i = 0; i < h.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "segment " << i);
      const auto both = commutative_score(h[i], refs[i][0], chrf);
      EXPECT_TRUE(near_golden(both.forward, c["sentence"][i]));
      EXPECT_TRUE(near_golden(both.backward, c["sentence_reversed"][i]));
      EXPECT_TRUE(near_golden(both.mean, c["commutative"][i]));
    }
    ++checked;
  }
  EXPECT_EQ(checked, 10);
}

TEST(TerGolden, SentenceAndCorpus) {
  const auto h = hyps();
  const auto refs = single_refs();
  int checked = 0;
  for (const auto& c : goldens()["cases"]) {
    if (c["metric"] != "ter") continue;
    SCOPED_TRACE(c["signature"].get<std::string>());
    TerOptions options;
    options.normalized = c["normalized"].get<bool>();
    options.case_sensitive = !c["case_insensitive"].get<bool>();
    const Ter ter(options);
    EXPECT_TRUE(near_golden(ter.corpus_score(h, refs).score, c["corpus"]));
    EXPECT_EQ(ter.signature(1).format(), c["signature"].get<std::string>());
    for (std::size_t i = 0; i < h.size(); ++i)
      EXPECT_TRUE(near_golden(ter.sentence_score(h[i], refs[i]).score, c["sentence"][i])) << "segment " << i;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

TEST(MetricsGolden, ThreadedScoringEqualsSerial) {
  const auto h = hyps();
  const auto refs = single_refs();
  const Bleu bleu({.effective_order = true});
  const ChrF chrf({.word_order = 2});
  const Ter ter;
  EXPECT_EQ(bleu.corpus_score(h, refs, 4).score, bleu.corpus_score(h, refs, 1).score);
  EXPECT_EQ(chrf.corpus_score(h, refs, 4), chrf.corpus_score(h, refs, 1));
  EXPECT_EQ(ter.corpus_score(h, refs, 3).score, ter.corpus_score(h, refs, 1).score);
  const auto many = chrf.sentence_scores(h, refs, 4);
  for (std::size_t i = 0; i < h.size(); ++i) EXPECT_EQ(many[i], chrf.sentence_score(h[i], refs[i]));
  const auto bleus = bleu.sentence_scores(h, refs, 3);
  for (std::size_t i = 0; i < h.size(); ++i) EXPECT_EQ(bleus[i].score, bleu.sentence_score(h[i], refs[i]).score);
}

// ---- Tokenizers: hand-checked against sacrebleu's rules --------------------------------------

TEST(Tokenize, PythonWhitespaceSet) {
  // NBSP, U+3000, U+2028 and \x1c separate; the zero-width space U+200B and U+FEFF do not.
  EXPECT_EQ(split_whitespace("a\u200bb c\u00a0d\u3000e\u2028f\x1cg\ufeffh"),
            (std::vector<std::string_view>{"a\u200bb", "c", "d", "e", "f", "g\ufeffh"}));
  EXPECT_EQ(split_whitespace("  \t\n "), std::vector<std::string_view>{});
  EXPECT_EQ(rstrip_whitespace(" a b\u2003\u00a0"), " a b");
  EXPECT_EQ(strip_whitespace("\u3000a b\u200b "), "a b\u200b");
}

TEST(Tokenize, Mteval13a) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), "Hello , world !");
  // "." and "," stay between digits; "$" is split off.
  EXPECT_EQ(tokenize_13a("It costs $3,141.5 today."), "It costs $ 3,141.5 today .");
  // "-" is split only after a digit.
  EXPECT_EQ(tokenize_13a("well-known 1990-2000"), "well-known 1990 - 2000");
  // Entities are un-escaped one after the other: &amp;lt; becomes &lt; and then <.
  EXPECT_EQ(tokenize_13a("a &amp;lt; b &quot;c&quot;"), "a < b \" c \"");
  EXPECT_EQ(tokenize_13a("x<skipped>y pre-\nfix\nend"), "xy prefix end");
  EXPECT_EQ(tokenize_13a("don't stop."), "don't stop .");
}

TEST(Tokenize, International) {
  // A sentence-final number keeps its period; symbols (€) are split; 3.5 stays whole.
  EXPECT_EQ(tokenize_intl("Hello, world! It costs 3.5€ in 2020."), "Hello , world ! It costs 3.5 € in 2020.");
  // Unicode punctuation (« », „ “) and symbols (≥) by category.
  EXPECT_EQ(tokenize_intl("«Ja» „gut“ a≥b"), "« Ja » „ gut “ a ≥ b");
}

TEST(Tokenize, ChineseRangesWithSacrebleuQuirk) {
  EXPECT_EQ(tokenize_zh("这是一个测试。"), "这 是 一 个 测 试 。");
  EXPECT_EQ(tokenize_zh("Hello, 世界"), "Hello , 世 界");
  // U+2001..U+2A6D (the mistyped Extension B range) covers the em dash and the euro sign ...
  EXPECT_EQ(tokenize_zh("a—b 5€"), "a — b 5 €");
  EXPECT_TRUE(is_sacrebleu_zh_char(0x2001));
  EXPECT_FALSE(is_sacrebleu_zh_char(0x2000));
  EXPECT_TRUE(is_sacrebleu_zh_char(0x2A6D));
  EXPECT_FALSE(is_sacrebleu_zh_char(0x2A6E));
  EXPECT_TRUE(is_sacrebleu_zh_char(0x2F81));
  // ... while real astral CJK (U+20000) is not split.
  EXPECT_EQ(tokenize_zh("a\U00020000b"), "a\U00020000b");
  EXPECT_FALSE(is_sacrebleu_zh_char(0x20000));
}

TEST(Tokenize, CharactersAndNone) {
  EXPECT_EQ(tokenize_char("ab c"), "a b   c");
  EXPECT_EQ(split_whitespace(tokenize_char("e\u0301!")), (std::vector<std::string_view>{"e", "\u0301", "!"}));
  const Bleu none({.tokenize = "none"});
  EXPECT_EQ(none.preprocess("A,b  c  "), "A,b  c");
}

TEST(Tokenize, Tercom) {
  EXPECT_EQ(tokenize_tercom("Hello, World!", {}), "hello, world!");
  EXPECT_EQ(tokenize_tercom("Hello, World!", {.case_sensitive = true}), "Hello, World!");
  EXPECT_EQ(tokenize_tercom("Hello, World!", {.normalized = true}), "hello , world !");
  EXPECT_EQ(tokenize_tercom("Hello, (World)!", {.no_punct = true}), "hello world");
  EXPECT_EQ(tokenize_tercom("It's John's", {.normalized = true}), "it 's john 's");
  EXPECT_EQ(tokenize_tercom("中文abc。", {.normalized = true, .asian_support = true}), "中 文 abc 。");
  // asian_support without normalized or no_punct does nothing.
  EXPECT_EQ(tokenize_tercom("中文abc。", {.asian_support = true}), "中文abc。");
  // Removing an Asian full stop after it was padded leaves the words apart.
  EXPECT_EQ(tokenize_tercom("中文。abc", {.normalized = true, .no_punct = true, .asian_support = true}),
            "中 文 abc");
  EXPECT_EQ(tokenize_tercom("", {}), "");
}

// ---- Tokenizers: sacrebleu 2.4.3 on every distinct string of the goldens (tokenize.json) -----------
// Non-ASCII, punctuation runs, entities, numbers, empty and whitespace-only strings, lines of
// 1,000-2,300 characters: the fast paths of 13a (its pair rules jump between rare bytes, padding
// folded into the split) and of whitespace splitting must give sacrebleu's tokens on all of them.

namespace {

const json& tokenize_golden() {
  static const json data = test::load_json(test::fixture("metrics/tokenize.json"));
  return data;
}

// "normalized=T,no_punct=F,asian_support=T,case_sensitive=F" → its options.
TercomOptions tercom_options(const std::string& name) {
  const auto flag = [&](const std::string& key) { return name.find(key + "=T") != std::string::npos; };
  return {.normalized = flag("normalized"), .no_punct = flag("no_punct"), .asian_support = flag("asian_support"),
          .case_sensitive = flag("case_sensitive")};
}

}  // namespace

TEST(TokenizeGolden, BleuTokenizersOnEveryString) {
  int checked = 0;
  for (const char* name : {"13a", "intl", "zh", "char", "none"}) {
    const Bleu bleu({.tokenize = name});
    const Bleu lower({.tokenize = name, .lowercase = true});
    for (const auto& s : tokenize_golden()["strings"]) {
      const auto text = s["text"].get<std::string>();
      EXPECT_EQ(bleu.preprocess(text), s["bleu"][name].get<std::string>()) << name << ": " << text;
      EXPECT_EQ(lower.preprocess(text), s["bleu"][std::string(name) + "+lc"].get<std::string>())
          << name << ": " << text;
      checked += 2;
    }
  }
  EXPECT_EQ(checked, 5 * 2 * 372);
}

TEST(TokenizeGolden, TercomAndChrfWordsOnEveryString) {
  for (const auto& s : tokenize_golden()["strings"]) {
    const auto text = s["text"].get<std::string>();
    for (const auto& [config, tokens] : s["ter"].items())
      EXPECT_EQ(Ter(tercom_options(config)).preprocess(text), tokens.get<std::string>()) << config << ": " << text;
    const auto words = ChrF::words(text);
    EXPECT_EQ(std::vector<std::string>(words.begin(), words.end()), s["chrf_words"].get<std::vector<std::string>>())
        << text;
  }
}

// ---- BLEU behaviours: hand-computed ---------------------------------------------------------------

TEST(Bleu, EffectiveOrder) {
  const double bp = std::exp(1 - 4.0 / 3.0);
  EXPECT_NEAR(Bleu({.effective_order = true}).sentence_score("a b c", "a b c d").score, 100 * bp, 1e-12);
  // Without effective order the missing 4-gram precision is log(0) → the score is 0.
  EXPECT_EQ(Bleu({.effective_order = false}).sentence_score("a b c", "a b c d").score, 0.0);
}

TEST(Bleu, SmoothingMethods) {
  const auto stats = Bleu().segment_stats("a b c d", {"a b x d"});
  EXPECT_EQ(stats.correct, (std::vector<std::int64_t>{3, 1, 0, 0}));
  EXPECT_EQ(stats.total, (std::vector<std::int64_t>{4, 3, 2, 1}));
  auto geometric = [](std::array<double, 4> p) {
    return std::exp((std::log(p[0]) + std::log(p[1]) + std::log(p[2]) + std::log(p[3])) / 4);
  };
  const auto exp = Bleu({.smooth = BleuSmoothing::Exp}).compute(stats);
  EXPECT_NEAR(exp.score, geometric({75, 100.0 / 3, 25, 25}), 1e-12);
  const auto floor = Bleu({.smooth = BleuSmoothing::Floor}).compute(stats);
  EXPECT_NEAR(floor.score, geometric({75, 100.0 / 3, 5, 10}), 1e-12);
  // add-k increments counts and totals of orders 2-4 in place, and returns them.
  const auto addk = Bleu({.smooth = BleuSmoothing::AddK}).compute(stats);
  EXPECT_EQ(addk.counts, (std::vector<double>{3, 2, 1, 1}));
  EXPECT_EQ(addk.totals, (std::vector<double>{4, 4, 3, 2}));
  EXPECT_NEAR(addk.score, geometric({75, 50, 100.0 / 3, 50}), 1e-12);
  const auto half = Bleu({.smooth = BleuSmoothing::AddK, .smooth_value = 0.5}).compute(stats);
  EXPECT_EQ(half.counts[1], 1.5);
  EXPECT_EQ(Bleu({.smooth = BleuSmoothing::None}).compute(stats).score, 0.0);
  // Nothing matched: score 0 before smoothing, counts untouched.
  const auto none = Bleu({.smooth = BleuSmoothing::AddK}).sentence_score("x y", "a b");
  EXPECT_EQ(none.score, 0.0);
  EXPECT_EQ(none.counts, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(Bleu({.smooth = BleuSmoothing::Floor, .smooth_value = 0.01}).signature(1).format(),
            "nrefs:1|case:mixed|eff:no|tok:13a|smooth:floor[0.01]|version:2.4.3");
  EXPECT_EQ(Bleu({.smooth = BleuSmoothing::AddK, .lowercase = true, .effective_order = true}).signature(2).format(true),
            "#:2|c:lc|e:yes|tok:13a|s:add-k[1.00]|v:2.4.3");
}

TEST(Bleu, MultipleReferencesClipAndClosestLength) {
  // "the" appears twice in the second reference: clipped at 2, not 1.
  const auto stats = Bleu().segment_stats("the the the", {"the cat", "the the dog"});
  EXPECT_EQ(stats.correct[0], 2);
  // Equal distance to lengths 2 and 4: the shorter one.
  EXPECT_EQ(Bleu().segment_stats("a b c", {"a b", "a b c d"}).ref_len, 2);
  // An empty reference counts (length 0) but contributes no n-grams.
  const auto with_empty = Bleu().segment_stats("a b c d", {"", "a b x d"});
  EXPECT_EQ(with_empty.ref_len, 4);
  EXPECT_EQ(with_empty.correct[0], 3);
}

TEST(Bleu, VariableReferencesAndSignature) {
  const auto refs = references_by_segment({{std::string("a b c"), std::string("x y")}, {std::nullopt, std::string("x y z")}});
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0], (std::vector<std::string>{"a b c"}));
  EXPECT_EQ(refs[1], (std::vector<std::string>{"x y", "x y z"}));
  EXPECT_EQ(reference_count(refs), -1);
  EXPECT_EQ(Bleu().signature(reference_count(refs)).format(), "nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.3");
  EXPECT_THROW(Bleu().corpus_score({"a"}, {{"a"}, {"b"}}), Error);
  EXPECT_THROW(Bleu().corpus_score({"a"}, {{}}), Error);
}

TEST(Bleu, LowercaseIsPythonLower) {
  // İ lowercases to "i̇" (two code points): it no longer matches a plain "i".
  EXPECT_EQ(Bleu({.lowercase = true}).segment_stats("İ", {"i"}).correct[0], 0);
  // Capital sigma at the end of a word lowercases to the final form ς (U+03C2), not σ (U+03C3).
  const Bleu lower({.lowercase = true});
  EXPECT_EQ(lower.segment_stats("\u039f\u0394\u039f\u03a3", {"\u03bf\u03b4\u03bf\u03c2"}).correct[0], 1);
  EXPECT_EQ(lower.segment_stats("\u039f\u0394\u039f\u03a3", {"\u03bf\u03b4\u03bf\u03c3"}).correct[0], 0);
}

TEST(Bleu, FormatsLikeSacrebleu) {
  const Bleu bleu;
  const auto score = bleu.sentence_score("a b c d", "a b x d");
  const auto line = format_score_line(bleu.report(score), bleu.signature(1).format(), 1);
  EXPECT_EQ(line, fmt::format("BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.3 = {:.1f} "
                              "75.0/33.3/25.0/25.0 (BP = 1.000 ratio = 1.000 hyp_len = 4 ref_len = 4)",
                              score.score));
  const auto text = format_score_json(bleu.report(score), bleu.signature(1).format(), 1);
  // json.dumps(indent=1) layout, keys in sacrebleu's order.
  EXPECT_EQ(text.rfind("{\n \"name\": \"BLEU\",\n \"score\": ", 0), 0u) << text;
  const auto parsed = json::parse(text);
  EXPECT_EQ(parsed["name"], "BLEU");
  EXPECT_EQ(parsed["score"].get<double>(), std::stod(fmt::format("{:.1f}", score.score)));
  EXPECT_EQ(parsed["nrefs"], "1");
  EXPECT_EQ(parsed["smooth"], "exp");
  EXPECT_EQ(parsed["version"], "2.4.3");
  EXPECT_TRUE(parsed.contains("invar_version"));
}

// ---- chrF behaviours ----------------------------------------------------------------------------

TEST(Chrf, PlusPlusWordSplitting) {
  EXPECT_EQ(ChrF::words("(hi) there, ok. . -- é!"),
            (std::vector<std::string_view>{"(hi", ")", "there", ",", "ok", ".", ".", "-", "-", "é", "!"}));
}

TEST(Chrf, WhitespaceIsPythonsSet) {
  const ChrF chrf;
  EXPECT_EQ(chrf.sentence_score("a\u00a0b", "ab"), 100.0);
  EXPECT_LT(chrf.sentence_score("a\u200bb", "ab"), 100.0);
  // With whitespace kept, leading/trailing spaces are n-gram characters (no stripping).
  EXPECT_LT(ChrF({.whitespace = true}).sentence_score(" ab", "ab"), 100.0);
}

TEST(Chrf, MissingOrdersAndEpsSmoothing) {
  const ChrF chrf;
  const auto stats = chrf.segment_stats("abcdef", {"ab"});
  EXPECT_EQ(stats, (std::vector<std::int64_t>{6, 2, 2, 5, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  const double p = (2.0 / 6 + 1.0 / 5) / 2, r = 1.0;
  EXPECT_NEAR(chrf.f_score(stats.data()), 100 * 5 * p * r / (4 * p + r), 1e-12);
  const ChrF eps({.eps_smoothing = true});
  const double f1 = 5 * (1.0 / 3) * 1 / (4.0 / 3 + 1), f2 = 5 * 0.2 * 1 / (0.8 + 1);
  EXPECT_NEAR(eps.f_score(stats.data()), 100 * (f1 + f2 + 4 * 1e-16) / 6, 1e-12);
  EXPECT_EQ(eps.signature(1).format(), "nrefs:1|case:mixed|eff:no|nc:6|nw:0|space:no|version:2.4.3");
  EXPECT_EQ(ChrF({.word_order = 2}).name(), "chrF2++");
}

TEST(Chrf, BestReferenceWins) {
  const ChrF chrf;
  const double best = chrf.sentence_score("the cat sat", "the cat sat");
  EXPECT_EQ(chrf.sentence_score("the cat sat", std::vector<std::string>{"a dog ran", "the cat sat"}), best);
  EXPECT_EQ(chrf.segment_stats("the cat", {"the cat", "the cat"}), chrf.segment_stats("the cat", {"the cat"}));
  // Lowercasing applies to hypothesis and references.
  EXPECT_EQ(ChrF({.lowercase = true}).sentence_score("The CAT", "the cat"), 100.0);
}

// ---- TER behaviours -----------------------------------------------------------------------------

TEST(Ter, ShiftsAndEmptyReferences) {
  // One block shift ("a" to the front) instead of two edits.
  EXPECT_EQ(translation_edit_rate({"b", "c", "a"}, {"a", "b", "c"}), std::make_pair(1, 3));
  EXPECT_EQ(translation_edit_rate({"a", "b"}, {}), std::make_pair(2, 0));
  const Ter ter;
  EXPECT_EQ(ter.sentence_score("The Cat", {"the cat"}).score, 0.0);  // case-insensitive by default
  EXPECT_GT(Ter({.case_sensitive = true}).sentence_score("The Cat", {"the cat"}).score, 0.0);
  EXPECT_EQ(ter.sentence_score("a b", {""}).score, 100.0);
  EXPECT_EQ(ter.sentence_score("", {""}).score, 0.0);
  // Several references: fewest edits over the average reference length.
  const auto multi = ter.sentence_score("a b c", {"a b c d e", "x"});
  EXPECT_EQ(multi.num_edits, 2);
  EXPECT_EQ(multi.ref_length, 3.0);
}

// Issue 18, item 5: the edit distance keeps only sacrebleu's beam band, so a 30,000-word line takes
// megabytes (the whole matrix would take 14 GB).
TEST(Ter, LongLinesKeepOnlyTheBeam) {
  std::vector<std::string> words;
  for (int i = 0; i < 30000; ++i) words.push_back("w" + std::to_string(i));
  const std::vector<std::string_view> ref(words.begin(), words.end());
  std::vector<std::string_view> hyp = ref;
  hyp[15000] = "changed";
  EXPECT_EQ(translation_edit_rate(hyp, ref), std::make_pair(1, 30000));
  // Ten words shorter: a tilted diagonal, and ten insertions in the last row beyond the band.
  hyp.resize(29990);
  EXPECT_EQ(translation_edit_rate(hyp, ref), std::make_pair(11, 30000));
}

// ---- registries ---------------------------------------------------------------------------------

TEST(TokenizerRegistry, NamesInSacrebleusOrderAndEachTokenizesAsItsFunction) {
  EXPECT_EQ(tokenizer_names(), (std::vector<std::string>{"13a", "intl", "zh", "char", "ja-mecab", "ko-mecab", "none"}));
  EXPECT_EQ(tokenizer_choices(), "13a, intl, zh, char, ja-mecab, ko-mecab or none");
  EXPECT_FALSE(has_tokenizer("moses"));
  EXPECT_EQ(find_tokenizer("moses"), nullptr);
  const std::string line = "«Ja» costs $3,141.5 — 这是 a-b";
  EXPECT_EQ(find_tokenizer("13a")->tokenize(line), tokenize_13a(line));
  EXPECT_EQ(find_tokenizer("intl")->tokenize(line), tokenize_intl(line));
  EXPECT_EQ(find_tokenizer("zh")->tokenize(line), tokenize_zh(line));
  EXPECT_EQ(find_tokenizer("char")->tokenize(line), tokenize_char(line));
  EXPECT_EQ(find_tokenizer("none")->tokenize(line), line);
  for (const char* name : {"13a", "intl", "zh", "char", "none"}) EXPECT_EQ(find_tokenizer(name)->signature(), name);
  EXPECT_THROW(Bleu({.tokenize = "moses"}), Error);
}

TEST(MetricRegistry, BuildsTheMetricsByNameWithTheirSettings) {
  std::vector<std::string> names;
  for (const auto& m : corpus_metrics()) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bleu", "chrf", "ter"}));
  const auto h = hyps();
  const auto refs = single_refs();
  const auto corpus = [&](const CorpusMetric& metric) {
    return metric.report_row(sum_rows(segment_rows(metric, h, refs)));
  };
  // Defaults: sacrebleu's.
  EXPECT_EQ(corpus(*make_corpus_metric("bleu")).score, Bleu().corpus_score(h, refs).score);
  EXPECT_EQ(make_corpus_metric("bleu")->signature(1).format(), Bleu().signature(1).format());
  EXPECT_EQ(corpus(*make_corpus_metric("chrf")).score, ChrF().corpus_score(h, refs));
  EXPECT_EQ(corpus(*make_corpus_metric("ter")).score, Ter().corpus_score(h, refs).score);
  // Settings by name, and the sentence mode's effective order.
  const auto bleu = make_corpus_metric("bleu", {{"tokenize", "intl"}, {"lowercase", "true"}, {"smooth", "floor"},
                                                {"smooth-value", "0.5"}});
  EXPECT_EQ(bleu->signature(1).format(),
            Bleu({.tokenize = "intl", .smooth = BleuSmoothing::Floor, .smooth_value = 0.5, .lowercase = true})
                .signature(1)
                .format());
  EXPECT_NE(make_corpus_metric("bleu", {}, {.sentence = true})->signature(1).format().find("eff:yes"),
            std::string::npos);
  EXPECT_EQ(make_corpus_metric("chrf", {{"word-order", "2"}})->name(), "chrF2++");
  EXPECT_EQ(corpus(*make_corpus_metric("ter", {{"case-sensitive", "true"}})).score,
            Ter({.case_sensitive = true}).corpus_score(h, refs).score);
  // The target language chooses BLEU's tokenizer when none is given, and advises against a misfit.
  EXPECT_NE(make_corpus_metric("bleu", {}, {.target_language = "zh"})->signature(1).format().find("tok:zh"),
            std::string::npos);
  std::vector<std::string> advice;
  make_corpus_metric("bleu", {{"tokenize", "13a"}},
                     {.target_language = "zh", .warn = [&](const std::string& a) { advice.push_back(a); }});
  EXPECT_EQ(advice, (std::vector<std::string>{"consider --tokenize zh for target language 'zh'"}));
  // Messages name the setting as the caller spells it.
  const auto message = [](auto build) {
    try {
      build();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { make_corpus_metric("bleu", {{"tokenize", "moses"}}); }),
            "--tokenize must be 13a, intl, zh, char, ja-mecab, ko-mecab or none, got 'moses'");
  EXPECT_EQ(message([] { make_corpus_metric("bleu", {{"smooth", "x"}}, {.setting_prefix = "BLEU "}); }),
            "BLEU smooth must be exp, floor, add-k or none, got 'x'");
  EXPECT_EQ(message([] { make_corpus_metric("bleu", {{"smooth-value", "0.5"}}); }),
            "--smooth-value applies to floor and add-k smoothing only");
  EXPECT_EQ(message([] { make_corpus_metric("chrf", {{"beta", "two"}}); }), "--beta must be a number, got 'two'");
  EXPECT_EQ(message([] { make_corpus_metric("ter", {{"beta", "2"}}); }), "ter has no setting 'beta'");
  EXPECT_EQ(message([] { make_corpus_metric("rouge"); }), "no corpus metric 'rouge' (registered: bleu, chrf, ter)");
}

TEST(MetricRegistry, CommutativeScoreIsBothDirectionsOfTheSentenceScore) {
  const ChrF chrf;
  const auto both = commutative_score("the cat sat", "a cat sat down", chrf);
  EXPECT_EQ(both.forward, chrf.sentence_score("the cat sat", "a cat sat down"));
  EXPECT_EQ(both.backward, chrf.sentence_score("a cat sat down", "the cat sat"));
  EXPECT_EQ(both.mean, (both.forward + both.backward) / 2);
}
