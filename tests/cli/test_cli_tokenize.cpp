// `invar tokenize`, `invar info` and `invar convert` run through the built binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

std::vector<nlohmann::json> jsonl(const std::string& text) {
  std::vector<nlohmann::json> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

// Every golden case of a fixture tokenized in one run: ids and tokens (and type ids when the golden
// has them) equal transformers 4.19's.
void expect_golden_tokens(const std::string& model, const std::string& fixture, bool pair) {
  const auto golden = test::load_json(test::fixture(fixture + "/golden.json"))["cases"];
  std::string input;
  for (const auto& item : golden) {
    input += item["text"].get<std::string>();
    if (pair) input.append("\t").append(item["text_pair"].get<std::string>());
    input.append("\n");
  }
  std::vector<std::string> args{"tokenize", "-m", model};
  if (pair) args.push_back("--pair");
  const auto result = test::run_cli(args, input);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = jsonl(result.out);
  ASSERT_EQ(rows.size(), golden.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(golden[i]["text"].get<std::string>());
    EXPECT_EQ(rows[i]["ids"], golden[i]["input_ids"]);
    EXPECT_EQ(rows[i]["tokens"], golden[i]["tokens"]);
    ASSERT_EQ(rows[i]["type_ids"].size(), rows[i]["ids"].size());
    if (golden[i].contains("token_type_ids")) {
      EXPECT_EQ(rows[i]["type_ids"], golden[i]["token_type_ids"]);
    }
  }
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST(CliTokenize, MatchesGoldenIdsOfWordPieceSentencePieceBpeAndMosesBpe) {
  expect_golden_tokens(test::fixture("core/bert-wordpiece"), "core/bert-wordpiece", false);
  expect_golden_tokens(test::fixture("core/xlmr"), "core/xlmr", false);
  expect_golden_tokens(test::fixture("seq2seq/bart"), "seq2seq/bart", false);
  expect_golden_tokens(test::fixture("core/mpnet"), "core/mpnet", false);
  expect_golden_tokens(test::fixture("seq2seq/t5-gated"), "seq2seq/t5-gated", false);
  expect_golden_tokens(test::fixture("seq2seq/fsmt"), "seq2seq/fsmt", false);
}

TEST(CliTokenize, PairsGetSegmentTypeIds) {
  expect_golden_tokens(test::fixture("core/bert-pair-cls"), "core/bert-pair-cls", true);
  expect_golden_tokens(test::fixture("core/mbert-pair-cls"), "core/mbert-pair-cls", true);
}

TEST(CliTokenize, WorksFromAnInvarFileWithFilesInAndOut) {
  const std::string dir = test::temp_dir();
  ASSERT_EQ(test::run_cli({"convert", test::fixture("core/xlmr"), "-o", dir + "/xlmr.invar"}).exit_code, 0);
  expect_golden_tokens(dir + "/xlmr.invar", "core/xlmr", false);

  test::write_file(dir + "/in.txt", "The cat sat on the mat.\r\nThe cat sat on the mat.\n");
  const auto result = test::run_cli({"tokenize", "-m", dir + "/xlmr.invar", "--input", dir + "/in.txt", "--output",
                                     dir + "/out.jsonl", "--max-length", "5"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "");
  const auto rows = jsonl(test::read_file(dir + "/out.jsonl"));
  ASSERT_EQ(rows.size(), 2u);
  // Truncation keeps the special tokens: <s> ▁The ▁cat ▁sat </s>.
  EXPECT_EQ(rows[0]["ids"], nlohmann::json({0, 79, 80, 30, 2}));
  EXPECT_EQ(rows[0]["tokens"], nlohmann::json({"<s>", "▁The", "▁cat", "▁sat", "</s>"}));
  EXPECT_EQ(rows[1], rows[0]);
}

TEST(CliTokenize, InvalidUtf8NamesFileAndLineAndWritesNothing) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/in.txt", "fine\nbroken \xC3\x28 text\n");
  const auto result = test::run_cli({"tokenize", "-m", test::fixture("core/bert-wordpiece"), "--input",
                                     dir + "/in.txt", "--output", dir + "/out.jsonl"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(first_line(result.err), result.err.substr(0, result.err.size() - 1));
  EXPECT_NE(result.err.find(dir + "/in.txt:2: invalid UTF-8"), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.jsonl"));
}

TEST(CliTokenize, PairLineWithoutTabIsNamed) {
  const auto result =
      test::run_cli({"tokenize", "-m", test::fixture("core/bert-pair-cls"), "--pair"}, "a\tb\nc\td\nno tab here\n");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("<stdin>:3: expected 2 columns, found 1"), std::string::npos) << result.err;
  const auto extra = test::run_cli({"tokenize", "-m", test::fixture("core/bert-pair-cls"), "--pair"}, "a\tb\tc\n");
  EXPECT_EQ(extra.exit_code, 1);
  EXPECT_NE(extra.err.find("<stdin>:1: expected 2 columns, found 3"), std::string::npos) << extra.err;
}

TEST(CliTokenize, MissingTokenizerFilesAndUnknownModelTypeAreClearErrors) {
  const std::string weights = test::make_safetensors({{"w", "F32", {1}, test::bytes_of(std::vector<float>{1})}});
  const std::string no_vocab = test::make_model_folder({{"model.safetensors", weights}});
  const auto missing = test::run_cli({"tokenize", "-m", no_vocab}, "text\n");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find(no_vocab + ": missing tokenizer file vocab.txt"), std::string::npos) << missing.err;

  const std::string gpt2 = test::make_model_folder({{"model.safetensors", weights}}, R"({"model_type": "gpt2"})");
  const auto unknown = test::run_cli({"tokenize", "-m", gpt2}, "text\n");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("model_type 'gpt2'"), std::string::npos) << unknown.err;
  EXPECT_EQ(std::count(unknown.err.begin(), unknown.err.end(), '\n'), 1);
}

TEST(CliInfo, DescribesFolderAndInvarFile) {
  const std::string dir = test::temp_dir();
  const std::string folder = test::fixture("seq2seq/bart");
  ASSERT_EQ(test::run_cli({"convert", folder, "-o", dir + "/bart.invar", "--dtype", "f16"}).exit_code, 0);
  const auto config = test::load_json(folder + "/config.json");

  const auto from_folder = test::run_cli({"info", folder, "--json"});
  ASSERT_EQ(from_folder.exit_code, 0) << from_folder.err;
  const auto a = nlohmann::json::parse(from_folder.out);
  EXPECT_EQ(a["format"], "huggingface-folder");
  EXPECT_EQ(a["model_type"], "bart");
  EXPECT_EQ(a["hidden_size"], config["d_model"]);
  EXPECT_EQ(a["encoder_layers"], config["encoder_layers"]);
  EXPECT_EQ(a["decoder_attention_heads"], config["decoder_attention_heads"]);
  EXPECT_EQ(a["vocab_size"], config["vocab_size"]);
  EXPECT_EQ(a["dtypes"], nlohmann::json({{"F32", 95}}));
  EXPECT_EQ(a["checksum"], "none");
  EXPECT_EQ(a["tokenizer"]["algorithm"], "bpe");

  const auto from_file = test::run_cli({"info", dir + "/bart.invar", "--json"});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  const auto b = nlohmann::json::parse(from_file.out);
  EXPECT_EQ(b["format"], "invar");
  EXPECT_EQ(b["dtypes"], nlohmann::json({{"F16", 95}}));
  EXPECT_EQ(b["parameters"], a["parameters"]);
  EXPECT_EQ(b["checksum"], "verified");
  EXPECT_EQ(b["file_size"], std::filesystem::file_size(dir + "/bart.invar"));
  EXPECT_EQ(b["tokenizer"], a["tokenizer"]);

  const auto table = test::run_cli({"info", dir + "/bart.invar"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("model type:"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("CRC-32 of header and data verified"), std::string::npos) << table.out;

  std::string corrupt = test::read_file(dir + "/bart.invar");
  corrupt[corrupt.size() - 1] ^= 0x40;
  test::write_file(dir + "/corrupt.invar", corrupt);
  const auto broken = test::run_cli({"info", dir + "/corrupt.invar"});
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_NE(broken.err.find("data checksum mismatch"), std::string::npos) << broken.err;
}
