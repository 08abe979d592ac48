// MPNet's parts checked apart from the golden (tests/engine/test_encoder.cpp runs core/mpnet against
// Hugging Face): the relative-position buckets, hand-computed from Hugging Face's formula, and that
// MPNet is RoBERTa plus a position bias — a random MPNet whose bias table is zero computes exactly
// what a RoBERTa with the same weights does.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/attention.hpp"
#include "engine/encoder.hpp"
#include "backends/cpu/backend.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;
using test::RawTensor;

namespace {

constexpr std::int64_t kHidden = 8, kHeads = 2, kFfn = 16, kVocab = 20, kPositions = 24, kLayers = 2, kBuckets = 32;

std::string config(const std::string& type) {
  return fmt::format(R"({{"model_type": "{}", "vocab_size": {}, "hidden_size": {}, "num_hidden_layers": {},
    "num_attention_heads": {}, "intermediate_size": {}, "max_position_embeddings": {}, "pad_token_id": 1,
    "hidden_act": "gelu", "layer_norm_eps": 1e-5, "type_vocab_size": 1}})",
                     type, kVocab, kHidden, kLayers, kHeads, kFfn, kPositions);
}

// Random weights shared by both layouts, by MPNet name (base model, as sentence-transformers saves it).
struct Weights {
  std::vector<RawTensor> mpnet, roberta;

  explicit Weights(float bias_scale) {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 0.5f);
    auto values = [&](std::int64_t n, float scale) {
      std::vector<float> v(static_cast<std::size_t>(n));
      for (float& x : v) x = scale * normal(rng);
      return v;
    };
    auto add = [&](const std::string& mpnet_name, const std::string& roberta_name, std::vector<std::int64_t> shape,
                   float scale = 1.0f) {
      std::int64_t n = 1;
      for (auto d : shape) n *= d;
      const std::string bytes = test::bytes_of(values(n, scale));
      if (!mpnet_name.empty()) mpnet.push_back({mpnet_name, "F32", shape, bytes});
      if (!roberta_name.empty()) roberta.push_back({roberta_name, "F32", shape, bytes});
    };
    auto linear = [&](const std::string& m, const std::string& r, std::int64_t out, std::int64_t in) {
      add(m + ".weight", r + ".weight", {out, in});
      add(m + ".bias", r + ".bias", {out});
    };
    add("embeddings.word_embeddings.weight", "embeddings.word_embeddings.weight", {kVocab, kHidden});
    add("embeddings.position_embeddings.weight", "embeddings.position_embeddings.weight", {kPositions, kHidden});
    add("", "embeddings.token_type_embeddings.weight", {1, kHidden}, 0.0f);
    linear("embeddings.LayerNorm", "embeddings.LayerNorm", kHidden, 1);
    add("encoder.relative_attention_bias.weight", "", {kBuckets, kHeads}, bias_scale);
    for (int i = 0; i < kLayers; ++i) {
      const std::string p = "encoder.layer." + std::to_string(i) + ".";
      linear(p + "attention.attn.q", p + "attention.self.query", kHidden, kHidden);
      linear(p + "attention.attn.k", p + "attention.self.key", kHidden, kHidden);
      linear(p + "attention.attn.v", p + "attention.self.value", kHidden, kHidden);
      linear(p + "attention.attn.o", p + "attention.output.dense", kHidden, kHidden);
      linear(p + "attention.LayerNorm", p + "attention.output.LayerNorm", kHidden, 1);
      linear(p + "intermediate.dense", p + "intermediate.dense", kFfn, kHidden);
      linear(p + "output.dense", p + "output.dense", kHidden, kFfn);
      linear(p + "output.LayerNorm", p + "output.LayerNorm", kHidden, 1);
    }
    // LayerNorm weights and biases are [H], not [H, 1].
    for (auto* list : {&mpnet, &roberta})
      for (auto& t : *list)
        if (t.shape == std::vector<std::int64_t>{kHidden, 1}) t.shape = {kHidden};
  }
};

std::vector<std::vector<float>> run(const std::string& folder, const std::vector<Encoding>& inputs) {
  const auto source = ModelSource::open(folder);
  const auto backend = make_cpu_backend({.threads = 1});
  EncoderModel model(*source, *backend);
  return model.hidden_states(inputs, kLayers);
}

Encoding sequence(std::initializer_list<std::int32_t> ids) {
  Encoding e;
  e.ids = ids;
  return e;
}

double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
  return worst;
}

// Two inputs of different length: the long one reaches the logarithmic buckets (distance ≥ 8).
const std::vector<Encoding> kInputs{sequence({0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 2}), sequence({0, 7, 3, 2})};

}  // namespace

// Hugging Face's MPNet relative_position_bucket(memory − context, 32 buckets, max distance 128).
TEST(EncoderMpnet, RelativeBucketsFollowHuggingFace) {
  EXPECT_EQ(relative_bucket(0, true, 32, 128), 0);
  EXPECT_EQ(relative_bucket(-1, true, 32, 128), 1);
  EXPECT_EQ(relative_bucket(1, true, 32, 128), 17);
  EXPECT_EQ(relative_bucket(-7, true, 32, 128), 7);
  EXPECT_EQ(relative_bucket(-8, true, 32, 128), 8);
  EXPECT_EQ(relative_bucket(-20, true, 32, 128), 10);  // 8 + floor(ln(20/8) / ln(16) · 8) = 8 + 2
  EXPECT_EQ(relative_bucket(20, true, 32, 128), 26);
  EXPECT_EQ(relative_bucket(-200, true, 32, 128), 15);  // capped at buckets/2 − 1
  EXPECT_EQ(relative_bucket(200, true, 32, 128), 31);
}

TEST(EncoderMpnet, ZeroPositionBiasEqualsRobertaWithTheSameWeights) {
  const Weights weights(0.0f);
  const std::string mpnet = test::make_model_folder({{"model.safetensors", test::make_safetensors(weights.mpnet)}}, config("mpnet"));
  const std::string roberta =
      test::make_model_folder({{"model.safetensors", test::make_safetensors(weights.roberta)}}, config("roberta"));
  const auto a = run(mpnet, kInputs), b = run(roberta, kInputs);
  for (std::size_t i = 0; i < kInputs.size(); ++i) EXPECT_LE(max_difference(a[i], b[i]), 1e-6) << "input " << i;
}
