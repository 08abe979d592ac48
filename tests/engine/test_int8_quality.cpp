// --weights int8 (backends/cpu/packed_matmul.hpp) against f32 on the encoder fixture models: every
// sentence embedding at cosine ≥ 0.995 to f32's (docs/performance.md has the seq2seq figures).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/encoder.hpp"
#include "backends/cpu/backend.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

constexpr double kMinCosine = 0.995;

std::vector<std::vector<std::int32_t>> ids_of(const nlohmann::json& cases, const char* field) {
  std::vector<std::vector<std::int32_t>> ids;
  for (const auto& c : cases) ids.push_back(c.at(field).get<std::vector<std::int32_t>>());
  return ids;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0.0, aa = 0.0, bb = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += double{a[i]} * b[i];
    aa += double{a[i]} * a[i];
    bb += double{b[i]} * b[i];
  }
  return dot / std::sqrt(aa * bb);
}

// Both precisions of one encoder, each on its own backend.
struct BothPrecisions {
  std::unique_ptr<ModelSource> source;
  std::unique_ptr<Backend> f32_backend = make_cpu_backend({.threads = 1});
  std::unique_ptr<Backend> int8_backend = make_cpu_backend({.threads = 1, .weights = WeightType::Int8});
  std::unique_ptr<EncoderModel> f32, int8;
  nlohmann::json golden;

  explicit BothPrecisions(const std::string& folder) : source(ModelSource::open(test::fixture(folder))) {
    f32 = std::make_unique<EncoderModel>(*source, *f32_backend);
    int8 = std::make_unique<EncoderModel>(*source, *int8_backend);
    golden = test::load_json(test::fixture(folder + "/golden.json"));
  }
};

class Int8Encoder : public ::testing::TestWithParam<std::string> {};

TEST_P(Int8Encoder, SentenceEmbeddingsKeepTheirDirection) {
  BothPrecisions m(GetParam());
  EXPECT_LT(m.int8->weight_bytes(), m.f32->weight_bytes());
  std::vector<Encoding> inputs;
  for (const auto& ids : ids_of(m.golden.at("cases"), "input_ids")) inputs.push_back({.ids = ids});
  const std::vector<Pooling> mean{Pooling::Mean};
  const auto layer = m.f32->spec().layers;
  const auto want = m.f32->embed(inputs, mean, false, layer), got = m.int8->embed(inputs, mean, false, layer);
  double worst = 1.0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    worst = std::min(worst, cosine(got[i], want[i]));
    EXPECT_NE(got[i], want[i]) << "input " << i << ": int8 changes the values";
  }
  std::printf("%s: lowest embedding cosine int8/f32 %.5f over %zu inputs\n", GetParam().c_str(), worst, inputs.size());
  EXPECT_GE(worst, kMinCosine);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Int8Encoder,
                         ::testing::Values("core/bert-wordpiece", "core/mpnet", "core/xlmr", "core/distilbert",
                                           "core/electra", "core/albert", "core/deberta-v3"),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace invar
