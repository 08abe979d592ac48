// The encoder engine (engine/encoder.cpp, unchanged) on the OpenCL backend against the same engine
// on the CPU backend, for every encoder fixture: all the golden's texts (or pairs) in one padded
// batch, so masks and padding are exercised. Every layer's hidden states, the pooled and normalized
// embeddings, the heads' logits and the pseudo-log-likelihoods agree within 1e-3 absolute.
// Built without OpenCL (cmake -DINVAR_OPENCL=OFF), this file holds no tests.
#ifdef INVAR_WITH_OPENCL
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/text_encoder.hpp"
#include "backends/cpu/backend.hpp"
#include "backends/registry.hpp"
#include "support/opencl_support.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

constexpr double kTolerance = 1e-3;

class OpenClEncoderTest : public test::OpenClTest, public ::testing::WithParamInterface<const char*> {};

void expect_close(const PerInput& cpu, const PerInput& gpu, const std::string& what) {
  ASSERT_EQ(cpu.size(), gpu.size()) << what;
  double worst = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(cpu[i].size(), gpu[i].size()) << what << " input " << i;
    for (std::size_t j = 0; j < cpu[i].size(); ++j) {
      worst = std::max(worst, std::abs(double(cpu[i][j]) - gpu[i][j]));
      largest = std::max(largest, std::abs(double(cpu[i][j])));
    }
  }
  EXPECT_LE(worst, kTolerance) << what;
  EXPECT_GT(largest, 0.01) << what << " are all near zero: nothing was compared";
}

TEST_P(OpenClEncoderTest, MatchesTheCpuBackend) {
  const auto folder = test::fixture(std::string("core/") + GetParam());
  const auto golden = test::load_json(folder + "/golden.json");
  auto source = ModelSource::open(folder);
  auto cpu_backend = make_cpu_backend({.threads = 1});
  auto gpu_backend = make_backend("opencl", {.threads = 1});
  ASSERT_NE(gpu_backend->name().find("opencl"), std::string::npos) << gpu_backend->name();
  TextEncoder cpu(*source, *cpu_backend), gpu(*source, *gpu_backend);

  std::vector<TextInput> texts;
  const bool pairs = golden["cases"][0].contains("text_pair");
  for (const auto& c : golden["cases"]) texts.push_back({c["text"], pairs ? c["text_pair"].get<std::string>() : ""});
  std::size_t truncated = 0;
  const auto inputs = cpu.encode(texts, pairs, truncated);

  const auto cpu_layers = cpu.model().all_hidden_states(inputs);
  const auto gpu_layers = gpu.model().all_hidden_states(inputs);
  ASSERT_EQ(cpu_layers.size(), gpu_layers.size());
  for (std::size_t layer = 0; layer < cpu_layers.size(); ++layer)
    expect_close(cpu_layers[layer], gpu_layers[layer], "hidden states of layer " + std::to_string(layer));

  const auto settings = cpu.default_embedding_settings();
  const BatchOptions batches{4, {}};
  expect_close(cpu.embed(inputs, settings, batches), gpu.embed(inputs, settings, batches), "embeddings");
  if (cpu.model().has_pooler()) expect_close(cpu.model().pooler_output(inputs), gpu.model().pooler_output(inputs), "pooler");
  if (cpu.model().has_classifier()) expect_close(cpu.logits(inputs, batches), gpu.logits(inputs, batches), "logits");
  if (cpu.model().has_mlm()) {
    const auto mask = *cpu.tokenizer().mask_id();
    PerInput cpu_pll, gpu_pll;
    for (const auto& input : inputs) {
      auto to_floats = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
      cpu_pll.push_back(to_floats(cpu.model().pll(input, mask)));
      gpu_pll.push_back(to_floats(gpu.model().pll(input, mask)));
    }
    expect_close(cpu_pll, gpu_pll, "pseudo-log-likelihoods");
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, OpenClEncoderTest,
                         ::testing::Values("bert-wordpiece", "bert-pair-cls", "xlmr", "xlmr-pair-cls", "xlmr-regression",
                                           "xlmr-mlm", "distilbert", "distilbert-sst2", "electra", "electra-pair-cls",
                                           "albert", "albert-pair-cls", "deberta-v3", "deberta-v3-nli"),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace invar
#endif
