// generation_config.json as transformers reads it, on a folder laid out as facebook/m2m100_418M is
// saved today: generate()'s settings null in config.json, num_beams 5 / max_length 200 /
// early_stopping in generation_config.json. Precedence: explicit options > generation_config.json >
// config.json > family defaults; null means absent; `invar info` names where each came from.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "engine/seq2seq.hpp"
#include "backends/cpu/backend.hpp"
#include "loaders/model_source.hpp"
#include "models/generation_config.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

using nlohmann::json;
using test::fixture;

const std::string kM2M100 = fixture("seq2seq/m2m100");

// A copy of the m2m100 fixture with `config_changes` applied to config.json and, when given,
// generation_config.json written.
std::string folder_with(const json& config_changes, const std::optional<json>& generation_config) {
  const std::string dir = test::model_copy(kM2M100);
  json config = test::load_json(dir + "/config.json");
  for (const auto& [key, value] : config_changes.items()) config[key] = value;
  test::write_file(dir + "/config.json", config.dump(2));
  if (generation_config) test::write_file(dir + "/generation_config.json", generation_config->dump(2));
  return dir;
}

// As m2m100_418M: config.json holds null for what generation_config.json sets. The fixture has
// 64 positions, so a run that generates needs a max_length below the real checkpoint's 200.
std::string m2m100_418m_layout(int max_length = 200) {
  return folder_with({{"num_beams", nullptr}, {"max_length", nullptr}, {"early_stopping", nullptr}},
                     json{{"bos_token_id", 0},
                          {"decoder_start_token_id", 2},
                          {"early_stopping", true},
                          {"eos_token_id", 2},
                          {"max_length", max_length},
                          {"num_beams", 5},
                          {"pad_token_id", 1},
                          {"transformers_version", "4.27.0.dev0"}});
}

SearchSettings defaults_of(const std::string& folder) {
  const auto source = ModelSource::open(folder);
  const auto backend = make_cpu_backend({.threads = 1});
  return Seq2SeqModel(*source, *backend).default_settings();
}

const GenerationConfig::Setting& setting(const GenerationConfig& c, const std::string& name) {
  for (const auto& s : c.settings)
    if (s.name == name) return s;
  throw std::runtime_error("no setting " + name);
}

TEST(GenerationConfig, SettingsOnlyInGenerationConfigJsonAreTheModelsDefaults) {
  const SearchSettings s = defaults_of(m2m100_418m_layout());
  EXPECT_EQ(s.num_beams, 5);
  EXPECT_EQ(s.max_length, 200);
  EXPECT_TRUE(s.early_stopping);
  EXPECT_EQ(s.decoder_start_token_id, 2);
  ASSERT_TRUE(s.eos_token_id);
  EXPECT_EQ(*s.eos_token_id, 2);
  // config.json's forced_bos_token_id (210) is kept where generation_config.json says nothing.
  ASSERT_TRUE(s.forced_bos_token_id);
  EXPECT_EQ(*s.forced_bos_token_id, 210);
  // Without generation_config.json the same config.json gives PretrainedConfig's defaults.
  const SearchSettings without = defaults_of(folder_with({{"num_beams", nullptr}, {"max_length", nullptr}}, std::nullopt));
  EXPECT_EQ(without.num_beams, 1);
  EXPECT_EQ(without.max_length, 20);
  EXPECT_FALSE(without.early_stopping);
}

TEST(GenerationConfig, GenerationConfigJsonWinsOverConfigJsonAndNullThere) {
  // config.json sets num_beams 3 and max_length 30; generation_config.json sets num_beams 2 and has
  // max_length null, which means absent: config.json's 30 stays.
  const std::string dir = folder_with({{"num_beams", 3}, {"max_length", 30}, {"min_length", 4}},
                                      json{{"num_beams", 2}, {"max_length", nullptr}});
  const SearchSettings s = defaults_of(dir);
  EXPECT_EQ(s.num_beams, 2);
  EXPECT_EQ(s.max_length, 30);
  EXPECT_EQ(s.min_length, 4);
  const auto source = ModelSource::open(dir);
  const GenerationConfig c = load_generation_config(*source, load_model_config(*source));
  EXPECT_EQ(setting(c, "num_beams").origin, GenerationOrigin::GenerationConfigJson);
  EXPECT_EQ(setting(c, "max_length").origin, GenerationOrigin::ConfigJson);
  EXPECT_EQ(setting(c, "max_length").value, 30);
  EXPECT_EQ(setting(c, "top_k").origin, GenerationOrigin::Default);
  EXPECT_EQ(setting(c, "top_k").value, 50);
}

TEST(GenerationConfig, FamilyDefaultAppliesWhenNeitherFileSetsIt) {
  // FSMTConfig's num_beams default is 5 (models/family.cpp), not PretrainedConfig's 1.
  const std::string dir = test::model_copy(fixture("seq2seq/fsmt"));
  json config = test::load_json(dir + "/config.json");
  config.erase("num_beams");
  test::write_file(dir + "/config.json", config.dump());
  test::write_file(dir + "/generation_config.json", json{{"max_length", 33}, {"num_beams", nullptr}}.dump());
  const SearchSettings s = defaults_of(dir);
  EXPECT_EQ(s.num_beams, 5);
  EXPECT_EQ(s.max_length, 33);
  const auto source = ModelSource::open(dir);
  const GenerationConfig c = load_generation_config(*source, load_model_config(*source));
  EXPECT_EQ(setting(c, "num_beams").origin, GenerationOrigin::Default);
  EXPECT_EQ(setting(c, "max_length").origin, GenerationOrigin::GenerationConfigJson);
}

TEST(GenerationConfig, ABadValueIsRefusedNamingTheFileAndField) {
  const std::string dir = folder_with({}, json{{"num_beams", "five"}});
  try {
    defaults_of(dir);
    FAIL() << "a string num_beams was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("generation_config.json: field 'num_beams'"), std::string::npos) << e.what();
  }
  const std::string broken = folder_with({}, std::nullopt);
  test::write_file(broken + "/generation_config.json", "{\"num_beams\": ");
  EXPECT_THROW(defaults_of(broken), Error);
}

TEST(GenerationConfig, UnimplementedSettingsAreListedForAWarning) {
  const SearchSettings s = defaults_of(folder_with({}, json{{"max_new_tokens", 64}}));
  ASSERT_EQ(s.unsupported.size(), 1u);
  EXPECT_NE(s.unsupported[0].find("generation_config.json: max_new_tokens 64"), std::string::npos) << s.unsupported[0];
}

TEST(CliGenerationConfig, GenerateUsesGenerationConfigJsonUnlessAnOptionSaysOtherwise) {
  const std::string dir = m2m100_418m_layout(60);
  const std::string text = "Ein kleiner Test.\n";
  const auto from_file = test::run_cli({"generate", "-m", dir, "--threads", "1"}, text);
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  const auto explicit_beams =
      test::run_cli({"generate", "-m", dir, "--threads", "1", "--beam", "5", "--max-length", "60"}, text);
  ASSERT_EQ(explicit_beams.exit_code, 0) << explicit_beams.err;
  EXPECT_EQ(from_file.out, explicit_beams.out);
  // An explicit option wins over generation_config.json: greedy to 20 tokens is another search.
  const auto greedy = test::run_cli({"generate", "-m", dir, "--threads", "1", "--beam", "1", "--max-length", "20"}, text);
  const auto greedy_default = test::run_cli({"generate", "-m", folder_with({}, std::nullopt), "--threads", "1",
                                             "--beam", "1", "--max-length", "20"}, text);
  ASSERT_EQ(greedy.exit_code, 0) << greedy.err;
  EXPECT_EQ(json::parse(greedy.out)["hyps"], json::parse(greedy_default.out)["hyps"]);
}

TEST(CliGenerationConfig, InfoShowsWhereEachSettingCameFrom) {
  const std::string dir = m2m100_418m_layout();
  const auto result = test::run_cli({"info", dir, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json info = json::parse(result.out);
  std::map<std::string, json> by_name;
  for (const auto& s : info["generation"]) by_name[s["name"].get<std::string>()] = s;
  EXPECT_EQ(by_name["num_beams"]["value"], 5);
  EXPECT_EQ(by_name["num_beams"]["from"], "generation_config.json");
  EXPECT_EQ(by_name["max_length"]["from"], "generation_config.json");
  EXPECT_EQ(by_name["forced_bos_token_id"]["value"], 210);
  EXPECT_EQ(by_name["forced_bos_token_id"]["from"], "config.json");
  EXPECT_EQ(by_name["top_p"]["from"], "default");
  const auto table = test::run_cli({"info", dir});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("generation_config.json: num_beams 5, max_length 200, early_stopping true"),
            std::string::npos)
      << table.out;
}

}  // namespace
}  // namespace invar
