// The CPU backend's linear layers on weights packed once for oneDNN (backends/cpu/packed_matmul.hpp):
// the same products as OpenBLAS on the plain weight to float rounding for every row count, bias and
// activation; a packed weight is readable by linear only; --deterministic packs nothing. With
// int8 weights, each product is within the bound the per-channel and per-row rounding allows, and
// the rounding itself is pinned.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/quantize.hpp"
#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"
#include "backends/cpu/packed_matmul.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

std::vector<float> random_values(std::int64_t count, unsigned seed) { return test::random_floats(count, seed, 1.0f); }

// 2 threads: blocks of rows on the backend's pool; 4: one oneDNN OpenMP team per product.
class PackedLinearTest : public ::testing::TestWithParam<int> {
 protected:
  // y = act(x · wᵀ + bias) with w stored as a Matrix (packed) and as Any (plain, OpenBLAS).
  void expect_packed_matches_plain(std::int64_t m, std::int64_t n, std::int64_t k, bool with_bias, Activation act) {
    SCOPED_TRACE(testing::Message() << "m=" << m << " n=" << n << " k=" << k << " bias=" << with_bias);
    const auto w = random_values(n * k, 1), x = random_values(m * k, 2), b = random_values(n, 3);
    const Tensor packed = store_->add(w, {n, k}, WeightUse::Matrix), plain = store_->add(w, {n, k}, WeightUse::Any);
    const Tensor bias = with_bias ? store_->add(b, {n}, WeightUse::Any) : Tensor();
    arena_->reset();
    const Tensor xt = arena_->alloc(DType::F32, {m, k});
    const Tensor from_packed = arena_->alloc(DType::F32, {m, n}), from_plain = arena_->alloc(DType::F32, {m, n});
    backend_->upload(x.data(), xt);
    backend_->linear(xt, packed, bias, act, from_packed);
    backend_->linear(xt, plain, bias, act, from_plain);
    const auto got = backend_->download_f32(from_packed), want = backend_->download_f32(from_plain);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-5f * static_cast<float>(k)) << "element " << i;
    }
    // A real check: the product is not all zeros (or a copy of one operand).
    if (!got.empty()) {
      EXPECT_NE(got[0], 0.0f);
    }
  }

  std::unique_ptr<Backend> backend_ = make_cpu_backend({.threads = GetParam()});
  std::unique_ptr<WeightStore> store_ = backend_->make_weight_store();
  std::unique_ptr<Arena> arena_ = backend_->make_arena();
};

TEST_P(PackedLinearTest, MatchesOpenBlasOnThePlainWeightForEveryRowCount) {
  for (const std::int64_t m : {1, 2, 5, 16, 80, 333}) expect_packed_matches_plain(m, 96, 64, true, Activation::None);
  expect_packed_matches_plain(7, 1, 3, false, Activation::None);        // one output
  expect_packed_matches_plain(3, 130, 17, false, Activation::None);     // sizes off every block
  expect_packed_matches_plain(4, 48, 32, true, Activation::GeluErf);    // activation after the bias
  expect_packed_matches_plain(4, 48, 32, true, Activation::Relu);
  expect_packed_matches_plain(0, 48, 32, true, Activation::None);       // no rows: nothing to do
  // Wide enough for column slices at 2 threads: one slice per thread below kSliceRows rows, blocks
  // of rows through both slices at and above it.
  for (const std::int64_t m : {1, 16, 80, 600}) expect_packed_matches_plain(m, 200, 40, true, Activation::GeluErf);
}

TEST_P(PackedLinearTest, StoresOnlyThePackedCopy) {
  const std::int64_t n = 64, k = 64;
  const Tensor packed = store_->add(random_values(n * k, 4), {n, k}, WeightUse::Matrix);
  // The packed layout may pad; it never keeps the plain elements besides.
  EXPECT_GE(store_->bytes(), static_cast<std::size_t>(n * k) * sizeof(float));
  EXPECT_LT(store_->bytes(), 2 * static_cast<std::size_t>(n * k) * sizeof(float));
  EXPECT_EQ(packed.shape, (Shape{n, k}));
}

TEST_P(PackedLinearTest, APackedWeightIsReadableByLinearOnly) {
  const Tensor packed = store_->add(random_values(12, 5), {4, 3}, WeightUse::Matrix);
  const Tensor ids = arena_->alloc(DType::I32, {1}), out = arena_->alloc(DType::F32, {1, 3});
  const std::int32_t id = 0;
  backend_->upload(&id, ids);
  EXPECT_THROW(backend_->gather_rows(packed, ids, 1.0f, false, out), Error);
  const Tensor x = arena_->alloc(DType::F32, {2, 3}), c = arena_->alloc(DType::F32, {2, 4});
  EXPECT_THROW(backend_->gemm(false, true, 1.0f, x, packed, 0.0f, c), Error);
  EXPECT_THROW(backend_->download_f32(packed), Error);
  // A view of some of its rows is not a weight either.
  const Tensor y = arena_->alloc(DType::F32, {2, 2});
  EXPECT_THROW(backend_->linear(x, packed.rows(1, 2), Tensor(), Activation::None, y), Error);
}

INSTANTIATE_TEST_SUITE_P(Threads, PackedLinearTest, ::testing::Values(2, 3, 4));

// Column slices start on 64-channel boundaries, and a slice's product writes its channels only.
TEST(PackedMatmulSlices, EachSliceWritesItsOwnChannels) {
  cpu::PackedMatmul packer;
  packer.reserve_lanes(3);
  const std::int64_t m = 2, n = 200, k = 8;
  const auto w = random_values(n * k, 13), x = random_values(m * k, 14), bias = random_values(n, 15);
  const auto sliced = packer.pack(w.data(), n, k, 3);
  ASSERT_EQ(sliced->slices(), 3);
  EXPECT_EQ(sliced->slice_begin(0), 0);
  EXPECT_EQ(sliced->slice_begin(1), 64);   // 200 / 3 = 66, down to a multiple of 64
  EXPECT_EQ(sliced->slice_begin(2), 128);  // 133
  EXPECT_EQ(sliced->slice_begin(3), n);
  EXPECT_EQ(packer.pack(w.data(), 100, k, 3)->slices(), 1);  // too few channels for two slices
  std::vector<float> whole(static_cast<std::size_t>(m * n));
  packer.linear(x.data(), m, *sliced, bias.data(), whole.data(), 0);
  for (int s = 0; s < 3; ++s) {
    std::vector<float> part(static_cast<std::size_t>(m * n), -7.0f);
    packer.linear_slice(x.data(), m, *sliced, s, bias.data(), part.data(), s);
    for (std::int64_t r = 0; r < m; ++r) {
      for (std::int64_t j = 0; j < n; ++j) {
        const float got = part[static_cast<std::size_t>(r * n + j)];
        if (j >= sliced->slice_begin(s) && j < sliced->slice_begin(s + 1)) {
          float exact = bias[static_cast<std::size_t>(j)];
          for (std::int64_t p = 0; p < k; ++p) exact += x[static_cast<std::size_t>(r * k + p)] * w[static_cast<std::size_t>(j * k + p)];
          ASSERT_NEAR(got, exact, 1e-5f) << "slice " << s << " row " << r << " channel " << j;
          ASSERT_EQ(got, whole[static_cast<std::size_t>(r * n + j)]) << "slice " << s << " row " << r << " channel " << j;
        } else {
          ASSERT_EQ(got, -7.0f) << "slice " << s << " wrote channel " << j;
        }
      }
    }
  }
}

// Where oneDNN's layout keeps blocks of channels apart (its AVX-512 layouts: every CI machine), the
// slices are packed side by side as the whole weight, and a product of many rows runs once over
// them: the same bits as each slice's own product, f32 and int8.
TEST(PackedMatmulSlices, SideBySideSlicesGiveEachSlicesBits) {
  cpu::PackedMatmul packer;
  packer.reserve_lanes(2);
  const std::int64_t m = 150, n = 330, k = 48;
  const auto w = random_values(n * k, 16), x = random_values(m * k, 17), bias = random_values(n, 18);
  for (const bool int8 : {false, true}) {
    SCOPED_TRACE(int8 ? "int8" : "f32");
    const auto packed = int8 ? packer.pack_int8(w.data(), n, k, 2) : packer.pack(w.data(), n, k, 2);
    ASSERT_EQ(packed->slices(), 2);
    if (__builtin_cpu_supports("avx512f")) {
      EXPECT_TRUE(packed->side_by_side());
    }
    std::vector<float> whole(static_cast<std::size_t>(m * n)), parts(whole.size());
    packer.linear(x.data(), m, *packed, bias.data(), whole.data(), 0);
    for (int s = 0; s < 2; ++s) packer.linear_slice(x.data(), m, *packed, s, bias.data(), parts.data(), s);
    for (std::size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(whole[i], parts[i]) << "element " << i;
  }
}

// Weights packed on 2 threads (two column slices each) still multiply right after the backend
// drops to 1 thread or grows to 4.
TEST(PackedLinear, SlicedWeightsSurviveAChangeOfThreads) {
  const auto backend = make_cpu_backend({.threads = 2});
  const auto store = backend->make_weight_store();
  const auto arena = backend->make_arena();
  const std::int64_t m = 3, n = 300, k = 24;
  const auto w = random_values(n * k, 11), x = random_values(m * k, 12);
  const Tensor packed = store->add(w, {n, k}, WeightUse::Matrix), plain = store->add(w, {n, k}, WeightUse::Any);
  for (const int threads : {1, 4, 2}) {
    SCOPED_TRACE(threads);
    backend->set_threads(threads);
    arena->reset();
    const Tensor xt = arena->alloc(DType::F32, {m, k});
    const Tensor a = arena->alloc(DType::F32, {m, n}), b = arena->alloc(DType::F32, {m, n});
    backend->upload(x.data(), xt);
    backend->linear(xt, packed, Tensor(), Activation::None, a);
    backend->linear(xt, plain, Tensor(), Activation::None, b);
    const auto got = backend->download_f32(a), want = backend->download_f32(b);
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5f * k) << "element " << i;
  }
}

TEST(PackedLinear, DeterministicBackendsKeepMatricesPlain) {
  const auto backend = make_cpu_backend({.threads = 1, .deterministic = true});
  const auto store = backend->make_weight_store();
  const auto values = random_values(12, 6);
  EXPECT_EQ(backend->download_f32(store->add(values, {4, 3}, WeightUse::Matrix)), values);
}

// The furthest a product of int8-rounded operands can be from the exact one: each weight element
// is off by at most half its channel's step (max|w_j| / 127 / 2), each input by half its row's
// (its range / 255 / 2 ≤ max|x_r| / 127 / 2).
float int8_bound(const std::vector<float>& x, const std::vector<float>& w, std::int64_t r, std::int64_t j,
                 std::int64_t k) {
  float x_peak = 0.0f, w_peak = 0.0f;
  for (std::int64_t p = 0; p < k; ++p) {
    x_peak = std::max(x_peak, std::fabs(x[r * k + p]));
    w_peak = std::max(w_peak, std::fabs(w[j * k + p]));
  }
  const float x_half_step = x_peak / 254.0f, w_half_step = w_peak / 254.0f;
  float bound = 0.0f;
  for (std::int64_t p = 0; p < k; ++p) {
    bound += std::fabs(x[r * k + p]) * w_half_step + std::fabs(w[j * k + p]) * x_half_step + x_half_step * w_half_step;
  }
  return bound;
}

void expect_int8_within_bound(std::int64_t m, std::int64_t n, std::int64_t k, int threads) {
  SCOPED_TRACE(testing::Message() << "m=" << m << " threads=" << threads);
  const auto backend = make_cpu_backend({.threads = threads, .weights = WeightType::Int8});
  const auto store = backend->make_weight_store();
  const auto arena = backend->make_arena();
  auto w = random_values(n * k, 7);
  const auto x = random_values(m * k, 8), b = random_values(n, 9);
  for (std::int64_t p = 0; p < k; ++p) w[5 * k + p] = 0.0f;  // an all-zero channel
  const Tensor packed = store->add(w, {n, k}, WeightUse::Matrix), bias = store->add(b, {n}, WeightUse::Any);
  const Tensor xt = arena->alloc(DType::F32, {m, k}), y = arena->alloc(DType::F32, {m, n});
  backend->upload(x.data(), xt);
  backend->linear(xt, packed, bias, Activation::None, y);
  const auto got = backend->download_f32(y);
  float worst = 0.0f;
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t j = 0; j < n; ++j) {
      float exact = b[j];
      for (std::int64_t p = 0; p < k; ++p) exact += x[r * k + p] * w[j * k + p];
      const float error = std::fabs(got[r * n + j] - exact);
      ASSERT_LE(error, int8_bound(x, w, r, j, k) + 1e-4f) << "row " << r << " channel " << j;
      worst = std::max(worst, error);
    }
    ASSERT_EQ(got[r * n + 5], b[5]) << "the zero channel gives its bias exactly";
  }
  EXPECT_GT(worst, 0.0f);  // it is int8: some rounding shows
}

TEST(PackedLinearInt8, EveryProductIsWithinTheRoundingBoundAndTheBiasIsExact) {
  for (const int threads : {2, 4}) {
    for (const std::int64_t m : {1, 2, 9, 64}) expect_int8_within_bound(m, 70, 130, threads);
    for (const std::int64_t m : {1, 7, 600}) expect_int8_within_bound(m, 150, 40, threads);  // column slices
    for (const std::int64_t m : {1, 3, 5}) expect_int8_within_bound(m, 99, 16, threads);
    for (const std::int64_t m : {1, 3, 5}) expect_int8_within_bound(m, 16, 32, threads);
  }
}

// Inputs are quantized over their row's own range (with 0), not ±max|x|: a row of one sign (as after
// ReLU, GELU, swish) or a shifted one keeps all 256 levels. With every row spanning 255 integers
// and every channel's integers reaching ±127, both operands lie on their grids and the product is
// exact (its integer sums are below 2^24). A grid symmetric about 0 would round these rows.
TEST(PackedLinearInt8, AnInputRowUsesTheWholeGridOfItsRange) {
  const auto backend = make_cpu_backend({.threads = 1, .weights = WeightType::Int8});
  const auto store = backend->make_weight_store();
  const auto arena = backend->make_arena();
  const std::int64_t m = 4, n = 8, k = 64;
  std::vector<float> w(n * k), x(m * k);
  for (std::int64_t i = 0; i < n * k; ++i) w[i] = static_cast<float>(static_cast<int>(i * 37 % 255) - 127);
  for (std::int64_t j = 0; j < n; ++j) w[j * k] = 127.0f;
  const float lows[m] = {0.0f, -50.0f, -200.0f, -255.0f};  // ≥ 0, shifted either way, ≤ 0
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t p = 0; p < k; ++p) x[r * k + p] = lows[r] + static_cast<float>((p * 101 + r) % 256);
    x[r * k] = lows[r];
    x[r * k + 1] = lows[r] + 255.0f;
  }
  const Tensor packed = store->add(w, {n, k}, WeightUse::Matrix);
  const Tensor xt = arena->alloc(DType::F32, {m, k}), y = arena->alloc(DType::F32, {m, n});
  backend->upload(x.data(), xt);
  backend->linear(xt, packed, Tensor(), Activation::None, y);
  const auto got = backend->download_f32(y);
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t j = 0; j < n; ++j) {
      float exact = 0.0f;
      for (std::int64_t p = 0; p < k; ++p) exact += x[r * k + p] * w[j * k + p];
      EXPECT_EQ(got[r * n + j], exact) << "row " << r << " channel " << j;
    }
  }
}

// u8 inputs by s8 weights sum up to 255 · 127 per input in int32: a weight too wide for that is
// refused at load rather than overflowing.
TEST(PackedLinearInt8, AWeightTooWideForInt32SumsIsAnError) {
  const auto backend = make_cpu_backend({.threads = 1, .weights = WeightType::Int8});
  const auto store = backend->make_weight_store();
  const std::int64_t k = 70000;
  EXPECT_THROW(store->add(std::vector<float>(k, 1.0f), {1, k}, WeightUse::Matrix), Error);
  EXPECT_NO_THROW(store->add(std::vector<float>(60000, 1.0f), {1, 60000}, WeightUse::Matrix));
}

TEST(PackedLinearInt8, AWeightTakesAboutAQuarterOfItsF32Bytes) {
  const auto backend = make_cpu_backend({.threads = 1, .weights = WeightType::Int8});
  const auto store = backend->make_weight_store();
  const std::int64_t n = 512, k = 512;
  store->add(random_values(n * k, 11), {n, k}, WeightUse::Matrix);
  // int8 elements, one f32 scale per channel, and whatever the layout pads and adds (small tiles
  // pad a lot: this is a real layer's size).
  EXPECT_GE(store->bytes(), static_cast<std::size_t>(n * k + n * 4));
  EXPECT_LT(store->bytes(), static_cast<std::size_t>(n * k) * sizeof(float) * 3 / 10);
}

TEST(PackedLinearInt8, TablesAndVectorsStayF32) {
  const auto backend = make_cpu_backend({.threads = 1, .weights = WeightType::Int8});
  const auto store = backend->make_weight_store();
  const auto values = random_values(12, 10);
  EXPECT_EQ(backend->download_f32(store->add(values, {4, 3}, WeightUse::Table)), values);
  EXPECT_EQ(backend->download_f32(store->add(values, {12}, WeightUse::Matrix)), values);  // not rank 2
}

// core/quantize.hpp, the rounding both --weights int8 and int8 .invar files use: halves away from
// zero, the largest magnitude at ±127, a row of zeros at scale 1; dequantizing gives scale · q.
TEST(PackedLinearInt8, RowsQuantizeSymmetricallyWithHalvesAwayFromZero) {
  const std::vector<float> w{0.5f, -1.0f, 0.25f, -0.5f / 127.0f * 1.5f, 0.0f, 0.0f, 0.0f, 0.0f};
  std::vector<std::int8_t> q(w.size());
  std::vector<float> scales(2);
  quantize_rows_int8(w.data(), 2, 4, q.data(), scales.data());
  EXPECT_EQ(scales, (std::vector<float>{1.0f / 127.0f, 1.0f}));
  // 0.5 · 127 = 63.5 → 64; 0.25 · 127 = 31.75 → 32; −0.75 → −1.
  EXPECT_EQ(q, (std::vector<std::int8_t>{64, -127, 32, -1, 0, 0, 0, 0}));
  std::vector<float> back(w.size());
  dequantize_rows_int8(q.data(), scales.data(), 2, 4, back.data());
  EXPECT_EQ(back[1], -127.0f * scales[0]);
  EXPECT_EQ(back[4], 0.0f);
}

}  // namespace
}  // namespace invar
