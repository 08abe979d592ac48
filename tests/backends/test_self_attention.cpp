// Backend::self_attention against softmax(scale·QKᵀ + bias, masked) V summed in double on the host,
// with padding, both bias shapes, a sequence whose every key is masked, and lengths that split a
// head's queries into several blocks: on the CPU its fused path (one (sequence, head, block of
// queries) per task, scores never in `scores`) and its deterministic one (gemm_batched and
// attention_softmax through `scores`); on OpenCL the fused kernel (one work-group per query, its
// scores in __local memory) and, past its 2048 keys, the path through `scores`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"
#include "backends/registry.hpp"
#include "support/opencl_support.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

struct Case {
  std::int64_t batch, len, heads, head_dim;
  int bias_rank;  // 0: none, 3: [heads, len, len], 4: [batch, heads, len, len]
};

// The attention of query i of head h of sequence b, in double.
std::vector<double> reference(const Case& c, const std::vector<float>& qkv, const std::vector<float>& mask,
                              const std::vector<float>& bias, float scale) {
  const std::int64_t inner = c.heads * c.head_dim, width = 3 * inner;
  std::vector<double> out(static_cast<std::size_t>(c.batch * c.len * inner), 0.0);
  std::vector<double> p(static_cast<std::size_t>(c.len));
  for (std::int64_t b = 0; b < c.batch; ++b)
    for (std::int64_t h = 0; h < c.heads; ++h)
      for (std::int64_t i = 0; i < c.len; ++i) {
        double max = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < c.len; ++j) {
          if (mask[static_cast<std::size_t>(b * c.len + j)] == 0.0f) {
            p[j] = -std::numeric_limits<double>::infinity();
            continue;
          }
          double dot = 0.0;
          for (std::int64_t d = 0; d < c.head_dim; ++d)
            dot += double{qkv[static_cast<std::size_t>((b * c.len + i) * width + h * c.head_dim + d)]} *
                   qkv[static_cast<std::size_t>((b * c.len + j) * width + inner + h * c.head_dim + d)];
          p[j] = scale * dot;
          if (c.bias_rank > 0) {
            const std::int64_t matrix = c.bias_rank == 4 ? b * c.heads + h : h;
            p[j] += bias[static_cast<std::size_t>((matrix * c.len + i) * c.len + j)];
          }
          max = std::max(max, p[j]);
        }
        if (max == -std::numeric_limits<double>::infinity()) continue;  // no key: all zeros
        double sum = 0.0;
        for (double& v : p) sum += (v = std::exp(v - max));
        for (std::int64_t d = 0; d < c.head_dim; ++d) {
          double acc = 0.0;
          for (std::int64_t j = 0; j < c.len; ++j)
            acc += p[j] / sum * qkv[static_cast<std::size_t>((b * c.len + j) * width + 2 * inner + h * c.head_dim + d)];
          out[static_cast<std::size_t>((b * c.len + i) * inner + h * c.head_dim + d)] = acc;
        }
      }
  return out;
}

// Which backend: "cpu", "cpu-deterministic" or "opencl".
class SelfAttentionTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "opencl") {
      if (const auto missing = test::opencl_missing()) GTEST_SKIP() << *missing;
      backend_ = make_backend("opencl", {.threads = 1});
    } else {
      backend_ = make_cpu_backend({.threads = 2, .deterministic = GetParam() == "cpu-deterministic"});
    }
    arena_ = backend_->make_arena();
  }
  // The fused CPU path needs no scores: it must not read or write them.
  bool needs_scores() const { return GetParam() != "cpu"; }

  void expect_matches_reference(const Case& c) {
    SCOPED_TRACE(testing::Message() << "batch " << c.batch << " len " << c.len << " heads " << c.heads << " dh "
                                    << c.head_dim << " bias rank " << c.bias_rank);
    const std::int64_t inner = c.heads * c.head_dim, rows = c.batch * c.len;
    const auto qkv = test::random_floats(rows * 3 * inner, 5, 1.0f);
    // Sequence b keeps its first len − 3b keys; the last sequence of a batch of 3 or more keeps none
    // when len is small, every other one some.
    std::vector<float> mask(static_cast<std::size_t>(rows), 0.0f);
    for (std::int64_t b = 0; b < c.batch; ++b)
      for (std::int64_t j = 0; j < c.len - 3 * b; ++j) mask[static_cast<std::size_t>(b * c.len + j)] = 1.0f;
    const std::int64_t bias_matrices = c.bias_rank == 4 ? c.batch * c.heads : c.heads;
    const auto bias = test::random_floats(bias_matrices * c.len * c.len, 6, 2.0f);
    const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));

    arena_->reset();
    const Tensor tq = arena_->alloc(DType::F32, {rows, 3 * inner});
    const Tensor tm = arena_->alloc(DType::F32, {c.batch, c.len});
    Tensor tb;
    if (c.bias_rank == 3) tb = arena_->alloc(DType::F32, {c.heads, c.len, c.len});
    if (c.bias_rank == 4) tb = arena_->alloc(DType::F32, {c.batch, c.heads, c.len, c.len});
    const Tensor scores = arena_->alloc(DType::F32, {c.batch, c.heads, c.len, c.len});
    const Tensor context = arena_->alloc(DType::F32, {rows, inner});
    backend_->upload(qkv.data(), tq);
    backend_->upload(mask.data(), tm);
    if (!tb.empty()) backend_->upload(bias.data(), tb);
    ASSERT_EQ(backend_->self_attention_needs_scores(), needs_scores());
    backend_->self_attention(tq, c.batch, c.len, c.heads, c.head_dim, scale, tm, tb,
                             needs_scores() ? scores : Tensor{}, context);
    const auto got = backend_->download_f32(context);
    const auto want = reference(c, qkv, mask, bias, scale);
    ASSERT_EQ(got.size(), want.size());
    bool nonzero = false;
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 2e-5) << "element " << i;
      nonzero = nonzero || got[i] != 0.0f;
    }
    EXPECT_TRUE(nonzero);
  }

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Arena> arena_;
};

TEST_P(SelfAttentionTest, MatchesTheAttentionSummedInDouble) {
  expect_matches_reference({1, 5, 2, 4, 0});
  expect_matches_reference({1, 2, 2, 1, 0});
  expect_matches_reference({3, 7, 3, 8, 3});     // the third sequence keeps 1 key
  expect_matches_reference({4, 3, 2, 4, 4});     // sequences 1 to 3 keep no key: zeros
  expect_matches_reference({2, 300, 2, 16, 3});  // 218 queries per block: 2 blocks per head
  expect_matches_reference({2, 1, 1, 1, 0});
  expect_matches_reference({1, 2100, 1, 4, 3});  // past OpenCL's fused 2048 keys
}

TEST_P(SelfAttentionTest, RejectsScoresOfAnotherShape) {
  arena_->reset();
  const Tensor qkv = arena_->alloc(DType::F32, {2 * 4, 3 * 6});
  const Tensor scores = arena_->alloc(DType::F32, {2, 3, 4, 5});
  const Tensor context = arena_->alloc(DType::F32, {2 * 4, 6});
  EXPECT_THROW(backend_->self_attention(qkv, 2, 4, 3, 2, 1.0f, {}, {}, scores, context), Error);
  const Tensor narrow = arena_->alloc(DType::F32, {2 * 4, 5});
  const Tensor right = arena_->alloc(DType::F32, {2, 3, 4, 4});
  EXPECT_THROW(backend_->self_attention(qkv, 2, 4, 3, 2, 1.0f, {}, {}, right, narrow), Error);
  // Without scores only where the backend does not use them.
  if (needs_scores()) EXPECT_THROW(backend_->self_attention(qkv, 2, 4, 3, 2, 1.0f, {}, {}, Tensor{}, context), Error);
  else EXPECT_NO_THROW(backend_->self_attention(qkv, 2, 4, 3, 2, 1.0f, {}, {}, Tensor{}, context));
}

INSTANTIATE_TEST_SUITE_P(Backends, SelfAttentionTest, ::testing::Values("cpu", "cpu-deterministic", "opencl"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace invar
