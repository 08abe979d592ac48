// The conventions every command follows (docs/cli.md), in both binaries: the front `invar` and
// `invar-full` (tools/hand_over.hpp). Global options work before or after the command's name, usage
// errors exit 2 and runtime errors 1 (never CLI11's own 105/106/109), -V prints the version.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
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

INSTANTIATE_TEST_SUITE_P(BothBinaries, CliConventions, ::testing::Values(std::string(INVAR_CLI), kFull),
                         [](const auto& info) { return fs::path(info.param).filename() == "invar" ? "front" : "full"; });

}  // namespace
