// Issue 18, item 7: messages are one line and safe to print whatever the files hold, and a token
// id the model cannot take is reported with the input file and line it came from.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/printable.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;

TEST(Printable, EscapesControlsAndBytesThatAreNotUtf8) {
  EXPECT_EQ(printable("plain é ü 中 \\ ok"), "plain é ü 中 \\ ok");
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
  EXPECT_EQ(printable("\xc2\x9b" "2J"), "\\u009b2J");  // C1 CSI, which terminals obey too
  EXPECT_EQ(printable("bad \xff\xc3"), "bad \\xff\\xc3");
  EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
}

TEST(HostileFiles, QuotedContentCannotForgeLinesOrEscapes) {
  const std::string dir = test::model_copy(test::fixture("core/bert-wordpiece"));
  std::string config = test::read_file(dir + "/config.json");
  const std::string field = "\"model_type\": \"bert\"";
  const auto at = config.find(field);
  ASSERT_NE(at, std::string::npos);
  config.replace(at, field.size(), R"("model_type": "evil\ninvar: error: forged\u001b[2J")");
  test::write_file(dir + "/config.json", config);
  const auto result = test::run_cli({"embed", "-m", dir}, "x\n");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_EQ(result.err.find('\x1b'), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("evil\\ninvar: error: forged\\x1b[2J"), std::string::npos) << result.err;
}

TEST(HostileFiles, TokenIdBeyondTheModelNamesInputFileAndLine) {
  // A vocabulary one token longer than the model's embeddings: the extra token's id is out of range.
  const std::string dir = test::model_copy(test::fixture("core/bert-wordpiece"));
  test::write_file(dir + "/vocab.txt", test::read_file(dir + "/vocab.txt") + "zzyzx\n");
  const std::string input = test::temp_dir() + "/input.txt";
  test::write_file(input, "fine\nfine\nzzyzx\n");
  for (const char* command : {"embed", "hidden"}) {
    const auto result = test::run_cli({command, "-m", dir, "-i", input, "--batch-size", "2"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find(input + ":3: the input has token id 171 outside the model's vocabulary (0..170)"),
              std::string::npos) << result.err;
  }
}

TEST(HostileFiles, TokenIdBeyondTheModelNamesInputFileAndLineInPll) {
  // pll scores lines of any length (in windows), so it checks the ids alone, with FILE:LINE too.
  const std::string dir = test::model_copy(test::fixture("core/bert-mlm"));
  const std::string vocab = test::read_file(dir + "/vocab.txt");
  const auto size = std::count(vocab.begin(), vocab.end(), '\n');
  test::write_file(dir + "/vocab.txt", vocab + "zzyzx\n");
  const std::string input = test::temp_dir() + "/input.txt";
  test::write_file(input, "fine\nfine\nzzyzx\n");
  const auto result = test::run_cli({"pll", "-m", dir, "-i", input});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find(input + ":3: the input has token id " + std::to_string(size) +
                            " outside the model's vocabulary (0.." + std::to_string(size - 1) + ")"),
            std::string::npos)
      << result.err;
}
