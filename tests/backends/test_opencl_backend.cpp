// The OpenCL backend against the CPU backend, op by op, on random inputs of awkward sizes. Every
// operand is a view one row into its storage (Tensor::rows), so no kernel gets away with
// ignoring offsets. Tolerance: |opencl − cpu| ≤ 1e-5 · (1 + |cpu|); both compute in float32 with
// the same formulas, so what differs is summation order (GEMM blocking, tree reductions) and
// the libm behind exp/erf/tanh (a few ulp).
// Built without OpenCL (cmake -DINVAR_OPENCL=OFF), this file holds no tests.
#ifdef INVAR_WITH_OPENCL
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <sstream>

#include "core/error.hpp"
#include "backends/backend.hpp"
#include "backends/opencl/runtime.hpp"
#include "backends/registry.hpp"
#include "support/opencl_support.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

constexpr double kTolerance = 1e-5;
constexpr std::array kActivations = {Activation::None, Activation::GeluErf, Activation::GeluTanh,
                                     Activation::Relu, Activation::Silu, Activation::Tanh};

// The same tensor on both backends.
struct Twin {
  Tensor cpu, gpu;
};

class OpenClBackendTest : public test::OpenClTest {
 protected:
  void SetUp() override {
    test::OpenClTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    cpu_ = make_backend("cpu", {.threads = 1});
    gpu_ = make_backend("opencl", {.threads = 1});
    cpu_arena_ = cpu_->make_arena();
    gpu_arena_ = gpu_->make_arena();
  }

  std::vector<float> random(std::int64_t n, float low = -2.0f, float high = 2.0f) {
    std::uniform_real_distribution<float> dist(low, high);
    std::vector<float> values(static_cast<std::size_t>(n));
    for (float& v : values) v = dist(rng_);
    return values;
  }

  // A tensor of `shape` holding `values`, stored one row (along dim 0) into a larger allocation
  // whose other rows hold other random values.
  template <typename T>
  Twin make(const std::vector<T>& values, Shape shape, DType dtype) {
    Shape storage = shape;
    storage.dims[0] += 2;
    const std::int64_t row = shape.numel() / std::max<std::int64_t>(shape[0], 1);
    std::vector<T> padded(static_cast<std::size_t>(storage.numel()), T(7));
    std::copy(values.begin(), values.end(), padded.begin() + row);
    Twin t{cpu_arena_->alloc(dtype, storage), gpu_arena_->alloc(dtype, storage)};
    cpu_->upload(padded.data(), t.cpu);
    gpu_->upload(padded.data(), t.gpu);
    return {t.cpu.rows(1, shape[0]).reshaped(shape), t.gpu.rows(1, shape[0]).reshaped(shape)};
  }
  Twin make(const std::vector<float>& values, Shape shape) { return make(values, shape, DType::F32); }
  Twin make_random(Shape shape) { return make(random(shape.numel()), shape); }
  Twin make_ids(const std::vector<std::int32_t>& ids) {
    return make(ids, {static_cast<std::int64_t>(ids.size())}, DType::I32);
  }

  void expect_near(const Twin& t, const std::string& what, double tolerance = kTolerance) {
    const std::vector<float> expected = cpu_->download_f32(t.cpu), actual = gpu_->download_f32(t.gpu);
    ASSERT_EQ(expected.size(), actual.size());
    int reported = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const double bound = tolerance * (1.0 + std::abs(expected[i]));
      if (!(std::abs(double(actual[i]) - expected[i]) <= bound) && reported++ < 5) {
        ADD_FAILURE() << what << ": element " << i << " is " << actual[i] << " on OpenCL, " << expected[i]
                      << " on CPU";
      }
    }
  }

  std::mt19937 rng_{1234};
  std::unique_ptr<Backend> cpu_, gpu_;
  std::unique_ptr<Arena> cpu_arena_, gpu_arena_;
};

TEST_F(OpenClBackendTest, GemmEveryTransposeWithGarbageAndAccumulatedC) {
  const std::int64_t m = 7, n = 13, k = 9;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const Twin a = make_random(ta ? Shape{k, m} : Shape{m, k});
      const Twin b = make_random(tb ? Shape{n, k} : Shape{k, n});
      // beta = 0 must not read c, which holds NaN here.
      const Twin c0 = make(std::vector<float>(m * n, nan), {m, n});
      cpu_->gemm(ta, tb, 0.7f, a.cpu, b.cpu, 0.0f, c0.cpu);
      gpu_->gemm(ta, tb, 0.7f, a.gpu, b.gpu, 0.0f, c0.gpu);
      expect_near(c0, fmt::format("gemm ta={} tb={} beta=0", ta, tb));
      const Twin c1 = make_random({m, n});
      cpu_->gemm(ta, tb, -1.3f, a.cpu, b.cpu, 0.5f, c1.cpu);
      gpu_->gemm(ta, tb, -1.3f, a.gpu, b.gpu, 0.5f, c1.gpu);
      expect_near(c1, fmt::format("gemm ta={} tb={} beta=0.5", ta, tb));
    }
  }
}

TEST_F(OpenClBackendTest, GemmWithEmptyInnerDimensionScalesC) {
  // op(a) = aᵀ of a [0, 5]: [5, 0] (an [M, 0] matrix view has no rows, so only a transpose gives k = 0).
  const Twin a = make_random({0, 5}), b = make_random({0, 3}), c = make_random({5, 3});
  cpu_->gemm(true, false, 1.0f, a.cpu, b.cpu, 0.25f, c.cpu);
  gpu_->gemm(true, false, 1.0f, a.gpu, b.gpu, 0.25f, c.gpu);
  expect_near(c, "gemm k=0");
}

// Attention-shaped matrix families: Q·Kᵀ per (batch, head) straight out of [B*T, hidden]
// projections (outer stride does not continue the inner one: one CLBlast call per batch), and
// probabilities · V into contiguous scores-like layouts (one call in all).
TEST_F(OpenClBackendTest, GemmBatchedOnAttentionViews) {
  const std::int64_t batch = 3, heads = 4, tq = 5, tk = 6, dim = 7, hidden = heads * dim;
  const Twin q = make_random({batch * tq, hidden}), kk = make_random({batch * tk, hidden});
  const Twin scores = make_random({batch, heads, tq, tk});
  const MatrixView qv{0, hidden, tq * hidden, dim}, kv{0, hidden, tk * hidden, dim};
  const MatrixView sv{0, tk, heads * tq * tk, tq * tk};
  for (float beta : {0.0f, 0.5f}) {
    cpu_->gemm_batched(false, true, tq, tk, dim, 0.3f, q.cpu, qv, kk.cpu, kv, beta, scores.cpu, sv, batch, heads);
    gpu_->gemm_batched(false, true, tq, tk, dim, 0.3f, q.gpu, qv, kk.gpu, kv, beta, scores.gpu, sv, batch, heads);
    expect_near(scores, fmt::format("scores, beta {}", beta));
  }
  // context [B*Tq, hidden] = P · V per head, with P transposed storage for the trans_a path.
  const Twin pt = make_random({batch, heads, tk, tq}), v = make_random({batch * tk, hidden});
  const Twin context = make_random({batch * tq, hidden});
  const MatrixView ptv{0, tq, heads * tk * tq, tk * tq}, cv{0, hidden, tq * hidden, dim};
  cpu_->gemm_batched(true, false, tq, dim, tk, 1.0f, pt.cpu, ptv, v.cpu, kv, 0.0f, context.cpu, cv, batch, heads);
  gpu_->gemm_batched(true, false, tq, dim, tk, 1.0f, pt.gpu, ptv, v.gpu, kv, 0.0f, context.gpu, cv, batch, heads);
  expect_near(context, "context");
  // One level only: inner = 1 walks the outer stride, outer = 1 the inner one; k = 0 scales.
  const Twin out = make_random({batch, tq, tk});
  const MatrixView ov{0, tk, tq * tk, 0};
  cpu_->gemm_batched(false, true, tq, tk, dim, 1.0f, q.cpu, qv, kk.cpu, kv, 0.0f, out.cpu, ov, batch, 1);
  gpu_->gemm_batched(false, true, tq, tk, dim, 1.0f, q.gpu, qv, kk.gpu, kv, 0.0f, out.gpu, ov, batch, 1);
  expect_near(out, "inner = 1");
  const MatrixView ov_inner{0, tk, 0, tq * tk};
  cpu_->gemm_batched(false, true, tq, tk, dim, 1.0f, q.cpu, qv, kk.cpu, kv, 0.5f, out.cpu, ov_inner, 1, batch);
  gpu_->gemm_batched(false, true, tq, tk, dim, 1.0f, q.gpu, qv, kk.gpu, kv, 0.5f, out.gpu, ov_inner, 1, batch);
  expect_near(out, "outer = 1");
  cpu_->gemm_batched(false, true, tq, tk, 0, 1.0f, q.cpu, qv, kk.cpu, kv, -2.0f, scores.cpu, sv, batch, heads);
  gpu_->gemm_batched(false, true, tq, tk, 0, 1.0f, q.gpu, qv, kk.gpu, kv, -2.0f, scores.gpu, sv, batch, heads);
  expect_near(scores, "k = 0");
}

TEST_F(OpenClBackendTest, LinearAndBiasActWithEveryActivation) {
  const std::int64_t rows = 11, in = 19, out = 23;
  const Twin x = make_random({rows, in}), w = make_random({out, in}), bias = make_random({out});
  for (Activation act : kActivations) {
    for (bool with_bias : {false, true}) {
      const Twin y = make_random({rows, out});
      const Tensor b_cpu = with_bias ? bias.cpu : Tensor{}, b_gpu = with_bias ? bias.gpu : Tensor{};
      cpu_->linear(x.cpu, w.cpu, b_cpu, act, y.cpu);
      gpu_->linear(x.gpu, w.gpu, b_gpu, act, y.gpu);
      expect_near(y, fmt::format("linear act {} bias {}", int(act), with_bias));
      cpu_->bias_act(y.cpu, b_cpu, act);
      gpu_->bias_act(y.gpu, b_gpu, act);
      expect_near(y, fmt::format("bias_act act {} bias {}", int(act), with_bias));
    }
  }
}

TEST_F(OpenClBackendTest, AddAndMulInPlace) {
  const Twin a = make_random({3, 37}), b = make_random({111}), c = make_random({111});
  const std::vector<float> va = cpu_->download_f32(a.cpu), vb = cpu_->download_f32(b.cpu),
                           vc = cpu_->download_f32(c.cpu);
  cpu_->add(a.cpu, b.cpu, a.cpu);
  gpu_->add(a.gpu, b.gpu, a.gpu);
  expect_near(a, "add");
  cpu_->mul(c.cpu, a.cpu, c.cpu);
  gpu_->mul(c.gpu, a.gpu, c.gpu);
  expect_near(c, "mul");
  const std::vector<float> product = cpu_->download_f32(c.cpu);
  for (std::size_t i = 0; i < product.size(); ++i) EXPECT_EQ(product[i], vc[i] * (va[i] + vb[i])) << i;
}

TEST_F(OpenClBackendTest, LayerNormWithResidualAndAliasing) {
  const std::int64_t rows = 9, cols = 301;  // more columns than a work-group, not a multiple of it
  const Twin gamma = make_random({cols}), beta = make_random({cols});
  const Twin x = make(random(rows * cols, 3.0f, 5.0f), {rows, cols}), residual = make_random({rows, cols});
  const Twin out = make_random({rows, cols});
  cpu_->layer_norm(x.cpu, Tensor{}, gamma.cpu, beta.cpu, 1e-5f, out.cpu);
  gpu_->layer_norm(x.gpu, Tensor{}, gamma.gpu, beta.gpu, 1e-5f, out.gpu);
  expect_near(out, "layer_norm");
  cpu_->layer_norm(x.cpu, residual.cpu, gamma.cpu, beta.cpu, 1e-12f, residual.cpu);
  gpu_->layer_norm(x.gpu, residual.gpu, gamma.gpu, beta.gpu, 1e-12f, residual.gpu);
  expect_near(residual, "layer_norm into residual");
  cpu_->layer_norm(x.cpu, out.cpu, gamma.cpu, beta.cpu, 1e-5f, x.cpu);
  gpu_->layer_norm(x.gpu, out.gpu, gamma.gpu, beta.gpu, 1e-5f, x.gpu);
  expect_near(x, "layer_norm into x");
}

TEST_F(OpenClBackendTest, RmsNormInPlace) {
  const Twin x = make_random({6, 77}), weight = make_random({77});
  cpu_->rms_norm(x.cpu, weight.cpu, 1e-6f, x.cpu);
  gpu_->rms_norm(x.gpu, weight.gpu, 1e-6f, x.gpu);
  expect_near(x, "rms_norm");
}

TEST_F(OpenClBackendTest, AttentionSoftmaxWithMasksBiasAndCausalOffsets) {
  const std::int64_t batch = 2, heads = 3, tq = 5, tk = 7;
  // Batch 0 drops keys 2 and 6; batch 1 drops every key, so its rows must come out all zeros.
  const Twin mask = make({1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}, {batch, tk});
  const Twin shared_bias = make_random({heads, tq, tk}), batch_bias = make_random({batch, heads, tq, tk});
  struct Case {
    bool mask, causal;
    std::int64_t offset;
    int bias;  // 0 none, 1 shared, 2 per batch
  };
  for (const Case& c : {Case{false, false, 0, 0}, Case{true, false, 0, 1}, Case{false, true, 0, 2},
                        Case{true, true, 2, 1}, Case{false, true, 5, 0}}) {
    const Twin scores = make_random({batch, heads, tq, tk});
    const Twin& bias = c.bias == 1 ? shared_bias : batch_bias;
    cpu_->attention_softmax(scores.cpu, 0.37f, c.mask ? mask.cpu : Tensor{}, c.bias ? bias.cpu : Tensor{}, c.causal,
                            c.offset);
    gpu_->attention_softmax(scores.gpu, 0.37f, c.mask ? mask.gpu : Tensor{}, c.bias ? bias.gpu : Tensor{}, c.causal,
                            c.offset);
    expect_near(scores, fmt::format("mask {} causal {} offset {} bias {}", c.mask, c.causal, c.offset, c.bias));
    if (c.mask) {
      const std::vector<float> probabilities = gpu_->download_f32(scores.gpu);
      for (std::int64_t i = heads * tq * tk; i < batch * heads * tq * tk; ++i) ASSERT_EQ(probabilities[i], 0.0f);
    }
  }
}

TEST_F(OpenClBackendTest, GatherRowsScaledAndAccumulated) {
  const Twin table = make_random({10, 33});
  const Twin ids = make_ids({3, 0, 9, 3, 7});
  const Twin out = make_random({5, 33});
  cpu_->gather_rows(table.cpu, ids.cpu, 2.5f, false, out.cpu);
  gpu_->gather_rows(table.gpu, ids.gpu, 2.5f, false, out.gpu);
  expect_near(out, "gather");
  cpu_->gather_rows(table.cpu, ids.cpu, 1.0f, true, out.cpu);
  gpu_->gather_rows(table.gpu, ids.gpu, 1.0f, true, out.gpu);
  expect_near(out, "gather accumulate");
}

TEST_F(OpenClBackendTest, GatherRowsNeverReadsOutsideTheTable) {
  // The CPU backend rejects such ids; the OpenCL kernel leaves their rows as they were.
  const Twin table = make_random({4, 8});
  const Twin ids = make_ids({1, 4, -1});
  const Twin out = make(std::vector<float>(24, 5.0f), {3, 8});
  gpu_->gather_rows(table.gpu, ids.gpu, 1.0f, false, out.gpu);
  const std::vector<float> rows = gpu_->download_f32(out.gpu), expected = cpu_->download_f32(table.cpu);
  for (std::size_t c = 0; c < 8; ++c) {
    EXPECT_EQ(rows[c], expected[8 + c]);
    EXPECT_EQ(rows[8 + c], 5.0f);
    EXPECT_EQ(rows[16 + c], 5.0f);
  }
  EXPECT_THROW(cpu_->gather_rows(table.cpu, ids.cpu, 1.0f, false, out.cpu), Error);
}

// DeBERTa's c2p and p2c terms read at relative positions: both terms, each alone, and the
// definition checked by hand on the CPU's result.
TEST_F(OpenClBackendTest, RelativeGatherReadsBothTermsAtTheIndex) {
  const std::int64_t batch = 2, heads = 3, t = 5, span = 4;
  const Twin c2p = make_random({batch, heads, t, span}), p2c = make_random({batch, heads, t, span});
  std::vector<std::int32_t> positions(static_cast<std::size_t>(t * t));
  for (std::int64_t i = 0; i < t; ++i)
    for (std::int64_t j = 0; j < t; ++j)
      positions[static_cast<std::size_t>(i * t + j)] = static_cast<std::int32_t>(std::clamp<std::int64_t>(i - j + 2, 0, 3));
  const Twin index = make(positions, {t, t}, DType::I32);
  const Twin out = make_random({batch, heads, t, t});
  cpu_->relative_gather(c2p.cpu, p2c.cpu, index.cpu, out.cpu);
  gpu_->relative_gather(c2p.gpu, p2c.gpu, index.gpu, out.gpu);
  expect_near(out, "both terms");
  const auto a = cpu_->download_f32(c2p.cpu), b = cpu_->download_f32(p2c.cpu), o = cpu_->download_f32(out.cpu);
  // (b=1, h=2, i=4, j=1): index clamp(4 − 1 + 2) = 3.
  const std::size_t m = 1 * heads + 2;
  EXPECT_EQ(o[(m * t + 4) * t + 1], a[(m * t + 4) * span + 3] + b[(m * t + 1) * span + 3]);
  cpu_->relative_gather(c2p.cpu, {}, index.cpu, out.cpu);
  gpu_->relative_gather(c2p.gpu, {}, index.gpu, out.gpu);
  expect_near(out, "c2p alone");
  cpu_->relative_gather({}, p2c.cpu, index.cpu, out.cpu);
  gpu_->relative_gather({}, p2c.gpu, index.gpu, out.gpu);
  expect_near(out, "p2c alone");
  EXPECT_EQ(cpu_->download_f32(out.cpu)[(m * t + 4) * t + 1], b[(m * t + 1) * span + 3]);
  EXPECT_THROW(cpu_->relative_gather({}, {}, index.cpu, out.cpu), Error);
  // An index outside the span: the CPU backend throws, the OpenCL kernel reads nothing and writes 0.
  positions[3] = static_cast<std::int32_t>(span);
  const Twin bad = make(positions, {t, t}, DType::I32);
  EXPECT_THROW(cpu_->relative_gather(c2p.cpu, p2c.cpu, bad.cpu, out.cpu), Error);
  gpu_->relative_gather(c2p.gpu, p2c.gpu, bad.gpu, out.gpu);
  EXPECT_EQ(gpu_->download_f32(out.gpu)[3], 0.0f);
}

TEST_F(OpenClBackendTest, CopyStridedSplitsHeadsAndWritesACacheStep) {
  const std::int64_t batch = 2, t = 5, heads = 3, dim = 4, hidden = heads * dim;
  const Twin src = make_random({batch * t, hidden}), split = make_random({batch, heads, t, dim});
  const StridedView from{0, {t * hidden, dim, hidden, 1}}, to{0, {heads * t * dim, t * dim, dim, 1}};
  cpu_->copy_strided(src.cpu, from, split.cpu, to, {batch, heads, t, dim});
  gpu_->copy_strided(src.gpu, from, split.gpu, to, {batch, heads, t, dim});
  expect_near(split, "split heads");
  // One step (position 3) of a time-major cache [capacity 6, rows, hidden], ids as I32.
  std::vector<std::int32_t> ids(batch * hidden);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>(i * 7919);
  const Twin step = make(ids, {batch, hidden}, DType::I32);
  const Twin cache = make(std::vector<std::int32_t>(6 * batch * hidden, -1), {6, batch, hidden}, DType::I32);
  const StridedView step_view{0, {0, 0, hidden, 1}}, cache_view{3 * batch * hidden, {0, 0, hidden, 1}};
  cpu_->copy_strided(step.cpu, step_view, cache.cpu, cache_view, {1, 1, batch, hidden});
  gpu_->copy_strided(step.gpu, step_view, cache.gpu, cache_view, {1, 1, batch, hidden});
  std::vector<std::int32_t> expected(static_cast<std::size_t>(cache.cpu.numel())),
      actual(static_cast<std::size_t>(cache.gpu.numel()));
  cpu_->download(cache.cpu, expected.data());
  gpu_->download(cache.gpu, actual.data());
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(actual[3 * batch * hidden + 1], 7919);
}

TEST_F(OpenClBackendTest, PoolEveryMode) {
  const std::int64_t batch = 3, t = 6, cols = 17;
  // The third sequence is all padding: Mean divides by the 1e-9 clamp, Max gives −1e9.
  const Twin mask = make({1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0}, {batch, t});
  const Twin x = make_random({batch, t, cols});
  for (Pooling mode : {Pooling::Mean, Pooling::Cls, Pooling::Max, Pooling::MeanSqrtLen}) {
    const Twin out = make_random({batch, cols});
    cpu_->pool(x.cpu, mask.cpu, mode, out.cpu);
    gpu_->pool(x.gpu, mask.gpu, mode, out.gpu);
    expect_near(out, fmt::format("pool mode {}", int(mode)));
  }
}

TEST_F(OpenClBackendTest, L2NormalizeAndLogSoftmax) {
  std::vector<float> values = random(5 * 29);
  std::fill(values.begin() + 29, values.begin() + 58, 0.0f);  // a zero row stays zero
  const Twin x = make(values, {5, 29});
  cpu_->l2_normalize(x.cpu);
  gpu_->l2_normalize(x.gpu);
  expect_near(x, "l2_normalize");
  const Twin logits = make(random(3 * 1001, -30.0f, 30.0f), {3, 1001});
  cpu_->log_softmax(logits.cpu, logits.cpu);
  gpu_->log_softmax(logits.gpu, logits.gpu);
  expect_near(logits, "log_softmax");
}

// Candidates of a decoding step: ids and values exactly the CPU backend's (no arithmetic), the
// terms within float rounding of its double sum. Rows: few distinct values (ties at the cut), an
// excluded column that holds the row's largest value, NaNs, an all −∞ row, and k from 1 to N.
TEST_F(OpenClBackendTest, TopKRowsTiesExclusionNaNAndEmptyRows) {
  constexpr std::int64_t rows = 6, cols = 1003;
  std::vector<float> values = random(rows * cols, -8.0f, 8.0f);
  for (std::size_t i = 0; i < values.size(); i += 2) values[i] = std::round(values[i]);  // ties
  values[1 * cols + 17] = 100.0f;  // the excluded column's largest value in row 1
  values[2 * cols + 5] = std::numeric_limits<float>::quiet_NaN();
  std::fill(values.begin() + 3 * cols, values.begin() + 4 * cols, -std::numeric_limits<float>::infinity());
  const Twin x = make(values, {rows, cols});
  for (const std::int64_t k : {std::int64_t{1}, std::int64_t{11}, cols}) {
    for (const std::int64_t exclude : {std::int64_t{-1}, std::int64_t{17}}) {
      const Twin top = make(std::vector<float>(static_cast<std::size_t>(rows * k)), {rows, k});
      const Twin ids = make(std::vector<std::int32_t>(static_cast<std::size_t>(rows * k)), {rows, k}, DType::I32);
      const Twin terms = make(std::vector<float>(rows * 2), {rows, 2});
      cpu_->top_k_rows(x.cpu, k, exclude, top.cpu, ids.cpu, terms.cpu);
      gpu_->top_k_rows(x.gpu, k, exclude, top.gpu, ids.gpu, terms.gpu);
      const std::string what = fmt::format("top_k_rows k {} exclude {}", k, exclude);
      std::vector<std::int32_t> cpu_ids(static_cast<std::size_t>(rows * k)), gpu_ids(cpu_ids.size());
      cpu_->download(ids.cpu, cpu_ids.data());
      gpu_->download(ids.gpu, gpu_ids.data());
      EXPECT_EQ(cpu_ids, gpu_ids) << what;
      const auto cpu_values = cpu_->download_f32(top.cpu), gpu_values = gpu_->download_f32(top.gpu);
      for (std::size_t i = 0; i < cpu_values.size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(cpu_values[i]), std::bit_cast<std::uint32_t>(gpu_values[i]))
            << what << " value " << i;
      const auto cpu_terms = cpu_->download_f32(terms.cpu), gpu_terms = gpu_->download_f32(terms.gpu);
      for (std::size_t i = 0; i < cpu_terms.size(); ++i) {
        if (std::isnan(cpu_terms[i])) {
          EXPECT_TRUE(std::isnan(gpu_terms[i])) << what << " term " << i;  // the NaN row's log-sum
        } else {
          EXPECT_NEAR(gpu_terms[i], cpu_terms[i], kTolerance * (1.0 + std::abs(cpu_terms[i]))) << what << " term " << i;
        }
      }
    }
  }
}

TEST_F(OpenClBackendTest, WeightStoreConvertsHalfPrecisionSources) {
  auto cpu_store = cpu_->make_weight_store();
  auto gpu_store = gpu_->make_weight_store();
  // 1.5, −2, 65504 (largest F16), a subnormal; BF16 1.5, −2, 3.140625, 1e-38-ish.
  const std::vector<std::uint16_t> f16 = {0x3E00, 0xC000, 0x7BFF, 0x0001};
  const std::vector<std::uint16_t> bf16 = {0x3FC0, 0xC000, 0x4049, 0x006D};
  for (const auto& [dtype, bits] : {std::pair{DType::F16, f16}, std::pair{DType::BF16, bf16}}) {
    TensorData src;
    src.dtype = dtype;
    src.shape = {2, 2};
    src.data = reinterpret_cast<const std::byte*>(bits.data());
    src.nbytes = bits.size() * 2;
    const std::vector<float> expected = to_f32(src);
    const Tensor w = gpu_store->add(src, WeightUse::Any);
    EXPECT_EQ(w.shape, (Shape{2, 2}));
    EXPECT_EQ(gpu_->download_f32(w), expected);
    EXPECT_EQ(cpu_->download_f32(cpu_store->add(src, WeightUse::Any)), expected);
  }
  const std::vector<float> values = random(6);
  EXPECT_EQ(gpu_->download_f32(gpu_store->add(values, {3, 2}, WeightUse::Any)), values);
  EXPECT_THROW(gpu_store->add(values, {4, 2}, WeightUse::Any), Error);
  TensorData ids;
  ids.dtype = DType::I64;
  ids.shape = {1};
  EXPECT_THROW(gpu_store->add(ids, WeightUse::Any), Error);
}

TEST_F(OpenClBackendTest, ArenaGrowsKeepsTensorsAndMergesChunks) {
  std::vector<Tensor> tensors;
  std::vector<std::vector<float>> values;
  for (std::int64_t n : {1000, 300000, 5, 400000}) {
    values.push_back(random(n));
    tensors.push_back(gpu_arena_->alloc(DType::F32, {n}));
    gpu_->upload(values.back().data(), tensors.back());
  }
  for (std::size_t i = 0; i < tensors.size(); ++i) EXPECT_EQ(gpu_->download_f32(tensors[i]), values[i]);
  const std::size_t capacity = gpu_arena_->capacity();
  gpu_arena_->reset();
  EXPECT_EQ(gpu_arena_->capacity(), capacity);
  EXPECT_EQ(gpu_arena_->used(), 0u);
  const Tensor big = gpu_arena_->alloc(DType::F32, {700000});
  EXPECT_EQ(gpu_arena_->capacity(), capacity);  // one merged chunk holds the whole batch now
  const std::vector<float> ones(700000, 1.0f);
  gpu_->upload(ones.data(), big);
  EXPECT_EQ(gpu_->download_f32(big), ones);
}

TEST_F(OpenClBackendTest, OutOfMemoryNamesTheDeviceAndBytes) {
  const std::int64_t elements = std::int64_t{1} << 50;  // 4 PiB
  try {
    gpu_arena_->alloc(DType::F32, {elements});
    FAIL() << "allocated 4 PiB";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("out of memory"), std::string::npos) << message;
    EXPECT_NE(message.find(opencl::list_devices().front().name), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(elements * 4)), std::string::npos) << message;
  }
}

class OpenClRuntimeTest : public test::OpenClTest {};

TEST_F(OpenClRuntimeTest, ListsDevicesWithTheirProperties) {
  const std::vector<opencl::DeviceInfo> devices = opencl::list_devices();
  ASSERT_FALSE(devices.empty());
  for (const auto& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_NE(d.version.find("OpenCL"), std::string::npos);
    EXPECT_GT(d.global_memory, 0u);
    EXPECT_GT(d.compute_units, 0u);
  }
  EXPECT_EQ(make_backend("opencl:0:0", {.threads = 1})->name(), "opencl:0:0");
}

TEST_F(OpenClRuntimeTest, BadDeviceNamesFailNamingWhatExists) {
  try {
    make_backend("opencl:0:99", {.threads = 1});
    FAIL() << "device 0:99 opened";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("0:99 does not exist"), std::string::npos) << message;
    EXPECT_NE(message.find("opencl:0:0 (" + opencl::list_devices().front().name), std::string::npos) << message;
  }
  EXPECT_THROW(make_backend("opencl:7:0", {.threads = 1}), Error);
  for (const char* bad : {"opencl:0", "opencl:a:b", "opencl:0:0:1", "opencl:-1:0"}) {
    EXPECT_THROW(make_backend(bad, {.threads = 1}), Error) << bad;
  }
  try {
    make_backend("gpu", {.threads = 1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cpu, opencl"), std::string::npos) << e.what();
  }
}

// A context on device 0:0 for the program-building tests, released at the end of the test.
struct Context {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  Context() {
    cl_platform_id platform = nullptr;
    opencl::check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
    opencl::check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
    cl_int status = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
    opencl::check(status, "clCreateContext");
  }
  ~Context() { clReleaseContext(context); }
};

TEST_F(OpenClRuntimeTest, KernelBuildFailureReportsTheSourceAndTheLog) {
  const Context c;
  const std::vector<opencl::KernelSource> broken = {{"broken.cl", "__kernel void f(__global float* x) { x[0] = y; }"}};
  try {
    opencl::build_program(c.context, c.device, broken, "", "");
    FAIL() << "a broken kernel built";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("broken.cl failed to build"), std::string::npos) << message;
    EXPECT_NE(message.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << message;
    EXPECT_NE(message.find("y"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST_F(OpenClRuntimeTest, ProgramBinariesAreCachedAndValidated) {
  const Context c;
  const std::vector<opencl::KernelSource> source = {
      {"twice.cl", "__kernel void twice(__global float* x) { x[get_global_id(0)] *= 2.0f; }"}};
  const std::filesystem::path dir = test::temp_dir();
  const auto build = [&] {
    const opencl::BuiltProgram built = opencl::build_program(c.context, c.device, source, "", dir);
    cl_int status = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(built.program, "twice", &status);
    EXPECT_EQ(status, CL_SUCCESS);
    if (kernel) clReleaseKernel(kernel);
    clReleaseProgram(built.program);
    return built.from_cache;
  };
  EXPECT_FALSE(build());
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(build());
  // A flipped byte in the binary fails the hash check: rebuilt from source and rewritten.
  std::string bytes = test::read_file(files[0]);
  bytes[bytes.size() / 2] ^= 0x5A;
  test::write_file(files[0], bytes);
  EXPECT_FALSE(build());
  EXPECT_TRUE(build());
  // Other build options are another key, so another file.
  clReleaseProgram(opencl::build_program(c.context, c.device, source, "-cl-mad-enable", dir).program);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 2);
}

TEST_F(OpenClRuntimeTest, DevicesCommandListsCpuAndOpenClDevices) {
  const test::CliResult table = test::run_cli({"devices"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("cpu ", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("opencl:0:0     " + opencl::list_devices().front().name), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("MiB global memory"), std::string::npos) << table.out;
  const test::CliResult json = test::run_cli({"devices", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::istringstream lines(json.out);
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 1 + opencl::list_devices().size());
  EXPECT_EQ(rows[1].at("device"), "opencl:0:0");
  EXPECT_GT(rows[1].at("global_memory_bytes").get<std::uint64_t>(), 0u);
  EXPECT_TRUE(rows[1].at("fp16").is_boolean());
  // f16 weight storage needs no fp16 arithmetic: every OpenCL device takes it, the CPU does not
  // (it takes int8, which OpenCL does not).
  EXPECT_EQ(rows[0].at("weights"), nlohmann::json({"f32", "int8"}));
  EXPECT_EQ(rows[1].at("weights"), nlohmann::json({"f32", "f16"}));
  EXPECT_NE(table.out.find("weights f32/f16, fp16 arithmetic "), std::string::npos) << table.out;
}

TEST_F(OpenClRuntimeTest, NoPlatformIsAClearError) {
  // The ICD loader finds no driver in an empty vendor directory.
  setenv("OCL_ICD_VENDORS", test::temp_dir().c_str(), 1);
  const test::CliResult result = test::run_cli({"devices"});
  unsetenv("OCL_ICD_VENDORS");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out.find("opencl:"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("no OpenCL platform found"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace invar

#endif  // INVAR_WITH_OPENCL
