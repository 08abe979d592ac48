// FSMT's tokenizer: the Moses normalizer, tokenizer and detokenizer (sacremoses' rules, expected
// outputs worked out from them by hand), XLM-style BPE on a handmade vocabulary, the FSMT framing
// and decoding; then what only the seq2seq/fsmt golden holds (Moses tokens, BPE pieces, the two
// vocabularies, config generation settings) and its translations through the CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "engine/seq2seq.hpp"
#include "engine/text/moses.hpp"
#include "engine/text/tokenizer.hpp"
#include "engine/translator.hpp"
#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"
#include "loaders/model_source.hpp"
#include "models/hf_config.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;
using Words = std::vector<std::string>;

namespace {

Words tokenize(std::string_view language, std::string_view text, bool aggressive = true) {
  return MosesTokenizer(language).tokenize(text, aggressive);
}

std::string detokenize(std::string_view language, const Words& tokens) { return MosesDetokenizer(language).detokenize(tokens); }

}  // namespace

// ---- Moses tokenizer -------------------------------------------------------------------------

TEST(MosesTokenizer, SplitsPunctuationAndEscapesXml) {
  EXPECT_EQ(tokenize("en", "This ain't funny. It's actually hillarious, yet double Ls. | [] < > [ ] & You're gonna "
                           "shake it off? Don't?"),
            (Words{"This", "ain", "&apos;t", "funny", ".", "It", "&apos;s", "actually", "hillarious", ",", "yet",
                   "double", "Ls", ".", "&#124;", "&#91;", "&#93;", "&lt;", "&gt;", "&#91;", "&#93;", "&amp;", "You",
                   "&apos;re", "gonna", "shake", "it", "off", "?", "Don", "&apos;t", "?"}));
  EXPECT_EQ(tokenize("en", "a \"quoted\" word!!"), (Words{"a", "&quot;", "quoted", "&quot;", "word", "!", "!"}));
  EXPECT_EQ(MosesTokenizer("en").tokenize("a & b", false, false), (Words{"a", "&", "b"}));
  EXPECT_EQ(tokenize("en", "  spaces\t\tand\x01 junk  "), (Words{"spaces", "and", "junk"}));
  EXPECT_TRUE(tokenize("en", " \t ").empty());
}

TEST(MosesTokenizer, KeepsNumbersWholeAndSeparatesCommasElsewhere) {
  EXPECT_EQ(tokenize("en", "The price is 5,300.50 dollars."), (Words{"The", "price", "is", "5,300.50", "dollars", "."}));
  EXPECT_EQ(tokenize("en", "A,B,C"), (Words{"A", ",", "B", ",", "C"}));
  EXPECT_EQ(tokenize("en", "In 1990, 2,5"), (Words{"In", "1990", ",", "2,5"}));
  EXPECT_EQ(tokenize("en", "Wait... what"), (Words{"Wait", "...", "what"}));
}

TEST(MosesTokenizer, NonbreakingPrefixesKeepTheirPeriod) {
  EXPECT_EQ(tokenize("en", "Mr. Smith saw Dr. Who in the U.S. today."),
            (Words{"Mr.", "Smith", "saw", "Dr.", "Who", "in", "the", "U.S.", "today", "."}));
  // Not on the list and followed by a capital: a sentence end.
  EXPECT_EQ(tokenize("en", "He left. Then"), (Words{"He", "left", ".", "Then"}));
  // Followed by a lowercase word: never a sentence end.
  EXPECT_EQ(tokenize("en", "the end. and more"), (Words{"the", "end.", "and", "more"}));
  // "No #NUMERIC_ONLY#": nonbreaking only before a number.
  EXPECT_EQ(tokenize("en", "See No. 5 and No. Way"), (Words{"See", "No.", "5", "and", "No", ".", "Way"}));
  // German ordinals are on the German list only.
  EXPECT_EQ(tokenize("de", "Am 3. Oktober"), (Words{"Am", "3.", "Oktober"}));
  EXPECT_EQ(tokenize("en", "On 3. October"), (Words{"On", "3", ".", "October"}));
  EXPECT_EQ(tokenize("ru", "Он живёт на ул. Ленина."), (Words{"Он", "живёт", "на", "ул.", "Ленина", "."}));
}

TEST(MosesTokenizer, ApostrophesFollowTheLanguage) {
  EXPECT_EQ(tokenize("en", "It's John's 1990's"), (Words{"It", "&apos;s", "John", "&apos;s", "1990", "&apos;s"}));
  EXPECT_EQ(tokenize("de", "Geht's gut"), (Words{"Geht", "&apos;", "s", "gut"}));
  EXPECT_EQ(tokenize("en", "the dogs' toys"), (Words{"the", "dogs", "&apos;", "toys"}));
}

TEST(MosesTokenizer, AggressiveDashSplitsMarkHyphens) {
  EXPECT_EQ(tokenize("en", "a well-known e-mail"), (Words{"a", "well", "@-@", "known", "e", "@-@", "mail"}));
  EXPECT_EQ(tokenize("en", "a well-known e-mail", false), (Words{"a", "well-known", "e-mail"}));
  EXPECT_EQ(tokenize("en", "pages 3-5 -- or -x"), (Words{"pages", "3", "@-@", "5", "--", "or", "-x"}));
}

TEST(MosesTokenizer, LanguagesWithoutPrefixListsAndTextThatIsNotUtf8Fail) {
  EXPECT_THROW(MosesTokenizer("xx"), Error);
  EXPECT_NO_THROW(MosesTokenizer("ru"));
  EXPECT_THROW(tokenize("en", "caf\xC3 au lait"), Error);
}

// ---- Normalizer ------------------------------------------------------------------------------

TEST(MosesPunctNormalizer, NormalizesQuotesDashesAndSpaces) {
  EXPECT_EQ(MosesPunctNormalizer("de").normalize("„Hallo“ – sagte er…"), "\"Hallo\" - sagte er...");
  EXPECT_EQ(MosesPunctNormalizer("en").normalize("He said \"yes\", then"), "He said \"yes,\" then");
  EXPECT_EQ(MosesPunctNormalizer("de").normalize("Er sagte \"ja,\" dann"), "Er sagte \"ja\", dann");
  EXPECT_EQ(MosesPunctNormalizer("en").normalize("1\u00A0000 and ( a ) x :"), "1.000 and (a) x:");
  EXPECT_EQ(MosesPunctNormalizer("de").normalize("1\u00A0000"), "1,000");
  EXPECT_EQ(MosesPunctNormalizer("ru").normalize("«Привет»   мир"), "\"Привет\" мир");
  // Penn quotes: `` becomes '' and then a spaced double quote.
  EXPECT_EQ(MosesPunctNormalizer("en").normalize("it’s ``fine''"), "it's \" fine \"");
}

TEST(MosesPreprocessing, UnicodePunctuationAndNonPrintingCharacters) {
  EXPECT_EQ(replace_unicode_punctuation("你好，世界。  再见！（１２）"), "你好,世界. 再见!(12)");
  EXPECT_EQ(remove_non_printing("a\u200Bb\x07" "c\u00ADd\xEE\x80\x80"), "abcd");  // Cf, Cc, Cf, Co
}

// ---- Detokenizer -----------------------------------------------------------------------------

TEST(MosesDetokenizer, AttachesPunctuationQuotesAndCurrency) {
  EXPECT_EQ(detokenize("en", {"This", "ain", "&apos;t", "funny", ".", "It", "&apos;s", "actually", "hillarious", ",",
                              "yet", "double", "Ls", ".", "&#124;", "&#91;", "&#93;", "&lt;", "&gt;", "&#91;", "&#93;",
                              "&amp;", "You", "&apos;re", "gonna", "shake", "it", "off", "?", "Don", "&apos;t", "?"}),
            "This ain't funny. It's actually hillarious, yet double Ls. | [] < > [] & You're gonna shake it off? "
            "Don't?");
  EXPECT_EQ(detokenize("de", {"ein", "E", "@-@", "Mail", "kostet", "$", "5", "(", "50", "%", ")", "."}),
            "ein E-Mail kostet $5 (50%).");
  EXPECT_EQ(detokenize("en", {"the", "Jones", "&apos;", "house"}), "the Jones' house");
  EXPECT_EQ(detokenize("en", {"&quot;", "a", "&quot;", "b", "&quot;", "c", "&quot;"}), "\"a\" b \"c\"");
  EXPECT_EQ(detokenize("fr", {"l&apos;", "homme", "?"}), "l'homme ?");
  EXPECT_EQ(detokenize("en", {"日本", "語", "text"}), "日本語 text");
  EXPECT_THROW(MosesDetokenizer("cs"), Error);
}

TEST(MosesDetokenizer, UndoesTheTokenizer) {
  for (const std::string text : {"Mr. Smith doesn't like \"quotes\" (or brackets), does he?",
                                 "A well-known e-mail costs $5 & more | less.", "Das ist z.B. ein 3. Versuch!"}) {
    SCOPED_TRACE(text);
    const std::string language = text.starts_with("Das") ? "de" : "en";
    EXPECT_EQ(detokenize(language, tokenize(language, text)), text);
  }
}

// ---- FSMT tokenizer --------------------------------------------------------------------------

namespace {

// Source merges ranked by line; the third field (a count in fairseq's files) is ignored and the
// text after the last newline is not read.
const char* const kMerges = "l o\nlo w</w> 99\ne r</w>\nn e\nh a\nne w</w>";

const char* const kSourceVocab =
    R"({"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "lo": 4, "w": 5, "er</w>": 6, "low</w>": 7, "ne": 8,
        "w</w>": 9, ".</w>": 10, "@-@</w>": 11})";
const char* const kTargetVocab =
    R"({"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "das</w>": 4, "ha": 5, "us</w>": 6, "ist</w>": 7, "gro": 8,
        "ß</w>": 9, ".</w>": 10, "E</w>": 11, "@-@</w>": 12, "Mail</w>": 13, "&quot;</w>": 14})";

std::string fsmt_config(const std::string& extra = "") {
  return R"({"model_type": "fsmt", "architectures": ["FSMTForConditionalGeneration"], "langs": ["en", "de"],
    "src_vocab_size": 12, "tgt_vocab_size": 15, "d_model": 8, "encoder_layers": 1, "decoder_layers": 1,
    "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 16, "decoder_ffn_dim": 16,
    "max_position_embeddings": 32, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
    "decoder_start_token_id": 2, "num_beams": 2, "max_length": 8, "tie_word_embeddings": false,
    "activation_function": "gelu")" +
         extra + "}";
}

// The tokenizer files, and a placeholder weights file unless extra_files gives one.
std::string fsmt_folder(const std::vector<std::pair<std::string, std::string>>& extra_files = {},
                        const std::string& config = fsmt_config()) {
  std::vector<std::pair<std::string, std::string>> files{
      {"vocab-src.json", kSourceVocab},
      {"vocab-tgt.json", kTargetVocab},
      {"merges.txt", kMerges},
      {"model.safetensors", test::make_safetensors({{"w", "F32", {1}, test::bytes_of(std::vector<float>{1})}})}};
  files.insert(files.end(), extra_files.begin(), extra_files.end());
  return test::make_model_folder(files, config);
}

std::unique_ptr<Tokenizer> open_tokenizer(const std::string& folder) {
  auto source = ModelSource::open(folder);
  return make_tokenizer(*source);
}

}  // namespace

TEST(FsmtTokenizer, BpeMergesByRankWithWordEnds) {
  auto tokenizer = open_tokenizer(fsmt_folder());
  EXPECT_STREQ(tokenizer->tokenizer_class().name, "FSMTTokenizer");
  EXPECT_EQ(tokenizer->algorithm(), "moses-bpe");
  // lower: l o w e r</w> -> (l o) -> lo w e r</w> -> (e r</w>) -> lo w er</w>; "lo w" has no rank
  // (only "lo w</w>" does).
  EXPECT_EQ(tokenizer->tokenize("lower"), (Words{"lo", "w", "er</w>"}));
  EXPECT_EQ(tokenizer->tokenize("low"), (Words{"low</w>"}));  // "lo w</w> 99": the count is ignored
  // "ne w</w>" is on the unterminated last line, which FSMTTokenizer does not read.
  EXPECT_EQ(tokenizer->tokenize("new"), (Words{"ne", "w</w>"}));
  EXPECT_EQ(tokenizer->tokenize("w"), (Words{"w</w>"}));
  // Moses first: the period is split off, the hyphen marked; "@-@" is then a word like any other
  // (without merges for it here).
  EXPECT_EQ(tokenizer->tokenize("low-lower."), (Words{"low</w>", "@", "-", "@</w>", "lo", "w", "er</w>", ".</w>"}));
}

TEST(FsmtTokenizer, FramesWithEosAndSeparatesPairs) {
  auto tokenizer = open_tokenizer(fsmt_folder());
  const auto encoding = tokenizer->encode("lower low new.");
  EXPECT_EQ(encoding.ids, (std::vector<std::int32_t>{4, 5, 6, 7, 8, 9, 10, 2}));
  EXPECT_EQ(encoding.special_mask, (std::vector<std::uint8_t>{0, 0, 0, 0, 0, 0, 0, 1}));
  // Source ids are named from vocab-src.json (Hugging Face's convert_ids_to_tokens would read
  // vocab-tgt.json: "das</w>", "ha", ...).
  EXPECT_EQ(encoding.tokens, (Words{"lo", "w", "er</w>", "low</w>", "ne", "w</w>", ".</w>", "</s>"}));
  EXPECT_EQ(tokenizer->encode("xyz").ids, (std::vector<std::int32_t>{3, 3, 3, 2}));  // x y z</w>: unknown
  const auto pair = tokenizer->encode_pair("low", "lower");
  EXPECT_EQ(pair.ids, (std::vector<std::int32_t>{7, 2, 4, 5, 6, 2}));
  EXPECT_EQ(pair.type_ids, (std::vector<std::int32_t>{0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(tokenizer->pad_id(), 1);
  EXPECT_EQ(tokenizer->sep_id(), 2);
  EXPECT_EQ(tokenizer->vocab_size(), 12u);  // HF: vocab_size is the source vocabulary's
}

TEST(FsmtTokenizer, DecodesTargetIdsThroughMosesDetokenization) {
  auto tokenizer = open_tokenizer(fsmt_folder());
  EXPECT_EQ(tokenizer->decode(std::vector<std::int32_t>{2, 4, 5, 6, 7, 8, 9, 10, 2}), "das haus ist groß.");
  // Target ids beyond the (smaller) source vocabulary decode; "@-@" joins, &quot; unescapes.
  EXPECT_EQ(tokenizer->decode(std::vector<std::int32_t>{14, 11, 12, 13, 14}), "\"E-Mail\"");
  EXPECT_EQ(tokenizer->decode(std::vector<std::int32_t>{4, 2}, false), "das </s>");
  EXPECT_THROW(tokenizer->decode(std::vector<std::int32_t>{15}), Error);
  // The target side tokenizes in the target language with vocab-tgt.json.
  // One merges.txt serves both sides: h a u s</w> -> (h a) -> ha u s</w>.
  EXPECT_EQ(tokenizer->tokenize("haus", Side::Target), (Words{"ha", "u", "s</w>"}));
  EXPECT_EQ(tokenizer->token_to_id("das</w>", Side::Target), 4);
  EXPECT_EQ(tokenizer->token_to_id("das</w>", Side::Source), 3);
}

TEST(FsmtTokenizer, LowercasesWhenConfigured) {
  auto tokenizer = open_tokenizer(fsmt_folder({{"tokenizer_config.json", R"({"do_lower_case": true})"}}));
  EXPECT_EQ(tokenizer->tokenize("LOW"), (Words{"low</w>"}));
  EXPECT_EQ(open_tokenizer(fsmt_folder())->tokenize("LOW"), (Words{"L", "O", "W</w>"}));
}

TEST(FsmtTokenizer, BadFilesFailNamingThem) {
  auto message = [](const std::string& folder) {
    try {
      open_tokenizer(folder);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(fsmt_folder({{"vocab-tgt.json", "[1, 2]"}})).find("vocab-tgt.json"), std::string::npos);
  EXPECT_NE(message(fsmt_folder({{"tokenizer_config.json", R"({"langs": ["en"]})"}})).find("langs"), std::string::npos);
  EXPECT_NE(message(fsmt_folder({{"tokenizer_config.json", R"({"langs": ["en", "xx"]})"}})).find("'xx'"),
            std::string::npos);
  EXPECT_NE(message(fsmt_folder({{"vocab-src.json", R"({"a": -1})"}})).find("vocab-src.json"), std::string::npos);
}

// ---- The seq2seq/fsmt golden (transformers 4.19, sacremoses) ----------------------------------
// Ids, encoder states, logits and generations run in tests/engine/test_seq2seq.cpp and tokens and
// padding in tests/text/test_tokenizers.cpp like every fixture's; here what only FSMT's golden holds.

namespace {

const std::string kFsmt = test::fixture("seq2seq/fsmt");

nlohmann::json fsmt_golden() { return test::load_json(kFsmt + "/golden.json"); }

// The golden's cases and its extra `tokenization` strings.
std::vector<nlohmann::json> tokenized_texts(const nlohmann::json& golden) {
  std::vector<nlohmann::json> texts(golden["cases"].begin(), golden["cases"].end());
  texts.insert(texts.end(), golden["tokenization"].begin(), golden["tokenization"].end());
  return texts;
}

std::vector<std::int32_t> ids(const nlohmann::json& value) { return value.get<std::vector<std::int32_t>>(); }

}  // namespace

// Moses in the source language (quotes, &, apostrophes, hyphens, abbreviations), BPE pieces (with
// pieces the vocabulary lacks, such as "ing</w>" and "€</w>", becoming <unk>), ids and tokens
// from vocab-src.json.
TEST(FsmtGolden, MosesTokensBpePiecesAndSourceIds) {
  const auto golden = fsmt_golden();
  const auto tokenizer = open_tokenizer(kFsmt);
  const MosesPipeline moses(golden["langs"][0].get<std::string>());
  for (const auto& c : tokenized_texts(golden)) {
    const std::string text = c["text"];
    SCOPED_TRACE(text);
    EXPECT_EQ(moses.tokenize(text), c["moses_tokens"].get<Words>());
    if (c.contains("bpe_tokens")) {
      EXPECT_EQ(tokenizer->tokenize(text), c["bpe_tokens"].get<Words>());
    }
    const auto encoding = tokenizer->encode(text);
    EXPECT_EQ(encoding.ids, ids(c["input_ids"]));
    EXPECT_EQ(encoding.tokens, c["tokens"].get<Words>());
  }
}

// The target side has its own vocabulary: the teacher-forced decoder inputs are </s> and the first
// four source pieces looked up in vocab-tgt.json, and decoder inputs and greedy outputs are named
// from it.
TEST(FsmtGolden, DecoderIdsAndTokensUseTheTargetVocabulary) {
  const auto golden = fsmt_golden();
  const auto tokenizer = open_tokenizer(kFsmt);
  const auto decoder_start = load_model_config(*ModelSource::open(kFsmt)).decoder_start_token_id;
  ASSERT_TRUE(decoder_start.has_value());
  const auto names = [&](const nlohmann::json& ids_json) {
    Words out;
    for (const auto id : ids(ids_json)) out.push_back(tokenizer->id_to_token(id, Side::Target));
    return out;
  };
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    const auto pieces = tokenizer->tokenize(c["text"].get<std::string>());
    std::vector<std::int32_t> decoder_input{static_cast<std::int32_t>(*decoder_start)};
    for (std::size_t i = 0; i < std::min<std::size_t>(4, pieces.size()); ++i)
      decoder_input.push_back(tokenizer->token_to_id(pieces[i], Side::Target));
    EXPECT_EQ(decoder_input, ids(c["decoder_input_ids"]));
    EXPECT_EQ(names(c["decoder_input_ids"]), c["decoder_input_tokens"].get<Words>());
    EXPECT_EQ(names(c["greedy_ids"]), c["greedy_tokens"].get<Words>());
  }
}

// config.json's generation settings reach the search unasked: the golden's beam used the config's
// length_penalty 1.1 and forced EOS.
TEST(FsmtGolden, GenerationDefaultsComeFromTheConfig) {
  const auto golden = fsmt_golden();
  const auto source = ModelSource::open(kFsmt);
  const auto backend = make_cpu_backend({.threads = 1});
  const Translator translator(*source, *backend);
  const auto settings = translator.default_settings();
  EXPECT_EQ(settings.length_penalty, golden["generation"]["beam"]["length_penalty"].get<double>());
  EXPECT_EQ(settings.early_stopping, golden["generation"]["beam"]["early_stopping"].get<bool>());
  EXPECT_EQ(settings.forced_eos_token_id, golden["generation"]["forced_eos_token_id"].get<std::int32_t>());
  EXPECT_EQ(settings.decoder_start_token_id, golden["generation"]["decoder_start_token_id"].get<std::int32_t>());
  EXPECT_EQ(settings.num_beams, 5);  // config.json's num_beams
}

// pytorch_model.bin holds no position tables (model.safetensors holds fairseq's sinusoids): the
// engine computes them (sin half then cos half, the first real position pad + 1) and must reach
// the golden the same way.
TEST(FsmtGolden, ComputedSinusoidalPositionsGiveTheGolden) {
  const auto golden = fsmt_golden();
  const auto source = ModelSource::open(test::bin_only_copy(kFsmt));
  ASSERT_FALSE(source->has_tensor("model.encoder.embed_positions.weight"));
  const auto backend = make_cpu_backend({.threads = 1});
  Seq2SeqModel model(*source, *backend);
  SearchSettings greedy = model.default_settings();
  greedy.num_beams = 1;
  greedy.max_length = golden["generation"]["greedy"]["max_length"].get<int>();
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    const auto states = model.encode({ids(c["input_ids"])});
    std::vector<float> expected;
    for (const auto& row : c["encoder_last_hidden_state"][0]) {
      const auto values = row.get<std::vector<float>>();
      expected.insert(expected.end(), values.begin(), values.end());
    }
    ASSERT_EQ(states.size(), expected.size());
    for (std::size_t i = 0; i < states.size(); ++i) ASSERT_NEAR(states[i], expected[i], 1e-4) << "value " << i;
    EXPECT_EQ(model.generate({ids(c["input_ids"])}, greedy)[0][0].ids, ids(c["greedy_ids"]));
  }
}

// Scoring a translation encodes it on the target side: target-language Moses, vocab-tgt.json ids,
// </s> — the same log-probability as forced decoding of those ids.
TEST(FsmtGolden, ScoreEncodesTheTargetWithTheTargetVocabulary) {
  const auto c = fsmt_golden()["cases"][1];
  const auto source = ModelSource::open(kFsmt);
  const auto backend = make_cpu_backend({.threads = 1});
  Translator translator(*source, *backend);
  const std::string target = c["greedy_text"];
  const auto scores = translator.score({{c["text"].get<std::string>(), target}});
  ASSERT_EQ(scores.size(), 1u);
  std::vector<std::int32_t> target_ids;
  for (const auto& piece : translator.tokenizer().tokenize(target, Side::Target))
    target_ids.push_back(translator.tokenizer().token_to_id(piece, Side::Target));
  target_ids.push_back(2);
  EXPECT_EQ(scores[0].tokens, target_ids.size());
  EXPECT_NEAR(scores[0].logprob, translator.model().score({ids(c["input_ids"])}, {target_ids})[0], 1e-9);
  EXPECT_LT(scores[0].logprob, 0.0);
}

// Text in, text out through the CLI: the best beam of each source, detokenized in the target
// language, one line per input line (the empty one kept).
TEST(FsmtGolden, CliTranslatesToTheGolden) {
  const auto golden = fsmt_golden();
  std::string input;
  std::vector<std::string> expected;
  for (const auto& c : golden["cases"]) {
    input += c["text"].get<std::string>() + "\n";
    expected.push_back(c["beam_texts"][0]);
  }
  input += "\n";
  expected.emplace_back();
  const auto translated = test::run_cli({"translate", "-m", kFsmt, "--beam", "4", "--max-length", "24", "--threads", "1"}, input);
  ASSERT_EQ(translated.exit_code, 0) << translated.err;
  std::istringstream lines(translated.out);
  std::vector<std::string> outputs;
  for (std::string line; std::getline(lines, line);) outputs.push_back(line);
  EXPECT_EQ(outputs, expected);
}
