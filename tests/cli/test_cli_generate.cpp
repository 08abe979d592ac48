// `invar generate`, `invar translate` and `invar score` through the built binary: outputs equal the
// Marian goldens, stay line-aligned with the input (empty lines included), and bad input ends with
// one clear error line and exit status 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "support/model_files.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

using nlohmann::json;
using test::fixture;
using test::run_cli;

const std::string kMarian = fixture("core/marian");

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

class CliGenerate : public ::testing::Test {
 protected:
  json golden_ = test::load_json(fixture("core/marian/golden.json"));
};

TEST_F(CliGenerate, TranslateGivesTheGreedyGoldenPerLineWithEmptyLinesKept) {
  auto sources = test::case_strings(golden_, "text");
  auto expected = test::case_strings(golden_, "greedy_text");
  sources.insert(sources.begin() + 2, "");
  expected.insert(expected.begin() + 2, "");
  sources.emplace_back("");
  expected.emplace_back("");
  const auto result = run_cli({"translate", "-m", kMarian, "--beam", "1", "--max-length", "24", "--batch-size", "5",
                               "--threads", "1"},
                              joined(sources));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(lines_of(result.out), expected);
}

TEST_F(CliGenerate, GenerateWritesBeamHypothesesAsJsonLines) {
  const std::string dir = test::temp_dir();
  const auto& c = golden_["cases"][0];
  const auto result = run_cli({"generate", "-m", kMarian, "--beam", "4", "--n-best", "2", "--max-length", "24",
                               "--length-penalty", "1", "-o", dir + "/out.jsonl"},
                              c["text"].get<std::string>() + "\n\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.out.empty());
  const auto lines = lines_of(test::read_file(dir + "/out.jsonl"));
  ASSERT_EQ(lines.size(), 2u);
  const json first = json::parse(lines[0]);
  ASSERT_EQ(first["hyps"].size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(first["hyps"][k]["ids"], c["beam_ids"][k]);
    EXPECT_EQ(first["hyps"][k]["text"], c["beam_texts"][k]);
    EXPECT_NEAR(first["hyps"][k]["score"].get<double>(), c["beam_scores"][k].get<double>(), 1e-4);
  }
  EXPECT_EQ(json::parse(lines[1]), json::parse(R"({"hyps": []})"));
}

// config.json's repetition_penalty and encoder_no_repeat_ngram_size are applied as their options are;
// the settings invar's search does not implement are named in a warning, never silently dropped.
TEST_F(CliGenerate, RepetitionSettingsFromConfigOrOptionsAndUnimplementedSettingsWarn) {
  const std::string sources = joined(test::case_strings(golden_, "text"));
  const std::vector<std::string> translate{"generate", "--beam", "1", "--max-length", "24"};
  auto with = [&](const std::string& model, std::vector<std::string> extra) {
    std::vector<std::string> args = translate;
    args.insert(args.end(), {"-m", model});
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args, sources);
  };
  const auto plain = with(kMarian, {});
  const auto option = with(kMarian, {"--repetition-penalty", "3"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(option.exit_code, 0) << option.err;
  EXPECT_NE(option.out, plain.out);  // the random fixture repeats tokens; a penalty of 3 changes that

  // Size 1 bans every source token (its EOS too) from the output.
  const auto source_ids = run_cli({"tokenize", "-m", kMarian}, sources);
  ASSERT_EQ(source_ids.exit_code, 0) << source_ids.err;
  const auto unigrams = with(kMarian, {"--repetition-penalty", "3", "--encoder-no-repeat-ngram", "1"});
  ASSERT_EQ(unigrams.exit_code, 0) << unigrams.err;
  const auto hyps = lines_of(unigrams.out), tokenized = lines_of(source_ids.out);
  ASSERT_EQ(hyps.size(), tokenized.size());
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    const auto source = json::parse(tokenized[i])["ids"].get<std::vector<int>>();
    const auto ids = json::parse(hyps[i])["hyps"][0]["ids"].get<std::vector<int>>();
    // EOS is a source token, so every output runs to --max-length, where config.json's
    // forced_eos_token_id (a processor after the ban, as in Hugging Face) puts it last.
    ASSERT_EQ(ids.size(), 24u);
    EXPECT_EQ(ids.back(), source.back());
    for (std::size_t k = 1; k + 1 < ids.size(); ++k)
      EXPECT_EQ(std::find(source.begin(), source.end(), ids[k]), source.end()) << "line " << i + 1 << " token " << k;
  }

  const std::string penalised = test::model_copy(kMarian);
  auto config = test::load_json(penalised + "/config.json");
  config["repetition_penalty"] = 3;
  config["encoder_no_repeat_ngram_size"] = 1;
  config["num_beam_groups"] = 2;
  test::write_file(penalised + "/config.json", config.dump());
  const auto from_config = with(penalised, {});
  ASSERT_EQ(from_config.exit_code, 0) << from_config.err;
  EXPECT_EQ(from_config.out, unigrams.out);
  EXPECT_NE(from_config.err.find("warning: " + penalised + "/config.json: num_beam_groups 2 is not implemented"),
            std::string::npos)
      << from_config.err;
}

TEST_F(CliGenerate, JsonlInputAndSamplingReproducibleForASeed) {
  const std::string input = R"({"text": "Short.", "id": 1})" "\n" R"({"text": "Die Katze sitzt auf der Matte."})" "\n";
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/in.jsonl", input);
  const std::vector<std::string> args{"generate", "-m", kMarian, "-i", dir + "/in.jsonl", "--sample", "--seed", "7",
                                      "--n-best", "3", "--max-new-tokens", "8", "--top-k", "20"};
  const auto first = run_cli(args), again = run_cli(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, again.out);
  const auto lines = lines_of(first.out);
  ASSERT_EQ(lines.size(), 2u);
  for (const auto& line : lines) {
    const json hyps = json::parse(line)["hyps"];
    ASSERT_EQ(hyps.size(), 3u);
    for (const auto& hyp : hyps) EXPECT_LE(hyp["ids"].size(), 9u);  // start + 8 new tokens
  }
  auto other = args;
  other[7] = "8";
  EXPECT_NE(run_cli(other).out, first.out);
}

TEST_F(CliGenerate, ScoreGivesLogprobAndTokensPerPair) {
  const auto& c = golden_["cases"][11];
  const std::string pair = c["text"].get<std::string>() + "\t" + c["greedy_text"].get<std::string>() + "\n";
  const auto result = run_cli({"score", "-m", kMarian}, pair + pair);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), 2u);
  const json first = json::parse(lines[0]);
  EXPECT_LT(first["logprob"].get<double>(), 0.0);
  EXPECT_GT(first["tokens"].get<int>(), 1);
  // Both pairs in one batch: equal up to float32 summation order.
  const json second = json::parse(lines[1]);
  EXPECT_NEAR(second["logprob"].get<double>(), first["logprob"].get<double>(), 1e-3);
  EXPECT_EQ(second["tokens"], first["tokens"]);
}

// --batch-tokens only changes which lines share a batch: the outputs are the --batch-size run's, line
// for line, with the same ids. (A batch's padded length changes the tail of the fixed-order sums over
// source positions, so scores may move in their last float digits even under --deterministic.)
TEST_F(CliGenerate, BatchTokensGivesTheBatchSizeOutputsLineForLine) {
  const std::string sources = joined(test::case_strings(golden_, "text")) + "\n" + "Short.\n";
  const std::vector<std::string> common{"generate", "-m", kMarian, "--beam", "3", "--max-length", "24",
                                        "--deterministic", "--threads", "1", "--batch-size", "5"};
  const auto by_size = run_cli(common, sources);
  ASSERT_EQ(by_size.exit_code, 0) << by_size.err;
  std::vector<std::string> with_cap = common;
  with_cap.insert(with_cap.end(), {"--batch-tokens", "12"});
  const auto by_tokens = run_cli(with_cap, sources);
  ASSERT_EQ(by_tokens.exit_code, 0) << by_tokens.err;
  const auto expected = lines_of(by_size.out), lines = lines_of(by_tokens.out);
  ASSERT_EQ(lines.size(), lines_of(sources).size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const json line = json::parse(lines[i]), want = json::parse(expected[i]);
    ASSERT_EQ(line["hyps"].size(), want["hyps"].size()) << i;
    for (std::size_t k = 0; k < line["hyps"].size(); ++k) {
      EXPECT_EQ(line["hyps"][k]["ids"], want["hyps"][k]["ids"]) << i;
      EXPECT_NEAR(line["hyps"][k]["score"].get<double>(), want["hyps"][k]["score"].get<double>(), 1e-5) << i;
    }
  }
}

// The vocabulary map's every token as an always-candidate: the shortlist is the whole vocabulary and
// the hypotheses are those without a map.
TEST_F(CliGenerate, VocabMapOfTheWholeVocabularyChangesNothing) {
  const std::string dir = test::temp_dir();
  std::string all;
  const json vocab = test::load_json(kMarian + "/vocab.json");
  for (const auto& entry : vocab.items()) all += entry.key() + " ";
  test::write_file(dir + "/all.vmap", "\t" + all + "\n");
  const std::string sources = joined(test::case_strings(golden_, "text"));
  const std::vector<std::string> common{"generate", "-m", kMarian, "--beam", "4", "--n-best", "2",
                                        "--max-length", "24", "--deterministic", "--threads", "1"};
  const auto plain = run_cli(common, sources);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  std::vector<std::string> mapped = common;
  mapped.insert(mapped.end(), {"--vocab-map", dir + "/all.vmap"});
  const auto shortlisted = run_cli(mapped, sources);
  ASSERT_EQ(shortlisted.exit_code, 0) << shortlisted.err;
  EXPECT_EQ(shortlisted.out, plain.out);
}

// A map allowing a few tokens, one through a source n-gram rule: every generated id is one of them,
// EOS or the tokenizer's unk (always candidates, as in CTranslate2).
TEST_F(CliGenerate, VocabMapRestrictsTheGeneratedTokens) {
  const std::string dir = test::temp_dir();
  // ▁the (10) follows a source ▁the; ▁der (5), ▁auf (6), ▁. (2) always; </s> 0 and <unk> 1 are added.
  test::write_file(dir + "/few.vmap", "\t▁der ▁auf ▁.\n▁the\t▁the\n");
  // Beam 3 takes 6 candidates: the 7 ids suffice, no other id fills the shortlist.
  const auto result = run_cli({"generate", "-m", kMarian, "--beam", "3", "--n-best", "3", "--max-length", "12",
                               "--vocab-map", dir + "/few.vmap"},
                              joined(test::case_strings(golden_, "text")));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::set<int> allowed{190, 0, 1, 2, 5, 6, 10};
  std::size_t hypotheses = 0;
  for (const auto& line : lines_of(result.out)) {
    const json parsed = json::parse(line);
    for (const auto& hyp : parsed["hyps"]) {
      ++hypotheses;
      for (int id : hyp["ids"]) EXPECT_TRUE(allowed.count(id)) << id;
    }
  }
  EXPECT_GT(hypotheses, 0u);
}

struct BadInput {
  std::vector<std::string> args;
  std::string input;
  std::string message;
};

// A vocabulary map file of this content, in a fresh folder.
std::string vocab_map(const std::string& content) {
  const std::string path = test::temp_dir() + "/bad.vmap";
  test::write_file(path, content);
  return path;
}

TEST_F(CliGenerate, BadInputEndsWithOneClearErrorLine) {
  std::string long_line;
  for (int i = 0; i < 80; ++i) long_line += "cat ";
  const std::vector<BadInput> cases{
      {{"translate", "-m", fixture("seq2seq/mbart"), "--tgt-lang", "xx_YY"}, "Hallo\n", "unknown language code 'xx_YY'"},
      {{"translate", "-m", fixture("seq2seq/m2m100"), "--src-lang", "zz"}, "Hallo\n", "unknown language code 'zz'"},
      {{"translate", "-m", kMarian, "--tgt-lang", "fr"}, "Hallo\n", "language"},
      {{"generate", "-m", fixture("core/xlmr")}, "Hallo\n", "encoder-only"},
      {{"translate", "-m", kMarian}, "Short.\n" + long_line + "\n", "<stdin>:2: 81 tokens, more than the model's 64 positions"},
      {{"score", "-m", kMarian}, "Short.\tKurz.\nonly one column\n", "<stdin>:2: expected 2 columns, found 1"},
      {{"score", "-m", kMarian}, "Short.\t\n", "<stdin>:1: the target is empty"},
      {{"translate", "-m", kMarian, "--max-length", "100"}, "Short.\n", "max_length 100 exceeds the model's 64 positions"},
      {{"translate", "-m", kMarian, "--sample", "--beam", "3"}, "Short.\n", "--sample"},
      {{"translate", "-m", fixture("core/does-not-exist")}, "Short.\n", "does-not-exist"},
      {{"translate", "-m", kMarian, "--vocab-map", vocab_map("\t▁der\nno tab here\n")}, "Short.\n", "bad.vmap:2: no tab"},
      {{"translate", "-m", kMarian, "--vocab-map", vocab_map("▁the\t▁the ▁nonesuch\n")}, "Short.\n",
       "bad.vmap:1: target token '▁nonesuch'"},
  };
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.args[0] + " " + bad.message);
    const auto result = run_cli(bad.args, bad.input);
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(lines_of(result.err).size(), 1u) << result.err;
    EXPECT_NE(result.err.find(bad.message), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

// mBART-50 (MBart50Tokenizer named in config.json only): --src-lang frames the source code first,
// --tgt-lang is the forced first token; the seq2seq/mbart50 golden per case and for the padded batch.
TEST(CliGenerateMBart50, LanguagesFromTheOptionsGiveTheGoldens) {
  const std::string model = fixture("seq2seq/mbart50");
  const json golden = test::load_json(model + "/golden-languages.json");
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    const std::string src = c["src_lang"], tgt = c["tgt_lang"], text = c["text"];
    const auto greedy = run_cli({"translate", "-m", model, "--src-lang", src, "--tgt-lang", tgt, "--beam", "1",
                                 "--max-length", "24", "--tokenizer", "auto"},
                                text + "\n");
    ASSERT_EQ(greedy.exit_code, 0) << greedy.err;
    EXPECT_EQ(lines_of(greedy.out), std::vector<std::string>{c["greedy_text"].get<std::string>()});
    const auto beam = run_cli({"generate", "-m", model, "--src-lang", src, "--tgt-lang", tgt, "--beam", "4", "--n-best",
                               "2", "--max-length", "24"},
                              text + "\n");
    ASSERT_EQ(beam.exit_code, 0) << beam.err;
    const json hyps = json::parse(beam.out)["hyps"];
    ASSERT_EQ(hyps.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
      auto ids = hyps[k]["ids"].get<std::vector<std::int32_t>>();
      ids.resize(c["beam_ids"][k].size(), 1);  // Hugging Face pads the shorter hypothesis
      EXPECT_EQ(ids, c["beam_ids"][k].get<std::vector<std::int32_t>>()) << "hypothesis " << k;
      EXPECT_EQ(hyps[k]["text"], c["beam_texts"][k]) << "hypothesis " << k;
      EXPECT_NEAR(hyps[k]["score"].get<double>(), c["beam_scores"][k].get<double>(), 1e-4) << "hypothesis " << k;
    }
  }
  const auto& batch = golden["padded_batch_beam4"];
  const auto result = run_cli({"generate", "-m", model, "--src-lang", batch["src_lang"], "--tgt-lang",
                               batch["tgt_lang"], "--beam", "4", "--n-best", "1", "--max-length", "24", "--batch-size",
                               "4"},
                              joined(batch["texts"].get<std::vector<std::string>>()));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), batch["beam_ids"].size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto ids = json::parse(lines[i])["hyps"][0]["ids"].get<std::vector<std::int32_t>>();
    ids.resize(batch["beam_ids"][i].size(), 1);
    EXPECT_EQ(ids, batch["beam_ids"][i].get<std::vector<std::int32_t>>()) << "line " << i + 1;
  }
}

// Its tokenizer.json holds a fixed `en_XX $A </s>` framing: --tokenizer json is refused naming why.
TEST(CliGenerateMBart50, TokenizerJsonIsRefused) {
  const auto result = run_cli({"translate", "-m", fixture("seq2seq/mbart50"), "--tokenizer", "json", "--src-lang",
                               "de_DE", "--tgt-lang", "en_XX"},
                              "Die Katze.\n");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(lines_of(result.err).size(), 1u) << result.err;
  for (const char* needle : {"MBart50Tokenizer", "tokenizer.json", "--tokenizer slow"})
    EXPECT_NE(result.err.find(needle), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST(CliGenerateHelp, EveryCommandDescribesItsOptions) {
  for (const char* command : {"generate", "translate", "score"}) {
    const auto result = run_cli({command, "--help"});
    EXPECT_EQ(result.exit_code, 0) << command;
    for (const char* option : {"--model", "--input", "--output", "--batch-size", "--batch-tokens", "--tgt-lang"})
      EXPECT_NE(result.out.find(option), std::string::npos) << command << " " << option;
  }
  const auto generate = run_cli({"generate", "--help"});
  for (const char* option :
       {"--beam", "--n-best", "--max-new-tokens", "--no-repeat-ngram", "--top-p", "--seed", "--vocab-map"})
    EXPECT_NE(generate.out.find(option), std::string::npos) << option;
}

}  // namespace
}  // namespace invar
