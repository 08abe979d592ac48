#pragma once
// Random-weight encoder models of real sizes as Hugging Face folders (config.json,
// model.safetensors, tokenizer files copied from a small fixture), for benchmarks: the weights
// follow BERT's initializer (normal, std 0.02; LayerNorm weight 1, bias 0), so activations stay
// in a realistic range. The tokenizer's ids are a subset of the model's vocabulary.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace invar::bench {

// A fresh folder under $TMPDIR, removed with everything in it when this object goes.
struct TempDir {
  std::string path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "invar-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

struct RandomModelPreset {
  std::string name, model_type;
  std::int64_t vocab, hidden, layers, heads, ffn, positions, type_vocab;
  std::int32_t pad;
  std::string tokenizer_fixture;  // tests/fixtures/core/<this> lends its tokenizer files
};

inline const std::vector<RandomModelPreset>& random_model_presets() {
  static const std::vector<RandomModelPreset> presets{
      {"xlmr-base", "xlm-roberta", 250002, 768, 12, 12, 3072, 514, 1, 1, "xlmr"},
      {"multilingual-minilm-l12", "xlm-roberta", 250002, 384, 12, 12, 1536, 514, 1, 1, "xlmr"},
      {"all-minilm-l6", "bert", 30522, 384, 6, 12, 1536, 512, 2, 0, "bert-wordpiece"},
  };
  return presets;
}

inline const RandomModelPreset& random_model_preset(const std::string& name) {
  for (const auto& p : random_model_presets())
    if (p.name == name) return p;
  fail("unknown preset '{}' (xlmr-base, multilingual-minilm-l12, all-minilm-l6)", name);
}

// Encoder FLOPs for `batch` sequences of `tokens` tokens: the layers' GEMMs (q, k, v, o and the
// feed-forward: 2·T·(4H² + 2HF) each) and attention (2·2·T²·H), as multiply-adds × 2.
inline double encoder_flops(const RandomModelPreset& p, std::int64_t batch, std::int64_t tokens) {
  const double t = static_cast<double>(tokens), h = static_cast<double>(p.hidden), f = static_cast<double>(p.ffn);
  return static_cast<double>(batch * p.layers) * (2.0 * t * (4.0 * h * h + 2.0 * h * f) + 4.0 * t * t * h);
}

struct SafetensorsEntry {
  std::string name;
  std::vector<std::int64_t> shape;
};

// Writes F32 tensors as one safetensors file, in the order given; `fill(i, values)` fills entry i's
// values (already sized), one tensor at a time, so memory stays at the largest tensor.
template <class Fill>
void write_safetensors(const std::string& path, const std::vector<SafetensorsEntry>& entries, Fill fill) {
  const auto count = [](const SafetensorsEntry& e) {
    std::uint64_t n = 1;
    for (auto d : e.shape) n *= static_cast<std::uint64_t>(d);
    return n;
  };
  nlohmann::json header = nlohmann::json::object();
  std::uint64_t offset = 0;
  for (const auto& e : entries) {
    header[e.name] = {{"dtype", "F32"}, {"shape", e.shape}, {"data_offsets", {offset, offset + 4 * count(e)}}};
    offset += 4 * count(e);
  }
  std::string text = header.dump();
  while (text.size() % 8 != 0) text += ' ';
  std::ofstream out(path, std::ios::binary);
  const std::uint64_t size = text.size();
  out.write(reinterpret_cast<const char*>(&size), 8);
  out << text;
  std::vector<float> values;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    values.resize(static_cast<std::size_t>(count(entries[i])));
    fill(i, values);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
  }
  if (!out) fail("{}: could not write", path);
}

// Writes the folder; `fixtures` is tests/fixtures/core. Streams tensors, so memory stays small.
inline void write_random_model(const RandomModelPreset& p, const std::string& dir, const std::string& fixtures,
                               std::uint32_t seed = 1) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  nlohmann::json config = {{"model_type", p.model_type},       {"architectures", {p.model_type == "bert" ? "BertModel" : "XLMRobertaModel"}},
                           {"vocab_size", p.vocab},            {"hidden_size", p.hidden},
                           {"num_hidden_layers", p.layers},    {"num_attention_heads", p.heads},
                           {"intermediate_size", p.ffn},       {"max_position_embeddings", p.positions},
                           {"type_vocab_size", p.type_vocab},  {"pad_token_id", p.pad},
                           {"hidden_act", "gelu"},             {"layer_norm_eps", 1e-12}};
  std::ofstream(dir + "/config.json") << config.dump(2);
  const std::string source = fixtures + "/" + p.tokenizer_fixture;
  for (const auto& entry : fs::directory_iterator(source)) {
    const std::string name = entry.path().filename().string();
    if (name == "vocab.txt" || name.ends_with(".model") || name == "special_tokens_map.json" || name == "tokenizer_config.json")
      fs::copy_file(entry.path(), dir + "/" + name, fs::copy_options::overwrite_existing);
  }

  struct Entry {
    std::string name;
    std::vector<std::int64_t> shape;
    int kind;  // 0 random, 1 ones, 2 zeros
  };
  std::vector<Entry> tensors;
  const auto add = [&](const std::string& name, std::vector<std::int64_t> shape, int kind = 0) {
    tensors.push_back({name, std::move(shape), kind});
  };
  const auto linear = [&](const std::string& name, std::int64_t out, std::int64_t in) {
    add(name + ".weight", {out, in});
    add(name + ".bias", {out}, 2);
  };
  const auto norm = [&](const std::string& name) {
    add(name + ".weight", {p.hidden}, 1);
    add(name + ".bias", {p.hidden}, 2);
  };
  add("embeddings.word_embeddings.weight", {p.vocab, p.hidden});
  add("embeddings.position_embeddings.weight", {p.positions, p.hidden});
  add("embeddings.token_type_embeddings.weight", {p.type_vocab, p.hidden});
  norm("embeddings.LayerNorm");
  for (std::int64_t i = 0; i < p.layers; ++i) {
    const std::string l = "encoder.layer." + std::to_string(i) + ".";
    for (const char* part : {"query", "key", "value"}) linear(l + "attention.self." + part, p.hidden, p.hidden);
    linear(l + "attention.output.dense", p.hidden, p.hidden);
    norm(l + "attention.output.LayerNorm");
    linear(l + "intermediate.dense", p.ffn, p.hidden);
    linear(l + "output.dense", p.hidden, p.ffn);
    norm(l + "output.LayerNorm");
  }
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<SafetensorsEntry> entries;
  for (const auto& t : tensors) entries.push_back({t.name, t.shape});
  write_safetensors(dir + "/model.safetensors", entries, [&](std::size_t i, std::vector<float>& values) {
    for (float& v : values) v = tensors[i].kind == 0 ? normal(rng) : tensors[i].kind == 1 ? 1.0f : 0.0f;
  });
}

}  // namespace invar::bench
