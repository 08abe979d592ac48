// The conventions every command follows (docs/cli.md), in both binaries: the front `invar` and
// `invar-full` (tools/hand_over.hpp). Global options work before or after the command's name, usage
// errors exit 2 and runtime errors 1 (never CLI11's own 105/106/109), -V prints the version.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <utility>
#include <string>
#include <vector>

#include "core/version.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using invar::test::CliResult;
using invar::test::run_program;

const std::string kFull = (fs::path(INVAR_CLI).parent_path() / "invar-full").string();

class CliConventions : public ::testing::TestWithParam<std::string> {
 protected:
  CliResult run(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), GetParam());
    return run_program(args, input);
  }
};

std::string file_with(const std::string& name, const std::string& content) {
  const std::string path = invar::test::temp_dir() + "/" + name;
  invar::test::write_file(path, content);
  return path;
}

const std::string kHypotheses = "the cat sat on the mat\na dog barked at night\n";
const std::string kReferences = "the cat sat on a mat\nthe dog barked in the night\n";

std::string encoder() { return invar::test::fixture("core/bert-wordpiece"); }

TEST_P(CliConventions, VersionFlagPrintsTheVersion) {
  for (const char* flag : {"-V", "--version"}) {
    const auto result = run({flag});
    EXPECT_EQ(result.exit_code, 0) << flag << ": " << result.err;
    EXPECT_EQ(result.out, std::string("invar ") + invar::kVersion + "\n") << flag;
  }
}

// What argparse, sacrebleu and most Unix tools do: 2 for a command line that cannot be parsed.
TEST_P(CliConventions, UsageErrorsExitTwo) {
  const auto hyp = file_with("hyp.txt", kHypotheses), ref = file_with("ref.txt", kReferences);
  const std::vector<std::vector<std::string>> cases = {
      {},                                                        // no command (CLI11: 106)
      {"no-such-command"},                                       // (109)
      {"metric", "bleu", "-r", ref, "-i", hyp, "--no-such-option"},  // (109)
      {"metric", "bleu", "-r", ref, "-i", hyp, "-w", "two"},     // a value of the wrong type (105)
      {"metric", "bertscore", "-m", encoder(), "-i", hyp},       // a required option (-r) missing (106)
      {"embed", "-i", hyp},                                      // -m missing, in a command of invar-full
      {"embed", "-m", encoder(), "-i", hyp, "--threads", "many"},
  };
  for (const auto& args : cases) {
    const auto result = run(args);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    EXPECT_EQ(result.exit_code, 2) << shown << "\n" << result.err;
    EXPECT_FALSE(result.err.empty()) << shown;
  }
}

TEST_P(CliConventions, RuntimeErrorsExitOne) {
  const auto hyp = file_with("hyp.txt", kHypotheses);
  const auto missing = invar::test::temp_dir() + "/missing.txt";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"metric", "bleu", "-r", missing, "-i", hyp}, {"embed", "-m", missing, "-i", hyp}}) {
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 1) << args[0] << ": " << result.err;
    EXPECT_NE(result.err.find("invar: error: "), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(missing), std::string::npos) << result.err;
  }
}

// -q, --json, --threads, --device: the same run whether given before or after the command's name.
// The provenance's date is now, or SOURCE_DATE_EPOCH's (reproducible-builds.org) where it is set;
// a malformed value is a runtime error naming the variable, whatever the command.
TEST_P(CliConventions, SourceDateEpochFixesTheProvenanceDate) {
  const auto hyp = file_with("hyp.txt", kHypotheses), ref = file_with("ref.txt", kReferences);
  const std::vector<std::string> bleu{"metric", "bleu", "-r", ref, "-i", hyp, "--json"};
  const auto date_of = [](const CliResult& r) {
    const std::string key = "\"date\": \"";
    const auto at = r.out.find(key);
    return at == std::string::npos ? std::string("(none)") : r.out.substr(at + key.size(), 20);
  };
  const char* before = std::getenv("SOURCE_DATE_EPOCH");
  const std::string saved = before ? before : "";
  setenv("SOURCE_DATE_EPOCH", "0", 1);
  EXPECT_EQ(date_of(run(bleu)), "1970-01-01T00:00:00Z");
  setenv("SOURCE_DATE_EPOCH", "1795000000", 1);
  const auto first = run(bleu);
  EXPECT_EQ(date_of(first), "2026-11-18T11:06:40Z");
  EXPECT_EQ(run(bleu).out, first.out);  // byte for byte
  for (const char* bad : {"", "yesterday", "-1", "1.5", "17950000000000"}) {
    setenv("SOURCE_DATE_EPOCH", bad, 1);
    const auto refused = run(bleu);
    EXPECT_EQ(refused.exit_code, 1) << bad;
    std::string named = "SOURCE_DATE_EPOCH: '";
    named.append(bad).append("'");
    EXPECT_NE(refused.err.find(named), std::string::npos) << refused.err;
    EXPECT_EQ(refused.out, "") << bad;
  }
  unsetenv("SOURCE_DATE_EPOCH");
  const auto now = run(bleu);
  ASSERT_EQ(now.exit_code, 0) << now.err;
  EXPECT_EQ(date_of(now).size(), 20u);
  EXPECT_NE(date_of(now), "2026-11-18T11:06:40Z");
  EXPECT_GE(date_of(now), "2026-11-27T00:00:00Z");  // ISO 8601 orders as text
  if (before) setenv("SOURCE_DATE_EPOCH", saved.c_str(), 1);
}

TEST_P(CliConventions, GlobalOptionsGoBeforeOrAfterTheCommand) {
  const auto hyp = file_with("hyp.txt", kHypotheses), ref = file_with("ref.txt", kReferences);
  const auto bleu = run({"metric", "bleu", "-r", ref, "-i", hyp, "--json"});
  ASSERT_EQ(bleu.exit_code, 0) << bleu.err;
  ASSERT_NE(bleu.out.find("\"score\""), std::string::npos) << bleu.out;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--json", "metric", "bleu", "-r", ref, "-i", hyp},
           {"-q", "--json", "metric", "bleu", "-r", ref, "-i", hyp},
           {"metric", "bleu", "-r", ref, "-i", hyp, "--json", "-q"},
           {"--threads", "1", "--json", "metric", "bleu", "-r", ref, "-i", hyp},
           {"--threads=1", "metric", "bleu", "--json", "-r", ref, "-i", hyp, "--quiet"}}) {
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 0) << args[0] << ": " << result.err;
    // The same result; the provenance names each command line as typed.
    EXPECT_EQ(invar::test::without_provenance(result.out), invar::test::without_provenance(bleu.out)) << args[0];
  }

  const auto embedded = run({"embed", "-m", encoder(), "-i", hyp, "--threads", "1", "--device", "cpu"});
  ASSERT_EQ(embedded.exit_code, 0) << embedded.err;
  ASSERT_NE(embedded.out.find("\"embedding\""), std::string::npos);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--threads", "1", "--device", "cpu", "embed", "-m", encoder(), "-i", hyp},
           {"--device=cpu", "embed", "-m", encoder(), "-i", hyp, "--threads", "1", "-q"},
           {"-q", "--threads", "1", "embed", "-m", encoder(), "-i", hyp, "--device", "cpu"}}) {
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 0) << args[0] << ": " << result.err;
    EXPECT_EQ(result.out, embedded.out) << args[0];
  }
}

// A global option that the command does not have is a usage error, wherever it stands.
TEST_P(CliConventions, AGlobalOptionTheCommandLacksIsAUsageError) {
  const auto hyp = file_with("hyp.txt", kHypotheses), ref = file_with("ref.txt", kReferences);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--device", "cpu", "metric", "bleu", "-r", ref, "-i", hyp},
           {"metric", "bleu", "-r", ref, "-i", hyp, "--device", "cpu"}}) {
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, 2) << args[0] << ": " << result.err;
    EXPECT_NE(result.err.find("--device"), std::string::npos) << result.err;
  }
}

// One name per concept (docs/cli.md, Names): the model is -m everywhere (info and convert also take
// it positionally), the hypotheses -i/--hyp, the input and output of tokenize -i/-o, a pair input
// --pairs; the older spellings stay.
TEST_P(CliConventions, OneNamePerConcept) {
  const auto hyp = file_with("hyp.txt", kHypotheses), ref = file_with("ref.txt", kReferences);
  const auto info = run({"info", encoder(), "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  ASSERT_NE(info.out.find('{'), std::string::npos);
  const auto info_m = run({"info", "-m", encoder(), "--json"});
  EXPECT_EQ(info_m.exit_code, 0) << info_m.err;
  EXPECT_EQ(info_m.out, info.out);

  const std::string converted = invar::test::temp_dir() + "/m.invar";
  const auto convert = run({"convert", "-m", encoder(), "-o", converted});
  EXPECT_EQ(convert.exit_code, 0) << convert.err;
  EXPECT_TRUE(fs::exists(converted));

  const std::vector<std::string> bertscore{"-q", "metric", "bertscore", "-m", encoder(), "--layer", "2", "-r", ref};
  auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const auto by_input = run(with(bertscore, {"--input", hyp}));
  ASSERT_EQ(by_input.exit_code, 0) << by_input.err;
  EXPECT_EQ(run(with(bertscore, {"--hyp", hyp})).out, by_input.out);
  EXPECT_EQ(run(with(bertscore, {"-i", hyp})).out, by_input.out);

  const std::string pairs = file_with("pairs.txt", "a b\tc d\n");
  const auto tokenized = run({"tokenize", "-m", encoder(), "--pairs", "-i", pairs});
  ASSERT_EQ(tokenized.exit_code, 0) << tokenized.err;
  EXPECT_NE(tokenized.out.find("\"type_ids\""), std::string::npos);
  EXPECT_EQ(run({"tokenize", "-m", encoder(), "--pair", "--input", pairs}).out, tokenized.out);
  const std::string output = invar::test::temp_dir() + "/tokens.jsonl";
  EXPECT_EQ(run({"tokenize", "-m", encoder(), "--pairs", "-o", output}, "a b\tc d\n").exit_code, 0);
  std::ifstream written(output);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(written), {}), tokenized.out);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Truncation of what a model reads is --max-input-tokens in every command that has it; the older
// --max-length (an output length in generate and translate) still means truncation there.
TEST_P(CliConventions, MaxInputTokensTruncatesAndMaxLengthStaysItsAlias) {
  const auto hyp = file_with("hyp.txt", kHypotheses), ref = file_with("ref.txt", kReferences);
  const std::vector<std::vector<std::string>> commands = {
      {"-q", "embed", "-m", encoder(), "-i", hyp},
      {"-q", "tokenize", "-m", encoder(), "-i", hyp},
      {"-q", "metric", "bertscore", "-m", encoder(), "--layer", "2", "-i", hyp, "-r", ref, "--sentence"},
  };
  for (const auto& command : commands) {
    auto with = [&](const std::vector<std::string>& more) {
      auto args = command;
      args.insert(args.end(), more.begin(), more.end());
      return run(args);
    };
    const auto whole = with({});
    const auto cut = with({"--max-input-tokens", "4"});
    ASSERT_EQ(whole.exit_code, 0) << command[1] << ": " << whole.err;
    ASSERT_EQ(cut.exit_code, 0) << command[1] << ": " << cut.err;
    EXPECT_NE(cut.out, whole.out) << command[1] << ": four tokens cut every line of the input";
    const auto old = with({"--max-length", "4"});
    EXPECT_EQ(old.exit_code, 0) << command[1] << ": " << old.err;
    EXPECT_EQ(old.out, cut.out) << command[1];
  }
}

// metric bertscore --source compares the hypotheses with their sources in place of references, as
// the other metrics' --source: the same numbers as -r with that file, said to be compared with the
// source. One of -r and --source is required (a usage error, as -r alone was), not both.
TEST_P(CliConventions, BertscoreTakesSourceAsTheOtherMetrics) {
  const auto hyp = file_with("hyp.txt", kHypotheses), src = file_with("src.txt", kReferences);
  const std::vector<std::string> bertscore{"-q", "metric", "bertscore", "-m", encoder(), "--layer", "2", "-i", hyp,
                                           "--json"};
  auto with = [&](const std::vector<std::string>& more) {
    auto args = bertscore;
    args.insert(args.end(), more.begin(), more.end());
    return run(args);
  };
  const auto by_ref = with({"-r", src}), by_source = with({"--source", src});
  ASSERT_EQ(by_ref.exit_code, 0) << by_ref.err;
  ASSERT_EQ(by_source.exit_code, 0) << by_source.err;
  EXPECT_NE(by_ref.out.find(R"("compared_with": "references")"), std::string::npos) << by_ref.out;
  auto self = by_source.out;
  const auto at = self.find(R"("compared_with": "source")");
  ASSERT_NE(at, std::string::npos) << self;
  self.replace(at, std::string(R"("compared_with": "source")").size(), R"("compared_with": "references")");
  EXPECT_EQ(invar::test::without_provenance(self), invar::test::without_provenance(by_ref.out));
  EXPECT_EQ(with({"-r", src, "--source", src}).exit_code, 2);
  const auto neither = with({});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_NE(neither.err.find("--source"), std::string::npos) << neither.err;
}

// --csv and --latex take a FILE in every command (robustness and metamorphic write the form beside
// their tables); where the form is the whole output, --csv FILE is --csv -o FILE, and --csv alone
// (the older switch) writes it to -o or standard output.
TEST_P(CliConventions, CsvAndLatexTakeAFileAndStayASwitch) {
  const auto hyp = file_with("hyp.txt", kHypotheses), ref = file_with("ref.txt", kReferences);
  const std::vector<std::string> bertscore{"-q", "metric", "bertscore", "-m", encoder(), "--layer", "2", "-i", hyp,
                                           "-r", ref, "--sentence"};
  const auto inputs = file_with("informal.txt", "hello there\nhow are you\n");
  const auto outputs = file_with("outputs.txt", "hello there friend\nhow are you doing\n");
  const std::vector<std::string> st_eval{"-q", "st-eval", "--inputs", inputs, "--system", "a=" + outputs, "-r", ref};
  for (const auto& [command, form] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {bertscore, "--csv"}, {st_eval, "--csv"}, {st_eval, "--latex"}}) {
    auto with = [&](const std::vector<std::string>& more) {
      auto args = command;
      args.insert(args.end(), more.begin(), more.end());
      return run(args);
    };
    const auto to_stdout = with({form});
    ASSERT_EQ(to_stdout.exit_code, 0) << command[1] << " " << form << ": " << to_stdout.err;
    ASSERT_FALSE(to_stdout.out.empty());
    const std::string file = invar::test::temp_dir() + "/form" + form;
    const auto to_file = with({form, file});
    ASSERT_EQ(to_file.exit_code, 0) << command[1] << " " << form << ": " << to_file.err;
    EXPECT_TRUE(to_file.out.empty()) << to_file.out;
    // The same output, apart from the provenance's command line and date.
    const auto expected = invar::test::without_provenance(to_stdout.out);
    EXPECT_EQ(invar::test::without_provenance(read_all(file)), expected) << command[1] << " " << form;
    const std::string by_output = invar::test::temp_dir() + "/by-output" + form;
    EXPECT_EQ(with({form, "-o", by_output}).exit_code, 0);
    EXPECT_EQ(invar::test::without_provenance(read_all(by_output)), expected) << command[1] << " " << form;
    const auto both = with({form, file, "-o", by_output});
    EXPECT_EQ(both.exit_code, 2) << command[1] << " " << form;
    EXPECT_NE(both.err.find("-o/--output"), std::string::npos) << both.err;
  }
}

// A shard's --csv FILE is its partial result, and merge gives the CSV of the whole run: the command
// line a part records has the bare --csv (its FILE names the output, as --output does, which
// merge's -o replaces).
TEST_P(CliConventions, CsvFileShardsMergeIntoTheCsvOfTheWholeRun) {
  const auto ref = file_with("ref.txt", kReferences);
  const auto inputs = file_with("informal.txt", "hello there\nhow are you\n");
  const auto outputs = file_with("outputs.txt", "hello there friend\nhow are you doing\n");
  const std::vector<std::string> st_eval{"-q", "st-eval", "--inputs", inputs, "--system", "a=" + outputs, "-r", ref};
  auto with = [&](const std::vector<std::string>& more) {
    auto args = st_eval;
    args.insert(args.end(), more.begin(), more.end());
    return run(args);
  };
  const auto whole = with({"--csv"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string dir = invar::test::temp_dir();
  for (const char* k : {"0", "1"}) {
    const auto part = with({"--csv", dir + "/part." + k, "--shard", std::string(k) + "/2"});
    ASSERT_EQ(part.exit_code, 0) << part.err;
  }
  const auto merged = run({"-q", "merge", dir + "/part.0", dir + "/part.1"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(invar::test::without_provenance(merged.out), invar::test::without_provenance(whole.out));
}

// -w is the number of decimals in every metric's text output; each metric's default is the habit of
// the implementation it reproduces (docs/cli.md): sacrebleu's 1, bert_score's 6.
TEST_P(CliConventions, WidthIsTheDecimalsOfEveryMetric) {
  const auto hyp = file_with("hyp.txt", kHypotheses), ref = file_with("ref.txt", kReferences);
  const std::vector<std::string> bleu{"metric", "bleu", "-i", hyp, "-r", ref, "-b"};
  const std::vector<std::string> bertscore{"-q", "metric", "bertscore", "-m", encoder(), "--layer", "2", "-i", hyp,
                                           "-r", ref};
  auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const std::regex one_decimal(R"(\d+\.\d\n)"), two_decimals(R"(\d+\.\d\d\n)");
  EXPECT_TRUE(std::regex_match(run(bleu).out, one_decimal)) << run(bleu).out;
  EXPECT_TRUE(std::regex_match(run(with(bleu, {"-w", "2"})).out, two_decimals));
  const auto six = run(bertscore);
  ASSERT_EQ(six.exit_code, 0) << six.err;
  EXPECT_TRUE(std::regex_search(six.out, std::regex(R"( P: 0\.\d{6} R: 0\.\d{6} F1: 0\.\d{6}\n$)"))) << six.out;
  EXPECT_EQ(run(with(bertscore, {"-w", "6"})).out, six.out);
  const auto two = run(with(bertscore, {"--width", "2"}));
  EXPECT_TRUE(std::regex_search(two.out, std::regex(R"( P: 0\.\d\d R: 0\.\d\d F1: 0\.\d\d\n$)"))) << two.out;
  EXPECT_EQ(run(with(bertscore, {"-w", "18"})).exit_code, 2);
}

// st-eval names references -r/--ref and empty outputs --empty as the metrics do; robustness expand
// names its output's format --output-format as embed does. The older spellings stay.
TEST_P(CliConventions, OlderSpellingsGiveTheSameRun) {
  const auto ref = file_with("ref.txt", kReferences);
  const auto inputs = file_with("informal.txt", "hello there\nhow are you\n");
  const auto outputs = file_with("outputs-empty.txt", "hello there friend\n\n");
  const std::vector<std::string> st_eval{"-q", "st-eval", "--inputs", inputs, "--system", "a=" + outputs, "--json"};
  auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const auto older = run(with(st_eval, {"--ref", ref, "--empty-as-zero"}));
  ASSERT_EQ(older.exit_code, 0) << older.err;
  const auto newer = run(with(st_eval, {"-r", ref, "--empty", "reference"}));
  EXPECT_EQ(newer.exit_code, 0) << newer.err;
  EXPECT_EQ(invar::test::without_provenance(newer.out), invar::test::without_provenance(older.out));
  const auto refused = run(with(st_eval, {"-r", ref, "--empty", "error"}));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("empty system output"), std::string::npos) << refused.err;

  const auto expanded = run({"-q", "robustness", "expand", "--bundled", "--output-format", "jsonl"});
  ASSERT_EQ(expanded.exit_code, 0) << expanded.err;
  EXPECT_EQ(expanded.out.front(), '{');
  EXPECT_EQ(run({"-q", "robustness", "expand", "--bundled", "--format", "jsonl"}).out, expanded.out);
}

// --help lists each name with its older spelling, so that neither is a secret.
TEST_P(CliConventions, HelpListsEachNameWithItsAliases) {
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {{"embed"}, {"--max-input-tokens,--max-length"}},
      {{"pll"}, {"--max-input-tokens,--max-length"}},
      {{"tokenize"}, {"--max-input-tokens,--max-length", "--pairs,--pair", "-i,--input", "-o,--output"}},
      {{"metric", "bertscore"}, {"--max-input-tokens,--max-length", "--source", "--csv [FILE]", "--hyp"}},
      {{"st-eval"}, {"-r,--ref", "--csv [FILE]", "--latex [FILE]", "--empty", "--empty-as-zero"}},
      {{"isometry"}, {"--detector-max-input-tokens,--detector-max-length"}},
      {{"robustness", "expand"}, {"--output-format,--format", "-o,--output"}},
      {{"robustness", "score"}, {"--csv", "--latex", "-o,--output"}},
      {{"metamorphic", "compositionality"}, {"-C,--C", "-o,--output"}},
      {{"generate"}, {"--max-length", "--max-new-tokens"}},
  };
  for (const auto& [command, names] : cases) {
    auto args = command;
    args.push_back("--help");
    const auto help = run(args);
    ASSERT_EQ(help.exit_code, 0) << command[0] << ": " << help.err;
    for (const auto& name : names) EXPECT_NE(help.out.find("  " + name + " "), std::string::npos) << command[0] << " " << name;
  }
}

INSTANTIATE_TEST_SUITE_P(BothBinaries, CliConventions, ::testing::Values(std::string(INVAR_CLI), kFull),
                         [](const auto& info) { return fs::path(info.param).filename() == "invar" ? "front" : "full"; });

}  // namespace
