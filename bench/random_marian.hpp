#pragma once
// An opus-mt-base-sized Marian model (vocab 58101, d_model 512, 6+6 layers, 8 heads, FFN 2048,
// swish, sinusoidal positions) with random weights built in memory, for the generation benchmarks;
// `write_random_marian` writes it as a Hugging Face folder for the CLI's start-up measurements.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/random_model.hpp"
#include "core/error.hpp"
#include "engine/seq2seq.hpp"
#include "loaders/model_source.hpp"
#include "models/seq2seq_spec.hpp"

namespace invar::bench {

constexpr std::int64_t kVocab = 58101, kModel = 512, kFfn = 2048;

inline nlohmann::json opus_mt_base_config() {
  return {{"model_type", "marian"},        {"vocab_size", kVocab},          {"decoder_vocab_size", kVocab},
          {"d_model", kModel},             {"encoder_layers", 6},           {"decoder_layers", 6},
          {"encoder_attention_heads", 8},  {"decoder_attention_heads", 8},  {"encoder_ffn_dim", kFfn},
          {"decoder_ffn_dim", kFfn},       {"max_position_embeddings", 512}, {"activation_function", "swish"},
          {"scale_embedding", true},       {"pad_token_id", kVocab - 1},    {"eos_token_id", 0},
          {"decoder_start_token_id", kVocab - 1}, {"forced_eos_token_id", 0}, {"num_beams", 4},
          {"max_length", 512},             {"is_encoder_decoder", true}};
}

// The shape of a Marian weight from its canonical name (models/seq2seq_spec.hpp).
inline std::vector<std::int64_t> marian_shape(const std::string& canonical) {
  auto ends = [&](const char* suffix) { return canonical.ends_with(suffix); };
  if (ends("embed_tokens") || canonical == "lm_head") return {kVocab, kModel};
  if (canonical == "final_logits_bias") return {1, kVocab};
  if (ends("ffn.in.weight")) return {kFfn, kModel};
  if (ends("ffn.in.bias")) return {kFfn};
  if (ends("ffn.out.weight")) return {kModel, kFfn};
  if (ends(".weight") && canonical.find("_attn.") != std::string::npos) return {kModel, kModel};
  return {kModel};  // biases and norms
}

// A ModelSource with random weights (N(0, 0.02), norms 1 and 0), tied as the names table ties them.
class RandomMarian final : public ModelSource {
 public:
  explicit RandomMarian(std::uint32_t seed = 1) : config_(opus_mt_base_config()) {
    const ModelConfig config = parse_model_config(config_, path_);
    const Seq2SeqSpec spec = seq2seq_spec(config);
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    for (const auto& name : seq2seq_weight_names(spec, config)) {
      if (!name.required) continue;
      bool stored = false;
      for (const auto& s : name.stored) stored = stored || tensors_.count(s) > 0;
      if (stored) continue;
      const auto shape = marian_shape(name.canonical);
      std::int64_t count = 1;
      for (auto d : shape) count *= d;
      std::vector<float> values(static_cast<std::size_t>(count));
      const bool norm = name.canonical.find("norm") != std::string::npos;
      const bool norm_weight = norm && name.canonical.ends_with(".weight");
      for (float& v : values) v = norm ? (norm_weight ? 1.0f : 0.0f) : normal(rng);
      tensors_[name.stored.front()] = {shape, std::move(values)};
    }
  }
  const std::string& path() const override { return path_; }
  const nlohmann::json& config_json() const override { return config_; }
  bool has_file(const std::string&) const override { return false; }
  std::string read_file(const std::string& name) const override { fail("{}: no file {}", path_, name); }
  std::vector<std::string> file_names() const override { return {}; }
  std::vector<std::string> tensor_names() const override {
    std::vector<std::string> names;
    for (const auto& [name, tensor] : tensors_) names.push_back(name);
    return names;
  }
  bool has_tensor(const std::string& name) const override { return tensors_.count(name) > 0; }
  TensorData tensor(const std::string& name) const override {
    const auto& [shape, values] = tensors_.at(name);
    return {DType::F32, shape, reinterpret_cast<const std::byte*>(values.data()), values.size() * sizeof(float)};
  }

 private:
  std::string path_ = "random-opus-mt-base";
  nlohmann::json config_;
  std::map<std::string, std::pair<std::vector<std::int64_t>, std::vector<float>>> tensors_;
};

// Writes the model as a MarianMTModel folder: config.json, model.safetensors and the tokenizer of
// tests/fixtures/core/marian (`fixtures` is tests/fixtures/core), whose vocab.json is padded to the
// model's 58101 entries with filler pieces so that every id the random weights generate decodes.
// The fixture's ids keep their places: </s> 0, <unk> 1, ..., <pad> last, as in opus-mt.
inline void write_random_marian(const std::string& dir, const std::string& fixtures, std::uint32_t seed = 1) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const std::string source = fixtures + "/marian";
  for (const char* name : {"source.spm", "target.spm", "special_tokens_map.json", "tokenizer_config.json"})
    fs::copy_file(source + "/" + name, dir + "/" + name, fs::copy_options::overwrite_existing);
  nlohmann::json vocab = nlohmann::json::parse(std::ifstream(source + "/vocab.json"));
  vocab.erase("<pad>");
  for (std::int64_t id = static_cast<std::int64_t>(vocab.size()); id < kVocab - 1; ++id)
    vocab["\u2581w" + std::to_string(id)] = id;
  vocab["<pad>"] = kVocab - 1;
  std::ofstream(dir + "/vocab.json") << vocab.dump();
  nlohmann::json config = opus_mt_base_config();
  config["architectures"] = {"MarianMTModel"};
  std::ofstream(dir + "/config.json") << config.dump(2);

  const RandomMarian model(seed);
  std::vector<SafetensorsEntry> entries;
  for (const auto& name : model.tensor_names()) entries.push_back({name, model.tensor(name).shape});
  write_safetensors(dir + "/model.safetensors", entries, [&](std::size_t i, std::vector<float>& values) {
    const TensorData t = model.tensor(entries[i].name);
    std::memcpy(values.data(), t.data, t.nbytes);
  });
}

// 20-token sources of random ids (not pad, not EOS), then EOS; the same for the same batch size.
inline std::vector<TokenIds> random_marian_sources(std::int64_t batch) {
  std::mt19937 rng(static_cast<unsigned>(batch));
  std::uniform_int_distribution<std::int32_t> id(1, static_cast<std::int32_t>(kVocab - 2));
  std::vector<TokenIds> out(static_cast<std::size_t>(batch));
  for (auto& s : out) {
    for (int i = 0; i < 20; ++i) s.push_back(id(rng));
    s.push_back(0);
  }
  return out;
}

}  // namespace invar::bench
