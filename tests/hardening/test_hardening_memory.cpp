// Issue 18, items 4 and 7: sizes in config and vocabulary files are checked against the weights
// before anything is allocated from them, and running out of memory names what was being read.
// (Item 2's pytorch_model.bin cases are in test_pytorch.cpp.)
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "engine/text/tokenizer.hpp"
#include "loaders/model_source.hpp"
#include "models/hf_config.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

// The Error that `body` throws, or "(no error)".
template <typename Body>
std::string error_of(Body body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// config.json's sizes that are some weight's dimension are checked against the weights before
// anything is built from them (label names, weight-name lists, vocabulary tables).
TEST(HardeningMemory, ConfigSizesBeyondEveryWeightAreRefused) {
  for (const auto& [field, value] : std::vector<std::pair<std::string, int>>{
           {"num_labels", 100'000}, {"vocab_size", 100'000}, {"intermediate_size", 100'000}, {"hidden_size", 4096}}) {
    SCOPED_TRACE(field);
    const std::string dir = test::model_copy(test::fixture("core/bert-wordpiece"));
    auto config = test::load_json(dir + "/config.json");
    config[field] = value;
    test::write_file(dir + "/config.json", config.dump());
    const std::string message = error_of([&] { load_model_config(*ModelSource::open(dir)); });
    EXPECT_NE(message.find(fmt::format("{}/config.json: field '{}' is {}, larger than any dimension of the model's "
                                       "weights (at most 512)",
                                       dir, field, value)),
              std::string::npos)
        << message;
  }
}

// One huge id in a small vocab.json (it cost 3 GB to translate two lines) is refused naming the
// file and the token.
TEST(HardeningMemory, VocabularyIdBeyondTheModelIsRefused) {
  const std::string dir = test::model_copy(test::fixture("core/marian"));
  auto vocab = test::load_json(dir + "/vocab.json");
  vocab["▁zzyzx"] = 100'000'000;
  test::write_file(dir + "/vocab.json", vocab.dump());
  const std::string message = error_of([&] { make_tokenizer(*ModelSource::open(dir)); });
  EXPECT_NE(message.find(dir + ": vocab.json: the id of '▁zzyzx' is 100000000, beyond the model's vocabulary of "),
            std::string::npos)
      << message;
}

// A token table takes memory for its tokens, not for the ids between them.
TEST(HardeningMemoryDeathTest, VocabularyTablesAreSizedByTheirTokens) {
  if (test::under_address_sanitizer()) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        test::limit_address_space(std::size_t{256} << 20);
        Vocab vocab;
        vocab.add("a", 0);
        vocab.add("far", 100'000'000);
        std::exit(vocab.size() == 100'000'001 && *vocab.token(100'000'000) == "far" && !vocab.token(5) ? 0 : 3);
      },
      ::testing::ExitedWithCode(0), "");
}

// Issue 27, item 7: a model folder's file is read whole or not at all: running out of memory names
// the folder (it used to stop reading quietly, and the cut-off JSON was reported as invalid).
TEST(HardeningMemoryDeathTest, OutOfMemoryReadingAFolderFileNamesTheFolder) {
  if (test::under_address_sanitizer()) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string dir = test::model_copy(test::fixture("core/bert-wordpiece"));
  const std::string config = test::read_file(dir + "/tokenizer_config.json");
  test::write_file(dir + "/tokenizer_config.json", std::string(std::size_t{48} << 20, ' ') + config);
  EXPECT_EXIT(test::exit_reporting_error([&] {
                const auto source = ModelSource::open(dir);
                test::limit_address_space(std::size_t{24} << 20);
                make_tokenizer(*source);
              }),
              ::testing::ExitedWithCode(2), "out of memory while reading the tokenizer files");
}

// A sinusoidal position table is computed, so only a bound on config.json's
// max_position_embeddings keeps it from taking any memory the file asks for.
TEST(HardeningMemory, ComputedPositionTableIsBounded) {
  const std::string dir = test::bin_only_copy(test::fixture("core/marian"));
  auto config = test::load_json(dir + "/config.json");
  config["max_position_embeddings"] = 1 << 24;
  test::write_file(dir + "/config.json", config.dump());
  const auto result = test::run_cli({"translate", "-m", dir}, "Hallo\n");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find(dir + "/config.json: field 'max_position_embeddings' is 16777216, more than the 65536 "
                                  "positions invar computes a sinusoidal table for"),
            std::string::npos)
      << result.err;
}

// Item 7: running out of memory while reading an input file names the file and the line (getline
// used to swallow it, and the file seemed to end there).
TEST(HardeningMemoryDeathTest, OutOfMemoryReadingAnInputNamesTheFileAndLine) {
  if (test::under_address_sanitizer()) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = test::temp_dir() + "/input.txt";
  test::write_file(path, "short\n" + std::string(std::size_t{48} << 20, 'a') + "\n");
  EXPECT_EXIT(test::exit_reporting_error([&] {
                test::limit_address_space(std::size_t{24} << 20);
                read_lines(path);
              }),
              ::testing::ExitedWithCode(2), "input\\.txt:2: cannot read the line \\(out of memory, or a read error\\)");
}
