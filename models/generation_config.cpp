#include "models/generation_config.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/error.hpp"
#include "loaders/model_source.hpp"

namespace invar {

namespace {

// The settings config.json's reader (models/hf_config.cpp) reads, in the order `invar info` lists them.
constexpr std::array<const char*, 21> kSettings{
    "num_beams",          "max_length",          "min_length",         "early_stopping",
    "length_penalty",     "no_repeat_ngram_size", "encoder_no_repeat_ngram_size", "repetition_penalty",
    "num_return_sequences", "num_beam_groups",   "do_sample",          "temperature",
    "top_k",              "top_p",               "bad_words_ids",      "forced_bos_token_id",
    "forced_eos_token_id", "decoder_start_token_id", "bos_token_id",   "eos_token_id",
    "pad_token_id"};

// generation_config.json fields that change what generate() does and that invar's search does not
// implement; transformers writes only the fields that differ from its defaults.
constexpr std::array<const char*, 17> kUnsupported{
    "max_new_tokens",    "min_new_tokens",   "diversity_penalty", "typical_p",
    "epsilon_cutoff",    "eta_cutoff",       "penalty_alpha",     "suppress_tokens",
    "begin_suppress_tokens", "forced_decoder_ids", "exponential_decay_length_penalty", "renormalize_logits",
    "constraints",       "force_words_ids",  "guidance_scale",    "sequence_bias",
    "max_time"};

bool given(const nlohmann::json& json, const char* key) {
  const auto it = json.find(key);
  return it != json.end() && !it->is_null();
}

nlohmann::json token_value(const std::optional<std::int64_t>& id) { return id ? nlohmann::json(*id) : nlohmann::json(); }

nlohmann::json value_of(const GenerationConfig& c, const std::string& name) {
  const GenerationDefaults& g = c.values;
  if (name == "num_beams") return g.num_beams;
  if (name == "max_length") return g.max_length;
  if (name == "min_length") return g.min_length;
  if (name == "early_stopping") return g.early_stopping;
  if (name == "length_penalty") return g.length_penalty;
  if (name == "no_repeat_ngram_size") return g.no_repeat_ngram_size;
  if (name == "encoder_no_repeat_ngram_size") return g.encoder_no_repeat_ngram_size;
  if (name == "repetition_penalty") return g.repetition_penalty;
  if (name == "num_return_sequences") return g.num_return_sequences;
  if (name == "do_sample") return g.do_sample;
  if (name == "temperature") return g.temperature;
  if (name == "top_k") return g.top_k;
  if (name == "top_p") return g.top_p;
  if (name == "bad_words_ids") return g.bad_words_ids;
  if (name == "forced_bos_token_id") return token_value(g.forced_bos_token_id);
  if (name == "forced_eos_token_id") return token_value(g.forced_eos_token_id);
  if (name == "decoder_start_token_id") return token_value(c.decoder_start_token_id);
  if (name == "bos_token_id") return token_value(c.bos_token_id);
  if (name == "eos_token_id") return token_value(c.eos_token_id);
  return token_value(c.pad_token_id);
}

}  // namespace

const char* origin_name(GenerationOrigin origin) {
  switch (origin) {
    case GenerationOrigin::ConfigJson: return "config.json";
    case GenerationOrigin::GenerationConfigJson: return "generation_config.json";
    case GenerationOrigin::Default: break;
  }
  return "default";
}

GenerationConfig generation_config_of(const ModelConfig& config) {
  GenerationConfig out;
  out.values = config.generation;
  out.decoder_start_token_id = config.decoder_start_token_id;
  out.eos_token_id = config.eos_token_id;
  out.pad_token_id = config.pad_token_id;
  out.bos_token_id = config.bos_token_id;
  return out;
}

GenerationConfig load_generation_config(const ModelSource& source, const ModelConfig& config) {
  constexpr const char* kName = "generation_config.json";
  GenerationConfig out = generation_config_of(config);
  nlohmann::json generation = nlohmann::json::object();
  if (source.has_file(kName)) {
    const std::string where = source.path() + "/" + kName;
    try {
      generation = nlohmann::json::parse(source.read_file(kName));
    } catch (const nlohmann::json::exception& e) {
      fail("{}: not valid JSON: {}", where, e.what());
    }
    if (!generation.is_object()) fail("{}: not a JSON object", where);
    // config.json's reader reads the merged settings, so that both files are held to the same types,
    // ranges and defaults; everything else in config.json was read (and checked) already, so only a
    // generation_config.json value can fail here, and the error names that file.
    nlohmann::json merged = source.config_json();
    bool any = false;
    for (const char* key : kSettings)
      if (given(generation, key)) {
        merged[key] = generation[key];
        any = true;
      }
    if (any) {
      const ModelConfig parsed = parse_model_config(merged, where);
      const auto unsupported = config.generation.unsupported;
      out.values = parsed.generation;
      // num_beam_groups is reported against the file it came from.
      if (!given(generation, "num_beam_groups")) out.values.unsupported = unsupported;
      out.decoder_start_token_id = parsed.decoder_start_token_id;
      out.eos_token_id = parsed.eos_token_id;
      out.pad_token_id = parsed.pad_token_id;
      out.bos_token_id = parsed.bos_token_id;
    }
    for (const char* key : kUnsupported)
      if (given(generation, key)) out.values.unsupported.push_back(fmt::format("{}: {} {}", where, key, generation[key].dump()));
  }
  const nlohmann::json& stored = source.config_json();
  for (const char* key : kSettings) {
    GenerationConfig::Setting setting{key, {}, GenerationOrigin::Default};
    // A token id set to null in config.json is Python's None there, not an absent field.
    const bool token = std::string_view(key).ends_with("_token_id");
    if (given(generation, key)) setting.origin = GenerationOrigin::GenerationConfigJson;
    else if (token ? stored.contains(key) : given(stored, key)) setting.origin = GenerationOrigin::ConfigJson;
    out.settings.push_back(std::move(setting));
  }
  for (auto& setting : out.settings) {
    if (setting.name != "num_beam_groups") setting.value = value_of(out, setting.name);
    else if (setting.origin == GenerationOrigin::GenerationConfigJson) setting.value = generation[setting.name];
    else if (setting.origin == GenerationOrigin::ConfigJson) setting.value = stored[setting.name];
    else setting.value = 1;
  }
  return out;
}

}  // namespace invar
