// tokenizer.json (the fast tokenizer AutoTokenizer loads by default) against real Hub tokenizers:
// bert-base-uncased (WordPiece) and flan-t5-base (Unigram with SentencePiece's character map),
// each through tokenizer.json alone and through its slow files, against the goldens of
// tests/fixtures/tokenizer-json (transformers.js on tokenizer.json; transformers 4.19's slow
// tokenizer). Then each component on small hand-made files, and every refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "engine/text/tokenizer.hpp"
#include "loaders/model_source.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

using nlohmann::json;

// A model's tokenizer files held in memory, so that a test can drop or rewrite one.
class MemorySource final : public ModelSource {
 public:
  MemorySource(std::map<std::string, std::string> files) : files_(std::move(files)) {
    config_ = json::parse(files_.at("config.json"));
  }
  const std::string& path() const override { return path_; }
  const json& config_json() const override { return config_; }
  bool has_file(const std::string& name) const override { return files_.count(name) != 0; }
  std::string read_file(const std::string& name) const override { return files_.at(name); }
  std::vector<std::string> file_names() const override {
    std::vector<std::string> names;
    for (const auto& [name, bytes] : files_) names.push_back(name);
    return names;
  }
  std::vector<std::string> tensor_names() const override { return {}; }
  bool has_tensor(const std::string&) const override { return false; }
  TensorData tensor(const std::string& name) const override { throw Error("no tensor " + name); }

 private:
  std::string path_ = "MODEL";
  std::map<std::string, std::string> files_;
  json config_;
};

// The fixture's files but `drop`.
std::map<std::string, std::string> fixture_files(const std::string& name, const std::vector<std::string>& drop = {}) {
  std::map<std::string, std::string> files;
  for (const char* file : {"config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                           "vocab.txt", "spiece.model"}) {
    const auto path = test::fixture("tokenizer-json/" + name + "/" + file);
    if (std::filesystem::exists(path) && std::find(drop.begin(), drop.end(), file) == drop.end())
      files[file] = test::read_file(path);
  }
  return files;
}

std::unique_ptr<Tokenizer> open(std::map<std::string, std::string> files, TokenizerChoice choice = TokenizerChoice::Auto) {
  MemorySource source(std::move(files));
  source.set_tokenizer_choice(choice);
  return make_tokenizer(source);
}

json golden(const std::string& name) { return test::load_json(test::fixture("tokenizer-json/" + name + "/golden.json")); }

std::vector<std::int32_t> ids_of(const json& value) { return value.get<std::vector<std::int32_t>>(); }

// Each case's and pair's ids (and type ids) equal the golden's, read through `fast` (tokenizer.json:
// input_ids) or the slow files (hf_4_19_slow).
void expect_golden(const Tokenizer& tokenizer, const json& expected, bool fast) {
  ASSERT_GT(expected["cases"].size(), 30u);
  for (const auto& c : expected["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    EXPECT_EQ(tokenizer.encode(c["text"].get<std::string>()).ids, ids_of(c[fast ? "input_ids" : "hf_4_19_slow_ids"]));
  }
  ASSERT_GT(expected["pairs"].size(), 5u);
  for (const auto& p : expected["pairs"]) {
    SCOPED_TRACE(p["text"].get<std::string>() + " | " + p["text_pair"].get<std::string>());
    const auto encoding = tokenizer.encode_pair(p["text"].get<std::string>(), p["text_pair"].get<std::string>());
    const auto& want = fast ? p : p["hf_4_19_slow"];
    EXPECT_EQ(encoding.ids, ids_of(want["input_ids"]));
    if (!want["token_type_ids"].is_null()) {
      EXPECT_EQ(encoding.type_ids, ids_of(want["token_type_ids"]));
    }
  }
}

class RealTokenizer : public ::testing::TestWithParam<std::string> {};

TEST_P(RealTokenizer, TokenizerJsonAloneGivesTheFastIds) {
  const auto tokenizer = open(fixture_files(GetParam(), {"vocab.txt", "spiece.model"}));
  EXPECT_TRUE(tokenizer->algorithm().starts_with("tokenizer.json"));
  expect_golden(*tokenizer, golden(GetParam()), true);
}

TEST_P(RealTokenizer, SlowFilesGiveTheSlowIds) {
  const auto tokenizer = open(fixture_files(GetParam()), TokenizerChoice::Slow);
  EXPECT_FALSE(tokenizer->algorithm().starts_with("tokenizer.json"));
  expect_golden(*tokenizer, golden(GetParam()), false);
}

TEST_P(RealTokenizer, BothPresentReadsTokenizerJsonAsAutoTokenizerDoes) {
  const auto tokenizer = open(fixture_files(GetParam()));
  EXPECT_TRUE(tokenizer->algorithm().starts_with("tokenizer.json"));
  expect_golden(*tokenizer, golden(GetParam()), true);
}

TEST_P(RealTokenizer, JsonAndSlowAgreeOnSpecialTokensAndSizes) {
  const auto fast = open(fixture_files(GetParam()), TokenizerChoice::Json);
  const auto slow = open(fixture_files(GetParam()), TokenizerChoice::Slow);
  EXPECT_EQ(fast->vocab_size(), slow->vocab_size());
  EXPECT_EQ(fast->pad_id(), slow->pad_id());
  EXPECT_EQ(fast->unk_id(), slow->unk_id());
  EXPECT_EQ(fast->eos_id(), slow->eos_id());
  EXPECT_EQ(fast->cls_id(), slow->cls_id());
  EXPECT_EQ(fast->mask_id(), slow->mask_id());
  const std::string text = "The quick brown fox, 3.5 km/h; naïve café!";
  const auto ids = fast->encode(text).ids;
  EXPECT_EQ(ids, slow->encode(text).ids);
  EXPECT_EQ(fast->decode(ids), slow->decode(ids));
}

INSTANTIATE_TEST_SUITE_P(Hub, RealTokenizer, ::testing::Values("bert-base-uncased", "flan-t5-base"),
                         [](const auto& info) { return test::param_name(info.param); });

// ---------------------------------------------------------------------------------------------
// Components on small hand-made tokenizer.json files.

json added(int id, const std::string& content, bool special = true) {
  return {{"id", id},          {"content", content}, {"single_word", false}, {"lstrip", false},
          {"rstrip", false},   {"normalized", false}, {"special", special}};
}

// A BERT-like tokenizer.json: [PAD] [UNK] [CLS] [SEP] [MASK], then `words`.
json wordpiece(const std::vector<std::string>& words) {
  json vocab = json::object();
  const std::vector<std::string> specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  json tokens = json::array();
  for (std::size_t i = 0; i < specials.size(); ++i) {
    vocab[specials[i]] = i;
    tokens.push_back(added(static_cast<int>(i), specials[i]));
  }
  for (const auto& word : words) vocab[word] = vocab.size();
  auto special = [](const char* name, int type) { return json{{"SpecialToken", {{"id", name}, {"type_id", type}}}}; };
  auto sequence = [](const char* name, int type) { return json{{"Sequence", {{"id", name}, {"type_id", type}}}}; };
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", tokens},
          {"normalizer",
           {{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true}, {"strip_accents", nullptr},
            {"lowercase", true}}},
          {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
          {"post_processor",
           {{"type", "TemplateProcessing"},
            {"single", {special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)}},
            {"pair", {special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1), special("[SEP]", 1)}},
            {"special_tokens",
             {{"[CLS]", {{"id", "[CLS]"}, {"ids", {2}}, {"tokens", {"[CLS]"}}}},
              {"[SEP]", {{"id", "[SEP]"}, {"ids", {3}}, {"tokens", {"[SEP]"}}}}}}}},
          {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
          {"model",
           {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
            {"max_input_chars_per_word", 100}, {"vocab", vocab}}}};
}

// A T5-like tokenizer.json: Unigram pieces with scores, Metaspace, "$A </s>".
json unigram(const std::vector<std::pair<std::string, double>>& pieces) {
  json vocab = json::array({json::array({"<pad>", 0.0}), json::array({"</s>", 0.0}), json::array({"<unk>", 0.0})});
  for (const auto& [piece, score] : pieces) vocab.push_back(json::array({piece, score}));
  const json metaspace = {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "always"}, {"split", true}};
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", {added(0, "<pad>"), added(1, "</s>"), added(2, "<unk>")}},
          {"normalizer", nullptr},
          {"pre_tokenizer", metaspace},
          {"post_processor",
           {{"type", "TemplateProcessing"},
            {"single", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}}},
            {"pair",
             {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "B"}, {"type_id", 0}}}}, {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}}},
            {"special_tokens", {{"</s>", {{"id", "</s>"}, {"ids", {1}}, {"tokens", {"</s>"}}}}}}}},
          {"decoder", metaspace},
          {"model", {{"type", "Unigram"}, {"unk_id", 2}, {"vocab", vocab}, {"byte_fallback", false}}}};
}

std::unique_ptr<Tokenizer> from_json(const json& tokenizer, const std::string& model_type = "bert",
                                     int vocab_size = 1000) {
  return open({{"config.json", json{{"model_type", model_type}, {"vocab_size", vocab_size}}.dump()},
               {"tokenizer.json", tokenizer.dump()}});
}

std::string error_of(const json& tokenizer, const std::string& model_type = "bert") {
  try {
    from_json(tokenizer, model_type);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TokenizerJsonWordPiece, NormalizesSplitsFramesAndDecodes) {
  const auto tokenizer = from_json(wordpiece({"hello", ",", "world", "!", "wor", "##ld", "cafe"}));
  const auto encoding = tokenizer->encode("Hello, WORLD! Café");
  EXPECT_EQ(encoding.tokens, (std::vector<std::string>{"[CLS]", "hello", ",", "world", "!", "cafe", "[SEP]"}));
  EXPECT_EQ(tokenizer->decode(encoding.ids), "hello, world! cafe");
  EXPECT_EQ(tokenizer->decode(encoding.ids, false), "[CLS] hello, world! cafe [SEP]");
  const auto pair = tokenizer->encode_pair("hello", "world");
  EXPECT_EQ(pair.ids, (std::vector<std::int32_t>{2, 5, 3, 7, 3}));
  EXPECT_EQ(pair.type_ids, (std::vector<std::int32_t>{0, 0, 0, 1, 1}));
  EXPECT_EQ(tokenizer->pad_id(), 0);
  EXPECT_EQ(tokenizer->mask_id(), 4);
  EXPECT_EQ(tokenizer->encode("hello world hello", 4).tokens,
            (std::vector<std::string>{"[CLS]", "hello", "world", "[SEP]"}));
}

TEST(TokenizerJsonWordPiece, UnknownRestAndOverlongWordsAreUnknown) {
  auto file = wordpiece({"wor", "##ld"});
  file["model"]["max_input_chars_per_word"] = 5;
  const auto tokenizer = from_json(file);
  EXPECT_EQ(tokenizer->encode("world worlds worldxyz").tokens,
            (std::vector<std::string>{"[CLS]", "wor", "##ld", "[UNK]", "[UNK]", "[SEP]"}));
}

TEST(TokenizerJsonNormalizers, SequenceAppliesEachInOrder) {
  auto file = wordpiece({"_aby"});
  file["normalizer"] = {{"type", "Sequence"},
                        {"normalizers",
                         {{{"type", "NFKC"}},
                          {{"type", "Lowercase"}},
                          {{"type", "Replace"}, {"pattern", {{"String", "x"}}}, {"content", "y"}},
                          {{"type", "Replace"}, {"pattern", {{"Regex", "\\$+"}}}, {"content", "$"}},
                          {{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}},
                          {{"type", "Prepend"}, {"prepend", "_"}}}}};
  file["pre_tokenizer"] = nullptr;
  const auto tokenizer = from_json(file);
  EXPECT_EQ(tokenizer->tokenize("  \uFF21\uFF22x  "), (std::vector<std::string>{"_aby"}));
  EXPECT_EQ(tokenizer->tokenize("  a$$$  "), (std::vector<std::string>{"[UNK]"}));  // "_a$" is not in the vocabulary
}

TEST(TokenizerJsonPreTokenizers, SplitKeepsEachBehaviour) {
  auto file = wordpiece({"ab", "1", "2", "ab1", "2cd", "cd"});
  file["normalizer"] = nullptr;
  auto split = [&](const char* behavior) {
    file["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "\\d"}}}, {"behavior", behavior}, {"invert", false}};
    return from_json(file)->tokenize("ab12cd");
  };
  EXPECT_EQ(split("Isolated"), (std::vector<std::string>{"ab", "1", "2", "cd"}));
  EXPECT_EQ(split("Removed"), (std::vector<std::string>{"ab", "cd"}));
  EXPECT_EQ(split("MergedWithPrevious"), (std::vector<std::string>{"ab1", "2", "cd"}));
  EXPECT_EQ(split("MergedWithNext"), (std::vector<std::string>{"ab", "1", "2cd"}));
  file["pre_tokenizer"] = {{"type", "Sequence"},
                           {"pretokenizers", {{{"type", "WhitespaceSplit"}}, {{"type", "Punctuation"}, {"behavior", "Isolated"}}}}};
  file["model"]["vocab"]["."] = 20;
  EXPECT_EQ(from_json(file)->tokenize("ab. cd"), (std::vector<std::string>{"ab", ".", "cd"}));
}

TEST(TokenizerJsonUnigram, ViterbiMetaspaceAndTheSpaceBeforeAnAddedToken) {
  const auto tokenizer = from_json(unigram({{"\u2581", -2}, {"\u2581ab", -1}, {"\u2581a", -1.5}, {"b", -1.5}, {"c", -3}}), "t5");
  // "▁ab" (-1) beats "▁a" "b" (-3); the space before </s> stays a piece of its own.
  EXPECT_EQ(tokenizer->encode("ab c</s>").tokens, (std::vector<std::string>{"\u2581ab", "\u2581", "c", "</s>", "</s>"}));
  EXPECT_EQ(tokenizer->encode("ab </s>").tokens, (std::vector<std::string>{"\u2581ab", "\u2581", "</s>", "</s>"}));
  // Unknown characters fuse into one unknown piece.
  EXPECT_EQ(tokenizer->encode("ab xyz").ids, (std::vector<std::int32_t>{4, 3, 2, 1}));
  EXPECT_EQ(tokenizer->decode(tokenizer->encode("ab c ab").ids), "ab c ab");
}

TEST(TokenizerJsonUnigram, ByteFallbackAndItsDecoder) {
  auto file = unigram({{"\u2581", -2}, {"<0xE2>", -5}, {"<0x82>", -5}, {"<0xAC>", -5}, {"a", -1}});
  file["model"]["byte_fallback"] = true;
  file["decoder"] = {{"type", "Sequence"},
                     {"decoders",
                      {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
                       {{"type", "ByteFallback"}},
                       {{"type", "Fuse"}},
                       {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
  const auto tokenizer = from_json(file, "t5");
  const auto encoding = tokenizer->encode("a\u20AC");
  EXPECT_EQ(encoding.ids, (std::vector<std::int32_t>{3, 7, 4, 5, 6, 1}));
  EXPECT_EQ(tokenizer->decode(encoding.ids), "a\u20AC");
}

TEST(TokenizerJsonAddedTokens, StripSingleWordAndNormalizedFlags) {
  auto base = unigram({{"\u2581", -2}, {"\u2581a", -1}, {"\u2581b", -1}, {"b", -2}});
  auto with = [&](json flags) {
    auto file = base;
    json token = added(7, "<x>", false);
    for (const auto& [key, value] : flags.items()) token[key] = value;
    file["added_tokens"].push_back(token);
    return from_json(file, "t5");
  };
  const std::vector<std::string> kept_space = {"\u2581a", "\u2581", "<x>", "\u2581b", "</s>"};
  EXPECT_EQ(with(json::object())->encode("a <x> b").tokens, kept_space);
  EXPECT_EQ(with({{"lstrip", true}})->encode("a <x> b").tokens,
            (std::vector<std::string>{"\u2581a", "<x>", "\u2581b", "</s>"}));
  EXPECT_EQ(with({{"rstrip", true}})->encode("a <x> b").tokens, kept_space);
  // single_word: inside a word it is no token (its characters are unknown to the model).
  EXPECT_EQ(with({{"single_word", true}})->encode("a<x>b").ids, (std::vector<std::int32_t>{4, 2, 6, 1}));
  EXPECT_EQ(with({{"single_word", true}})->encode("a <x> b").tokens, kept_space);
  // normalized: found after the normalizer, in the lowercased text.
  base["normalizer"] = {{"type", "Lowercase"}};
  EXPECT_EQ(with({{"normalized", true}})->encode("A <X> B").tokens, kept_space);
  EXPECT_EQ(with({{"normalized", false}})->encode("A <X> B").ids, (std::vector<std::int32_t>{4, 3, 2, 5, 1}));
  // A non-special added token survives skip_special_tokens in decode; special ones do not.
  EXPECT_FALSE(with(json::object())->is_special(7));
  EXPECT_TRUE(with({{"special", true}})->is_special(7));
}

TEST(TokenizerJsonBpe, ByteLevelRobertaFraming) {
  const json file = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", {{"strategy", "BatchLongest"}, {"direction", "Right"}, {"pad_to_multiple_of", nullptr},
                   {"pad_id", 1}, {"pad_type_id", 0}, {"pad_token", "<pad>"}}},
      {"added_tokens", {added(0, "<s>"), added(1, "<pad>"), added(2, "</s>"), added(3, "<unk>"),
                        {{"id", 9}, {"content", "<mask>"}, {"single_word", false}, {"lstrip", true},
                         {"rstrip", false}, {"normalized", false}, {"special", true}}}},
      {"normalizer", nullptr},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}}},
      {"post_processor", {{"type", "RobertaProcessing"}, {"sep", {"</s>", 2}}, {"cls", {"<s>", 0}},
                          {"trim_offsets", true}, {"add_prefix_space", false}}},
      {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
      {"model",
       {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", nullptr},
        {"end_of_word_suffix", nullptr}, {"fuse_unk", false}, {"byte_fallback", false},
        {"vocab", {{"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"<unk>", 3}, {"\u0120", 4}, {"h", 5}, {"i", 6},
                   {"hi", 7}, {"\u0120hi", 8}, {"<mask>", 9}, {"!", 10}}},
        {"merges", {"h i", json::array({"\u0120", "hi"})}}}}};
  const auto tokenizer = from_json(file, "roberta");
  EXPECT_EQ(tokenizer->encode("hi hi!").ids, (std::vector<std::int32_t>{0, 7, 8, 10, 2}));
  EXPECT_EQ(tokenizer->encode_pair("hi", "hi").ids, (std::vector<std::int32_t>{0, 7, 2, 2, 7, 2}));
  EXPECT_EQ(tokenizer->encode("hi <mask>").ids, (std::vector<std::int32_t>{0, 7, 9, 2}));  // lstrip takes the space
  EXPECT_EQ(tokenizer->decode(tokenizer->encode("hi hi!").ids), "hi hi!");
  EXPECT_EQ(tokenizer->pad_id(), 1);
  EXPECT_EQ(tokenizer->mask_id(), 9);
}

// ---------------------------------------------------------------------------------------------
// Refusals: each names tokenizer.json and the JSON path.

TEST(TokenizerJsonErrors, UnsupportedComponentsNameTheirPath) {
  auto file = wordpiece({"a"});
  file["pre_tokenizer"] = {{"type", "Sequence"},
                           {"pretokenizers", {{{"type", "Whitespace"}}, {{"type", "Digits"}, {"individual_digits", true}}}}};
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: pre_tokenizer.pretokenizers[1].type 'Digits' is not supported"),
            std::string::npos)
      << error_of(file);
  file = wordpiece({"a"});
  file["normalizer"] = {{"type", "Sequence"}, {"normalizers", {{{"type", "Nmt"}}}}};
  EXPECT_NE(error_of(file).find("tokenizer.json: normalizer.normalizers[0].type 'Nmt' is not supported"), std::string::npos);
  file = wordpiece({"a"});
  file["model"]["type"] = "WordLevel";
  EXPECT_NE(error_of(file).find("tokenizer.json: model.type 'WordLevel' is not supported"), std::string::npos);
  file = wordpiece({"a"});
  file["decoder"] = {{"type", "CTC"}};
  EXPECT_NE(error_of(file).find("tokenizer.json: decoder.type 'CTC' is not supported"), std::string::npos);
  file = wordpiece({"a"});
  file["truncation"] = {{"direction", "Left"}, {"max_length", 8}, {"strategy", "LongestFirst"}, {"stride", 0}};
  EXPECT_NE(error_of(file).find("tokenizer.json: truncation.direction \"Left\" is not supported"), std::string::npos);
  file = wordpiece({"a"});
  file["padding"] = {{"direction", "Left"}, {"pad_id", 0}, {"pad_token", "[PAD]"}, {"pad_type_id", 0}};
  EXPECT_NE(error_of(file).find("tokenizer.json: padding.direction \"Left\" is not supported"), std::string::npos);
  file = wordpiece({"a"});
  file["post_processor"]["pair"][3]["Sequence"]["type_id"] = 0;
  file["post_processor"]["pair"][1]["Sequence"]["type_id"] = 1;
  EXPECT_NE(error_of(file).find("tokenizer.json: post_processor.pair is not supported"), std::string::npos);
  file = wordpiece({"a"});
  file["model"]["dropout"] = 0.1;
  file["model"]["type"] = "BPE";
  file["model"]["merges"] = json::array();
  EXPECT_NE(error_of(file).find("tokenizer.json: model.dropout 0.1 is not supported"), std::string::npos);
  file = unigram({});
  file["pre_tokenizer"]["prepend_scheme"] = "sometimes";
  EXPECT_NE(error_of(file, "t5").find("tokenizer.json: pre_tokenizer.prepend_scheme \"sometimes\" is not supported"),
            std::string::npos);
}

std::string error_of_files(std::map<std::string, std::string> files, TokenizerChoice choice = TokenizerChoice::Auto) {
  try {
    open(std::move(files), choice);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string error_of_text(const std::string& text) {
  return error_of_files({{"config.json", R"({"model_type": "bert", "vocab_size": 1000})"}, {"tokenizer.json", text}});
}

TEST(TokenizerJsonErrors, MalformedFilesNameFileAndField) {
  EXPECT_NE(error_of_text("{\"model\": ").find("MODEL/tokenizer.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of_text("[1]").find("MODEL/tokenizer.json: (top level) must be a JSON object"), std::string::npos);
  auto file = wordpiece({"a"});
  file.erase("model");
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: model is missing"), std::string::npos);
  file = wordpiece({"a"});
  file["model"]["vocab"]["a"] = "x";
  // The bound: config.json's vocab_size 1000 plus the file's own 5 added tokens and 6 vocabulary entries.
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: model.vocab.a must be an integer from 0 to 1010"), std::string::npos);
  // At config.json's vocab_size (1000: no embedding row) the folder loads with a warning, as Hugging
  // Face loads facebook/bart-large-cnn's <mask> = vocab_size; far beyond the file's own count of
  // ids it is refused as a broken file.
  file["model"]["vocab"]["a"] = 1000;
  EXPECT_EQ(error_of(file), "(no error)");
  file["model"]["vocab"]["a"] = 1011;
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: model.vocab.a must be an integer from 0 to 1010"), std::string::npos);
  file = wordpiece({"a"});
  file["added_tokens"][1].erase("content");
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: added_tokens[1].content must be a string"), std::string::npos);
  file = wordpiece({"a"});
  file["normalizer"] = {{"type", "Precompiled"}, {"precompiled_charsmap", "AAA="}};
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: normalizer.precompiled_charsmap: the character map is 2 bytes"),
            std::string::npos);
  file["normalizer"] = {{"type", "Precompiled"}, {"precompiled_charsmap", "AA*="}};
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: normalizer.precompiled_charsmap: not base64"), std::string::npos);
  file = wordpiece({"a"});
  file["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "("}}}, {"behavior", "Isolated"}, {"invert", false}};
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: pre_tokenizer.pattern Regex is not a valid pattern"),
            std::string::npos);
  file["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "a"}}}, {"behavior", "Sideways"}, {"invert", false}};
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: pre_tokenizer.behavior \"Sideways\" is not supported"),
            std::string::npos);
  file = wordpiece({"a"});
  file["post_processor"]["single"][0]["SpecialToken"]["id"] = "[X]";
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: post_processor.single[0].SpecialToken names '[X]'"),
            std::string::npos);
  file = wordpiece({"a"});
  file["post_processor"]["special_tokens"]["[CLS]"]["ids"][0] = 999;
  EXPECT_NE(error_of(file).find("MODEL/tokenizer.json: post_processor.special_tokens.[CLS].ids[0] id 999 is not in the vocabulary"),
            std::string::npos);
}

TEST(TokenizerJsonChoice, JsonWithoutTheFileOrForALanguageFamilyIsRefused) {
  EXPECT_NE(error_of_files(fixture_files("bert-base-uncased", {"tokenizer.json"}), TokenizerChoice::Json)
                .find("MODEL: missing tokenizer file tokenizer.json (asked for with --tokenizer json)"),
            std::string::npos);
  const std::map<std::string, std::string> mbart = {
      {"config.json", R"({"model_type": "mbart", "vocab_size": 1000})"}, {"tokenizer.json", unigram({}).dump()}};
  EXPECT_NE(error_of_files(mbart, TokenizerChoice::Json).find("use --tokenizer slow"), std::string::npos);
  // By default such a folder is read from its slow files, whose absence is the error.
  EXPECT_NE(error_of_files(mbart).find("missing tokenizer file sentencepiece.bpe.model"), std::string::npos);
  EXPECT_NE(error_of_files(fixture_files("bert-base-uncased", {"vocab.txt"}), TokenizerChoice::Slow)
                .find("missing tokenizer file vocab.txt"),
            std::string::npos);
}

// Some Hub folders name the generic fast class, PreTrainedTokenizerFast, in tokenizer_config.json:
// AutoTokenizer then reads tokenizer.json alone, whatever the model family's class would be.
std::map<std::string, std::string> generic_fast(std::vector<std::string> drop = {}) {
  auto files = fixture_files("bert-base-uncased", drop);
  json config = json::parse(files.at("tokenizer_config.json"));
  config["tokenizer_class"] = "PreTrainedTokenizerFast";
  files["tokenizer_config.json"] = config.dump();
  return files;
}

TEST(PreTrainedTokenizerFast, ReadsTokenizerJsonAsAutoTokenizerDoes) {
  for (const auto choice : {TokenizerChoice::Auto, TokenizerChoice::Json}) {
    const auto tokenizer = open(generic_fast({"vocab.txt"}), choice);
    EXPECT_STREQ(tokenizer->tokenizer_class().name, "PreTrainedTokenizerFast");
    EXPECT_TRUE(tokenizer->algorithm().starts_with("tokenizer.json"));
    expect_golden(*tokenizer, golden("bert-base-uncased"), true);
  }
}

TEST(PreTrainedTokenizerFast, HasNoSlowFilesToFallBackOn) {
  EXPECT_EQ(error_of_files(generic_fast(), TokenizerChoice::Slow),
            "MODEL: PreTrainedTokenizerFast is read from tokenizer.json only (it has no slow tokenizer files): "
            "leave out --tokenizer slow");
  // vocab.txt is there, but the named class has none: the folder is refused, not read as BertTokenizer.
  EXPECT_EQ(error_of_files(generic_fast({"tokenizer.json"})),
            "MODEL: PreTrainedTokenizerFast is read from tokenizer.json only (it has no slow tokenizer files), "
            "and the folder has none");
  // Only the generic class keeps its suffix: "PreTrainedTokenizer" is no class invar reads.
  auto files = generic_fast();
  json config = json::parse(files.at("tokenizer_config.json"));
  config["tokenizer_class"] = "PreTrainedTokenizer";
  files["tokenizer_config.json"] = config.dump();
  EXPECT_NE(error_of_files(files).find("tokenizer_class 'PreTrainedTokenizer' is not supported"), std::string::npos);
}

// `invar tokenize --tokenizer`: a folder as transformers writes flan-t5-base (both kinds of files, a
// stand-in weights file) gives the fast ids by default and with json, the slow ids with slow.
TEST(TokenizerJsonCli, TokenizerOptionPicksTheFiles) {
  const auto dir = test::temp_dir();
  for (const auto& [name, bytes] : fixture_files("flan-t5-base")) test::write_file(dir + "/" + name, bytes);
  test::write_file(dir + "/model.safetensors",
                   test::make_safetensors({{"shared.weight", "F32", {1}, test::bytes_of(std::vector<float>{0})}}));
  const auto cases = golden("flan-t5-base")["cases"];
  const auto it = std::find_if(cases.begin(), cases.end(), [](const json& c) {
    return c["text"] == "[CLS] fake [SEP] tokens, <s> </s> <pad> <unk> look-alikes";
  });
  ASSERT_NE(it, cases.end());
  ASSERT_NE((*it)["input_ids"], (*it)["hf_4_19_slow_ids"]);
  auto ids = [&](std::vector<std::string> options) {
    std::vector<std::string> args = {"tokenize", "-m", dir};
    args.insert(args.end(), options.begin(), options.end());
    const auto result = test::run_cli(args, (*it)["text"].get<std::string>() + "\n");
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.exit_code == 0 ? json::parse(result.out)["ids"] : json();
  };
  EXPECT_EQ(ids({}), (*it)["input_ids"]);
  EXPECT_EQ(ids({"--tokenizer", "json"}), (*it)["input_ids"]);
  EXPECT_EQ(ids({"--tokenizer", "slow"}), (*it)["hf_4_19_slow_ids"]);
  const auto refused = test::run_cli({"tokenize", "-m", dir, "--tokenizer", "fast"}, "x\n");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("--tokenizer"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace invar
