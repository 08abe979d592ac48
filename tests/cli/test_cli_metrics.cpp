// `invar metric`, `invar stats` and `invar metaeval` end to end: the built binary on small files,
// its numbers against the sacrebleu / scipy goldens (tests/fixtures/metrics) or the library, and its
// errors on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "eval/metaeval/metaeval.hpp"
#include "eval/metrics/corpus/bleu.hpp"
#include "eval/metrics/corpus/chrf.hpp"
#include "eval/metrics/tokenizers/mt_tokenize.hpp"
#include "eval/metrics/corpus/ter.hpp"
#include "eval/stats/resampling.hpp"
#include "eval/stats/stats.hpp"
#include "support/golden.hpp"
#include "support/test_support.hpp"

using namespace invar;
using namespace invar::metrics;
using nlohmann::json;
using test::near_golden;

namespace {

const json& sacrebleu_golden() {
  static const json data = test::load_json(test::fixture("metrics/sacrebleu.json"));
  return data;
}

const json& stats_golden() {
  static const json data = test::load_json(test::fixture("metrics/stats.json"));
  return data;
}

std::string write_lines(const std::string& dir, const std::string& name, const std::vector<std::string>& lines) {
  std::string content;
  for (const auto& line : lines) content += line + "\n";
  const auto path = dir + "/" + name;
  test::write_file(path, content);
  return path;
}

template <typename T>
std::vector<std::string> as_lines(const std::vector<T>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) out.push_back(fmt::format("{}", v));
  return out;
}

// The golden corpus as files: hyps.txt and refs.txt.
struct GoldenFiles {
  std::string dir, hyps, refs;
  std::vector<std::string> hyp_lines, ref_lines;
};

const GoldenFiles& golden_files() {
  static const GoldenFiles files = [] {
    GoldenFiles f;
    f.dir = test::temp_dir();
    f.hyp_lines = sacrebleu_golden()["hyps"].get<std::vector<std::string>>();
    f.ref_lines = sacrebleu_golden()["refs"].get<std::vector<std::string>>();
    f.hyps = write_lines(f.dir, "hyps.txt", f.hyp_lines);
    f.refs = write_lines(f.dir, "refs.txt", f.ref_lines);
    return f;
  }();
  return files;
}

test::CliResult run_ok(const std::vector<std::string>& args) {
  auto result = test::run_cli(args);
  EXPECT_EQ(result.exit_code, 0) << fmt::format("{}", fmt::join(args, " ")) << "\n" << result.err;
  return result;
}

// sacrebleu's JSON score: float(f"{score:.{width}f}").
double rounded(double score, int width) { return std::stod(fmt::format("{:.{}f}", score, width)); }

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    out.push_back(json::parse(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

void expect_error(const std::vector<std::string>& args, const std::string& message) {
  auto result = test::run_cli(args);
  EXPECT_EQ(result.exit_code, 1) << fmt::format("{}", fmt::join(args, " "));
  EXPECT_EQ(result.err, "invar: error: " + message + "\n");
  EXPECT_TRUE(result.out.empty()) << result.out;
}

std::vector<std::vector<std::string>> single(const std::vector<std::string>& refs) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : refs) out.push_back({r});
  return out;
}

}  // namespace

// ---- invar metric: sacrebleu goldens through the command line --------------------------------

TEST(MetricCli, BleuEveryGoldenVariantWithSignature) {
  const auto& f = golden_files();
  int checked = 0;
  for (const auto& c : sacrebleu_golden()["cases"]) {
    if (c["metric"] != "bleu") continue;
    const auto signature = c["signature"].get<std::string>();
    SCOPED_TRACE(signature);
    std::vector<std::string> args{"metric", "bleu", "--hyp", f.hyps, "--ref", f.refs, "--tokenize",
                                  c["tokenize"].get<std::string>(), "--smooth", c["smooth_method"].get<std::string>()};
    if (c["lowercase"].get<bool>()) args.push_back("--lowercase");

    auto json_args = args;
    json_args.insert(json_args.end(), {"--json", "--width", "4"});
    const auto parsed = json::parse(run_ok(json_args).out);
    const auto& g = c["corpus"];
    EXPECT_EQ(parsed["name"], "BLEU");
    EXPECT_EQ(parsed["signature"], signature);
    EXPECT_EQ(parsed["score"].get<double>(), rounded(g["score"].get<double>(), 4));
    EXPECT_EQ(parsed["tok"], c["tokenize"]);
    EXPECT_EQ(parsed["version"], "2.4.3");
    EXPECT_EQ(parsed["compared_with"], "references");
    EXPECT_EQ(parsed["provenance"]["data"][0]["path"], f.hyps);
    EXPECT_EQ(parsed["provenance"]["settings"]["--tokenize"], c["tokenize"]);
    // The verbose part names the golden's lengths and brevity penalty.
    EXPECT_NE(parsed["verbose_score"].get<std::string>().find(
                  fmt::format("BP = {:.3f} ratio = {:.3f} hyp_len = {} ref_len = {}", g["bp"].get<double>(),
                              g["sys_len"].get<double>() / g["ref_len"].get<double>(), g["sys_len"].get<int>(),
                              g["ref_len"].get<int>())),
              std::string::npos)
        << parsed["verbose_score"];

    // The text line: sacrebleu's "BLEU|signature = score ..." at its default width 1 (once per tokenizer).
    if (c["smooth_method"] == "exp" && !c["lowercase"].get<bool>()) {
      const auto text = run_ok(args).out;
      EXPECT_EQ(text.rfind(fmt::format("BLEU|{} = {:.1f} ", signature, g["score"].get<double>()), 0), 0u) << text;
    }

    // --sentence: sacrebleu -sl turns effective order on; JSON Lines carry unrounded scores. Every
    // smoothing with 13a, exp smoothing with the other tokenizers (the library test checks all variants).
    ++checked;
    if (c["tokenize"] != "13a" && c["smooth_method"] != "exp") continue;
    auto sentence_args = args;
    sentence_args.insert(sentence_args.end(), {"--sentence", "--json", "--threads", "3"});
    const auto lines = json_lines(run_ok(sentence_args).out);
    const auto& expected = c["sentence_effective_order"];
    ASSERT_EQ(lines.size(), expected.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(lines[i]["line"], i + 1);
      EXPECT_TRUE(near_golden(lines[i]["score"].get<double>(), expected[i])) << "segment " << i;
    }
  }
  EXPECT_EQ(checked, 40);
}

TEST(MetricCli, ChrfEveryGoldenVariantSentenceCommutativeCorpus) {
  const auto& f = golden_files();
  int checked = 0;
  for (const auto& c : sacrebleu_golden()["cases"]) {
    if (c["metric"] != "chrf") continue;
    const auto signature = c["signature"].get<std::string>();
    SCOPED_TRACE(signature);
    const bool whitespace = c["whitespace"].get<bool>();
    std::vector<std::string> args{"metric", "chrf", "--hyp", f.hyps, "--ref", f.refs,
                                  "--char-order", std::to_string(c["char_order"].get<int>()),
                                  "--word-order", std::to_string(c["word_order"].get<int>()),
                                  "--beta", std::to_string(c["beta"].get<int>())};
    if (whitespace) args.push_back("--whitespace");
    const ChrF chrf({.char_order = c["char_order"].get<int>(), .word_order = c["word_order"].get<int>(),
                     .beta = c["beta"].get<int>(), .whitespace = whitespace});
    // sacrebleu's CLI rstrip()s every line; with whitespace kept that changes hypothesis 4 ("... spaces "),
    // so there the command is compared with the library on the stripped line instead of the API golden.
    std::vector<std::string> stripped;
    for (const auto& h : f.hyp_lines) stripped.emplace_back(rstrip_whitespace(h));

    auto json_args = args;
    json_args.insert(json_args.end(), {"--json", "--width", "6"});
    const auto parsed = json::parse(run_ok(json_args).out);
    EXPECT_EQ(parsed["signature"], signature);
    EXPECT_EQ(parsed["name"], chrf.name());
    const double corpus = whitespace ? chrf.corpus_score(stripped, single(f.ref_lines)) : c["corpus"].get<double>();
    EXPECT_EQ(parsed["score"].get<double>(), rounded(corpus, 6));

    auto sentence_args = args;
    sentence_args.insert(sentence_args.end(), {"--sentence", "--json"});
    auto commutative_args = sentence_args;
    commutative_args.push_back("--commutative");
    const auto sentences = json_lines(run_ok(sentence_args).out);
    const auto commutative = json_lines(run_ok(commutative_args).out);
    ASSERT_EQ(sentences.size(), f.hyp_lines.size());
    ASSERT_EQ(commutative.size(), f.hyp_lines.size());
    for (std::size_t i = 0; i < sentences.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "segment " << i);
      if (stripped[i] != f.hyp_lines[i] && whitespace) {
        const auto both = commutative_score(stripped[i], f.ref_lines[i], chrf);
        EXPECT_EQ(sentences[i]["score"].get<double>(), both.forward);
        EXPECT_EQ(commutative[i]["score"].get<double>(), both.mean);
        continue;
      }
      EXPECT_TRUE(near_golden(sentences[i]["score"].get<double>(), c["sentence"][i]));
      EXPECT_TRUE(near_golden(commutative[i]["forward"].get<double>(), c["sentence"][i]));
      EXPECT_TRUE(near_golden(commutative[i]["backward"].get<double>(), c["sentence_reversed"][i]));
      EXPECT_TRUE(near_golden(commutative[i]["score"].get<double>(), c["commutative"][i]));
    }
    ++checked;
  }
  EXPECT_EQ(checked, 10);
}

TEST(MetricCli, TerEveryGoldenVariant) {
  const auto& f = golden_files();
  int checked = 0;
  for (const auto& c : sacrebleu_golden()["cases"]) {
    if (c["metric"] != "ter") continue;
    const auto signature = c["signature"].get<std::string>();
    SCOPED_TRACE(signature);
    std::vector<std::string> args{"metric", "ter", "--hyp", f.hyps, "--ref", f.refs};
    if (c["normalized"].get<bool>()) args.push_back("--normalized");
    if (!c["case_insensitive"].get<bool>()) args.push_back("--case-sensitive");
    auto json_args = args;
    json_args.insert(json_args.end(), {"--json", "--width", "5"});
    const auto parsed = json::parse(run_ok(json_args).out);
    EXPECT_EQ(parsed["name"], "TER");
    EXPECT_EQ(parsed["signature"], signature);
    EXPECT_EQ(parsed["score"].get<double>(), rounded(c["corpus"].get<double>(), 5));
    EXPECT_EQ(run_ok(args).out, fmt::format("TER|{} = {:.1f}\n", signature, c["corpus"].get<double>()));
    args.insert(args.end(), {"--sentence", "--json"});
    const auto lines = json_lines(run_ok(args).out);
    ASSERT_EQ(lines.size(), c["sentence"].size());
    for (std::size_t i = 0; i < lines.size(); ++i)
      EXPECT_TRUE(near_golden(lines[i]["score"].get<double>(), c["sentence"][i])) << "segment " << i;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

TEST(MetricCli, SentenceLinesAlignedAndIdenticalAcrossThreads) {
  const auto& f = golden_files();
  const auto serial = run_ok({"metric", "chrf", "--hyp", f.hyps, "--ref", f.refs, "--sentence", "--word-order", "2",
                              "--threads", "1", "--width", "4"});
  const auto parallel = run_ok({"metric", "chrf", "--hyp", f.hyps, "--ref", f.refs, "--sentence", "--word-order",
                                "2", "--threads", "5", "--width", "4"});
  EXPECT_EQ(serial.out, parallel.out);
  EXPECT_EQ(std::count(serial.out.begin(), serial.out.end(), '\n'), 12);
  const ChrF chrf({.word_order = 2});
  const auto first = serial.out.substr(0, serial.out.find('\n'));
  EXPECT_EQ(first, fmt::format("chrF2++|{} = {:.4f}", chrf.signature(1).format(),
                               chrf.sentence_score(f.hyp_lines[0], f.ref_lines[0])));
  const auto bleu1 = run_ok({"metric", "bleu", "--hyp", f.hyps, "--ref", f.refs, "--sentence", "--score-only",
                             "--threads", "1"});
  const auto bleu4 = run_ok({"metric", "bleu", "--hyp", f.hyps, "--ref", f.refs, "--sentence", "--score-only",
                             "--threads", "4"});
  EXPECT_EQ(bleu1.out, bleu4.out);
  const Bleu bleu({.effective_order = true});
  EXPECT_EQ(bleu1.out.substr(0, bleu1.out.find('\n')),
            fmt::format("{:.1f}", bleu.sentence_score(f.hyp_lines[0], f.ref_lines[0]).score));
}

TEST(MetricCli, MultipleReferencesAndShortSignature) {
  const auto dir = test::temp_dir();
  const std::vector<std::string> hyps{"the cat sat on the mat", "a dog barked loudly", "it rains"};
  const std::vector<std::string> r1{"the cat is on the mat", "the dog barked", "it is raining"};
  const std::vector<std::string> r2{"a cat sat on the mat", "a dog was barking loudly", ""};
  const auto h = write_lines(dir, "h.txt", hyps), a = write_lines(dir, "r1.txt", r1), b = write_lines(dir, "r2.txt", r2);
  std::vector<std::vector<std::string>> refs;
  for (std::size_t i = 0; i < hyps.size(); ++i) refs.push_back({r1[i], r2[i]});
  const Bleu bleu;
  const auto score = bleu.corpus_score(hyps, refs);
  const auto out = run_ok({"metric", "bleu", "-i", h, "-r", a, "-r", b, "--width", "2"}).out;
  EXPECT_EQ(out, format_score_line(bleu.report(score), bleu.signature(2).format(), 2) + "\n");
  EXPECT_NE(out.find("nrefs:2"), std::string::npos);
  const auto short_out = run_ok({"metric", "bleu", "-i", h, "-r", a, "-r", b, "--short"}).out;
  EXPECT_EQ(short_out.rfind("BLEU|#:2|c:mixed|e:no|tok:13a|s:exp|v:2.4.3 = ", 0), 0u) << short_out;
  const auto ter = run_ok({"metric", "ter", "-i", h, "-r", a, "-r", b, "--json", "-w", "6"}).out;
  EXPECT_EQ(json::parse(ter)["score"].get<double>(), rounded(Ter().corpus_score(hyps, refs).score, 6));
}

TEST(MetricCli, SelfBleuAgainstTheSourceAndRefBleu) {
  const auto dir = test::temp_dir();
  const std::vector<std::string> src{"this movie was awful", "the food was cold"};
  const std::vector<std::string> hyp{"this movie was great", "the food was warm"};
  const std::vector<std::string> ref{"this film was wonderful", "the food was hot"};
  const auto s = write_lines(dir, "src.txt", src), h = write_lines(dir, "hyp.txt", hyp), r = write_lines(dir, "ref.txt", ref);
  const Bleu bleu;
  const auto self = bleu.corpus_score(hyp, single(src)), against_ref = bleu.corpus_score(hyp, single(ref));
  const auto sig = bleu.signature(1).format();
  // Both: labelled self-BLEU and ref-BLEU, in that order.
  EXPECT_EQ(run_ok({"metric", "bleu", "--hyp", h, "--source", s, "--ref", r}).out,
            "self-BLEU: " + format_score_line(bleu.report(self), sig, 1) + "\nref-BLEU: " +
                format_score_line(bleu.report(against_ref), sig, 1) + "\n");
  // Source alone: self-BLEU; JSON names what was compared.
  const auto parsed = json::parse(run_ok({"metric", "bleu", "--hyp", h, "--source", s, "--json"}).out);
  EXPECT_EQ(parsed["label"], "self-BLEU");
  EXPECT_EQ(parsed["compared_with"], "source");
  EXPECT_EQ(parsed["score"].get<double>(), rounded(self.score, 1));
  const auto both = json::parse(run_ok({"metric", "chrf", "--hyp", h, "--source", s, "--ref", r, "--json"}).out);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0]["label"], "self-chrF2");
  EXPECT_EQ(both[1]["label"], "ref-chrF2");
  EXPECT_EQ(both[1]["score"].get<double>(), rounded(ChrF().corpus_score(hyp, single(ref)), 1));
}

TEST(MetricCli, CorpusCommutativeIsTheMeanOfBothDirections) {
  const auto& f = golden_files();
  const auto parsed = json::parse(
      run_ok({"metric", "chrf", "--hyp", f.hyps, "--ref", f.refs, "--commutative", "--json", "-w", "8"}).out);
  std::vector<std::vector<std::string>> hyps_as_refs = single(f.hyp_lines);
  const ChrF chrf;
  const double forward = chrf.corpus_score(f.hyp_lines, single(f.ref_lines));
  const double backward = chrf.corpus_score(f.ref_lines, hyps_as_refs);
  EXPECT_EQ(parsed["forward"].get<double>(), forward);
  EXPECT_EQ(parsed["backward"].get<double>(), backward);
  EXPECT_EQ(parsed["score"].get<double>(), rounded((forward + backward) / 2, 8));
  // The golden forward corpus score (chrF2 defaults) is the first chrF case.
  EXPECT_TRUE(near_golden(forward, sacrebleu_golden()["cases"][40]["corpus"]));
}

TEST(MetricCli, PairedBootstrapAndConfidence) {
  const auto dir = test::temp_dir();
  std::vector<std::string> refs, good, bad;
  for (int i = 0; i < 30; ++i) {
    refs.push_back("the quick brown fox number " + std::to_string(i) + " jumps over the lazy dog");
    good.push_back(i % 3 ? refs.back() : "the quick brown fox jumps over a lazy dog");
    bad.push_back(i % 3 ? "a slow red fox " + std::to_string(i) + " walks past the dog" : refs.back());
  }
  const auto r = write_lines(dir, "ref.txt", refs), base = write_lines(dir, "base.txt", bad),
             sys = write_lines(dir, "sys.txt", good);
  const auto out = json::parse(run_ok({"metric", "bleu", "--hyp", base, "--hyp", sys, "--ref", r, "--paired-bs",
                                       "--paired-bs-n", "200", "--seed", "7", "--json"})
                                   .out);
  ASSERT_EQ(out.size(), 2u);
  const Bleu bleu;
  const auto base_rows = segment_rows(bleu, bad, single(refs)), sys_rows = segment_rows(bleu, good, single(refs));
  const auto expected = stats::paired_bootstrap(base_rows, sys_rows, [&](const auto& s) { return bleu.score_row(s); },
                                                {.samples = 200, .seed = 7});
  EXPECT_EQ(out[0]["system"], base);
  EXPECT_EQ(out[1]["system"], sys);
  EXPECT_FALSE(out[0].contains("p_value"));
  EXPECT_EQ(out[1]["p_value"].get<double>(), expected.pvalue);
  EXPECT_LT(expected.pvalue, 0.05);
  EXPECT_EQ(out[1]["bs"], "200");
  EXPECT_EQ(out[1]["seed"], "7");
  EXPECT_EQ(out[1]["confidence_mean"].get<double>(), rounded(expected.system.mean, 1));
  EXPECT_EQ(out[0]["confidence_mean"].get<double>(), rounded(expected.baseline.mean, 1));
  const auto text = run_ok({"metric", "bleu", "--hyp", base, "--hyp", sys, "--ref", r, "--paired-bs",
                            "--paired-bs-n", "200", "--seed", "7"})
                        .out;
  EXPECT_NE(text.find(sys + ": BLEU|nrefs:1|bs:200|seed:7|"), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("(p = {:.4f})*", expected.pvalue)), std::string::npos) << text;

  const auto ci = json::parse(run_ok({"metric", "bleu", "--hyp", sys, "--ref", r, "--confidence", "--confidence-n",
                                      "100", "--json", "-w", "3"})
                                  .out);
  const auto interval = stats::bootstrap_ci(sys_rows, [&](const auto& s) { return bleu.score_row(s); },
                                            {.samples = 100, .seed = 12345});
  EXPECT_EQ(ci["confidence_mean"].get<double>(), rounded(interval.mean, 3));
  EXPECT_EQ(ci["confidence_var"].get<double>(), rounded(interval.half_width, 3));
}

TEST(MetricCli, OutputFileAndHelp) {
  const auto& f = golden_files();
  const auto path = test::temp_dir() + "/scores.txt";
  const auto result = run_ok({"metric", "ter", "--hyp", f.hyps, "--ref", f.refs, "--sentence", "-b", "-o", path});
  EXPECT_TRUE(result.out.empty());
  const auto written = test::read_file(path);
  EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), 12);
  const auto help = run_ok({"metric", "bleu", "--help"}).out;
  for (const char* option : {"--tokenize", "--smooth", "--smooth-value", "--lowercase", "--effective-order",
                             "--source", "--sentence", "--paired-bs", "--threads", "sacrebleu 2.4.3"})
    EXPECT_NE(help.find(option), std::string::npos) << option;
}

TEST(MetricCli, BadInputNamesFileAndLine) {
  const auto dir = test::temp_dir();
  const auto h = write_lines(dir, "h.txt", {"a b", "c d", "e f"});
  const auto short_ref = write_lines(dir, "r.txt", {"a b", "c d"});
  expect_error({"metric", "bleu", "--hyp", h, "--ref", short_ref},
               short_ref + " has 2 lines but " + h + " has 3; hypotheses, references and sources must be line-aligned");
  const auto bad_utf8 = dir + "/bad.txt";
  test::write_file(bad_utf8, "a b\nc \xff d\ne f\n");
  expect_error({"metric", "chrf", "--hyp", h, "--ref", bad_utf8}, bad_utf8 + ":2: invalid UTF-8 at byte 3 of the line");
  expect_error({"metric", "bleu", "--hyp", h}, "give --ref FILE (one or more) or --source FILE to compare the hypotheses with");
  expect_error({"metric", "bleu", "--hyp", h, "--ref", h, "--tokenize", "moses"},
               "--tokenize must be 13a, intl, zh, char, ja-mecab, ko-mecab or none, got 'moses'");
  expect_error({"metric", "bleu", "--hyp", h, "--ref", h, "--smooth-value", "0.5"},
               "--smooth-value applies to floor and add-k smoothing only");
  expect_error({"metric", "ter", "--hyp", h, "--ref", h, "--paired-bs"},
               "--paired-bs compares systems: give a baseline and at least one more --hyp FILE");
  expect_error({"metric", "chrf", "--hyp", h, "--ref", h, "--ref", h, "--commutative"},
               "--commutative swaps hypothesis and reference: give exactly one reference file");
  expect_error({"metric", "chrf", "--hyp", dir + "/missing.txt", "--ref", h}, dir + "/missing.txt: cannot open for reading");
  const auto empty = write_lines(dir, "empty.txt", {});
  expect_error({"metric", "bleu", "--hyp", empty, "--ref", h}, empty + ": no lines to score");
  // Issue 28: sacrebleu scores an empty hypothesis (the default, --empty reference); --empty error refuses it.
  const auto blank = write_lines(dir, "blank.txt", {"a cat", " "});
  const auto two = write_lines(dir, "two.txt", {"a cat", "a dog"});
  for (const char* metric : {"bleu", "chrf", "ter"}) {
    expect_error({"metric", metric, "--hyp", blank, "--ref", two, "--empty", "error"}, blank + ":2: empty hypothesis");
    EXPECT_EQ(run_ok({"metric", metric, "--hyp", blank, "--ref", two, "--empty", "reference"}).out,
              run_ok({"metric", metric, "--hyp", blank, "--ref", two}).out);
  }
}

// ---- invar stats -------------------------------------------------------------------------------

TEST(StatsCli, CorrelateMatchesScipyGoldens) {
  const auto dir = test::temp_dir();
  int index = 0;
  for (const auto& c : stats_golden()["correlation"]) {
    SCOPED_TRACE(::testing::Message() << "correlation case " << index);
    const auto x = c["x"].get<std::vector<double>>(), y = c["y"].get<std::vector<double>>();
    // x and y as two columns of one TSV file with a header (the numbers round-trip exactly).
    std::vector<std::string> rows{"metric\thuman"};
    for (std::size_t i = 0; i < x.size(); ++i) rows.push_back(fmt::format("{}\t{}", x[i], y[i]));
    const auto path = write_lines(dir, fmt::format("c{}.tsv", index++), rows);
    const auto out = json::parse(
        run_ok({"stats", "correlate", "--x", path, "--x-column", "metric", "--y-column", "human", "--json"}).out);
    EXPECT_EQ(out["n"], x.size());
    EXPECT_TRUE(near_golden(test::golden_double(out["pearson"]["r"]), c["pearson_r"]));
    EXPECT_TRUE(near_golden(test::golden_double(out["pearson"]["p"]), c["pearson_p_two_sided"]));
    EXPECT_TRUE(near_golden(test::golden_double(out["pearson"]["t"]), c["pearson_t"]));
    EXPECT_TRUE(near_golden(test::golden_double(out["pearson"]["p_one_tailed_greater"]), c["pearson_p_one_sided_greater"]));
    EXPECT_TRUE(near_golden(test::golden_double(out["spearman"]["rho"]), c["spearman_rho"]));
    EXPECT_TRUE(near_golden(test::golden_double(out["spearman"]["p"]), c["spearman_p"]));
    EXPECT_TRUE(near_golden(test::golden_double(out["kendall"]["tau_b"]), c["kendall_tau_b"]));
    EXPECT_TRUE(near_golden(test::golden_double(out["kendall"]["p"]), c["kendall_p"]));
  }
}

TEST(StatsCli, CorrelateTwoFilesOneMethodAndAlternative) {
  const auto dir = test::temp_dir();
  const auto& c = stats_golden()["correlation"][0];
  const auto x = write_lines(dir, "x.txt", as_lines(c["x"].get<std::vector<double>>()));
  const auto y = write_lines(dir, "y.txt", as_lines(c["y"].get<std::vector<double>>()));
  const auto out = json::parse(
      run_ok({"stats", "correlate", "--x", x, "--y", y, "--method", "pearson", "--alternative", "greater", "--json"})
          .out);
  EXPECT_FALSE(out.contains("spearman"));
  EXPECT_EQ(out["alternative"], "greater");
  // For Pearson's r, scipy's one-sided p and the t test's p agree.
  EXPECT_TRUE(near_golden(test::golden_double(out["pearson"]["p"]), c["pearson_p_one_sided_greater"]));
  const auto text = run_ok({"stats", "correlate", "--x", x, "--y", y, "--method", "kendall"}).out;
  EXPECT_NE(text.find(fmt::format("tau-b = {:.6g}", c["kendall_tau_b"].get<double>())), std::string::npos) << text;
}

TEST(StatsCli, KlMatchesScipyEntropyFromCountsAndLabels) {
  const auto dir = test::temp_dir();
  int index = 0;
  for (const auto& c : stats_golden()["kl_divergence"]) {
    const auto p = write_lines(dir, fmt::format("p{}.txt", index), as_lines(c["p"].get<std::vector<double>>()));
    const auto q = write_lines(dir, fmt::format("q{}.txt", index++), as_lines(c["q"].get<std::vector<double>>()));
    const auto nats = json::parse(run_ok({"stats", "kl", "--p", p, "--q", q, "--json"}).out);
    const auto bits = json::parse(run_ok({"stats", "kl", "--p", p, "--q", q, "--base", "2", "--json"}).out);
    EXPECT_TRUE(near_golden(test::golden_double(nats["kl"]), c["kl_natural"]));
    EXPECT_TRUE(near_golden(test::golden_double(bits["kl"]), c["kl_base2"]));
    EXPECT_EQ(bits["unit"], "bits");
  }
  // Labels: 52 × a + 48 × b against 64 × a + 36 × b is the first golden's distribution.
  std::vector<std::string> a(52, "pos"), b(64, "pos");
  a.insert(a.end(), 48, "neg");
  b.insert(b.end(), 36, "neg");
  // Listing order does not matter: bins follow the sorted labels (neg, pos) in both files.
  std::reverse(b.begin(), b.end());
  const auto pa = write_lines(dir, "a.txt", a), pb = write_lines(dir, "b.txt", b);
  const auto labels = json::parse(run_ok({"stats", "kl", "--labels", "--p", pa, "--q", pb, "--json"}).out);
  EXPECT_EQ(labels["labels"], (json{"neg", "pos"}));
  EXPECT_TRUE(near_golden(test::golden_double(labels["kl"]), stats_golden()["kl_divergence"][0]["kl_natural"]));
  // A zero bin in Q: infinity, then finite with explicit smoothing.
  const auto zp = write_lines(dir, "zp.txt", {"1", "1"}), zq = write_lines(dir, "zq.txt", {"2", "0"});
  EXPECT_TRUE(json::parse(run_ok({"stats", "kl", "--p", zp, "--q", zq, "--json"}).out)["kl"].is_null());
  EXPECT_NE(run_ok({"stats", "kl", "--p", zp, "--q", zq}).out.find("--smoothing"), std::string::npos);
  const auto smoothed = json::parse(run_ok({"stats", "kl", "--p", zp, "--q", zq, "--smoothing", "0.5", "--json"}).out);
  EXPECT_DOUBLE_EQ(smoothed["kl"].get<double>(), stats::kl_divergence({1, 1}, {2, 0}, {.smoothing = 0.5}));
}

TEST(StatsCli, Chi2GoodnessOfFitAndContingencyMatchScipy) {
  const auto dir = test::temp_dir();
  int index = 0;
  for (const auto& c : stats_golden()["chisquare"]) {
    const auto o = write_lines(dir, fmt::format("o{}.txt", index), as_lines(c["observed"].get<std::vector<double>>()));
    const auto e = write_lines(dir, fmt::format("e{}.txt", index++), as_lines(c["expected"].get<std::vector<double>>()));
    const auto out = json::parse(run_ok({"stats", "chi2", "--observed", o, "--expected", e, "--json"}).out);
    EXPECT_EQ(out["test"], "goodness of fit");
    EXPECT_TRUE(near_golden(test::golden_double(out["chi2"]), c["chi2"]));
    EXPECT_TRUE(near_golden(test::golden_double(out["p"]), c["p"]));
  }
  for (const auto& c : stats_golden()["chi2_contingency"]) {
    std::vector<std::string> rows;
    for (const auto& row : c["table"]) rows.push_back(fmt::format("{}", fmt::join(row.get<std::vector<double>>(), ",")));
    const auto table = write_lines(dir, fmt::format("t{}.csv", index++), rows);
    std::vector<std::string> args{"stats", "chi2", "--table", table, "--json"};
    if (!c["yates"].get<bool>()) args.push_back("--no-correction");
    const auto out = json::parse(run_ok(args).out);
    EXPECT_TRUE(near_golden(test::golden_double(out["chi2"]), c["chi2"]));
    EXPECT_TRUE(near_golden(test::golden_double(out["p"]), c["p"]));
    EXPECT_EQ(out["dof"].get<double>(), c["dof"].get<double>());
    const auto expected = c["expected"].get<std::vector<std::vector<double>>>();
    for (std::size_t i = 0; i < expected.size(); ++i)
      for (std::size_t j = 0; j < expected[i].size(); ++j)
        EXPECT_TRUE(near_golden(out["expected"][i][j].get<double>(), expected[i][j]));
  }
  // Two label files: rows of a 2 × K table, as the first golden table [[52, 48], [64, 36]] (columns a, b).
  std::vector<std::string> a(52, "a"), b(64, "a");
  a.insert(a.end(), 48, "b");
  b.insert(b.end(), 36, "b");
  const auto la = write_lines(dir, "la.txt", a), lb = write_lines(dir, "lb.txt", b);
  const auto out = json::parse(run_ok({"stats", "chi2", "--labels", la, "--labels", lb, "--json"}).out);
  const auto& first = stats_golden()["chi2_contingency"][0];
  ASSERT_TRUE(first["yates"].get<bool>());
  EXPECT_EQ(out["table"], first["table"]);
  EXPECT_TRUE(near_golden(test::golden_double(out["chi2"]), first["chi2"]));
}

TEST(StatsCli, VoteReproducesTheMajorityAndModeGoldens) {
  const auto dir = test::temp_dir();
  // Three binary detectors as TSV columns with a header.
  std::vector<std::string> rows{"d1\td2\td3"};
  for (const auto& c : stats_golden()["majority_binary"])
    rows.push_back(fmt::format("{}", fmt::join(c["votes"].get<std::vector<int>>(), "\t")));
  const auto binary = write_lines(dir, "binary.tsv", rows);
  const auto majority = run_ok({"stats", "vote", "--input", binary, "--columns", "d1,d2,d3"}).out;
  std::string expected;
  for (const auto& c : stats_golden()["majority_binary"]) {
    const auto votes = c["votes"].get<std::vector<int>>();
    expected += fmt::format("{}\t{}\n", c["majority"].get<int>(),
                            votes[0] == votes[1] && votes[1] == votes[2] ? "all" : "majority");
  }
  EXPECT_EQ(majority, expected);
  // [S_X, S_Y] pairs of three detectors as JSONL arrays: the mode, or null (Ø) when all three differ.
  std::vector<std::string> pairs;
  for (const auto& c : stats_golden()["mode_of_pairs_over_3_detectors"])
    pairs.push_back(json{{"a", c["detectors"][0]}, {"b", c["detectors"][1]}, {"c", c["detectors"][2]}}.dump());
  const auto modes = json_lines(
      run_ok({"stats", "vote", "--input", write_lines(dir, "pairs.jsonl", pairs), "--columns", "a,b,c", "--json"}).out);
  const auto& golden = stats_golden()["mode_of_pairs_over_3_detectors"];
  ASSERT_EQ(modes.size(), golden.size());
  int none = 0;
  for (std::size_t i = 0; i < modes.size(); ++i) {
    EXPECT_EQ(modes[i]["line"], i + 1);
    if (golden[i]["mode"].is_null()) {
      ++none;
      EXPECT_TRUE(modes[i]["majority"].is_null()) << i;
      EXPECT_EQ(modes[i]["agreement"], "none");
    } else {
      EXPECT_EQ(modes[i]["majority"], golden[i]["mode"].dump()) << i;
      EXPECT_GE(modes[i]["count"].get<int>(), 2);
    }
  }
  EXPECT_GT(none, 0);
  // An even split has no majority: Ø.
  const auto split = write_lines(dir, "split.csv", {"x,y", "pos,neg"});
  EXPECT_EQ(run_ok({"stats", "vote", "--input", split, "--columns", "x,y"}).out, "Ø\tnone\n");
}

TEST(StatsCli, TTestsAndBinomialTestAgainstTheLibrary) {
  const auto dir = test::temp_dir();
  const std::vector<double> a{3, 5, 9, 4, 7}, b{1, 2, 6, 4, 3};
  const auto fa = write_lines(dir, "a.txt", as_lines(a)), fb = write_lines(dir, "b.txt", as_lines(b));
  const auto check = [&](const std::vector<std::string>& args, const stats::TTest& expected) {
    const auto out = json::parse(run_ok(args).out);
    EXPECT_EQ(out["t"].get<double>(), expected.t);
    EXPECT_EQ(out["df"].get<double>(), expected.df);
    EXPECT_EQ(out["p"].get<double>(), expected.pvalue);
  };
  check({"stats", "ttest", "--a", fa, "--popmean", "4", "--json"}, stats::ttest_1samp(a, 4));
  check({"stats", "ttest", "--a", fa, "--b", fb, "--json"}, stats::ttest_ind(a, b));
  check({"stats", "ttest", "--a", fa, "--b", fb, "--welch", "--alternative", "greater", "--json"},
        stats::ttest_ind(a, b, false, stats::Alternative::Greater));
  check({"stats", "ttest", "--a", fa, "--b", fb, "--paired", "--json"}, stats::ttest_rel(a, b));
  // n = 10, k = 2, p = 1/2: two-sided p = 112/1024.
  const auto binom = json::parse(run_ok({"stats", "binom", "--k", "2", "--n", "10", "--json"}).out);
  EXPECT_NEAR(binom["p"].get<double>(), 112.0 / 1024, 1e-15);
  const auto expected = stats::binomtest(2, 10);
  EXPECT_EQ(binom["ci_low"].get<double>(), expected.ci_low);
  EXPECT_EQ(binom["ci_high"].get<double>(), expected.ci_high);
  expect_error({"stats", "binom", "--k", "11", "--n", "10"}, "binomtest: k (11) must be <= n (10)");
  const auto shorter = write_lines(dir, "short.txt", {"1", "2"});
  expect_error({"stats", "ttest", "--a", fa, "--b", shorter, "--paired"},
               fa + " has 5 values but " + shorter + " has 2; paired samples must be line-aligned");
}

TEST(StatsCli, BadInputNamesFileAndLine) {
  const auto dir = test::temp_dir();
  const auto x = write_lines(dir, "x.txt", {"1", "2", "three"});
  const auto y = write_lines(dir, "y.txt", {"1", "2", "3"});
  expect_error({"stats", "correlate", "--x", x, "--y", y}, x + ":3: 'three' is not a finite number");
  const auto shorter = write_lines(dir, "short.txt", {"1", "2"});
  expect_error({"stats", "correlate", "--x", y, "--y", shorter},
               y + " has 3 values but " + shorter + " has 2; x and y must be line-aligned");
  const auto ragged = write_lines(dir, "ragged.tsv", {"1\t2", "3\t4\t5"});
  expect_error({"stats", "correlate", "--x", ragged}, ragged + ":2: expected 2 columns, found 3");
  const auto table = write_lines(dir, "t.csv", {"1,2", "3,x"});
  expect_error({"stats", "chi2", "--table", table}, table + ":2 column 2: 'x' is not a finite number");
  expect_error({"stats", "chi2", "--observed", y, "--table", table},
               "give exactly one of --observed (goodness of fit), --table or --labels (contingency)");
  expect_error({"stats", "correlate", "--x", y, "--y", y, "--method", "tau"},
               "--method must be pearson, spearman, kendall or all, got 'tau'");
  expect_error({"stats", "kl", "--p", y, "--q", shorter}, y + " has 3 bins but " + shorter +
                                                              " has 2; P and Q must be line-aligned");
}

// ---- invar metaeval ----------------------------------------------------------------------------

TEST(MetaEvalCli, SystemAndSegmentLevelsAgainstTheLibrary) {
  const std::vector<metaeval::Segment> segments = {
      {"A", "de", 0.9, 5}, {"B", "de", 0.4, 3}, {"A", "fr", 0.7, 4}, {"C", "fr", 0.1, 1},
      {"B", "fr", 0.5, 2}, {"C", "de", 0.2, 2}, {"A", "de", 0.8, 5}, {"B", "de", 0.6, 3},
  };
  const auto dir = test::temp_dir();
  std::vector<std::string> tsv{"system\tlang\tscore\thuman"}, jsonl, human;
  for (const auto& s : segments) {
    tsv.push_back(fmt::format("{}\t{}\t{}\t{}", s.system, s.group, s.metric, s.human));
    jsonl.push_back(json{{"sys", s.system}, {"lang", s.group}, {"bleu", s.metric}}.dump());
    human.push_back(fmt::format("{}", s.human));
  }
  const auto table = write_lines(dir, "segments.tsv", tsv);
  const auto expected = metaeval::meta_evaluate(segments);
  const auto out = json::parse(run_ok({"metaeval", "--scores", table, "--group-column", "lang", "--json"}).out);
  ASSERT_EQ(out["systems"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out["systems"][i]["system"], expected.systems[i]);
    EXPECT_EQ(out["systems"][i]["metric"].get<double>(), expected.system_metric[i]);
    EXPECT_EQ(out["systems"][i]["human"].get<double>(), expected.system_human[i]);
  }
  EXPECT_EQ(out["pairwise"]["correct"], expected.pairwise.correct);
  EXPECT_EQ(out["pairwise"]["pairs"], 3);
  EXPECT_EQ(out["system_level"]["kendall"]["tau_b"].get<double>(), expected.system_level.kendall.tau);
  EXPECT_EQ(out["segment_level"]["pearson"]["r"].get<double>(), expected.segment_pooled.pearson.statistic);
  EXPECT_EQ(out["segment_level"]["n"], 8);
  ASSERT_EQ(out["groups"].size(), 2u);
  EXPECT_EQ(out["groups"][1]["group"], "fr");
  EXPECT_EQ(out["groups"][1]["spearman"]["rho"].get<double>(), expected.per_group[1].spearman.statistic);

  // JSONL scores with a separate, line-aligned human file give the same numbers.
  const auto scores = write_lines(dir, "scores.jsonl", jsonl), judgements = write_lines(dir, "human.txt", human);
  const auto same = json::parse(run_ok({"metaeval", "--scores", scores, "--human", judgements, "--system-column",
                                        "sys", "--score-column", "bleu", "--human-column", "1", "--group-column",
                                        "lang", "--json"})
                                    .out);
  EXPECT_EQ(same["system_level"], out["system_level"]);
  EXPECT_EQ(same["groups"], out["groups"]);

  // Corpus-level system scores replace the means; lower-is-better flips the metric's order.
  const auto corpus = write_lines(dir, "corpus.tsv", {"system\tscore", "A\t0.1", "B\t0.2", "C\t0.3"});
  const auto flipped = json::parse(run_ok({"metaeval", "--scores", table, "--system-scores", corpus,
                                           "--lower-is-better", "--json"})
                                       .out);
  EXPECT_EQ(flipped["systems"][2]["metric"].get<double>(), 0.3);
  EXPECT_EQ(flipped["pairwise"]["correct"], 3);
  EXPECT_EQ(flipped["pairwise"]["accuracy"].get<double>(), 1.0);
  const auto text = run_ok({"metaeval", "--scores", table, "--group-column", "lang"}).out;
  EXPECT_NE(text.find("pairwise accuracy"), std::string::npos);
  EXPECT_NE(text.find("  fr"), std::string::npos);

  // System and group names come from the file: shown with terminal escapes escaped.
  std::vector<std::string> hostile{"system\tlang\tscore\thuman"};
  for (const auto& s : segments)
    hostile.push_back(fmt::format("{}\t{}\t{}\t{}", s.system == "A" ? "\x1b[2JA" : s.system,
                                  s.group == "fr" ? "f\x1b[31mr" : s.group, s.metric, s.human));
  const auto escaped = run_ok({"metaeval", "--scores", write_lines(dir, "hostile.tsv", hostile), "--group-column", "lang"}).out;
  EXPECT_EQ(escaped.find('\x1b'), std::string::npos) << escaped;
  EXPECT_NE(escaped.find("\\x1b[2JA"), std::string::npos) << escaped;
  EXPECT_NE(escaped.find("  f\\x1b[31mr"), std::string::npos) << escaped;
}

TEST(MetaEvalCli, ManyScoreColumnsInOneRunEqualSeparateRuns) {
  const auto dir = test::temp_dir();
  const auto table = write_lines(dir, "segments.tsv",
                                 {"system\tlang\tbleu\tter\thuman", "A\tde\t0.9\t10\t5", "B\tde\t0.4\t30\t3",
                                  "A\tfr\t0.7\t20\t4", "C\tfr\t0.1\t60\t1", "B\tfr\t0.5\t25\t2",
                                  "C\tde\t0.2\t50\t2"});
  const std::vector<std::string> base{"metaeval", "--scores", table, "--group-column", "lang"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const auto both = json::parse(run_ok(with({"--score-column", "bleu", "--score-column", "ter",
                                             "--lower-is-better-column", "ter", "--json"}))
                                    .out);
  ASSERT_EQ(both["metrics"].size(), 2u);
  const auto bleu = json::parse(run_ok(with({"--score-column", "bleu", "--json"})).out);
  const auto ter = json::parse(run_ok(with({"--score-column", "ter", "--lower-is-better", "--json"})).out);
  EXPECT_EQ(both["metrics"][0]["metric"], "bleu");
  EXPECT_EQ(both["metrics"][1]["metric"], "ter");
  for (const auto& [i, alone] : {std::pair{0, bleu}, std::pair{1, ter}})
    for (const auto& [key, value] : alone.items())
      if (key != "provenance") EXPECT_EQ(both["metrics"][i][key], value) << key;  // the run's, not a metric's
  EXPECT_EQ(both["metrics"][1]["higher_is_better"], false);
  EXPECT_EQ(both["metrics"][1]["pairwise"]["correct"], 3);

  // Text: each metric's report under its name, then one summary line per metric.
  const auto text = run_ok(with({"--score-column", "bleu", "--score-column", "ter"})).out;
  const auto bleu_text = run_ok(with({"--score-column", "bleu"})).out;
  const std::string head = "== bleu ==\n" + bleu_text + "\n== ter ==\n";
  EXPECT_EQ(text.substr(0, head.size()), head);
  EXPECT_NE(text.find("\nmetric "), std::string::npos);
  EXPECT_NE(text.find(fmt::format("\n{:<24} ", "ter")), std::string::npos);

  // A column of the other file must exist; --lower-is-better-column must name a score column.
  const auto corpus = write_lines(dir, "corpus.tsv", {"system\tbleu", "A\t0.1", "B\t0.2", "C\t0.3"});
  const auto missing = test::run_cli(with({"--score-column", "bleu", "--score-column", "ter", "--system-scores", corpus}));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("ter"), std::string::npos) << missing.err;
  expect_error(with({"--score-column", "bleu", "--lower-is-better-column", "chrf"}),
               "--lower-is-better-column 'chrf' is not one of the --score-column names");
}

TEST(MetaEvalCli, BadInputNamesFileAndLine) {
  const auto dir = test::temp_dir();
  const auto ragged = write_lines(dir, "ragged.tsv", {"system\tscore\thuman", "A\t1\t2", "B\t1"});
  expect_error({"metaeval", "--scores", ragged}, ragged + ":3: expected 3 columns, found 2");
  const auto bad = write_lines(dir, "bad.tsv", {"system\tscore\thuman", "A\t1\t2", "B\tx\t1"});
  expect_error({"metaeval", "--scores", bad}, bad + ":3: 'x' is not a finite number");
  const auto good = write_lines(dir, "good.tsv", {"system\tscore\thuman", "A\t1\t2", "B\t2\t1"});
  expect_error({"metaeval", "--scores", good, "--group-column", "lang"}, good + ": no column 'lang' (columns: system, score, human)");
  const auto human = write_lines(dir, "human.txt", {"1", "2", "3"});
  expect_error({"metaeval", "--scores", good, "--human", human, "--human-column", "1"},
               good + " has 2 rows but " + human + " has 3; scores and human judgements must be line-aligned");
}
