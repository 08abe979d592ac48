// A folder laid out as facebook/bart-large-cnn is: config.json's vocab_size one below the largest
// tokenizer id (<mask> = vocab_size in vocab.json). Hugging Face loads it and generates normally;
// invar warns at load, refuses only a text that holds such a token (naming its line), and never
// generates one (the LM head has vocab_size rows).
#include <gtest/gtest.h>

#include <sstream>

#include "support/test_support.hpp"

namespace invar {
namespace {

using nlohmann::json;
using test::fixture;
using test::run_cli;

const std::string kFolder = fixture("seq2seq/bart-vocab-below");

TEST(VocabBeyondModel, TheFolderLoadsWithAWarningAndGeneratesTheGreedyGolden) {
  // bart/golden.json's greedy ids never use id 380, the row this folder lacks: the argmax over
  // the other rows is the same.
  const json golden = test::load_json(fixture("seq2seq/bart/golden.json"));
  std::string input;
  for (const auto& c : golden["cases"]) input += c["text"].get<std::string>() + "\n";
  const auto result = run_cli({"generate", "-m", kFolder, "--beam", "1", "--max-length", "24", "--threads", "1"}, input);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("warning: " + kFolder + ": vocab.json: 1 token has an id beyond the model's vocabulary "
                            "of 380 (config.json): '<mask>' = 380"),
            std::string::npos)
      << result.err;
  std::istringstream lines(result.out);
  std::size_t i = 0;
  for (std::string line; std::getline(lines, line); ++i) {
    ASSERT_LT(i, golden["cases"].size());
    EXPECT_EQ(json::parse(line)["hyps"][0]["ids"], golden["cases"][i]["greedy_ids"]) << "line " << i + 1;
  }
  EXPECT_EQ(i, golden["cases"].size());
}

TEST(VocabBeyondModel, ATextHoldingTheTokenIsRefusedNamingItsLine) {
  const auto result =
      run_cli({"translate", "-m", kFolder, "--beam", "1", "--max-length", "24"}, "The cat.\nThe <mask> sat.\n");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("<stdin>:2: token '<mask>' has id 380, beyond the model's vocabulary of 380"),
            std::string::npos)
      << result.err;
  // The same as a target to score.
  const auto scored = run_cli({"score", "-m", kFolder}, "The cat.\tThe <mask>.\n");
  EXPECT_EQ(scored.exit_code, 1);
  EXPECT_NE(scored.err.find("<stdin>:1: token '<mask>' has id 380"), std::string::npos) << scored.err;
}

TEST(VocabBeyondModel, InfoDescribesTheFolder) {
  const auto result = run_cli({"info", kFolder, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json info = json::parse(result.out);
  EXPECT_EQ(info["vocab_size"], 380);
  EXPECT_EQ(info["tokenizer"]["vocab_size"], 381) << info.dump();
}

}  // namespace
}  // namespace invar
