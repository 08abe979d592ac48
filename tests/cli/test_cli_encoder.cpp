// The encoder commands end to end: golden values through the CLI, one output line per input line
// in input order (empty lines included), atomic files, npy output, truncation warning, and clear
// errors for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;
using nlohmann::json;

namespace {

std::string model(const std::string& name) { return test::fixture("core/" + name); }

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

::testing::AssertionResult near_all(const json& actual, const json& expected, double tolerance = 1e-4) {
  if (actual.size() != expected.size()) return ::testing::AssertionFailure() << actual.size() << " vs " << expected.size();
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (std::fabs(actual[i].get<double>() - expected[i].get<double>()) > tolerance)
      return ::testing::AssertionFailure() << "value " << i << ": " << actual[i] << " vs " << expected[i];
  return ::testing::AssertionSuccess();
}

std::string input_file(const std::string& content) {
  const std::string path = test::temp_dir() + "/input.txt";
  test::write_file(path, content);
  return path;
}

// Lines of the golden's texts, joined with newlines (optionally with an empty line inserted first).
std::string texts_of(const json& golden, std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) text += golden["cases"][i]["text"].get<std::string>() + "\n";
  return text;
}

}  // namespace

// modules.json says mean pooling + Normalize; batch size 2 reorders by length inside the run, the
// output keeps input order, and the empty line gets its own output line.
TEST(CliEncoder, EmbedFollowsModulesJsonAndKeepsLineOrder) {
  for (const char* name : {"bert-wordpiece", "mpnet", "distilbert"}) {
    SCOPED_TRACE(name);
    const json golden = test::load_json(model(name) + "/golden.json");
    const std::string first = golden["cases"][0]["text"].get<std::string>() + "\n";
    const std::string input = first + "\n" + texts_of(golden, 5).substr(first.size());
    const auto result = test::run_cli({"-q", "embed", "-m", model(name), "--batch-size", "2"}, input);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto lines = json_lines(result.out);
    ASSERT_EQ(lines.size(), 6u);
    EXPECT_TRUE(near_all(lines[0]["embedding"], golden["cases"][0]["mean_pooled_normalized"][0]));
    EXPECT_EQ(lines[1]["embedding"].size(), 32u);  // the empty line: its two special tokens only
    for (std::size_t i = 1; i < 5; ++i)
      EXPECT_TRUE(near_all(lines[i + 1]["embedding"], golden["cases"][i]["mean_pooled_normalized"][0])) << "case " << i;
  }
}

namespace {

// core/mpnet as sentence-transformers 5.4+ saves it: modules named by file and class, the pooling
// as {"embedding_dimension", "pooling_mode", "include_prompt"}, sentence_bert_config.json without
// max_seq_length; the tokenizer's model_max_length (tokenizer_config.json) is the limit instead.
std::string st5_copy(const std::string& name, int model_max_length) {
  const std::string dir = test::model_copy(model(name));
  test::write_file(dir + "/modules.json", R"([
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.base.modules.transformer.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.sentence_transformer.modules.pooling.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.base.modules.normalize.Normalize"}])");
  test::write_file(dir + "/1_Pooling/config.json",
                   R"({"embedding_dimension": 32, "pooling_mode": "mean", "include_prompt": true})");
  test::write_file(dir + "/sentence_bert_config.json", R"({"transformer_task": "feature-extraction",
    "modality_config": {"text": {"method": "forward", "method_output_name": "last_hidden_state"}},
    "module_output_name": "token_embeddings"})");
  json tokenizer_config = test::load_json(dir + "/tokenizer_config.json");
  tokenizer_config["model_max_length"] = model_max_length;
  test::write_file(dir + "/tokenizer_config.json", tokenizer_config.dump());
  return dir;
}

// The same folder in the 2.x-5.3 layout with max_seq_length as the limit.
std::string st2_copy(const std::string& name, int max_seq_length) {
  const std::string dir = test::model_copy(model(name));
  test::write_file(dir + "/sentence_bert_config.json",
                   R"({"max_seq_length": )" + std::to_string(max_seq_length) + R"(, "do_lower_case": false})");
  return dir;
}

// An embed run's lines for the golden's first `count` texts are their normalized mean-pooled vectors.
::testing::AssertionResult embeds_as_golden(const test::CliResult& result, const json& golden, std::size_t count) {
  if (result.exit_code != 0)
    return ::testing::AssertionFailure() << "exit code " << result.exit_code << ": " << result.err;
  const auto lines = json_lines(result.out);
  if (lines.size() != count) return ::testing::AssertionFailure() << lines.size() << " lines, expected " << count;
  for (std::size_t i = 0; i < count; ++i)
    if (auto near = near_all(lines[i]["embedding"], golden["cases"][i]["mean_pooled_normalized"][0]); !near)
      return near << " (case " << i << ")";
  return ::testing::AssertionSuccess();
}

}  // namespace

TEST(CliEncoder, SentenceTransformers5FolderEmbedsAsTheGolden) {
  for (const char* name : {"bert-wordpiece", "mpnet"}) {
    SCOPED_TRACE(name);
    const json golden = test::load_json(model(name) + "/golden.json");
    const auto result = test::run_cli({"-q", "embed", "-m", st5_copy(name, 128)}, texts_of(golden, 5));
    EXPECT_TRUE(embeds_as_golden(result, golden, 5));
  }
}

// Without max_seq_length, the tokenizer's model_max_length cuts the texts exactly where the older
// layout's max_seq_length does.
TEST(CliEncoder, SentenceTransformers5FolderTruncatesAtTheTokenizersLimit) {
  const json golden = test::load_json(model("mpnet") + "/golden.json");
  const std::string input = texts_of(golden, 5);
  const auto run = [&](const std::string& dir) {
    const auto result = test::run_cli({"-q", "embed", "-m", dir, "--deterministic"}, input);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  };
  const std::string cut5 = run(st5_copy("mpnet", 6));
  EXPECT_EQ(cut5, run(st2_copy("mpnet", 6)));
  EXPECT_NE(cut5, run(st5_copy("mpnet", 128)));  // the limit did cut
}

// An older Hub config without model_type: the family comes from architectures (BertModel), said
// once on stderr although the tokenizer and the model both read the config.
TEST(CliEncoder, ConfigWithoutModelTypeIsReadFromArchitectures) {
  const std::string dir = test::model_copy(model("bert-wordpiece"));
  json config = test::load_json(dir + "/config.json");
  config.erase("model_type");
  test::write_file(dir + "/config.json", config.dump());
  const json golden = test::load_json(model("bert-wordpiece") + "/golden.json");
  const auto result = test::run_cli({"-q", "embed", "-m", dir}, texts_of(golden, 2));
  EXPECT_TRUE(embeds_as_golden(result, golden, 2));
  EXPECT_EQ(result.err, "invar: warning: " + dir + "/config.json: no model_type; read as 'bert' from architectures' "
                        "BertModel\n");
}

// --batch-tokens 16 puts the longer lines in batches of their own and the short ones together:
// one output line per input line, in input order, equal to the --batch-size run's (padding moves
// only the last float digits).
TEST(CliEncoder, BatchTokensKeepsLinesAndValues) {
  const json golden = test::load_json(model("bert-wordpiece") + "/golden.json");
  const std::string input = texts_of(golden, 5) + "\nshort\n";
  const std::vector<std::string> common{"-q", "embed", "-m", model("bert-wordpiece"), "--deterministic", "--batch-size", "4"};
  const auto by_size = test::run_cli(common, input);
  ASSERT_EQ(by_size.exit_code, 0) << by_size.err;
  std::vector<std::string> with_cap = common;
  with_cap.insert(with_cap.end(), {"--batch-tokens", "16"});
  const auto by_tokens = test::run_cli(with_cap, input);
  ASSERT_EQ(by_tokens.exit_code, 0) << by_tokens.err;
  const auto expected = json_lines(by_size.out), lines = json_lines(by_tokens.out);
  ASSERT_EQ(lines.size(), 7u);
  ASSERT_EQ(expected.size(), 7u);
  for (std::size_t i = 0; i < lines.size(); ++i)
    EXPECT_TRUE(near_all(lines[i]["embedding"], expected[i]["embedding"], 1e-6)) << "line " << i + 1;
}

TEST(CliEncoder, EmbedPoolingLayerAndNpyOutput) {
  const json golden = test::load_json(model("xlmr") + "/golden.json");
  const std::string input = texts_of(golden, 3);
  const auto mean = test::run_cli({"embed", "-m", model("xlmr"), "--pooling", "mean"}, input);
  ASSERT_EQ(mean.exit_code, 0) << mean.err;
  const auto lines = json_lines(mean.out);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(near_all(lines[i]["embedding"], golden["cases"][i]["mean_pooled"][0]));
  const auto cls = test::run_cli({"embed", "-m", model("xlmr"), "--pooling", "cls", "--layer", "0"}, input);
  ASSERT_EQ(cls.exit_code, 0) << cls.err;
  // CLS pooling of layer 0 is the first row of hidden_states[0].
  EXPECT_TRUE(near_all(json_lines(cls.out)[1]["embedding"], golden["cases"][1]["hidden_states"][0][0][0]));

  const std::string npy = test::temp_dir() + "/embeddings.npy";
  const auto binary = test::run_cli({"embed", "-m", model("xlmr"), "--output-format", "npy", "-o", npy}, input);
  ASSERT_EQ(binary.exit_code, 0) << binary.err;
  const std::string bytes = test::read_file(npy);
  ASSERT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  const std::size_t header = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header) % 64, 0u);
  EXPECT_NE(bytes.find("'shape': (3, 32)"), std::string::npos);
  ASSERT_EQ(bytes.size(), 10 + header + 3 * 32 * sizeof(float));
  float first = 0.0f;
  std::memcpy(&first, bytes.data() + 10 + header + 32 * sizeof(float), sizeof(float));
  EXPECT_NEAR(first, golden["cases"][1]["mean_pooled"][0][0].get<double>(), 1e-4);
}

// --weights int8 runs the linear layers in int8: embeddings near f32's but not equal to them.
TEST(CliEncoder, Int8WeightsEmbedCloseToF32) {
  const auto golden = test::load_json(test::fixture("core/bert-wordpiece/golden.json"));
  const std::string input = texts_of(golden, 3);
  const auto f32 = test::run_cli({"embed", "-m", model("bert-wordpiece")}, input);
  const auto int8 = test::run_cli({"embed", "-m", model("bert-wordpiece"), "--weights", "int8"}, input);
  ASSERT_EQ(int8.exit_code, 0) << int8.err;
  const auto want = json_lines(f32.out), got = json_lines(int8.out);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(near_all(got[i]["embedding"], want[i]["embedding"], 0.02)) << "line " << i;
    EXPECT_NE(got[i]["embedding"], want[i]["embedding"]) << "line " << i;
  }
  const auto refused = test::run_cli({"embed", "-m", model("bert-wordpiece"), "--weights", "int4"}, input);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("int4 not in {f32,f16,int8}"), std::string::npos) << refused.err;
}

// --linear openblas runs the linear layers on OpenBLAS: embeddings within the golden's tolerance of
// the default's (oneDNN), before or after the command's name; int8 weights are refused with it.
TEST(CliEncoder, LinearOpenBlasEmbedsAsOneDnnDoes) {
  const auto golden = test::load_json(test::fixture("core/bert-wordpiece/golden.json"));
  const std::string input = texts_of(golden, 3);
  const auto onednn = test::run_cli({"embed", "-m", model("bert-wordpiece"), "--linear", "onednn"}, input);
  const auto openblas = test::run_cli({"--linear", "openblas", "embed", "-m", model("bert-wordpiece")}, input);
  ASSERT_EQ(openblas.exit_code, 0) << openblas.err;
  const auto want = json_lines(onednn.out), got = json_lines(openblas.out);
  ASSERT_EQ(got.size(), 3u);
  ASSERT_EQ(want.size(), 3u);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(near_all(got[i]["embedding"], want[i]["embedding"], 1e-5));
  const auto int8 =
      test::run_cli({"embed", "-m", model("bert-wordpiece"), "--linear", "openblas", "--weights", "int8"}, input);
  EXPECT_EQ(int8.exit_code, 1);
  EXPECT_NE(int8.err.find("int8 weights run on oneDNN only, not with linear layers on openblas"), std::string::npos)
      << int8.err;
  const auto unknown = test::run_cli({"embed", "-m", model("bert-wordpiece"), "--linear", "mkl"}, input);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("mkl not in {onednn,openblas}"), std::string::npos) << unknown.err;
}

TEST(CliEncoder, HiddenWritesTokensAndTheRequestedLayer) {
  for (const char* name : {"bert-wordpiece", "electra", "albert", "deberta-v3"}) {
    SCOPED_TRACE(name);
    const json golden = test::load_json(model(name) + "/golden.json");
    const std::string out = test::temp_dir() + "/hidden.jsonl";
    const auto result = test::run_cli({"hidden", "-m", model(name), "--layer", "1", "-o", out}, texts_of(golden, 2));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "");
    const auto lines = json_lines(test::read_file(out));
    ASSERT_EQ(lines.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(lines[i]["tokens"], golden["cases"][i]["tokens"]);
      const json& expected = golden["cases"][i]["hidden_states"][1][0];
      ASSERT_EQ(lines[i]["hidden"].size(), expected.size());
      for (std::size_t t = 0; t < expected.size(); ++t) EXPECT_TRUE(near_all(lines[i]["hidden"][t], expected[t]));
    }
    const std::string beyond = std::to_string(golden["cases"][0]["hidden_states"].size());
    EXPECT_EQ(test::run_cli({"hidden", "-m", model(name), "--layer", beyond}, "x\n").exit_code, 1);
  }
}

TEST(CliEncoder, ClassifyPairsAndRegression) {
  for (const char* name :
       {"bert-pair-cls", "mbert-pair-cls", "xlmr-pair-cls", "electra-pair-cls", "albert-pair-cls", "deberta-v3-nli"}) {
    SCOPED_TRACE(name);
    const json golden = test::load_json(model(name) + "/golden.json");
    std::string input;
    for (const auto& c : golden["cases"]) input += c["text"].get<std::string>() + "\t" + c["text_pair"].get<std::string>() + "\n";
    const auto result = test::run_cli({"classify", "-m", model(name), "--pairs"}, input);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto lines = json_lines(result.out);
    ASSERT_EQ(lines.size(), golden["cases"].size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const json& c = golden["cases"][i];
      EXPECT_TRUE(near_all(lines[i]["logits"], c["logits"][0]));
      EXPECT_TRUE(near_all(lines[i]["probs"], c["probs"][0]));
      const auto logits = c["logits"][0].get<std::vector<double>>();
      const auto best = static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
      const json config = test::load_json(model(name) + "/config.json");
      const std::string label = config.contains("id2label") ? config["id2label"][std::to_string(best)].get<std::string>()
                                                              : "LABEL_" + std::to_string(best);
      EXPECT_EQ(lines[i]["label"], label);
    }
  }
  // A single-text classifier: DistilBERT fine-tuned on SST-2.
  const json sst2 = test::load_json(model("distilbert-sst2") + "/golden.json");
  const auto sentiment = test::run_cli({"classify", "-m", model("distilbert-sst2")}, texts_of(sst2, 12));
  ASSERT_EQ(sentiment.exit_code, 0) << sentiment.err;
  const auto labelled = json_lines(sentiment.out);
  ASSERT_EQ(labelled.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) {
    const json& c = sst2["cases"][i];
    EXPECT_TRUE(near_all(labelled[i]["logits"], c["logits"][0]));
    EXPECT_TRUE(near_all(labelled[i]["probs"], c["probs"][0]));
    EXPECT_EQ(labelled[i]["label"], c["logits"][0][0].get<double>() >= c["logits"][0][1].get<double>() ? "NEGATIVE" : "POSITIVE");
  }
  const json golden = test::load_json(model("xlmr-regression") + "/golden.json");
  const auto result = test::run_cli({"classify", "-m", model("xlmr-regression")}, texts_of(golden, 12));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto lines = json_lines(result.out);
  ASSERT_EQ(lines.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i)
    EXPECT_NEAR(lines[i]["score"].get<double>(), golden["cases"][i]["score"].get<double>(), 1e-4);
}

// The zero-shot-classification pipeline over an encoder NLI classifier: DeBERTa-v3's labels are
// entailment (id 0), neutral, contradiction, so the pipeline's contradiction is the last logit.
// Each line's scores follow from the logits `classify --pairs` gives for its premise-hypothesis
// pairs (those logits are checked against Hugging Face above).
TEST(CliEncoder, ZeroShotOnAnEncoderNliClassifier) {
  const std::string nli = model("deberta-v3-nli");
  const json golden = test::load_json(nli + "/golden.json");
  const std::vector<std::string> labels{"technology", "weather", "sports"};
  std::string premises, pairs;
  for (std::size_t i = 0; i < 4; ++i) {
    const auto premise = golden["cases"][i]["text"].get<std::string>();
    premises += premise + "\n";
    for (const auto& label : labels) pairs += premise + "\tThis example is " + label + ".\n";
  }
  const auto pair_run = test::run_cli({"classify", "-m", nli, "--pairs"}, pairs);
  ASSERT_EQ(pair_run.exit_code, 0) << pair_run.err;
  const auto pair_lines = json_lines(pair_run.out);
  ASSERT_EQ(pair_lines.size(), 12u);
  for (const bool multi : {false, true}) {
    SCOPED_TRACE(multi ? "multi-label" : "single-label");
    std::vector<std::string> args{"classify", "-m", nli, "--zero-shot", "technology,weather,sports"};
    if (multi) args.emplace_back("--multi-label");
    const auto result = test::run_cli(args, premises);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto lines = json_lines(result.out);
    ASSERT_EQ(lines.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
      std::vector<double> expected(3);
      double sum = 0;
      for (std::size_t k = 0; k < 3; ++k) {
        const json& logits = pair_lines[i * 3 + k]["logits"];
        const double entail = logits[0].get<double>(), contradiction = logits[2].get<double>();
        expected[k] = multi ? 1.0 / (1.0 + std::exp(contradiction - entail)) : std::exp(entail);
        sum += expected[k];
      }
      if (!multi)
        for (double& e : expected) e /= sum;
      ASSERT_EQ(lines[i]["labels"].size(), 3u);
      for (std::size_t r = 0; r < 3; ++r) {
        const auto at = std::find(labels.begin(), labels.end(), lines[i]["labels"][r].get<std::string>()) - labels.begin();
        ASSERT_LT(static_cast<std::size_t>(at), labels.size());
        EXPECT_NEAR(lines[i]["scores"][r].get<double>(), expected[static_cast<std::size_t>(at)], 1e-5);
        if (r > 0) {
          EXPECT_GE(lines[i]["scores"][r - 1].get<double>(), lines[i]["scores"][r].get<double>());
        }
      }
    }
  }
  // A classifier without an entailment label is no NLI model: refused naming its config.json.
  const auto no_nli = test::run_cli({"classify", "-m", model("bert-pair-cls"), "--zero-shot", "a,b"}, "x\n");
  EXPECT_EQ(no_nli.exit_code, 1);
  EXPECT_NE(no_nli.err.find("config.json: no label starts with 'entail'"), std::string::npos) << no_nli.err;
}

TEST(CliEncoder, PllAndPseudoPerplexity) {
  for (const char* name : {"bert-mlm", "xlmr-mlm"}) {
    SCOPED_TRACE(name);
    const json golden = test::load_json(model(name) + "/golden.json");
    const auto result = test::run_cli({"pll", "-m", model(name), "--ppl"}, texts_of(golden, 3) + "\n");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto lines = json_lines(result.out);
    ASSERT_EQ(lines.size(), 4u);
    for (std::size_t i = 0; i < 3; ++i) {
      const json& c = golden["cases"][i];
      EXPECT_TRUE(near_all(lines[i]["per_token"], c["pll_per_token"]));
      EXPECT_NEAR(lines[i]["pll"].get<double>(), c["pll"].get<double>(), 1e-3);
      EXPECT_EQ(lines[i]["tokens"], c["pll_per_token"].size());
      EXPECT_NEAR(lines[i]["ppl"].get<double>(), std::exp(-c["pll"].get<double>() / c["pll_per_token"].size()), 1e-2);
    }
    // An empty line has no token to score: defined, not skipped.
    EXPECT_EQ(lines[3], json::parse(R"({"pll": 0, "tokens": 0, "per_token": [], "ppl": null})"));
  }
}

TEST(CliEncoder, SimilarityOfPairs) {
  const auto result = test::run_cli({"similarity", "-m", model("bert-wordpiece")}, "The cat sat.\tThe cat sat.\nA dog.\tUne pomme rouge.\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto lines = json_lines(result.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NEAR(lines[0]["cosine"].get<double>(), 1.0, 1e-6);
  EXPECT_LT(lines[1]["cosine"].get<double>(), 0.999);
}

TEST(CliEncoder, LongInputsAreTruncatedWithOneWarning) {
  const auto result = test::run_cli({"embed", "-m", model("xlmr"), "--max-length", "5"},
                                    "The cat sat on the mat.\nShort.\nDie Katze sitzt auf der Matte.\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(json_lines(result.out).size(), 3u);
  EXPECT_NE(result.err.find("2 of 3 input lines were longer than 5 tokens"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("warning"), result.err.rfind("warning"));
}

TEST(CliEncoder, BadInputFailsWithOneClearLine) {
  struct Case {
    std::vector<std::string> args;
    std::string input, message;
  };
  const std::string one_column = input_file("a\tb\nonly one column\n");
  const std::string bad_utf8 = input_file("fine\n\xff\xfe broken\n");
  const std::vector<Case> cases{
      {{"classify", "-m", model("bert-pair-cls"), "--pairs", "-i", one_column}, "", one_column + ":2: expected 2 columns, found 1"},
      {{"similarity", "-m", model("bert-wordpiece"), "-i", one_column}, "", one_column + ":2: expected 2 columns"},
      {{"embed", "-m", model("bert-wordpiece"), "-i", bad_utf8}, "", bad_utf8 + ":2: invalid UTF-8"},
      {{"pll", "-m", model("xlmr")}, "x\n", "no masked-LM head"},
      {{"classify", "-m", model("bert-wordpiece")}, "x\n", "no sequence-classification head"},
      {{"embed", "-m", model("marian")}, "x\n", "not an encoder-only model"},
      {{"embed", "-m", model("xlmr"), "--pooling", "median"}, "x\n", "--pooling must be"},
  };
  for (const auto& c : cases) {
    const std::string out = test::temp_dir() + "/out.jsonl";
    auto args = c.args;
    args.insert(args.end(), {"-o", out});
    const auto result = test::run_cli(args, c.input);
    EXPECT_EQ(result.exit_code, 1) << c.message;
    EXPECT_NE(result.err.find(c.message), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << "a failed run left " << out;
  }
}
