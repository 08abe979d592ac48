// Folders written the way checkpoints are written today: transformers 5.17.0 and
// sentence-transformers 6.0.1 re-saved invar's own fixtures (tests/fixtures/layouts/README.md says
// how), and golden.json holds those libraries' own outputs on three texts: sentence-transformers'
// encode() of the st-bert folder and the ids of transformers 5.17's tokenizers. Each folder is
// assembled in a temporary directory from the layout files (tests/fixtures/layouts/<name>/) and
// the source fixture's weights (the same tensors; transformers left the weight files out of the
// copy), so the repository keeps one copy of each weight file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>
#include <sstream>

#include "support/model_files.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::fixture;
using test::run_cli;

const json& golden() {
  static const json value = test::load_json(fixture("layouts/golden.json"));
  return value;
}

std::string texts_input() {
  std::string input;
  for (const auto& text : golden()["texts"]) input += text.get<std::string>() + "\n";
  return input;
}

// The fixture a layout was saved from, and the files taken from it unchanged: the weights, and
// m2m100's sentencepiece.bpe.model (byte-identical to the fixture's).
struct Source {
  const char* layout;
  const char* fixture;
  std::vector<const char*> files;
};

const Source& source_of(const std::string& layout) {
  static const std::vector<Source> sources = {
      {"st-bert", "core/bert-wordpiece", {"model.safetensors"}},
      {"bart", "seq2seq/bart", {"model.safetensors"}},
      {"t5", "seq2seq/t5", {"model.safetensors"}},
      {"m2m100", "seq2seq/m2m100", {"model.safetensors", "sentencepiece.bpe.model"}},
  };
  for (const auto& source : sources)
    if (layout == source.layout) return source;
  throw std::logic_error("no source fixture for layout " + layout);
}

// The layout folder `name` with its source fixture's files, in a fresh directory.
std::string layout_folder(const std::string& name) {
  const std::string dir = test::temp_dir();
  fs::copy(fixture("layouts/" + name), dir, fs::copy_options::recursive);
  const Source& source = source_of(name);
  for (const char* file : source.files) fs::copy_file(fixture(std::string(source.fixture) + "/" + file), dir + "/" + file);
  return dir;
}

// model.safetensors of `dir` rewritten without the tensors `dropped`, the others unchanged.
void drop_tensors(const std::string& dir, const std::vector<std::string>& dropped) {
  const std::string bytes = test::read_file(dir + "/model.safetensors");
  std::uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) header_size |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  const json header = json::parse(bytes.substr(8, header_size));
  const std::string data = bytes.substr(8 + header_size);
  std::vector<test::RawTensor> kept;
  std::size_t found = 0;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    if (std::find(dropped.begin(), dropped.end(), name) != dropped.end()) {
      ++found;
      continue;
    }
    const auto begin = entry["data_offsets"][0].get<std::size_t>(), end = entry["data_offsets"][1].get<std::size_t>();
    kept.push_back({name, entry["dtype"], entry["shape"].get<std::vector<std::int64_t>>(), data.substr(begin, end - begin)});
  }
  ASSERT_EQ(found, dropped.size()) << "a tensor to drop is not in " << dir;
  test::write_file(dir + "/model.safetensors", test::make_safetensors(kept));
}

std::vector<json> jsonl(const std::string& text) {
  std::vector<json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  return lines;
}

std::vector<json> tokenize(const std::string& dir) {
  const auto result = run_cli({"tokenize", "-m", dir}, texts_input());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return jsonl(result.out);
}

void expect_ids(const std::string& dir, const std::string& golden_key) {
  const auto lines = tokenize(dir);
  const json& expected = golden()[golden_key];
  ASSERT_EQ(lines.size(), expected.size());
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i]["ids"], expected[i]) << golden_key << " text " << i;
}

std::vector<std::vector<double>> embed(const std::string& dir, const std::string& input,
                                       const std::vector<std::string>& options = {}) {
  std::vector<std::string> args = {"embed", "-m", dir, "--threads", "1"};
  args.insert(args.end(), options.begin(), options.end());
  const auto result = run_cli(args, input);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::vector<double>> embeddings;
  for (const auto& line : jsonl(result.out)) embeddings.push_back(line["embedding"].get<std::vector<double>>());
  return embeddings;
}

// ---- sentence-transformers 6.0.1 -----------------------------------------------------------------

// modules.json with 6.0's type names, 1_Pooling/config.json as {embedding_dimension, pooling_mode,
// include_prompt}, sentence_bert_config.json without max_seq_length, tokenizer.json without
// vocab.txt: `invar embed` gives sentence-transformers' own encode() (tolerance of
// tests/fixtures/core/README.md for embeddings).
TEST(RealLayouts, SentenceTransformers6EmbedGivesItsEncode) {
  const auto embeddings = embed(layout_folder("st-bert"), texts_input());
  const json& expected = golden()["st_bert_embeddings"];
  ASSERT_EQ(embeddings.size(), expected.size());
  for (std::size_t i = 0; i < embeddings.size(); ++i) {
    ASSERT_EQ(embeddings[i].size(), expected[i].size());
    for (std::size_t j = 0; j < embeddings[i].size(); ++j)
      EXPECT_NEAR(embeddings[i][j], expected[i][j].get<double>(), 1e-5) << "text " << i << " dim " << j;
  }
}

TEST(RealLayouts, SentenceTransformers6TokenizerJsonGivesTransformers5Ids) {
  const std::string dir = layout_folder("st-bert");
  ASSERT_FALSE(fs::exists(dir + "/vocab.txt"));
  expect_ids(dir, "bert_ids");
}

// transformers ≥ 4.31 (so 5.x) stores neither BERT's position_ids buffer nor a second copy of a
// tied weight; the folder's tensors as it would write them give the same embeddings.
TEST(RealLayouts, SentenceTransformers6WithoutThePositionIdsBuffer) {
  const std::string dir = layout_folder("st-bert");
  const auto full = embed(dir, texts_input());
  drop_tensors(dir, {"embeddings.position_ids"});
  EXPECT_EQ(embed(dir, texts_input()), full);
}

// ---- a transformers 5 tokenizer: model_max_length beyond int64 -----------------------------------

// bert-tok is the tokenizer alone as transformers 5 saves it: tokenizer.json and a
// tokenizer_config.json with "backend", "is_local" and model_max_length
// 1000000000000000019884624838656 (VERY_LARGE_INTEGER: no limit). With config.json and weights as
// transformers 5 writes the model beside it (st-bert's), it gives transformers 5's ids, and the
// huge limit means none: inputs are cut at the model's 512 positions, not at a wrapped-around
// number and not at an error.
std::string bert_model_with_v5_tokenizer() {
  const std::string dir = layout_folder("st-bert");
  for (const char* file : {"modules.json", "sentence_bert_config.json", "config_sentence_transformers.json", "README.md"})
    fs::remove(dir + "/" + file);
  fs::remove_all(dir + "/1_Pooling");
  fs::remove_all(dir + "/2_Normalize");
  for (const char* file : {"tokenizer.json", "tokenizer_config.json"})
    fs::copy_file(fixture(std::string("layouts/bert-tok/") + file), dir + "/" + file, fs::copy_options::overwrite_existing);
  return dir;
}

TEST(RealLayouts, Transformers5BertTokenizerGivesItsIds) {
  const std::string dir = bert_model_with_v5_tokenizer();
  ASSERT_GT(test::load_json(dir + "/tokenizer_config.json")["model_max_length"].get<double>(), 9.3e18);
  expect_ids(dir, "bert_ids");
}

TEST(RealLayouts, AModelMaxLengthBeyondInt64MeansNoLimit) {
  std::string words;
  for (int i = 0; i < 300; ++i) words += "the cat sat on the mat ";  // > 1,000 tokens
  const std::string input = words + "\n";
  const std::string dir = bert_model_with_v5_tokenizer();
  const auto unlimited = embed(dir, input);
  ASSERT_EQ(unlimited.size(), 1u);
  EXPECT_EQ(unlimited, embed(dir, input, {"--max-length", "512"}));
  EXPECT_NE(unlimited, embed(dir, input, {"--max-length", "128"}));
  // The sentence-transformers folder's model_max_length (128) is its limit, as sentence-transformers 6 reads it.
  const std::string st = layout_folder("st-bert");
  EXPECT_EQ(embed(st, input), embed(st, input, {"--max-length", "128"}));
}

// The tokenizer folder alone has no config.json: refused, naming what is missing (models/README.md
// lists it among the layouts that do not load).
TEST(RealLayouts, ATokenizerAloneIsRefusedNamingConfigJson) {
  const std::string dir = test::temp_dir();
  fs::copy(fixture("layouts/bert-tok"), dir, fs::copy_options::recursive);
  const auto result = run_cli({"tokenize", "-m", dir}, texts_input());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find(dir + ": no config.json"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());
}

// ---- transformers 5.17 seq2seq folders -----------------------------------------------------------

// bart: tokenizer.json only, tokenizer_class RobertaTokenizer; t5: tokenizer.json only;
// m2m100: its slow files and added_tokens.json (M2M100 has no fast tokenizer).
TEST(RealLayouts, Transformers5Seq2seqTokenizersGiveTheirIds) {
  for (const char* name : {"bart", "t5", "m2m100"}) {
    SCOPED_TRACE(name);
    expect_ids(layout_folder(name), std::string(name) + "_ids");
  }
}

// transformers 5 writes no slow tokenizer files for BERT, BART and T5: --tokenizer slow on them is
// an error naming the missing file, never another tokenizer. M2M100 has no fast tokenizer, so its
// folder has no tokenizer.json, and --tokenizer json says so.
TEST(RealLayouts, TheTokenizerFilesTransformers5LeavesOutAreNamedWhenAskedFor) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"st-bert", "slow", "missing tokenizer file vocab.txt"},
      {"bart", "slow", "missing tokenizer file vocab.json"},
      {"t5", "slow", "missing tokenizer file spiece.model"},
      {"m2m100", "json", "M2M100Tokenizer is read from its slow files only"},
  };
  for (const auto& [name, choice, message] : cases) {
    SCOPED_TRACE(name);
    const std::string dir = layout_folder(name);
    const auto result = run_cli({"tokenize", "-m", dir, "--tokenizer", choice}, texts_input());
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find(dir + ": "), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
  }
}

// transformers 5 writes forced_bos_token_id to generation_config.json only (4.19 wrote it to
// config.json); invar info names that file as its source.
TEST(RealLayouts, Transformers5GenerationConfigIsRead) {
  const std::map<std::string, std::map<std::string, json>> expected = {
      {"bart", {{"forced_bos_token_id", 0}, {"forced_eos_token_id", 2}, {"decoder_start_token_id", 2}}},
      {"t5", {{"decoder_start_token_id", 0}, {"eos_token_id", 1}}},
      {"m2m100", {{"forced_bos_token_id", 210}, {"decoder_start_token_id", 2}, {"eos_token_id", 2}}},
  };
  for (const auto& [name, settings] : expected) {
    SCOPED_TRACE(name);
    const std::string dir = layout_folder(name);
    ASSERT_FALSE(test::load_json(dir + "/config.json").contains("forced_bos_token_id"));
    const auto result = run_cli({"info", dir, "--json"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const json info = json::parse(result.out);
    for (const auto& [setting, value] : settings) {
      bool seen = false;
      for (const auto& entry : info["generation"])
        if (entry["name"] == setting) {
          seen = true;
          EXPECT_EQ(entry["value"], value) << setting;
          EXPECT_EQ(entry["from"], "generation_config.json") << setting;
        }
      EXPECT_TRUE(seen) << setting;
    }
  }
}

std::vector<json> generate(const std::string& dir, const std::string& input, const std::vector<std::string>& options) {
  std::vector<std::string> args = {"generate", "-m", dir, "--threads", "1"};
  args.insert(args.end(), options.begin(), options.end());
  const auto result = run_cli(args, input);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return jsonl(result.out);
}

// Hugging Face pads the shorter of the returned sequences after their EOS; invar returns each
// hypothesis as long as it is.
json without_padding(const json& ids, int eos) {
  std::vector<int> kept;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    kept.push_back(ids[i].get<int>());
    if (i > 0 && kept.back() == eos) break;
  }
  return kept;
}

// The source fixtures' goldens (transformers 4.19) were made with the same generation settings
// (forced BOS, decoder start, EOS: from config.json there, generation_config.json here), so
// greedy and beam search give their ids.
void expect_source_golden(const std::string& dir, const std::string& fixture_folder) {
  const json source_golden = test::load_json(fixture(fixture_folder + "/golden.json"));
  const int eos = test::load_json(dir + "/generation_config.json")["eos_token_id"].get<int>();
  std::string input;
  for (const auto& c : source_golden["cases"]) input += c["text"].get<std::string>() + "\n";
  const auto greedy = generate(dir, input, {"--beam", "1", "--max-length", "24"});
  const auto beam = generate(dir, input, {"--beam", "4", "--n-best", "2", "--max-length", "24"});
  ASSERT_EQ(greedy.size(), source_golden["cases"].size());
  ASSERT_EQ(beam.size(), source_golden["cases"].size());
  for (std::size_t i = 0; i < greedy.size(); ++i) {
    const json& c = source_golden["cases"][i];
    EXPECT_EQ(greedy[i]["hyps"][0]["ids"], c["greedy_ids"]) << "case " << i;
    ASSERT_EQ(beam[i]["hyps"].size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(beam[i]["hyps"][k]["ids"], without_padding(c["beam_ids"][k], eos)) << "case " << i << " beam " << k;
      EXPECT_NEAR(beam[i]["hyps"][k]["score"].get<double>(), c["beam_scores"][k].get<double>(), 1e-4);
    }
  }
}

TEST(RealLayouts, Transformers5Seq2seqGeneratesTheSourceFixturesGoldens) {
  for (const char* name : {"bart", "t5", "m2m100"}) {
    SCOPED_TRACE(name);
    expect_source_golden(layout_folder(name), source_of(name).fixture);
  }
}

// With no options, generate() takes generation_config.json's settings: m2m100's first generated
// token is its forced_bos_token_id (210, __en__), after the decoder start (2).
TEST(RealLayouts, Transformers5Seq2seqGeneratesWithTheFoldersDefaults) {
  for (const char* name : {"bart", "t5", "m2m100"}) {
    SCOPED_TRACE(name);
    const auto lines = generate(layout_folder(name), texts_input(), {});
    ASSERT_EQ(lines.size(), golden()["texts"].size());
    for (const auto& line : lines) {
      const auto ids = line["hyps"][0]["ids"].get<std::vector<int>>();
      ASSERT_GE(ids.size(), 2u);
      EXPECT_LE(ids.size(), 20u);  // max_length: the default, as neither file sets it
      const std::vector<int> start(ids.begin(), ids.begin() + 2);
      if (std::string(name) == "m2m100") {
        EXPECT_EQ(start, (std::vector<int>{2, 210}));
      } else if (std::string(name) == "bart") {
        EXPECT_EQ(start, (std::vector<int>{2, 0}));
      } else {
        EXPECT_EQ(ids.front(), 0);
      }
    }
  }
}

// transformers 5 stores a tied weight once (model.shared.weight / shared.weight, the embeddings
// and the LM head tied to it, tie_word_embeddings true in config.json); the fixtures hold every
// copy, as 4.19 saved them. Without the copies the goldens come out the same.
TEST(RealLayouts, TiedWeightsStoredOnce) {
  const std::string bart = layout_folder("bart");
  drop_tensors(bart, {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight"});
  expect_source_golden(bart, "seq2seq/bart");
  const std::string t5 = layout_folder("t5");
  drop_tensors(t5, {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight"});
  expect_source_golden(t5, "seq2seq/t5");
  const std::string m2m100 = layout_folder("m2m100");
  drop_tensors(m2m100, {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight"});
  expect_source_golden(m2m100, "seq2seq/m2m100");
}

}  // namespace
}  // namespace invar
