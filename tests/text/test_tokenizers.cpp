// Tokenizers against the Hugging Face goldens of every model fixture (transformers 4.19, slow
// tokenizers): ids, tokens, token type ids, padded batches and decoding of generated ids; plus
// truncation, special tokens in text, language codes and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "engine/text/tokenizer.hpp"
#include "loaders/model_source.hpp"
#include "models/hf_config.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

using nlohmann::json;
using test::fixture;
using test::load_json;

// Until loaders/ opens Hugging Face folders (ModelSource::open), a folder seen through the
// ModelSource interface: config.json and the auxiliary files, no tensors.
class FolderSource final : public ModelSource {
 public:
  explicit FolderSource(std::string path) : path_(std::move(path)), config_(load_json(path_ + "/config.json")) {}
  const std::string& path() const override { return path_; }
  const nlohmann::json& config_json() const override { return config_; }
  bool has_file(const std::string& name) const override { return std::filesystem::is_regular_file(path_ + "/" + name); }
  std::string read_file(const std::string& name) const override { return test::read_file(path_ + "/" + name); }
  std::vector<std::string> file_names() const override { return {}; }
  std::vector<std::string> tensor_names() const override { return {}; }
  bool has_tensor(const std::string&) const override { return false; }
  TensorData tensor(const std::string& name) const override { throw Error("no tensor " + name); }

 private:
  std::string path_;
  nlohmann::json config_;
};

std::unique_ptr<Tokenizer> open_tokenizer(const std::string& path) { return make_tokenizer(FolderSource(path)); }

std::unique_ptr<Tokenizer> load_tokenizer(const std::string& folder) { return open_tokenizer(fixture(folder)); }

std::vector<std::int32_t> ids_of(const json& value) { return value.get<std::vector<std::int32_t>>(); }

using test::model_folders;

std::string test_name(const ::testing::TestParamInfo<std::string>& info) { return test::param_name(info.param); }

class Golden : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    tokenizer_ = load_tokenizer(GetParam());
    golden_ = load_json(fixture(GetParam() + "/golden.json"));
  }
  std::unique_ptr<Tokenizer> tokenizer_;
  json golden_;
};

TEST_P(Golden, IdsTokensAndTypeIdsOfEveryCase) {
  ASSERT_FALSE(golden_["cases"].empty());
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    Encoding encoding = c.contains("text_pair") ? tokenizer_->encode_pair(c["text"].get<std::string>(),
                                                                           c["text_pair"].get<std::string>())
                                                : tokenizer_->encode(c["text"].get<std::string>());
    EXPECT_EQ(encoding.ids, ids_of(c["input_ids"]));
    if (c.contains("tokens")) {
      EXPECT_EQ(encoding.tokens, c["tokens"].get<std::vector<std::string>>());
    }
    if (c.contains("token_type_ids")) {
      EXPECT_EQ(encoding.type_ids, ids_of(c["token_type_ids"]));
    }
    if (c.contains("attention_mask")) {
      EXPECT_EQ(c["attention_mask"].size(), encoding.ids.size());
    }
    EXPECT_EQ(encoding.special_mask.size(), encoding.ids.size());
  }
}

// A golden batch of texts (encode_batch) or of pairs (pad over encode_pair), padded together.
BatchEncoding encode_golden_batch(const Tokenizer& tokenizer, const json& batch) {
  if (batch.contains("texts")) return tokenizer.encode_batch(batch["texts"].get<std::vector<std::string>>());
  std::vector<Encoding> pairs;
  for (const auto& p : batch["pairs"]) pairs.push_back(tokenizer.encode_pair(p[0].get<std::string>(), p[1].get<std::string>()));
  return tokenizer.pad(pairs);
}

TEST_P(Golden, PaddedBatch) {
  for (const char* key : {"padded_batch", "padded_batch_beam4"}) {
    if (!golden_.contains(key)) continue;
    const auto& batch = golden_[key];
    const auto encoded = encode_golden_batch(*tokenizer_, batch);
    ASSERT_EQ(encoded.ids.size(), batch["input_ids"].size());
    for (std::size_t i = 0; i < encoded.ids.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << key << " " << i);
      EXPECT_EQ(encoded.ids[i], ids_of(batch["input_ids"][i]));
      if (batch.contains("attention_mask")) {
        EXPECT_EQ(encoded.attention_mask[i], ids_of(batch["attention_mask"][i]));
      }
      if (batch.contains("token_type_ids")) {
        EXPECT_EQ(encoded.type_ids[i], ids_of(batch["token_type_ids"][i]));
      }
      auto ones = std::count(encoded.attention_mask[i].begin(), encoded.attention_mask[i].end(), 1);
      EXPECT_EQ(static_cast<std::size_t>(ones), encoded.lengths[i]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Golden, ::testing::ValuesIn(model_folders()), test_name);

// The seq2seq goldens: generated ids decode to the texts Hugging Face printed.
using Generated = Golden;

TEST_P(Generated, DecodesGreedyAndBeamIds) {
  for (const auto& c : golden_["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    EXPECT_EQ(tokenizer_->decode(ids_of(c["greedy_ids"])), c["greedy_text"].get<std::string>());
    ASSERT_EQ(c["beam_ids"].size(), c["beam_texts"].size());
    for (std::size_t k = 0; k < c["beam_ids"].size(); ++k)
      EXPECT_EQ(tokenizer_->decode(ids_of(c["beam_ids"][k])), c["beam_texts"][k].get<std::string>());
    // The decoder's start token, config.json's (models/hf_config), is the golden's first input.
    const auto start = load_model_config(FolderSource(fixture(GetParam()))).decoder_start_token_id;
    ASSERT_TRUE(start.has_value());
    EXPECT_EQ(*start, c["decoder_input_ids"][0].get<std::int32_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Generated, ::testing::ValuesIn(model_folders(true)), test_name);

TEST(Fixtures, EveryFolderIsCovered) {
  EXPECT_EQ(model_folders().size(), 25u);
  EXPECT_EQ(model_folders(true).size(), 8u);
}

// ---------------------------------------------------------------------------------------------

TEST(Truncation, SingleSequenceKeepsSpecialTokens) {
  auto bert = load_tokenizer("core/bert-wordpiece");
  auto golden = load_json(fixture("core/bert-wordpiece/golden.json"));
  auto full = ids_of(golden["cases"][8]["input_ids"]);  // "I would rather watch paint dry than this movie."
  ASSERT_GT(full.size(), 8u);
  auto cut = bert->encode(golden["cases"][8]["text"].get<std::string>(), 8);
  std::vector<std::int32_t> expected(full.begin(), full.begin() + 7);
  expected.push_back(full.back());
  EXPECT_EQ(cut.ids, expected);
  EXPECT_EQ(cut.tokens.back(), "[SEP]");
  // Long enough: unchanged.
  EXPECT_EQ(bert->encode(golden["cases"][8]["text"].get<std::string>(), full.size()).ids, full);
}

TEST(Truncation, PairsDropFromTheLongerSequenceFirst) {
  auto bert = load_tokenizer("core/bert-pair-cls");
  auto golden = load_json(fixture("core/bert-pair-cls/golden.json"));
  for (const auto& c : golden["cases"]) {
    auto ids = ids_of(c["input_ids"]);
    auto types = ids_of(c["token_type_ids"]);
    // [CLS] A [SEP] B [SEP]: recover A and B from the golden, then truncate as longest_first does.
    auto first_end = static_cast<std::size_t>(std::count(types.begin(), types.end(), 0)) - 1;
    std::vector<std::int32_t> a(ids.begin() + 1, ids.begin() + static_cast<std::ptrdiff_t>(first_end));
    std::vector<std::int32_t> b(ids.begin() + static_cast<std::ptrdiff_t>(first_end) + 1, ids.end() - 1);
    std::size_t max_length = 12;
    while (a.size() + b.size() + 3 > max_length) (a.size() > b.size() ? a : b).pop_back();
    std::vector<std::int32_t> expected{ids.front()};
    expected.insert(expected.end(), a.begin(), a.end());
    expected.push_back(ids[first_end]);
    expected.insert(expected.end(), b.begin(), b.end());
    expected.push_back(ids.back());
    auto cut = bert->encode_pair(c["text"].get<std::string>(), c["text_pair"].get<std::string>(), max_length);
    EXPECT_EQ(cut.ids, expected);
    EXPECT_EQ(cut.ids.size(), max_length);
    EXPECT_EQ(std::count(cut.type_ids.begin(), cut.type_ids.end(), 1), static_cast<std::ptrdiff_t>(b.size() + 1));
  }
}

TEST(Truncation, TooShortForTheSpecialTokensFails) {
  auto xlmr = load_tokenizer("core/xlmr");
  EXPECT_THROW(xlmr->encode("The cat sat on the mat.", 2), Error);
  EXPECT_THROW(xlmr->encode_pair("a", "b", 4), Error);
  EXPECT_EQ(xlmr->encode("The cat sat on the mat.", 3).ids.size(), 3u);
}

TEST(SpecialTokens, FoundInTextAndStripAsConfigured) {
  auto xlmr = load_tokenizer("core/xlmr");
  ASSERT_TRUE(xlmr->mask_id().has_value());
  EXPECT_EQ(*xlmr->mask_id(), 192);
  // <mask> strips whitespace on its left only (lstrip=True): "The <mask> sat" == "The" <mask> " sat".
  auto with_mask = xlmr->tokenize("The <mask> sat");
  auto the = xlmr->tokenize("The");
  auto sat = xlmr->tokenize(" sat");
  std::vector<std::string> expected = the;
  expected.push_back("<mask>");
  expected.insert(expected.end(), sat.begin(), sat.end());
  EXPECT_EQ(with_mask, expected);
  auto encoding = xlmr->encode("The <mask> sat");
  EXPECT_EQ(std::count(encoding.ids.begin(), encoding.ids.end(), 192), 1);
}

TEST(SpecialTokens, T5AddsEosOnlyWhenAbsent) {
  auto t5 = load_tokenizer("seq2seq/t5");
  auto plain = t5->encode("The cat sat on the mat.");
  auto ended = t5->encode("The cat sat on the mat.</s>");
  EXPECT_EQ(plain.ids, ended.ids);
  EXPECT_EQ(std::count(ended.ids.begin(), ended.ids.end(), 1), 1);
}

// T5 v1.1's sentinels: additional special tokens after the SentencePiece vocabulary, <extra_id_0>
// the highest id; found whole in text (a plain-string special token strips the spaces on both
// sides, as Hugging Face 4.19's tokenize() does) and left out of decoded text.
TEST(SpecialTokens, T5SentinelsAreTheLastIdsAndStayWhole) {
  auto t5 = load_tokenizer("seq2seq/t5-gated");
  EXPECT_EQ(t5->vocab_size(), 194u);
  for (std::int32_t k = 0; k < 3; ++k)
    EXPECT_EQ(t5->token_to_id("<extra_id_" + std::to_string(k) + ">"), 193 - k);
  EXPECT_EQ(t5->encode("<extra_id_0>").ids, (std::vector<std::int32_t>{193, 1}));
  const auto masked = t5->encode("The cat <extra_id_1> the mat.");
  std::vector<std::int32_t> expected = t5->encode("The cat").ids;
  expected.back() = 192;  // in place of the </s> the first part ends with
  const auto rest = t5->encode("the mat.").ids;
  expected.insert(expected.end(), rest.begin(), rest.end());
  EXPECT_EQ(masked.ids, expected);
  EXPECT_EQ(masked.tokens[2], "<extra_id_1>");
  EXPECT_TRUE(t5->is_special(192));
  EXPECT_EQ(t5->decode(masked.ids), "The cat the mat.");
}

TEST(SpecialTokens, IdsOfEachFamily) {
  auto bert = load_tokenizer("core/bert-wordpiece");
  EXPECT_EQ(bert->pad_id(), 0);
  EXPECT_EQ(bert->unk_id(), 1);
  EXPECT_EQ(bert->cls_id(), 2);
  EXPECT_EQ(bert->sep_id(), 3);
  EXPECT_EQ(bert->mask_id(), 4);
  EXPECT_FALSE(bert->bos_id().has_value());

  // Multilingual BERT's layout: [PAD], [unused1..5], then [UNK] [CLS] [SEP] [MASK].
  auto mbert = load_tokenizer("core/mbert-pair-cls");
  EXPECT_EQ(mbert->pad_id(), 0);
  EXPECT_EQ(mbert->unk_id(), 6);
  EXPECT_EQ(mbert->cls_id(), 7);
  EXPECT_EQ(mbert->sep_id(), 8);
  EXPECT_EQ(mbert->mask_id(), 9);

  // microsoft/mpnet-base's: <s> <pad> </s> <unk> first, BERT's tokens after them, <mask> last;
  // its unk_token is BERT's [UNK], not <unk>.
  auto mpnet = load_tokenizer("core/mpnet");
  EXPECT_EQ(mpnet->cls_id(), 0);
  EXPECT_EQ(mpnet->bos_id(), 0);
  EXPECT_EQ(mpnet->pad_id(), 1);
  EXPECT_EQ(mpnet->sep_id(), 2);
  EXPECT_EQ(mpnet->eos_id(), 2);
  EXPECT_EQ(mpnet->unk_id(), 5);
  EXPECT_EQ(mpnet->mask_id(), 175);

  auto pegasus = load_tokenizer("seq2seq/pegasus");
  EXPECT_EQ(pegasus->pad_id(), 0);
  EXPECT_EQ(pegasus->eos_id(), 1);
  EXPECT_EQ(pegasus->mask_id(), 3);
  EXPECT_EQ(pegasus->unk_id(), 105);  // spm's <unk> (2) + offset 103
  EXPECT_EQ(pegasus->vocab_size(), 294u);
  EXPECT_EQ(pegasus->id_to_token(2), "<mask_1>");
  EXPECT_EQ(pegasus->id_to_token(104), "<unk_102>");

  auto marian = load_tokenizer("core/marian");
  EXPECT_EQ(marian->eos_id(), 0);
  EXPECT_EQ(marian->pad_id(), 190);
  EXPECT_EQ(load_model_config(FolderSource(fixture("core/marian"))).decoder_start_token_id, 190);

  auto bart = load_tokenizer("seq2seq/bart");
  EXPECT_EQ(bart->bos_id(), 0);
  EXPECT_EQ(bart->mask_id(), 380);
  EXPECT_EQ(bart->vocab_size(), 381u);

  auto m2m = load_tokenizer("seq2seq/m2m100");
  EXPECT_EQ(m2m->vocab_size(), 300u);  // vocab.json + 100 language tokens + 8 made-up words
}

TEST(Languages, CodesMapToTheirIds) {
  auto mbart = load_tokenizer("seq2seq/mbart");
  auto config = load_json(fixture("seq2seq/mbart/config.json"));
  EXPECT_EQ(mbart->lang_id("en_XX"), config["forced_bos_token_id"].get<std::int32_t>());
  EXPECT_EQ(mbart->id_to_token(mbart->lang_id("de_DE")), "de_DE");
  EXPECT_EQ(mbart->language_codes().size(), 25u);

  auto m2m = load_tokenizer("seq2seq/m2m100");
  auto m2m_config = load_json(fixture("seq2seq/m2m100/config.json"));
  EXPECT_EQ(m2m->lang_id("en"), m2m_config["forced_bos_token_id"].get<std::int32_t>());
  EXPECT_EQ(m2m->lang_id("__en__"), m2m->lang_id("en"));
}

TEST(Languages, UnknownCodeListsValidOnes) {
  auto mbart = load_tokenizer("seq2seq/mbart");
  try {
    mbart->lang_id("xx_YY");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("xx_YY"), std::string::npos) << message;
    EXPECT_NE(message.find("en_XX"), std::string::npos) << message;
  }
  auto bert = load_tokenizer("core/bert-wordpiece");
  EXPECT_THROW(bert->lang_id("en"), Error);
  EXPECT_THROW(mbart->set_target_language("klingon"), Error);
}

TEST(Languages, TargetSideFraming) {
  auto mbart = load_tokenizer("seq2seq/mbart");
  auto source = mbart->encode("Die Katze sitzt auf der Matte.");
  auto target = mbart->encode_target("Die Katze sitzt auf der Matte.");
  ASSERT_EQ(source.ids.size(), target.ids.size());
  EXPECT_EQ(source.ids.back(), mbart->lang_id("de_DE"));
  EXPECT_EQ(target.ids.back(), mbart->lang_id("en_XX"));
  EXPECT_TRUE(std::equal(source.ids.begin(), source.ids.end() - 1, target.ids.begin()));

  auto m2m = load_tokenizer("seq2seq/m2m100");
  auto m2m_target = m2m->encode_target("The cat sat on the mat.");
  EXPECT_EQ(m2m_target.ids.front(), m2m->lang_id("en"));
  m2m->set_source_language("fr");
  EXPECT_EQ(m2m->encode("The cat").ids.front(), m2m->lang_id("fr"));

  // Marian's labels go through target.spm (here the same model as source.spm).
  auto marian = load_tokenizer("core/marian");
  auto golden = load_json(fixture("core/marian/golden.json"));
  EXPECT_EQ(marian->encode_target(golden["cases"][0]["text"].get<std::string>()).ids,
            ids_of(golden["cases"][0]["input_ids"]));
}

TEST(WordPiece, BasicTokenizerRules) {
  auto bert = load_tokenizer("core/bert-wordpiece");
  // Lower-casing and accent stripping (uncased model), control characters dropped, any Unicode
  // whitespace separates, punctuation splits.
  EXPECT_EQ(bert->tokenize("CAFÉ"), bert->tokenize("cafe"));
  EXPECT_EQ(bert->tokenize("ca\x01t"), bert->tokenize("cat"));
  EXPECT_EQ(bert->tokenize("the\u3000cat"), bert->tokenize("the cat"));
  EXPECT_EQ(bert->tokenize("cat,mat"), bert->tokenize("cat , mat"));
  // CJK ideographs become words of their own; unknown ones are [UNK].
  EXPECT_EQ(bert->tokenize("猫猫"), (std::vector<std::string>{"[UNK]", "[UNK]"}));
  // A special token in text is kept whole and not lower-cased.
  auto tokens = bert->tokenize("the [MASK] sat");
  EXPECT_NE(std::find(tokens.begin(), tokens.end(), "[MASK]"), tokens.end());
}

TEST(Decode, SkipsOrKeepsSpecialTokensAndCleansUp) {
  auto bert = load_tokenizer("core/bert-wordpiece");
  auto encoding = bert->encode("The cat sat on the mat.");
  EXPECT_EQ(bert->decode(encoding.ids), "the cat sat on the mat.");
  EXPECT_EQ(bert->decode(encoding.ids, false), "[CLS] the cat sat on the mat. [SEP]");

  auto xlmr = load_tokenizer("core/xlmr");
  EXPECT_EQ(xlmr->decode(xlmr->encode("Good morning, how are you today?").ids), "Good morning, how are you today?");
  auto bart = load_tokenizer("seq2seq/bart");
  EXPECT_EQ(bart->decode(bart->encode("Überraschung: Straße, Ähre, naïve café.").ids),
            "Überraschung: Straße, Ähre, naïve café.");
  EXPECT_EQ(bart->decode(bart->encode("Short.").ids, false), "<s>Short.</s>");
  EXPECT_THROW(bart->decode(std::vector<std::int32_t>{0, 381}), Error);
  EXPECT_THROW(bart->decode(std::vector<std::int32_t>{-1}), Error);
}

TEST(Decode, CleanUpTokenizationRules) {
  EXPECT_EQ(clean_up_tokenization("a . b ? c ! d , e ' f do n't I 'm he 's we 've they 're"),
            "a. b? c! d, e'f don't I'm he's we've they're");
}

// ---------------------------------------------------------------------------------------------
// Errors

std::string copy_without(const std::string& folder, const std::string& missing) {
  auto dir = test::temp_dir() + "/model";
  std::filesystem::create_directories(dir);
  for (const auto& entry : std::filesystem::directory_iterator(fixture(folder)))
    if (entry.is_regular_file() && entry.path().filename() != missing)
      std::filesystem::copy_file(entry.path(), dir + "/" + entry.path().filename().string());
  return dir;
}

void expect_error_mentions(const std::string& folder, const std::vector<std::string>& needles) {
  try {
    open_tokenizer(folder);
    FAIL() << "expected an error for " << folder;
  } catch (const Error& e) {
    std::string message = e.what();
    for (const auto& needle : needles) EXPECT_NE(message.find(needle), std::string::npos) << message;
  }
}

TEST(Errors, MissingTokenizerFileIsNamed) {
  auto dir = copy_without("core/bert-wordpiece", "vocab.txt");
  expect_error_mentions(dir, {dir, "vocab.txt"});
  dir = copy_without("core/marian", "target.spm");
  expect_error_mentions(dir, {dir, "target.spm"});
  dir = copy_without("seq2seq/bart", "merges.txt");
  expect_error_mentions(dir, {dir, "merges.txt"});
  dir = copy_without("seq2seq/t5", "spiece.model");
  expect_error_mentions(dir, {dir, "spiece.model"});
}

TEST(Errors, UnsupportedTokenizerClassIsNamed) {
  auto dir = copy_without("core/bert-wordpiece", "tokenizer_config.json");
  test::write_file(dir + "/tokenizer_config.json", R"({"tokenizer_class": "CharacterBertTokenizer"})");
  expect_error_mentions(dir, {"CharacterBertTokenizer", "tokenizer_config.json"});
}

TEST(Errors, CorruptSentencePieceModel) {
  auto dir = copy_without("core/xlmr", "sentencepiece.bpe.model");
  test::write_file(dir + "/sentencepiece.bpe.model", "not a model");
  expect_error_mentions(dir, {"sentencepiece.bpe.model", "not a SentencePiece model"});
}

TEST(Errors, VocabularyIdBeyondAnyVocabulary) {
  // One token with id 2^31 − 1 used to allocate 2^31 strings (std::bad_alloc, or the machine's
  // memory) before any check could fail; ids are now checked against config.json's vocab_size.
  auto dir = copy_without("seq2seq/bart", "vocab.json");
  test::write_file(dir + "/vocab.json", R"({"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "x": 2147483647})");
  expect_error_mentions(dir, {"vocab.json", "the id of 'x' is 2147483647, beyond the model's vocabulary"});
}

}  // namespace
}  // namespace invar
