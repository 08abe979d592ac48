#pragma once
// generation_config.json over config.json, as transformers (≥ 4.26) reads a checkpoint's generate()
// settings: newer checkpoints keep num_beams, max_length, forced tokens … only there, with null in
// config.json. Per setting, the first of generation_config.json, config.json and the family's
// default (models/family.hpp) that gives a value wins; null means absent. Options given explicitly
// (the commands', the C API's) go over all of these, in engine/.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/hf_config.hpp"

namespace invar {

class ModelSource;

enum class GenerationOrigin { Default, ConfigJson, GenerationConfigJson };
// "default", "config.json", "generation_config.json".
const char* origin_name(GenerationOrigin origin);

struct GenerationConfig {
  GenerationDefaults values;
  // The special tokens generate() uses: generation_config.json's where it sets them, else config.json's.
  std::optional<std::int64_t> decoder_start_token_id, eos_token_id, pad_token_id, bos_token_id;
  // Every setting above by its transformers name, in a fixed order: its value and where it came from.
  struct Setting {
    std::string name;
    nlohmann::json value;  // null for a token that is unset
    GenerationOrigin origin = GenerationOrigin::Default;
  };
  std::vector<Setting> settings;
};

// config.json's settings alone (a folder without generation_config.json), with no origins listed.
GenerationConfig generation_config_of(const ModelConfig& config);

// `config` (config.json of `source`, already read) with the source's generation_config.json over
// it, when the source has one. Fails naming generation_config.json and the field for a value of the
// wrong type or range, as config.json's reader does; a setting invar's search does not implement
// (max_new_tokens, diversity_penalty, …) is listed in values.unsupported as "FILE: field value".
GenerationConfig load_generation_config(const ModelSource& source, const ModelConfig& config);

}  // namespace invar
