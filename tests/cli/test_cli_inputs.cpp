// Every command that reads texts reads plain lines, TSV, CSV and JSONL alike (tools/text_input.hpp):
// the same texts in any format give the output of the plain lines, byte for byte; a text column
// absent from the file is an error naming file, line and column; the metrics read their hypotheses
// from standard input when none are named, as sacrebleu does.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.hpp"

using namespace invar;

namespace {

using Args = std::vector<std::string>;

std::string model(const std::string& name) { return test::fixture("core/" + name); }

std::string file_with(const std::string& name, const std::string& content) {
  const std::string path = test::temp_dir() + "/" + name;
  test::write_file(path, content);
  return path;
}

Args with(Args args, const Args& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The texts, with a comma and quotes that CSV must unquote, in each format.
const std::vector<std::string> kTexts = {"the cat sat on the mat", "a \"quoted\", text", "another short line"};

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

std::string csv_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string json_string(const std::string& text) { return nlohmann::json(text).dump(); }

// One input file of kTexts and the options that read it.
struct Form {
  std::string name;
  std::string path;
  Args options;
};

std::vector<Form> single_text_forms() {
  std::string tsv, tsv_header = "id\ttext\n", csv = "id,text\n", csv_plain, jsonl, jsonl_key;
  for (std::size_t i = 0; i < kTexts.size(); ++i) {
    const auto& t = kTexts[i];
    tsv += t + "\tignored\n";
    tsv_header += std::to_string(i) + "\t" + t + "\n";
    csv += std::to_string(i) + "," + csv_quoted(t) + "\n";
    csv_plain += csv_quoted(t) + ",x\n";
    jsonl += R"({"id": )" + std::to_string(i) + R"(, "text": )" + json_string(t) + "}\n";
    jsonl_key += R"({"sentence": )" + json_string(t) + R"(, "text": "not this"})" + "\n";
  }
  return {
      {"tsv, column 1", file_with("in.tsv", tsv), {}},
      {"tsv, header name", file_with("named.tsv", tsv_header), {"--column", "text"}},
      {"csv, header name", file_with("in.csv", csv), {"--column", "text"}},
      {"csv, --header and number", file_with("numbered.csv", csv), {"--header", "--column", "2"}},
      {"csv without header", file_with("plain.csv", csv_plain), {}},
      {"jsonl", file_with("in.jsonl", jsonl), {}},
      {"jsonl, --text-field", file_with("key.jsonl", jsonl_key), {"--text-field", "sentence"}},
      {"--input-format csv", file_with("in.dat", csv), {"--input-format", "csv", "--column", "text"}},
      {"--input-format jsonl", file_with("in.data", jsonl), {"--input-format", "jsonl"}},
  };
}

// Second texts of the pairs.
const std::vector<std::string> kSeconds = {"a cat sat", "the \"other\", side", "one more"};

std::vector<Form> pair_forms(const std::string& first_key, const std::string& second_key) {
  std::string text, csv = "premise,hypothesis\n", tsv, jsonl;
  for (std::size_t i = 0; i < kTexts.size(); ++i) {
    text += kTexts[i] + "\t" + kSeconds[i] + "\n";
    csv += csv_quoted(kTexts[i]) + "," + csv_quoted(kSeconds[i]) + "\n";
    tsv += kSeconds[i] + "\tignored\t" + kTexts[i] + "\n";
    jsonl += "{\"" + second_key + "\": " + json_string(kSeconds[i]) + ", \"" + first_key + "\": " +
             json_string(kTexts[i]) + "}\n";
  }
  return {
      {"tsv", file_with("pairs.tsv", text), {}},
      {"tsv, columns 3,1", file_with("three.tsv", tsv), {"--column", "3,1"}},
      {"csv, header names", file_with("pairs.csv", csv), {"--column", "premise,hypothesis"}},
      {"csv, --header", file_with("pairs-header.csv", csv), {"--header"}},
      {"jsonl", file_with("pairs.jsonl", jsonl), {}},
      {"--input-format jsonl", file_with("pairs.data", jsonl), {"--input-format", "jsonl"}},
  };
}

// A command over the texts: how it is run, and how its plain-line input is written.
struct Command {
  std::string name;
  Args args;
};

std::vector<Command> single_text_commands() {
  const Args model_flags{"--threads", "1"};
  return {
      {"embed", with({"-q", "embed", "-m", model("bert-wordpiece")}, model_flags)},
      {"hidden", with({"-q", "hidden", "-m", model("bert-wordpiece"), "--layer", "1"}, model_flags)},
      {"classify", with({"-q", "classify", "-m", model("distilbert-sst2")}, model_flags)},
      {"pll", with({"-q", "pll", "-m", model("bert-mlm")}, model_flags)},
      {"tokenize", {"tokenize", "-m", model("bert-wordpiece")}},
      {"translate", with({"-q", "translate", "-m", model("marian"), "--beam", "1", "--max-length", "8"}, model_flags)},
      {"generate", with({"-q", "generate", "-m", model("marian"), "--beam", "2", "--max-length", "8"}, model_flags)},
  };
}

std::vector<Command> pair_commands() {
  const Args model_flags{"--threads", "1"};
  return {
      {"similarity", with({"-q", "similarity", "-m", model("bert-wordpiece")}, model_flags)},
      {"classify --pairs", with({"-q", "classify", "-m", model("bert-pair-cls"), "--pairs"}, model_flags)},
      {"tokenize --pairs", {"tokenize", "-m", model("bert-pair-cls"), "--pairs"}},
  };
}

test::CliResult expect_success(const Args& args, const std::string& input = "") {
  auto result = test::run_cli(args, input);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result;
}

}  // namespace

// Plain lines from a file, from standard input and from "-i -" give the same bytes; each format
// of the same texts gives them too.
TEST(CliInputs, EveryFormatReadsTheSameTexts) {
  const std::string text_file = file_with("in.txt", joined(kTexts));
  const auto forms = single_text_forms();
  for (const auto& command : single_text_commands()) {
    SCOPED_TRACE(command.name);
    const auto expected = expect_success(with(command.args, {"-i", text_file}));
    ASSERT_EQ(expected.exit_code, 0);
    ASSERT_FALSE(expected.out.empty());
    EXPECT_EQ(std::count(expected.out.begin(), expected.out.end(), '\n'), static_cast<long>(kTexts.size()));
    EXPECT_EQ(expect_success(command.args, joined(kTexts)).out, expected.out) << "standard input";
    EXPECT_EQ(expect_success(with(command.args, {"-i", "-"}), joined(kTexts)).out, expected.out) << "-i -";
    for (const auto& form : forms) {
      SCOPED_TRACE(form.name);
      const auto result = expect_success(with(with(command.args, {"-i", form.path}), form.options));
      EXPECT_EQ(result.out, expected.out);
    }
  }
}

TEST(CliInputs, EveryFormatReadsTheSamePairs) {
  std::string lines;
  for (std::size_t i = 0; i < kTexts.size(); ++i) lines += kTexts[i] + "\t" + kSeconds[i] + "\n";
  const std::string text_file = file_with("pairs.txt", lines);
  const auto forms = pair_forms("text", "text_pair");
  for (const auto& command : pair_commands()) {
    SCOPED_TRACE(command.name);
    const auto expected = expect_success(with(command.args, {"-i", text_file}));
    ASSERT_EQ(expected.exit_code, 0);
    EXPECT_EQ(std::count(expected.out.begin(), expected.out.end(), '\n'), static_cast<long>(kTexts.size()));
    EXPECT_EQ(expect_success(command.args, lines).out, expected.out) << "standard input";
    for (const auto& form : forms) {
      SCOPED_TRACE(form.name);
      EXPECT_EQ(expect_success(with(with(command.args, {"-i", form.path}), form.options)).out, expected.out);
    }
  }
}

// score's pairs are a source and a target: JSONL keys "source" and "target".
TEST(CliInputs, ScoreReadsEveryFormat) {
  std::string lines;
  for (std::size_t i = 0; i < kTexts.size(); ++i) lines += kTexts[i] + "\t" + kSeconds[i] + "\n";
  const Args score{"-q", "score", "-m", model("marian"), "--threads", "1"};
  const auto expected = expect_success(with(score, {"-i", file_with("score.txt", lines)}));
  ASSERT_EQ(expected.exit_code, 0);
  for (const auto& form : pair_forms("source", "target")) {
    SCOPED_TRACE(form.name);
    EXPECT_EQ(expect_success(with(with(score, {"-i", form.path}), form.options)).out, expected.out);
  }
}

// Hypotheses and references of BERTScore in any format; per-line scores show every row was read.
TEST(CliInputs, BertScoreReadsEveryFormat) {
  const Args bertscore{"-q", "metric", "bertscore", "-m", model("bert-wordpiece"), "--layer", "2", "--threads", "1",
                       "--sentence"};
  const std::string refs = file_with("refs.txt", joined(kSeconds));
  const auto expected = expect_success(with(bertscore, {"-i", file_with("hyps.txt", joined(kTexts)), "-r", refs}));
  ASSERT_EQ(expected.exit_code, 0);
  EXPECT_EQ(std::count(expected.out.begin(), expected.out.end(), '\n'), static_cast<long>(kTexts.size()));
  EXPECT_EQ(expect_success(with(bertscore, {"-r", refs}), joined(kTexts)).out, expected.out) << "standard input";
  std::string jsonl_refs;
  for (const auto& t : kSeconds) jsonl_refs += R"({"text": )" + json_string(t) + "}\n";
  const std::string refs_jsonl = file_with("refs.jsonl", jsonl_refs);
  for (const auto& form : single_text_forms()) {
    if (!form.options.empty()) continue;  // the options would apply to the references too
    SCOPED_TRACE(form.name);
    EXPECT_EQ(expect_success(with(bertscore, {"-i", form.path, "-r", refs_jsonl})).out, expected.out);
  }
}

// The chosen text column absent: an error naming the file, the line and the column, and no output.
TEST(CliInputs, AbsentTextColumnIsNamed) {
  const std::string jsonl = file_with("absent.jsonl", R"({"sentence": "a"})" "\n");
  const std::string csv = file_with("absent.csv", "id,sentence\n1,a\n");
  const std::string not_string = file_with("number.jsonl", R"({"text": "a"})" "\n" R"({"text": 42})" "\n");
  const std::string pairs = file_with("half.jsonl", R"({"text": "a", "text_pair": "b"})" "\n" R"({"text": "c"})" "\n");
  const std::string short_tsv = file_with("short.tsv", "a\tb\n");
  struct Case {
    Args args;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"embed", "-m", model("bert-wordpiece"), "-i", jsonl}, jsonl + ":1: missing field \"text\""},
      {{"embed", "-m", model("bert-wordpiece"), "-i", jsonl, "--column", "nope"}, jsonl + ":1: missing field \"nope\""},
      {{"tokenize", "-m", model("bert-wordpiece"), "-i", csv, "--column", "text"}, csv + ":1: no column 'text'"},
      {{"pll", "-m", model("bert-mlm"), "-i", not_string}, not_string + ":2: field \"text\" must be a string"},
      {{"similarity", "-m", model("bert-wordpiece"), "-i", pairs}, pairs + ":2: missing field \"text_pair\""},
      {{"hidden", "-m", model("bert-wordpiece"), "-i", short_tsv, "--column", "3"}, short_tsv + ":1: no column 3"},
      {{"translate", "-m", model("marian"), "-i", jsonl}, jsonl + ":1: missing field \"text\""},
      {{"metric", "bertscore", "-m", model("bert-wordpiece"), "--layer", "2", "-i", jsonl, "-r", jsonl},
       jsonl + ":1: missing field \"text\""},
      {{"classify", "-m", model("bert-pair-cls"), "--pairs", "-i", short_tsv, "--input-format", "text"},
       "use tsv, csv or jsonl input"},
      {{"classify", "-m", model("bert-pair-cls"), "-i", short_tsv, "--column", "1,2"},
       "--column: each row holds 1 text"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args[0] + " " + c.args.back());
    const std::string output = test::temp_dir() + "/out.jsonl";
    const auto result = test::run_cli(with(c.args, {"-o", output}));
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_NE(result.err.find(c.message), std::string::npos) << result.err;
    EXPECT_FALSE(std::filesystem::exists(output));
  }
}

// --input-format takes one of four names; anything else is a usage error.
TEST(CliInputs, UnknownInputFormatIsAUsageError) {
  const auto result = test::run_cli({"embed", "-m", model("bert-wordpiece"), "--input-format", "xml"}, "a\n");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("--input-format"), std::string::npos) << result.err;
}

// As sacrebleu: the hypotheses come from standard input when no -i is given, and "-i -" names it.
TEST(CliInputs, MetricsReadHypothesesFromStandardInput) {
  const std::string hyps = joined(kTexts);
  const std::string hyp_file = file_with("hyp.txt", hyps), ref = file_with("ref.txt", joined(kSeconds));
  for (const char* metric : {"bleu", "chrf", "ter"}) {
    SCOPED_TRACE(metric);
    const auto named = expect_success({"metric", metric, "-r", ref, "-i", hyp_file});
    ASSERT_FALSE(named.out.empty());
    EXPECT_EQ(expect_success({"metric", metric, "-r", ref}, hyps).out, named.out);
    EXPECT_EQ(expect_success({"metric", metric, "-r", ref, "-i", "-"}, hyps).out, named.out);
    EXPECT_EQ(expect_success({"metric", metric, "-r", ref, "--sentence"}, hyps).out,
              expect_success({"metric", metric, "-r", ref, "-i", hyp_file, "--sentence"}).out);
  }
  // No hypotheses at all on standard input: a runtime error naming it, not a hang or a score.
  const auto empty = test::run_cli({"metric", "bleu", "-r", ref}, "");
  EXPECT_EQ(empty.exit_code, 1) << empty.err;
  EXPECT_NE(empty.err.find("no lines to score"), std::string::npos) << empty.err;
}
