// CTranslate2's vocabulary map (engine/vocabulary_map.hpp) over the Marian fixture's tokenizer: which
// target ids a batch may produce. (Bad lines: tests/cli/test_cli_generate.cpp.)
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/text/tokenizer.hpp"
#include "engine/vocabulary_map.hpp"
#include "loaders/model_source.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

class VocabularyMapTest : public ::testing::Test {
 protected:
  std::unique_ptr<ModelSource> source_ = ModelSource::open(test::fixture("core/marian"));
  std::unique_ptr<Tokenizer> tokenizer_ = make_tokenizer(*source_);

  VocabularyMap map_of(const std::string& content) {
    const std::string path = test::temp_dir() + "/test.vmap";
    test::write_file(path, content);
    return VocabularyMap(path, *tokenizer_);
  }
  std::int32_t id(const std::string& token) const { return *tokenizer_->find_token(token, Side::Target); }
};

// Unigram and bigram rules fire on the n-grams of any source in the batch; the empty n-gram's
// tokens, unk and eos always come (Marian has no bos); a rule whose n-gram is absent adds nothing.
TEST_F(VocabularyMapTest, CandidatesOfTheBatchSourcesNgrams) {
  const auto map = map_of("\t▁and\n▁der\t▁the\n▁auf ▁der\t▁in to\n▁you ▁the\t▁,\n");
  const std::vector<std::int32_t> first{id("▁auf"), id("▁der")}, second{id("▁you")};
  const auto ids = map.candidates({first, second});
  const std::vector<std::int32_t> expected{id("</s>"), id("<unk>"), id("to"), id("▁and"), id("▁the"), id("▁in")};
  std::vector<std::int32_t> sorted = expected;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(ids, sorted);
  // Without the sources that hold the n-grams, only the fixed candidates.
  EXPECT_EQ(map.candidates({second}), (std::vector<std::int32_t>{id("</s>"), id("<unk>"), id("▁and")}));
}

}  // namespace
}  // namespace invar
