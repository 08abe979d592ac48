// `invar sacrebleu`: sacrebleu 2.4.3's command line and its output byte for byte. RealOutputs
// compares with what sacrebleu's own command line printed (tests/fixtures/metrics/
// sacrebleu_cli_2.6.0.json); the other tests build the expected outputs from sacrebleu's numbers
// (tests/fixtures/metrics/sacrebleu.json, from sacrebleu 2.4.3) in the formats sacrebleu prints
// them: Score.format, print_single_results (JSON list, '='-aligned text), print_results_table
// (tabulate's fancy_grid / latex_booktabs and json.dumps(indent=4)).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "support/golden.hpp"
#include "support/test_support.hpp"

using nlohmann::json;

namespace {

const json& golden() {
  static const json data = invar::test::load_json(invar::test::fixture("metrics/sacrebleu.json"));
  return data;
}

struct Files {
  std::string dir, hyps, refs, refs2, tabbed;
  std::vector<std::string> hyp_lines, ref_lines;
};

std::string lines_of(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

const Files& files() {
  static const Files f = [] {
    Files out;
    out.dir = invar::test::temp_dir();
    out.hyp_lines = golden()["hyps"].get<std::vector<std::string>>();
    out.ref_lines = golden()["refs"].get<std::vector<std::string>>();
    out.hyps = out.dir + "/hyps.txt";
    out.refs = out.dir + "/refs.txt";
    out.refs2 = out.dir + "/refs2.txt";
    out.tabbed = out.dir + "/refs.tsv";
    invar::test::write_file(out.hyps, lines_of(out.hyp_lines));
    invar::test::write_file(out.refs, lines_of(out.ref_lines));
    // A second reference stream equal to the first: the same n-gram matches, nrefs:2.
    invar::test::write_file(out.refs2, lines_of(out.ref_lines));
    std::vector<std::string> tabbed;
    for (const auto& r : out.ref_lines) tabbed.push_back(r + "\t" + r);
    invar::test::write_file(out.tabbed, lines_of(tabbed));
    return out;
  }();
  return f;
}

invar::test::CliResult run_ok(const std::vector<std::string>& args, const std::string& input = "") {
  auto result = invar::test::run_cli(args, input);
  EXPECT_EQ(result.exit_code, 0) << fmt::format("{}", fmt::join(args, " ")) << "\n" << result.err;
  return result;
}

const json& bleu_case(const std::string& tokenize, bool lowercase) {
  for (const auto& c : golden()["cases"])
    if (c["metric"] == "bleu" && c["tokenize"] == tokenize && c["smooth_method"] == "exp" && c["lowercase"] == lowercase)
      return c;
  throw std::runtime_error("no golden BLEU case");
}

const json& chrf_case(int word_order) {
  for (const auto& c : golden()["cases"])
    if (c["metric"] == "chrf" && c["char_order"] == 6 && c["beta"] == 2 && c["word_order"] == word_order &&
        c["whitespace"] == false)
      return c;
  throw std::runtime_error("no golden chrF case");
}

const json& ter_case() {
  for (const auto& c : golden()["cases"])
    if (c["metric"] == "ter" && c["normalized"] == false && c["case_insensitive"] == true) return c;
  throw std::runtime_error("no golden TER case");
}

// Python's f"{x:.{w}f}".
std::string fixed(double x, int width) { return fmt::format("{:.{}f}", x, width); }

// BLEUScore's verbose part: "P1/P2/P3/P4 (BP = ... ratio = ... hyp_len = ... ref_len = ...)".
std::string bleu_verbose(const json& corpus) {
  std::vector<std::string> precisions;
  for (std::size_t n = 0; n < 4; ++n)
    precisions.push_back(fixed(100.0 * corpus["counts"][n].get<double>() / corpus["totals"][n].get<double>(), 1));
  const double sys = corpus["sys_len"].get<double>(), ref = corpus["ref_len"].get<double>();
  return fmt::format("{} (BP = {} ratio = {} hyp_len = {} ref_len = {})", fmt::join(precisions, "/"),
                     fixed(corpus["bp"].get<double>(), 3), fixed(sys / ref, 3), corpus["sys_len"].get<int>(),
                     corpus["ref_len"].get<int>());
}

// Score.format(..., is_json=True): json.dumps(d, indent=1, ensure_ascii=False).
std::string score_json(const std::string& name, double score, const std::string& signature,
                       const std::string& verbose, int width = 1) {
  std::string out = "{\n \"name\": \"" + name + "\",\n \"score\": " +
                    fmt::format("{}", std::stod(fixed(score, width))) + ",\n \"signature\": \"" + signature + "\"";
  if (!verbose.empty()) out += ",\n \"verbose_score\": \"" + verbose + "\"";
  std::size_t start = 0;
  while (start < signature.size()) {
    const auto end = std::min(signature.find('|', start), signature.size());
    const auto field = signature.substr(start, end - start);
    const auto colon = field.find(':');
    out += ",\n \"" + field.substr(0, colon) + "\": \"" + field.substr(colon + 1) + "\"";
    start = end + 1;
  }
  return out + "\n}";
}

TEST(CliSacrebleu, DefaultIsBleuAsJson) {
  const auto& c = bleu_case("13a", false);
  const auto out = run_ok({"sacrebleu", files().refs, "-i", files().hyps}).out;
  EXPECT_EQ(out, score_json("BLEU", c["corpus"]["score"], c["signature"], bleu_verbose(c["corpus"])) + "\n");
}

TEST(CliSacrebleu, HypothesesFromStandardInputAndScoreOnly) {
  const auto& c = bleu_case("13a", false);
  // README: `cat output.detok.txt | sacrebleu ref.detok.txt -m bleu -b -w 4`. A tab would start a
  // second system (sacrebleu then refuses the fixture's line 5): a space tokenizes alike.
  auto input = lines_of(files().hyp_lines);
  std::replace(input.begin(), input.end(), '\t', ' ');
  const auto out = run_ok({"sacrebleu", files().refs, "-m", "bleu", "-b", "-w", "4"}, input).out;
  EXPECT_EQ(out, fixed(c["corpus"]["score"], 4) + "\n");
}

TEST(CliSacrebleu, SingleDashLongOptionsAbbreviationsAndEqualsForms) {
  const auto& c = bleu_case("intl", true);
  const auto expected = "BLEU|" + c["signature"].get<std::string>() + " = " + fixed(c["corpus"]["score"], 2) + " " +
                        bleu_verbose(c["corpus"]) + "\n";
  // CLI11 alone reads -tok as -t ok and -lc as -l c.
  EXPECT_EQ(run_ok({"sacrebleu", files().refs, "-i", files().hyps, "-tok", "intl", "-lc", "-f", "text", "-w", "2"}).out,
            expected);
  EXPECT_EQ(run_ok({"sacrebleu", files().refs, "-i", files().hyps, "-tok=intl", "--lower", "--form", "text", "-w2"}).out,
            expected);
  EXPECT_EQ(run_ok({"sacrebleu", files().refs, "-i", files().hyps, "--tok", "intl", "--lowercase", "-f=text", "-w=2"}).out,
            expected);
}

TEST(CliSacrebleu, SeveralMetricsAlignedAsTextAndListedAsJson) {
  const auto& b = bleu_case("13a", false);
  const auto& c = chrf_case(2);
  const auto& t = ter_case();
  const std::string bleu_left = "BLEU|" + b["signature"].get<std::string>();
  const std::string chrf_left = "chrF2++|" + c["signature"].get<std::string>();
  const std::string ter_left = "TER|" + t["signature"].get<std::string>();
  const auto widest = std::max({bleu_left.size(), chrf_left.size(), ter_left.size()});
  const auto pad = [&](const std::string& left) { return std::string(widest - left.size(), ' ') + left; };
  const auto text = run_ok({"sacrebleu", files().refs, "-i", files().hyps, "-m", "ter", "bleu", "chrf", "-cw", "2",
                            "-f", "text"})
                        .out;
  EXPECT_EQ(text, pad(bleu_left) + " = " + fixed(b["corpus"]["score"], 1) + " " + bleu_verbose(b["corpus"]) + "\n" +
                      pad(chrf_left) + " = " + fixed(c["corpus"], 1) + "\n" + pad(ter_left) + " = " +
                      fixed(t["corpus"], 1) + "\n");
  const auto listed = run_ok({"sacrebleu", files().refs, "-i", files().hyps, "-m", "bleu", "chrf", "ter",
                              "--chrf-word-order", "2"})
                          .out;
  EXPECT_EQ(listed, "[\n" + score_json("BLEU", b["corpus"]["score"], b["signature"], bleu_verbose(b["corpus"])) +
                        ",\n" + score_json("chrF2++", c["corpus"], c["signature"], "") + ",\n" +
                        score_json("TER", t["corpus"], t["signature"], "") + "\n]\n");
  // -b: the scores alone, in the same order.
  EXPECT_EQ(run_ok({"sacrebleu", files().refs, "-i", files().hyps, "-m", "bleu", "chrf", "-b", "-f", "text"}).out,
            fixed(b["corpus"]["score"], 1) + "\n" + fixed(chrf_case(0)["corpus"], 1) + "\n");
}

TEST(CliSacrebleu, SentenceLevelScoresOnePerLine) {
  const auto& c = bleu_case("13a", false);
  std::string expected;
  for (const auto& s : c["sentence_effective_order"]) expected += fixed(s, 1) + "\n";
  EXPECT_EQ(run_ok({"sacrebleu", files().refs, "-i", files().hyps, "-sl", "-b"}).out, expected);
  const auto lines = run_ok({"sacrebleu", files().refs, "-i", files().hyps, "-sl", "-m", "chrf", "-sh"}).out;
  const auto& chrf = chrf_case(0)["sentence"];
  EXPECT_EQ(lines.substr(0, lines.find('\n')),
            "chrF2|#:1|c:mixed|e:yes|nc:6|nw:0|s:no|v:2.4.3 = " + fixed(chrf[0], 1));
}

TEST(CliSacrebleu, SeveralReferencesAsFilesOrTabSeparated) {
  const auto two = run_ok({"sacrebleu", files().refs, files().refs2, "-i", files().hyps, "-f", "text", "-b"}).out;
  EXPECT_EQ(two, fixed(bleu_case("13a", false)["corpus"]["score"], 1) + "\n");
  const auto text = run_ok({"sacrebleu", files().refs, files().refs2, "-i", files().hyps, "-f", "text"}).out;
  EXPECT_EQ(text.substr(0, text.find(" = ")), "BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.3");
  EXPECT_EQ(run_ok({"sacrebleu", files().tabbed, "-nr", "2", "-i", files().hyps, "-f", "text"}).out, text);
}

// Two systems on standard input (tab-separated): sacrebleu names them "System 1", "System 2". The
// second is the reference itself: 100.0 shows how tabulate centres an odd gap.
TEST(CliSacrebleu, SeveralSystemsAsTables) {
  // A tab inside a hypothesis would start another system: a space tokenizes alike for BLEU and chrF.
  std::vector<std::string> both;
  for (std::size_t i = 0; i < files().hyp_lines.size(); ++i) {
    auto hyp = files().hyp_lines[i];
    std::replace(hyp.begin(), hyp.end(), '\t', ' ');
    both.push_back(hyp + "\t" + files().ref_lines[i]);
  }
  const auto input = lines_of(both);
  const auto bleu = fixed(bleu_case("13a", false)["corpus"]["score"], 1);
  const auto chrf = fixed(chrf_case(0)["corpus"], 1);
  const std::string signatures =
      "-----------------\n"
      "Metric signatures\n"
      "-----------------\n"
      " - BLEU       nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.3\n"
      " - chrF2      nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.4.3\n";
  EXPECT_EQ(run_ok({"sacrebleu", files().refs, "-m", "bleu", "chrf", "-f", "text"}, input).out,
            "╒══════════╤════════╤═════════╕\n"
            "│   System │  BLEU  │  chrF2  │\n"
            "╞══════════╪════════╪═════════╡\n"
            "│ System 1 │  " + bleu + "  │  " + chrf + "   │\n"
            "├──────────┼────────┼─────────┤\n"
            "│ System 2 │ 100.0  │  100.0  │\n"
            "╘══════════╧════════╧═════════╛\n"
            "\n" + signatures);
  EXPECT_EQ(run_ok({"sacrebleu", files().refs, "-m", "bleu", "chrf", "-f", "latex"}, input).out,
            "\\begin{tabular}{rcc}\n"
            "\\toprule\n"
            "   System &  BLEU  &  chrF2  \\\\\n"
            "\\midrule\n"
            " System 1 &  " + bleu + "  &  " + chrf + "   \\\\\n"
            " System 2 & 100.0  &  100.0  \\\\\n"
            "\\bottomrule\n"
            "\\end{tabular}\n"
            "\n" + signatures);
  EXPECT_EQ(run_ok({"sacrebleu", files().refs, "-m", "bleu", "chrf"}, input).out,
            "[\n"
            "    {\n"
            "        \"system\": \"System 1\",\n"
            "        \"BLEU\": \"" + bleu + "\",\n"
            "        \"chrF2\": \"" + chrf + "\"\n"
            "    },\n"
            "    {\n"
            "        \"system\": \"System 2\",\n"
            "        \"BLEU\": \"100.0\",\n"
            "        \"chrF2\": \"100.0\"\n"
            "    }\n"
            "]\n");
}

TEST(CliSacrebleu, EnvironmentChoosesTheFormat) {
  const auto& c = bleu_case("13a", false);
  const auto out = invar::test::run_program({"/usr/bin/env", "SACREBLEU_FORMAT=text", INVAR_CLI, "sacrebleu",
                                             files().refs, "-i", files().hyps});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out, "BLEU|" + c["signature"].get<std::string>() + " = " + fixed(c["corpus"]["score"], 1) + " " +
                         bleu_verbose(c["corpus"]) + "\n");
}

// Each case of the fixture run in a folder holding its files, as `sacrebleu ARGS` ran there. The
// only difference allowed is the version in signatures (and their JSON fields): the fixture comes from sacrebleu 2.6.0,
// whose package differs from 2.4.3 in nothing these cases print (`git diff v2.4.3 v2.6.0 --
// sacrebleu/`: the version, a new spBLEU-1K tokenizer, test-set downloads, and a rewrite of
// compute_bleu's brevity penalty and precision list with the same results).
TEST(CliSacrebleu, RealOutputs) {
  const json data = invar::test::load_json(invar::test::fixture("metrics/sacrebleu_cli_2.6.0.json"));
  ASSERT_EQ(data["sacrebleu_version"], "2.6.0");
  const std::string dir = invar::test::temp_dir();
  for (const char* name : {"hyps", "refs", "sys2", "sys3"})
    invar::test::write_file(dir + "/" + name + ".txt", lines_of(data[name].get<std::vector<std::string>>()));
  invar::test::write_file(dir + "/refs2.txt", lines_of(data["refs"].get<std::vector<std::string>>()));
  ASSERT_GE(data["cases"].size(), 29u);
  for (const auto& c : data["cases"]) {
    const auto args = c["args"].get<std::string>();
    // The arguments hold no quotes: the shell splits them as sacrebleu's runner did, and does the
    // `< hyps.txt` of the standard-input case.
    const auto result = invar::test::run_program(
        {"/bin/sh", "-c", fmt::format("cd '{}' && exec '{}' sacrebleu {}", dir, INVAR_CLI, args)});
    // The version, in signatures and as the JSON field of a signature's parts.
    std::string expected = c["stdout"].get<std::string>();
    for (const std::string from : {"version:2.6.0", "\"version\": \"2.6.0\""})
      for (auto at = expected.find(from); at != std::string::npos; at = expected.find(from, at))
        expected.replace(at + from.size() - 5 - (from[0] == '"'), 5, "2.4.3");
    if (c["exit"] == 0) {
      EXPECT_EQ(result.exit_code, 0) << args << "\n" << result.err;
    } else {
      // sacrebleu exits 17 on ragged tab-separated input; invar's runtime errors exit 1.
      EXPECT_NE(result.exit_code, 0) << args;
      EXPECT_NE(result.err.find("the number of tab-delimited fields in the input stream differ across lines"),
                std::string::npos)
          << args << "\n" << result.err;
    }
    EXPECT_EQ(result.out, expected) << args;
  }
}

// SACREBLEU_SEED seeds the draws and is named in the signature.
TEST(CliSacrebleu, SeedFromTheEnvironment) {
  const std::vector<std::string> args{"sacrebleu", files().refs, "-i", files().hyps, "--confidence", "-w", "4"};
  std::vector<std::string> seeded{"/usr/bin/env", "SACREBLEU_SEED=7", INVAR_CLI};
  seeded.insert(seeded.end(), args.begin(), args.end());
  const auto seven = invar::test::run_program(seeded);
  ASSERT_EQ(seven.exit_code, 0) << seven.err;
  EXPECT_NE(seven.out.find("|bs:1000|seed:7|"), std::string::npos) << seven.out;
  const auto default_seed = run_ok(args).out;
  EXPECT_NE(default_seed.find("|bs:1000|seed:12345|"), std::string::npos) << default_seed;
  // The same score, other resamples: the interval moves.
  const auto field = [](const std::string& out, const std::string& name) {
    const auto at = out.find("\"" + name + "\": ");
    return out.substr(at, out.find(',', at) - at);
  };
  EXPECT_EQ(field(seven.out, "score"), field(default_seed, "score"));
  EXPECT_NE(field(seven.out, "confidence"), field(default_seed, "confidence"));
}

TEST(CliSacrebleu, TestSetsAndMisuseFailClearly) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"sacrebleu", "-t", "wmt17", "-l", "en-de", "-i", files().hyps},
           {"sacrebleu", "--test-set=wmt17", "-i", files().hyps},
           {"sacrebleu", "--list"}}) {
    const auto result = invar::test::run_cli(args);
    EXPECT_EQ(result.exit_code, 1) << fmt::format("{}", fmt::join(args, " "));
    EXPECT_NE(result.err.find("invar runs offline"), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty());
  }
  const auto spm = invar::test::run_cli({"sacrebleu", files().refs, "-i", files().hyps, "-tok", "flores200"});
  EXPECT_EQ(spm.exit_code, 1);
  EXPECT_NE(spm.err.find("-tok flores200 needs the SentencePiece model sacrebleu downloads"), std::string::npos)
      << spm.err;
  const auto one = invar::test::run_cli({"sacrebleu", files().refs, "-i", files().hyps, "-pbs"});
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_NE(one.err.find("Paired tests require multiple input systems given to --input (-i)."), std::string::npos)
      << one.err;
  const auto confidence = invar::test::run_cli({"sacrebleu", files().refs, "-i", files().hyps, files().refs, "-ci"});
  EXPECT_EQ(confidence.exit_code, 1);
  EXPECT_NE(confidence.err.find("Use paired tests (--paired) for multiple systems."), std::string::npos)
      << confidence.err;
  // argparse's usage errors exit 2: the two paired tests exclude each other, and an ambiguous
  // abbreviation (rewritten before CLI11 parses) is one too.
  const auto tests = invar::test::run_cli({"sacrebleu", files().refs, "-i", files().hyps, files().refs, "-pbs", "-par"});
  EXPECT_EQ(tests.exit_code, 2) << tests.err;
  const auto ambiguous = invar::test::run_cli({"sacrebleu", files().refs, "-i", files().hyps, "--chrf", "2"});
  EXPECT_EQ(ambiguous.exit_code, 2) << ambiguous.err;
  EXPECT_NE(ambiguous.err.find("ambiguous option: --chrf"), std::string::npos) << ambiguous.err;
  const auto seedless = invar::test::run_program({"/usr/bin/env", "SACREBLEU_SEED=none", INVAR_CLI, "sacrebleu",
                                                  files().refs, "-i", files().hyps, "-ci"});
  EXPECT_EQ(seedless.exit_code, 1);
  EXPECT_NE(seedless.err.find("SACREBLEU_SEED must be a non-negative integer"), std::string::npos) << seedless.err;
  const auto both = invar::test::run_cli({"sacrebleu", files().refs, "-i", files().hyps, "-sl", "-m", "bleu", "chrf"});
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_NE(both.err.find("Only one metric can be used in sentence-level mode."), std::string::npos) << both.err;
  const auto ragged = invar::test::run_cli({"sacrebleu", files().refs}, lines_of(files().hyp_lines));
  EXPECT_EQ(ragged.exit_code, 1);
  EXPECT_NE(ragged.err.find("<stdin>:5: 2 tab-separated systems, the first line has 1"), std::string::npos)
      << ragged.err;
  EXPECT_EQ(run_ok({"sacrebleu", "-V"}).out, "sacrebleu 2.4.3\n");
}

}  // namespace
