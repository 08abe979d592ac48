// generate()'s settings as the checkpoint sets them (search_defaults in engine/seq2seq.hpp).
#include <limits>
#include <optional>

#include "core/error.hpp"
#include "engine/seq2seq.hpp"

namespace invar {

namespace {

std::int32_t token_id(std::int64_t id, const char* field, const ModelConfig& config) {
  if (id > std::numeric_limits<std::int32_t>::max()) fail("{}: field '{}' holds token id {}, too large", config.where, field, id);
  return static_cast<std::int32_t>(id);
}

std::optional<std::int32_t> token_id(std::optional<std::int64_t> id, const char* field, const ModelConfig& config) {
  if (!id) return std::nullopt;
  return token_id(*id, field, config);
}

}  // namespace

SearchSettings search_defaults(const GenerationConfig& generation, const ModelConfig& config, const Seq2SeqSpec& spec) {
  const GenerationDefaults& g = generation.values;
  SearchSettings settings;
  settings.num_beams = g.num_beams;
  settings.num_return_sequences = g.num_return_sequences;
  settings.max_length = g.max_length;
  settings.min_length = g.min_length;
  settings.no_repeat_ngram_size = g.no_repeat_ngram_size;
  settings.repetition_penalty = g.repetition_penalty;
  settings.encoder_no_repeat_ngram_size = g.encoder_no_repeat_ngram_size;
  settings.unsupported = g.unsupported;
  settings.length_penalty = g.length_penalty;
  settings.early_stopping = g.early_stopping;
  settings.do_sample = g.do_sample;
  settings.temperature = g.temperature;
  settings.top_k = g.top_k;
  settings.top_p = g.top_p;
  for (const auto& sequence : g.bad_words_ids) {
    std::vector<std::int32_t>& ids = settings.bad_words_ids.emplace_back();
    for (std::int64_t id : sequence) ids.push_back(token_id(id, "bad_words_ids", config));
  }
  settings.forced_bos_token_id = token_id(g.forced_bos_token_id, "forced_bos_token_id", config);
  settings.forced_eos_token_id = token_id(g.forced_eos_token_id, "forced_eos_token_id", config);
  // generation_config.json's special tokens are generate()'s alone: the model (positions, teacher
  // forcing in score()) keeps config.json's, as transformers does.
  const auto given = [&](const char* field) {
    for (const auto& setting : generation.settings)
      if (setting.name == field) return setting.origin == GenerationOrigin::GenerationConfigJson;
    return false;
  };
  settings.decoder_start_token_id = given("decoder_start_token_id") && generation.decoder_start_token_id
                                        ? token_id(*generation.decoder_start_token_id, "decoder_start_token_id", config)
                                        : spec.decoder_start_token_id;
  settings.eos_token_id = given("eos_token_id") ? token_id(generation.eos_token_id, "eos_token_id", config)
                                                : spec.eos_token_id;
  settings.pad_token_id = given("pad_token_id") && generation.pad_token_id
                              ? token_id(*generation.pad_token_id, "pad_token_id", config)
                              : spec.pad_token_id;
  if (spec.beam_masks_pad) settings.beam_masked_token_id = spec.pad_token_id;
  return settings;
}

SearchSettings search_defaults(const ModelConfig& config, const Seq2SeqSpec& spec) {
  return search_defaults(generation_config_of(config), config, spec);
}

}  // namespace invar
