// The tokenizer class a folder names (tokenizer_config.json's tokenizer_class, else config.json's,
// as Hugging Face's AutoTokenizer reads them) decides the tokenizer, not the model family:
// mBART-50 and BARThez checkpoints are model_type mbart, and tokenizing them as MBartTokenizer
// (cc25) puts the language code at the end, shifts every BARThez id by one and drops its <s>.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "core/error.hpp"
#include "engine/text/tokenizer.hpp"
#include "loaders/model_source.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

using nlohmann::json;
using Ids = std::vector<std::int32_t>;
using Words = std::vector<std::string>;

// A copy of a fixture folder, its JSON files changed by `edit(file name, content)`, with a stand-in
// weight file (the folders hold tokenizers only; a model folder needs weights to open).
std::string folder_copy(const std::string& name,
                        const std::function<void(const std::string&, json&)>& edit = nullptr) {
  const std::string dir = test::copy_without(test::fixture("tokenizers/" + name), "golden.json");
  test::write_file(dir + "/model.safetensors",
                   test::make_safetensors({{"w", "F32", {1}, test::bytes_of(std::vector<float>{1})}}));
  if (edit)
    for (const char* file : {"config.json", "tokenizer_config.json"}) {
      json content = test::load_json(dir + "/" + file);
      edit(file, content);
      test::write_file(dir + "/" + file, content.dump());
    }
  return dir;
}

json golden_of(const std::string& name) {
  return test::load_json(test::fixture("tokenizers/" + name + "/golden.json"));
}

std::unique_ptr<Tokenizer> open_tokenizer(const std::string& dir) { return make_tokenizer(*ModelSource::open(dir)); }

Ids ids_of(const json& value) { return value.get<Ids>(); }

std::string error_of(const std::string& dir) {
  try {
    open_tokenizer(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// ---- mBART-50: MBart50Tokenizer named only in config.json ---------------------------------------

TEST(MBart50Tokenizer, ConfigJsonTokenizerClassGivesCodeFirstFraming) {
  const json golden = golden_of("mbart50");
  ASSERT_EQ(golden["tokenizer"], "MBart50Tokenizer");
  auto tokenizer = open_tokenizer(folder_copy("mbart50"));
  EXPECT_STREQ(tokenizer->tokenizer_class().name, "MBart50Tokenizer");
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    tokenizer->set_source_language(c["src_lang"].get<std::string>());
    const Encoding source = tokenizer->encode(c["text"].get<std::string>());
    EXPECT_EQ(source.ids, ids_of(c["input_ids"]));
    EXPECT_EQ(source.tokens, c["tokens"].get<Words>());
    tokenizer->set_target_language(c["tgt_lang"].get<std::string>());
    const Encoding target = tokenizer->encode_target(c["target_text"].get<std::string>());
    EXPECT_EQ(target.ids, ids_of(c["labels"]));
    EXPECT_EQ(target.tokens, c["label_tokens"].get<Words>());
    EXPECT_EQ(tokenizer->decode(ids_of(c["greedy_ids"])), c["greedy_text"].get<std::string>());
  }
}

TEST(MBart50Tokenizer, SourceLanguageCodesAndDefault) {
  const json golden = golden_of("mbart50");
  // tokenizer_config.json's src_lang is null: en_XX, as MBart50Tokenizer defaults it.
  auto tokenizer = open_tokenizer(folder_copy("mbart50"));
  ASSERT_EQ(golden["default_src_lang"]["effective_src_lang"], "en_XX");
  for (const auto& c : golden["default_src_lang"]["cases"])
    EXPECT_EQ(tokenizer->encode(c["text"].get<std::string>()).ids, ids_of(c["input_ids"]));
  for (const auto& c : golden["src_lang_framing"]) {
    tokenizer->set_source_language(c["src_lang"].get<std::string>());
    EXPECT_EQ(tokenizer->encode(c["text"].get<std::string>()).ids, ids_of(c["input_ids"])) << c["src_lang"];
  }
  // The 52 ML50 codes after the 200 pieces (+1), then <mask>.
  const auto& codes = golden["vocab"]["lang_code_to_id"];
  EXPECT_EQ(codes.size(), 52u);
  EXPECT_EQ(tokenizer->language_codes().size(), 52u);
  for (const auto& [code, id] : codes.items()) EXPECT_EQ(tokenizer->lang_id(code), id.get<std::int32_t>()) << code;
  EXPECT_EQ(tokenizer->mask_id(), golden["vocab"]["mask_token_id"].get<std::int32_t>());
  EXPECT_EQ(tokenizer->vocab_size(), golden["vocab"]["len"].get<std::size_t>());
  // ML50 has codes cc25 lacks.
  EXPECT_EQ(tokenizer->lang_id("sl_SI"), 252);
}

// Without tokenizer_class the same folder is MBartTokenizer (cc25): the code goes last. This is
// what invar did with mBART-50 folders before it read config.json's tokenizer_class.
TEST(MBart50Tokenizer, WithoutTheClassTheFamilyDefaultFramesDifferently) {
  const std::string dir = folder_copy("mbart50", [](const std::string& file, json& content) {
    if (file == "config.json") content.erase("tokenizer_class");
  });
  auto tokenizer = open_tokenizer(dir);
  EXPECT_STREQ(tokenizer->tokenizer_class().name, "MBartTokenizer");
  const Ids ids = tokenizer->encode("The cat sat on the mat.").ids;
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(ids[ids.size() - 2], 2);  // </s>, then cc25's en_XX
  EXPECT_EQ(tokenizer->id_to_token(ids.back()), "en_XX");
}

// tokenizer_config.json's tokenizer_class is honoured the same way, and wins over config.json's.
TEST(TokenizerClass, TokenizerConfigJsonNamesTheClassToo) {
  const json golden = golden_of("mbart50");
  const std::string dir = folder_copy("mbart50", [](const std::string& file, json& content) {
    if (file == "config.json") content["tokenizer_class"] = "MBartTokenizer";
    if (file == "tokenizer_config.json") content["tokenizer_class"] = "MBart50TokenizerFast";
  });
  auto tokenizer = open_tokenizer(dir);
  EXPECT_STREQ(tokenizer->tokenizer_class().name, "MBart50Tokenizer");
  const auto& c = golden["cases"][0];
  tokenizer->set_source_language(c["src_lang"].get<std::string>());
  EXPECT_EQ(tokenizer->encode(c["text"].get<std::string>()).ids, ids_of(c["input_ids"]));
}

// A class invar does not implement is an error naming it, the file and the field; never the
// family's default instead.
TEST(TokenizerClass, UnsupportedClassIsAnErrorNamingFileAndField) {
  const std::string in_config = folder_copy("barthez", [](const std::string& file, json& content) {
    if (file == "config.json") content["tokenizer_class"] = "CamembertTokenizer";
  });
  const std::string message = error_of(in_config);
  EXPECT_NE(message.find(in_config + "/config.json: tokenizer_class 'CamembertTokenizer' is not supported"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("BarthezTokenizer"), std::string::npos) << message;  // the supported ones are listed

  const std::string in_tokenizer_config = folder_copy("barthez", [](const std::string& file, json& content) {
    if (file == "tokenizer_config.json") content["tokenizer_class"] = "CamembertTokenizerFast";
  });
  EXPECT_NE(error_of(in_tokenizer_config)
                .find("tokenizer_config.json: tokenizer_class 'CamembertTokenizerFast' is not supported"),
            std::string::npos);

  const std::string not_a_string = folder_copy("barthez", [](const std::string& file, json& content) {
    if (file == "config.json") content["tokenizer_class"] = 7;
  });
  EXPECT_NE(error_of(not_a_string).find("config.json: field 'tokenizer_class' must be a string"), std::string::npos);
}

// ---- BARThez: BarthezTokenizer named only in config.json ----------------------------------------

// BarthezTokenizer: <s> X </s> and <s> A </s></s> B </s>; <s> <pad> </s> <unk> at 0-3 and every
// other piece at its SentencePiece id (no fairseq offset); <mask> on the last piece. The folder's
// SentencePiece model is core/xlmr's, so each piece's id is XLM-R's id minus one: XLM-R's
// "The cat sat on the mat." is [0, 79, 80, 30, 51, 12, 82, 128, 2] (core/xlmr/golden.json).
TEST(BarthezTokenizer, ConfigJsonTokenizerClassGivesSentencePieceIds) {
  auto tokenizer = open_tokenizer(folder_copy("barthez"));
  EXPECT_STREQ(tokenizer->tokenizer_class().name, "BarthezTokenizer");
  const Encoding one = tokenizer->encode("The cat sat on the mat.");
  EXPECT_EQ(one.ids, (Ids{0, 78, 79, 29, 50, 11, 81, 127, 2}));
  EXPECT_EQ(one.tokens, (Words{"<s>", "▁The", "▁cat", "▁sat", "▁on", "▁the", "▁mat", ".", "</s>"}));
  const Encoding pair = tokenizer->encode_pair("The cat", "the mat.");
  EXPECT_EQ(pair.ids, (Ids{0, 78, 79, 2, 2, 11, 81, 127, 2}));
  EXPECT_EQ(pair.type_ids, Ids(9, 0));
  EXPECT_EQ(tokenizer->bos_id(), 0);
  EXPECT_EQ(tokenizer->pad_id(), 1);
  EXPECT_EQ(tokenizer->eos_id(), 2);
  EXPECT_EQ(tokenizer->unk_id(), 3);
  EXPECT_EQ(tokenizer->mask_id(), 190);  // len(sp_model) - 1
  EXPECT_EQ(tokenizer->id_to_token(190), "<mask>");
  EXPECT_EQ(tokenizer->vocab_size(), 191u);  // len(sp_model): the mask takes the last piece's id
  EXPECT_EQ(tokenizer->decode(one.ids), "The cat sat on the mat.");
  // The mask keeps the space before it (lstrip) and is one token.
  EXPECT_EQ(tokenizer->encode("The <mask>").ids, (Ids{0, 78, 190, 2}));
}

// Every id of the same text through XLM-R's mapping of the same SentencePiece model is one higher.
TEST(BarthezTokenizer, IdsAreXlmRobertasMinusTheFairseqOffset) {
  auto barthez = open_tokenizer(folder_copy("barthez"));
  const json golden = test::load_json(test::fixture("core/xlmr/golden.json"));
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    const Ids xlmr_ids = ids_of(c["input_ids"]);
    const Ids ids = barthez->encode(c["text"].get<std::string>()).ids;
    ASSERT_EQ(ids.size(), xlmr_ids.size());
    EXPECT_EQ(ids.front(), 0);
    EXPECT_EQ(ids.back(), 2);
    for (std::size_t i = 1; i + 1 < ids.size(); ++i) {
      if (xlmr_ids[i] == 3) {
        EXPECT_EQ(ids[i], 3);  // unknown either way
      } else {
        EXPECT_EQ(ids[i], xlmr_ids[i] - 1) << "token " << i;
      }
    }
  }
}

}  // namespace
}  // namespace invar
