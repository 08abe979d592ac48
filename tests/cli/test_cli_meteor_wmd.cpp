// `invar metric meteor|wmd|wvcos` end to end: the built binary on files made from the goldens
// (tests/fixtures/stmetrics), its line-aligned and corpus outputs, and its errors on bad input.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <sstream>

#include "support/golden.hpp"
#include "support/many_words.hpp"
#include "support/test_support.hpp"

using namespace invar;
using nlohmann::json;

namespace {

const json& meteor_records() {
  static const json data = test::load_json(test::fixture("stmetrics/meteor.json"));
  return data["records"];
}

const json& wmd_records() {
  static const json data = test::load_json(test::fixture("stmetrics/wmd.json"));
  return data["records"];
}

std::string vectors_file() { return test::fixture("stmetrics/wordvecs.vec"); }

std::string write_lines(const std::string& name, const std::vector<std::string>& lines) {
  static const std::string dir = test::temp_dir();
  std::string content;
  for (const auto& line : lines) content += line + "\n";
  test::write_file(dir + "/" + name, content);
  return dir + "/" + name;
}

std::string run_ok(const std::vector<std::string>& args) {
  const auto result = test::run_cli(args);
  EXPECT_EQ(result.exit_code, 0) << fmt::format("{}", fmt::join(args, " ")) << "\n" << result.err;
  return result.out;
}

std::vector<json> json_lines(const std::string& out) {
  std::vector<json> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
  return rows;
}

void expect_error(const std::vector<std::string>& args, const std::string& fragment) {
  const auto result = test::run_cli(args);
  EXPECT_EQ(result.exit_code, 1) << fmt::format("{}", fmt::join(args, " "));
  EXPECT_NE(result.err.find(fragment), std::string::npos) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_TRUE(result.out.empty());
}

// The single-reference golden cases whose texts fit on one non-blank line.
struct MeteorFiles {
  std::string hyp, ref;
  std::vector<const json*> records;
};

MeteorFiles meteor_files() {
  std::vector<std::string> hyps, refs;
  MeteorFiles files;
  for (const auto& r : meteor_records()) {
    const auto hyp = r["hyp"].get<std::string>();
    if (r["refs"].size() != 1 || hyp.find_first_not_of(" \t") == std::string::npos || hyp.find('\n') != std::string::npos)
      continue;
    hyps.push_back(hyp);
    refs.push_back(r["refs"][0].get<std::string>());
    files.records.push_back(&r);
  }
  files.hyp = write_lines("meteor.hyp", hyps);
  files.ref = write_lines("meteor.ref", refs);
  return files;
}

}  // namespace

TEST(CliMeteor, SentenceScoresMatchBothNltkVersions) {
  const auto files = meteor_files();
  ASSERT_GT(files.records.size(), 30u);
  for (const std::string version : {"3.8", "3.6.2"}) {
    SCOPED_TRACE(version);
    const auto rows = json_lines(
        run_ok({"metric", "meteor", "-i", files.hyp, "-r", files.ref, "--sentence", "--json", "--nltk", version}));
    ASSERT_EQ(rows.size(), files.records.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = *files.records[i];
      const auto& expected = version == "3.8" ? r["score"] : r["nltk_3.6.2_strings"]["score"];
      EXPECT_EQ(rows[i]["line"], i + 1);
      EXPECT_NEAR(rows[i]["score"].get<double>(), expected.get<double>(), 1e-12) << r["id"];
    }
  }
}

TEST(CliMeteor, TextOutputRoundsLikePythonAndCorpusIsTheMean) {
  const auto files = meteor_files();
  std::istringstream text(run_ok({"metric", "meteor", "-i", files.hyp, "-r", files.ref, "--sentence"}));
  double sum = 0;
  std::size_t i = 0;
  for (std::string line; std::getline(text, line); ++i) {
    ASSERT_LT(i, files.records.size());
    EXPECT_EQ(line, fmt::format("{:.4f}", (*files.records[i])["score_round4"].get<double>()));
    sum += (*files.records[i])["score"].get<double>();
  }
  EXPECT_EQ(i, files.records.size());
  const auto corpus = json::parse(run_ok({"metric", "meteor", "-i", files.hyp, "-r", files.ref, "--json"}));
  EXPECT_NEAR(corpus["score"].get<double>(), sum / static_cast<double>(i), 1e-12);
  EXPECT_EQ(corpus["segments"], i);
  EXPECT_EQ(corpus["settings"]["nltk"], "3.8");
  const auto line = run_ok({"metric", "meteor", "-i", files.hyp, "-r", files.ref});
  EXPECT_EQ(line.rfind("METEOR = ", 0), 0u) << line;
  EXPECT_NE(line.find("nltk:3.8|alpha:0.9|beta:3|gamma:0.5"), std::string::npos) << line;
}

TEST(CliMeteor, SeveralReferencesTakeTheBest) {
  for (const auto& r : meteor_records()) {
    if (r["id"] != "nltk-doc-hyp2") continue;
    std::vector<std::string> args{"metric", "meteor", "--sentence", "--json", "-i",
                                  write_lines("multi.hyp", {r["hyp"].get<std::string>()})};
    for (std::size_t k = 0; k < r["refs"].size(); ++k)
      args.insert(args.end(), {"-r", write_lines(fmt::format("multi{}.ref", k), {r["refs"][k].get<std::string>()})});
    EXPECT_NEAR(json_lines(run_ok(args)).at(0)["score"].get<double>(), r["score"].get<double>(), 1e-12);
  }
}

TEST(CliWordVectors, WmdAndCosineMatchTheGoldenLineByLine) {
  std::vector<std::string> t1, t2;
  std::vector<const json*> records;
  for (const auto& r : wmd_records()) {
    if (r["text1"].get<std::string>().empty()) continue;
    t1.push_back(r["text1"].get<std::string>());
    t2.push_back(r["text2"].get<std::string>());
    records.push_back(&r);
  }
  const auto hyp = write_lines("wmd.hyp", t1), ref = write_lines("wmd.ref", t2);
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs{
      {{"wmd"}, "wmd_raw_vectors"}, {{"wmd", "--unit-vectors"}, "wmd_unit_vectors"}, {{"wvcos"}, "cosine_mean_vectors"}};
  for (const auto& [extra, field] : runs) {
    SCOPED_TRACE(field);
    std::vector<std::string> args{"metric"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"-i", hyp, "-r", ref, "--vectors", vectors_file(), "--sentence", "--json"});
    const auto rows = json_lines(run_ok(args));
    ASSERT_EQ(rows.size(), records.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& expected = (*records[i])[field];
      if (expected.is_null() || expected == "Infinity")
        EXPECT_TRUE(rows[i]["score"].is_null()) << i;
      else
        EXPECT_NEAR(rows[i]["score"].get<double>(), expected.get<double>(), 1e-9) << i;
    }
  }
}

TEST(CliWordVectors, CorpusMeanLeavesOutLinesWithoutVocabulary) {
  const auto hyp = write_lines("mean.hyp", {"cat", "xyzzy plugh"});
  const auto ref = write_lines("mean.ref", {"dog", "the cat"});
  const auto j = json::parse(run_ok({"metric", "wmd", "-i", hyp, "-r", ref, "--vectors", vectors_file(), "--json"}));
  double single_diff = 0;
  for (const auto& r : wmd_records())
    if (r["id"] == "single-diff") single_diff = r["wmd_raw_vectors"].get<double>();
  EXPECT_NEAR(j["score"].get<double>(), single_diff, 1e-9);
  EXPECT_EQ(j["segments"], 2);
  EXPECT_EQ(j["undefined_segments"], 1);
  const auto text = run_ok({"metric", "wmd", "-i", hyp, "-r", ref, "--vectors", vectors_file()});
  EXPECT_NE(text.find("1 left out"), std::string::npos) << text;
  EXPECT_NE(text.find("vectors:wordvecs.vec|dim:8|words:59"), std::string::npos) << text;
}

TEST(CliMeteorWmd, OutputFileIsWrittenWhole) {
  const auto hyp = write_lines("out.hyp", {"the cat sat"});
  const auto out = test::temp_dir() + "/scores.txt";
  run_ok({"metric", "meteor", "-i", hyp, "--source", hyp, "--sentence", "-o", out});
  EXPECT_EQ(test::read_file(out), "0.9815\n");
}

// Issue 28: --empty reference scores an empty hypothesis as the reference implementations do:
// NLTK's METEOR 0, gensim's WMD infinity, the cosine of an empty mean undefined (both left out of
// the corpus mean).
TEST(CliMeteorWmd, EmptyReferenceScoresAsTheReferenceImplementations) {
  const auto blank = write_lines("blank_ok.txt", {"the cat", "  "});
  const auto refs = write_lines("refs_ok.txt", {"the cat", "a dog"});
  EXPECT_EQ(run_ok({"metric", "meteor", "-i", blank, "-r", refs, "--sentence", "--empty", "reference"}).substr(7),
            "0.0000\n");
  EXPECT_EQ(run_ok({"metric", "wmd", "-i", blank, "-r", refs, "--vectors", vectors_file(), "--sentence", "--empty",
                    "reference"})
                .substr(7),
            "inf\n");
  EXPECT_EQ(run_ok({"metric", "wvcos", "-i", blank, "-r", refs, "--vectors", vectors_file(), "--sentence", "--empty",
                    "reference"})
                .substr(7),
            "nan\n");
}

TEST(CliMeteorWmd, BadInputGivesOneClearLine) {
  const auto two = write_lines("two.txt", {"the cat", "a dog"});
  const auto one = write_lines("one.txt", {"the cat"});
  const auto blank = write_lines("blank.txt", {"the cat", "  "});
  const auto bad_vectors = write_lines("bad.vec", {"2 8", "cat 1 2 3 4 5 6 7 8", "dog 1 2 3"});
  expect_error({"metric", "meteor", "-i", two, "-r", one}, one + " has 1 lines but " + two + " has 2");
  expect_error({"metric", "wmd", "-i", one, "-r", two, "--vectors", vectors_file()}, "has 2 lines but");
  expect_error({"metric", "meteor", "-i", blank, "-r", two}, blank + ":2: empty hypothesis");
  expect_error({"metric", "wvcos", "-i", blank, "-r", two, "--vectors", vectors_file()}, blank + ":2: empty hypothesis");
  expect_error({"metric", "wmd", "-i", blank, "-r", two, "--vectors", vectors_file(), "--empty", "error"},
               blank + ":2: empty hypothesis");
  expect_error({"metric", "meteor", "-i", two, "-r", two, "--wordnet", "/nonexistent/wn"},
               "/nonexistent/wn/data.noun: WordNet database file not found; install Debian's wordnet-base");
  expect_error({"metric", "wmd", "-i", two, "-r", two, "--vectors", bad_vectors}, bad_vectors + ":3: expected a word and 8 values");
  expect_error({"metric", "wmd", "-i", two, "-r", two, "--vectors", "/nonexistent.vec"}, "/nonexistent.vec: word vectors file not found");
  expect_error({"metric", "meteor", "-i", two, "-r", two, "--nltk", "3.7"}, "--nltk must be 3.8 or 3.6.2");
  expect_error({"metric", "meteor", "-i", two}, "give --ref FILE or --source FILE");
  expect_error({"metric", "wmd", "-i", two, "-r", two, "-r", two, "--vectors", vectors_file()}, "give one --ref FILE");
}

TEST(CliMeteorWmd, AnErrorWhileScoringNamesTheHypothesisLine) {
  const auto [vectors, long_line] = test::write_many_words(1100);
  const auto texts = write_lines("long.txt", {"w1 w2", long_line});
  expect_error({"metric", "wmd", "-i", texts, "-r", texts, "--vectors", vectors},
               texts + ":2: word mover's distance: 1100 x 1100 unique words");
}

TEST(CliMeteorWmd, OutputDoesNotDependOnThreads) {
  const auto files = meteor_files();
  const std::vector<std::vector<std::string>> metrics{{"meteor"}, {"wmd", "--vectors", vectors_file()}};
  for (const auto& metric : metrics) {
    std::vector<std::string> args{"metric"};
    args.insert(args.end(), metric.begin(), metric.end());
    args.insert(args.end(), {"-i", files.hyp, "-r", files.ref, "--sentence", "--json"});
    auto one = args, three = args;
    one.insert(one.end(), {"--threads", "1"});
    three.insert(three.end(), {"--threads", "3"});
    const auto serial = run_ok(one);
    EXPECT_EQ(std::count(serial.begin(), serial.end(), '\n'), static_cast<std::ptrdiff_t>(files.records.size()));
    EXPECT_EQ(serial, run_ok(three));
  }
}
