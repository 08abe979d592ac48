// ModelWeights: weights looked up under their stored names and uploaded to the backend once, even
// when several canonical names are tied to one stored tensor.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "engine/model_weights.hpp"
#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"
#include "support/model_files.hpp"

namespace invar {
namespace {

TEST(ModelWeights, TiedNamesShareOneUpload) {
  const std::vector<float> shared(12, 0.5f), bias(3, 0.25f);
  const std::string dir = test::make_model_folder({{"model.safetensors",
                                                    test::make_safetensors({{"shared", "F32", {4, 3}, test::bytes_of(shared)},
                                                                            {"bias", "F32", {3}, test::bytes_of(bias)}})}});
  const auto source = ModelSource::open(dir);
  const auto backend = make_cpu_backend({.threads = 1});
  // An encoder and a decoder embedding and an LM head tied to one stored tensor, as in Marian.
  ModelWeights weights(*source, *backend,
                       {{"enc.embed", {"shared"}}, {"dec.embed", {"dec.embed_tokens", "shared"}},
                        {"lm_head", {"lm_head.weight", "shared"}}, {"bias", {"bias"}}});
  const Tensor enc = weights.get("enc.embed", {}, WeightUse::Table);
  EXPECT_EQ(weights.bytes(), shared.size() * sizeof(float));
  const Tensor dec = weights.get("dec.embed", Shape{4, 3}, WeightUse::Table);
  const Tensor head = weights.get("lm_head", {}, WeightUse::Table);
  EXPECT_EQ(dec.handle, enc.handle);
  EXPECT_EQ(head.handle, enc.handle);
  EXPECT_EQ(weights.bytes(), shared.size() * sizeof(float));
  // Another tensor, or the same one for another use (stored in another precision where the
  // backend keeps matrices in half), is a separate upload.
  weights.get("bias");
  weights.get("enc.embed");
  EXPECT_EQ(weights.bytes(), (2 * shared.size() + bias.size()) * sizeof(float));
  // The shape check still applies to every lookup.
  EXPECT_THROW(weights.get("dec.embed", Shape{3, 4}, WeightUse::Table), Error);
}

}  // namespace
}  // namespace invar
