// Issue 18, item 1: output stays valid JSON when values are not finite. A model with one NaN weight
// is refused naming the tensor; with --allow-non-finite it loads with a warning, every JSON line
// still parses (null for NaN), each such line is reported on stderr with its input line, and
// classify picks no label.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/json_number.hpp"
#include "loaders/model_source.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;
using nlohmann::json;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));  // throws on bare nan
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const std::string& poisoned_bert() {
  static const std::string dir =
      test::poisoned_copy(test::fixture("core/bert-pair-cls"), "bert.embeddings.LayerNorm.weight", kNaN);
  return dir;
}

}  // namespace

TEST(JsonNumber, NonFiniteIsNull) {
  EXPECT_EQ(json_number_text(kNaN), "null");
  EXPECT_EQ(json_number_text(-kInf), "null");
  EXPECT_EQ(json_number_text(0.1f), "0.1");  // the float's shortest form, not its widened double
  const std::vector<float> values{1.5f, kNaN, kInf};
  EXPECT_EQ(json_array_text(values), "[1.5, null, null]");
  EXPECT_TRUE(json_number(std::nan("")).is_null());
  EXPECT_EQ(json_number(2.5), 2.5);
  EXPECT_FALSE(all_finite(values));
  EXPECT_TRUE(all_finite(std::span(values).first(1)));
}

TEST(NonFiniteWeights, RefusedNamingTheTensorInEveryFloatingDtype) {
  // One infinity each as F32, F16 (0x7C00) and BF16 (0x7F80); an integer tensor is never checked.
  const std::vector<std::pair<std::string, std::string>> cases{
      {"F32", test::bytes_of(std::vector<float>{1.0f, kInf})},
      {"F16", test::bytes_of(std::vector<std::uint16_t>{0x3C00, 0x7C00})},
      {"BF16", test::bytes_of(std::vector<std::uint16_t>{0x3F80, 0x7FC0})}};
  for (const auto& [dtype, bytes] : cases) {
    const auto dir = test::make_model_folder(
        {{"model.safetensors", test::make_safetensors({{"w", dtype, {2}, bytes}, {"ids", "I32", {1}, std::string(4, '\xff')}})}});
    auto source = ModelSource::open(dir);
    source->check_finite("ids", source->tensor("ids"));
    try {
      source->check_finite("w", source->tensor("w"));
      ADD_FAILURE() << dtype << ": accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("weight 'w' holds 1 non-finite value"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(dir), std::string::npos) << e.what();
    }
    source = ModelSource::open(dir);
    source->set_non_finite(NonFinite::Warn);
    EXPECT_NO_THROW(source->check_finite("w", source->tensor("w"))) << dtype;
  }
}

TEST(NonFiniteWeights, CommandsRefuseThePoisonedModel) {
  const auto result = test::run_cli({"embed", "-m", poisoned_bert()}, "a\n");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("weight 'bert.embeddings.LayerNorm.weight' holds 1 non-finite value"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("--allow-non-finite"), std::string::npos);
  EXPECT_EQ(count(result.err, "\n"), 1u);
  EXPECT_EQ(result.out, "");
}

// An embedding table is checked row by row as inputs first read its rows, not whole at load (most
// of a base model's bytes are its token table, of which a sentence reads a few rows): a NaN in a
// row no input reads is never reported, one in a row an input reads refuses the model before that
// row is used, naming the row, in a folder and in an .invar file alike.
TEST(NonFiniteWeights, TableRowsAreCheckedWhenFirstRead) {
  const std::string fixture = test::fixture("core/bert-pair-cls");
  const auto hidden = json::parse(test::read_file(fixture + "/config.json"))["hidden_size"].get<std::size_t>();
  const std::string folder =
      test::poisoned_copy(fixture, "bert.embeddings.position_embeddings.weight", kNaN, 10 * hidden);
  const std::string file = test::temp_dir() + "/poisoned.invar";
  ASSERT_EQ(test::run_cli({"convert", folder, "-o", file}).exit_code, 0);
  for (const std::string& model : {folder, file}) {
    SCOPED_TRACE(model);
    const auto short_text = test::run_cli({"embed", "-m", model}, "a b\n");  // positions 0 to 3
    EXPECT_EQ(short_text.exit_code, 0) << short_text.err;
    EXPECT_EQ(json_lines(short_text.out).size(), 1u);
    const auto long_text = test::run_cli({"embed", "-m", model}, "a b c d e f g h i j k l m n o p\n");
    EXPECT_EQ(long_text.exit_code, 1);
    EXPECT_NE(long_text.err.find("weight 'bert.embeddings.position_embeddings.weight' row 10 holds 1 non-finite value"),
              std::string::npos) << long_text.err;
    EXPECT_EQ(long_text.out, "");
    const auto allowed = test::run_cli({"embed", "-m", model, "--allow-non-finite"}, "a b c d e f g h i j k l m n o p\n");
    EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
    EXPECT_EQ(count(allowed.err, "warning: " + model + ": weight 'bert.embeddings.position_embeddings.weight' row 10"), 1u)
        << allowed.err;
  }
}

TEST(NonFiniteWeights, AllowedOutputStaysValidJsonAndIsReported) {
  const std::string input = "a b\tc\nd\te f g\n";
  for (const char* command : {"embed", "hidden", "similarity", "classify"}) {
    std::vector<std::string> args{command, "-m", poisoned_bert(), "--allow-non-finite"};
    if (std::string(command) == "classify") args.push_back("--pairs");
    const auto result = test::run_cli(args, input);
    ASSERT_EQ(result.exit_code, 0) << command << ": " << result.err;
    const auto lines = json_lines(result.out);
    ASSERT_EQ(lines.size(), 2u) << command;
    EXPECT_NE(result.err.find("warning: " + poisoned_bert() + ": weight 'bert.embeddings.LayerNorm.weight'"),
              std::string::npos) << result.err;
    EXPECT_NE(result.err.find("<stdin>:1: the output holds non-finite values"), std::string::npos) << command << result.err;
    EXPECT_NE(result.err.find("<stdin>:2: the output holds non-finite values"), std::string::npos) << command << result.err;
    EXPECT_EQ(result.out.find("nan"), std::string::npos) << command;
    if (std::string(command) == "classify") {
      EXPECT_TRUE(lines[0]["label"].is_null());
      EXPECT_TRUE(lines[1]["logits"][0].is_null());
    }
  }
}

TEST(NonFiniteWeights, PllAndScoreWriteNull) {
  const auto mlm = test::poisoned_copy(test::fixture("core/xlmr-mlm"), "roberta.embeddings.LayerNorm.weight", kNaN);
  const auto pll = test::run_cli({"pll", "-m", mlm, "--allow-non-finite", "--ppl"}, "hello world\n");
  ASSERT_EQ(pll.exit_code, 0) << pll.err;
  const auto line = json_lines(pll.out).at(0);
  EXPECT_TRUE(line["pll"].is_null());
  EXPECT_TRUE(line["ppl"].is_null());
  EXPECT_NE(pll.err.find("<stdin>:1: the output holds non-finite values"), std::string::npos) << pll.err;

  const auto marian = test::poisoned_copy(test::fixture("core/marian"), "model.shared.weight", kNaN);
  const auto refused = test::run_cli({"score", "-m", marian}, "a\tb\n");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("holds 1 non-finite value"), std::string::npos) << refused.err;
  const auto allowed = test::run_cli({"score", "-m", marian, "--allow-non-finite"}, "a\tb\n");
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_TRUE(json_lines(allowed.out).at(0)["logprob"].is_null()) << allowed.out;
  EXPECT_NE(allowed.err.find("<stdin>:1: the output holds non-finite values"), std::string::npos) << allowed.err;
}

// Issue 27, item 7: BERTScore's JSON lines of a poisoned model are null and each is named.
TEST(NonFiniteWeights, BertScoreJsonNamesEveryNullLine) {
  const auto bert = test::poisoned_copy(test::fixture("core/bert-wordpiece"), "embeddings.LayerNorm.weight", kNaN);
  const auto dir = test::temp_dir();
  test::write_file(dir + "/ref.txt", "a cat\nthe dog\n");
  const std::vector<std::string> args{"metric", "bertscore", "-m", bert, "--allow-non-finite", "--layer", "2", "-r",
                                      dir + "/ref.txt", "--json"};
  for (const bool sentence : {true, false}) {
    auto command = args;
    if (sentence) command.push_back("--sentence");
    const auto result = test::run_cli(command, "a cat\nthe dog\n");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const json first = sentence ? json_lines(result.out).at(0) : json::parse(result.out);  // the summary is indented
    EXPECT_TRUE(first["P"].is_null()) << result.out;  // F is 0 there, as bert_score fills a NaN F
    EXPECT_NE(result.err.find("<stdin>:1: the output holds non-finite values"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("<stdin>:2: the output holds non-finite values"), std::string::npos) << result.err;
  }
}

TEST(NonFiniteOutput, StatsWriteNullForInfinity) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/p.txt", "1\n1\n");
  test::write_file(dir + "/q.txt", "2\n0\n");
  const auto result = test::run_cli({"stats", "kl", "--p", dir + "/p.txt", "--q", dir + "/q.txt", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(json::parse(result.out)["kl"].is_null());
}
