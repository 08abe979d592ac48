// The CPU backend's work spread over its own threads: parallel_rows (a search step's rows) reaches
// every row exactly once for any thread count, and a decoding step's many small attention products
// (gemm_batched, spread over the pool) give the bits of one OpenBLAS call per matrix, on any count.
// A product of one row runs as sgemv, within float rounding of sgemm in every operand layout.
// top_k_rows (a device step's candidates) against a plain sort, on every thread count.
// copy_strided and gather_rows (a step's keys into the cache, beam reorders) against element loops.
#include <gtest/gtest.h>
#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"
#include "core/error.hpp"

namespace invar {
namespace {

TEST(CpuHostRows, ParallelRowsReachesEveryRowOnce) {
  for (int threads : {1, 2, 3, 5}) {
    const auto backend = make_cpu_backend({.threads = threads});
    for (std::int64_t n : {0, 1, 2, 7, 80}) {
      std::vector<std::atomic<int>> visits(static_cast<std::size_t>(n));
      backend->parallel_rows(n, [&](std::int64_t begin, std::int64_t end) {
        ASSERT_LE(0, begin);
        ASSERT_LE(begin, end);
        ASSERT_LE(end, n);
        for (std::int64_t i = begin; i < end; ++i) ++visits[static_cast<std::size_t>(i)];
      });
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_EQ(visits[static_cast<std::size_t>(i)], 1) << threads << " threads, row " << i << " of " << n;
    }
  }
}

// Scores of a beam-search step's self-attention: per (row, head) one query against `keys` cached
// keys, the cache time-major [keys, rows, heads × head_dim].
TEST(CpuHostRows, SmallBatchedProductsGiveOneCallsBitsOnEveryThreadCount) {
  const std::int64_t rows = 13, heads = 4, dh = 32, keys = 37, a = heads * dh, ld = rows * a;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> query(static_cast<std::size_t>(rows * a)), cache(static_cast<std::size_t>(keys * ld));
  for (float& v : query) v = normal(rng);
  for (float& v : cache) v = normal(rng);
  // One OpenBLAS call per matrix, as the backend makes it: one query row, so sgemv.
  std::vector<float> expected(static_cast<std::size_t>(rows * heads * keys));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t h = 0; h < heads; ++h)
      cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(keys), static_cast<int>(dh), 0.5f,
                  cache.data() + r * a + h * dh, static_cast<int>(ld), query.data() + r * a + h * dh, 1, 0.0f,
                  expected.data() + (r * heads + h) * keys, 1);
  for (int threads : {1, 2, 3}) {
    const auto backend = make_cpu_backend({.threads = threads});
    const auto arena = backend->make_arena();
    const Tensor q = arena->alloc(DType::F32, Shape{rows, a}), k = arena->alloc(DType::F32, Shape{keys, rows, a});
    const Tensor scores = arena->alloc(DType::F32, Shape{rows, heads, 1, keys});
    backend->upload(query.data(), q);
    backend->upload(cache.data(), k);
    backend->gemm_batched(false, true, 1, keys, dh, 0.5f, q, {0, a, a, dh}, k, {0, ld, a, dh}, 0.0f, scores,
                          {0, keys, heads * keys, keys}, rows, heads);
    std::vector<float> got(expected.size());
    backend->download(scores, got.data());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << threads << " threads, element " << i;
  }
}

// c [1, n] = alpha · op(a) [1, k] · op(b) [k, n] + beta · c, for each layout of a and b, against
// sgemm; beta = 0 ignores what c held (NaN here).
TEST(CpuHostRows, OneRowProductsMatchTheMatrixProductInEveryLayout) {
  const std::int64_t n = 19, k = 23;
  std::mt19937 rng(9);
  std::normal_distribution<float> normal;
  std::vector<float> a_values(static_cast<std::size_t>(k)), b_values(static_cast<std::size_t>(n * k)),
      c_values(static_cast<std::size_t>(n));
  for (float& v : a_values) v = normal(rng);
  for (float& v : b_values) v = normal(rng);
  for (float& v : c_values) v = normal(rng);
  const auto backend = make_cpu_backend({.threads = 2});
  const auto arena = backend->make_arena();
  for (const bool trans_a : {false, true}) {
    for (const bool trans_b : {false, true}) {
      for (const float beta : {0.0f, 0.75f}) {
        SCOPED_TRACE(testing::Message() << "trans_a " << trans_a << " trans_b " << trans_b << " beta " << beta);
        arena->reset();
        // a is [1, k] or [k, 1]; b is [k, n] or [n, k]: the same values read in the other order.
        const Tensor a = arena->alloc(DType::F32, trans_a ? Shape{k, 1} : Shape{1, k});
        const Tensor b = arena->alloc(DType::F32, trans_b ? Shape{n, k} : Shape{k, n});
        const Tensor c = arena->alloc(DType::F32, Shape{1, n});
        backend->upload(a_values.data(), a);
        backend->upload(b_values.data(), b);
        std::vector<float> start = c_values;
        if (beta == 0.0f) start.assign(start.size(), std::nanf(""));
        backend->upload(start.data(), c);
        backend->gemm(trans_a, trans_b, 1.5f, a, b, beta, c);
        std::vector<float> got(static_cast<std::size_t>(n)), want = c_values;
        backend->download(c, got.data());
        cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, 1,
                    static_cast<int>(n), static_cast<int>(k), 1.5f, a_values.data(), trans_a ? 1 : static_cast<int>(k),
                    b_values.data(), trans_b ? static_cast<int>(k) : static_cast<int>(n), beta, want.data(),
                    static_cast<int>(n));
        for (std::int64_t j = 0; j < n; ++j)
          ASSERT_NEAR(got[static_cast<std::size_t>(j)], want[static_cast<std::size_t>(j)], 1e-4f) << "column " << j;
      }
    }
  }
}

// The reference: every column sorted by (value, column) with NaN and `exclude` as −∞; the terms
// from a double sum over the row.
TEST(CpuHostRows, TopKRowsIsAStableSortAndTheRowsLogSoftmaxTerms) {
  constexpr std::int64_t rows = 7, cols = 301, k = 9;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> level(-20, 20);  // few distinct values: ties everywhere
  std::vector<float> x(static_cast<std::size_t>(rows * cols));
  for (float& v : x) v = 0.25f * static_cast<float>(level(rng));
  x[2 * cols + 3] = std::numeric_limits<float>::quiet_NaN();
  x[3 * cols + 40] = 100.0f;  // the row's largest, unless excluded
  // Row 4's first 256 columns (the CPU's first chunk) NaN: no number there.
  std::fill(x.begin() + 4 * cols, x.begin() + 4 * cols + 256, std::numeric_limits<float>::quiet_NaN());
  std::fill(x.begin() + 5 * cols, x.begin() + 6 * cols, kNegInf);
  for (int threads : {1, 3}) {
    for (std::int64_t exclude : {std::int64_t{-1}, std::int64_t{40}, std::int64_t{280}}) {
      const auto backend = make_cpu_backend({.threads = threads});
      auto arena = backend->make_arena();
      const Tensor in = arena->alloc(DType::F32, {rows, cols}), values = arena->alloc(DType::F32, {rows, k}),
                   ids = arena->alloc(DType::I32, {rows, k}), terms = arena->alloc(DType::F32, {rows, 2});
      backend->upload(x.data(), in);
      backend->top_k_rows(in, k, exclude, values, ids, terms);
      const auto got_values = backend->download_f32(values), got_terms = backend->download_f32(terms);
      std::vector<std::int32_t> got_ids(static_cast<std::size_t>(rows * k));
      backend->download(ids, got_ids.data());
      for (std::int64_t r = 0; r < rows; ++r) {
        const auto value = [&](std::int64_t c) {
          const float v = x[static_cast<std::size_t>(r * cols + c)];
          return c == exclude || std::isnan(v) ? kNegInf : v;
        };
        std::vector<std::int64_t> order(static_cast<std::size_t>(cols));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return value(a) > value(b); });
        for (std::int64_t j = 0; j < k; ++j) {
          const std::size_t at = static_cast<std::size_t>(r * k + j);
          EXPECT_EQ(got_ids[at], order[static_cast<std::size_t>(j)]) << "row " << r << " rank " << j;
          EXPECT_EQ(got_values[at], value(order[static_cast<std::size_t>(j)])) << "row " << r << " rank " << j;
        }
        double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
        for (std::int64_t c = 0; c < cols; ++c) max = std::max<double>(max, value(c));
        for (std::int64_t c = 0; c < cols; ++c)
          sum += c == exclude ? 0.0 : std::exp(double(x[static_cast<std::size_t>(r * cols + c)]) - max);
        const float want_max = std::isfinite(max) ? float(max) : 0.0f;
        const float want_log_sum = std::isfinite(max) ? float(std::log(sum)) : 0.0f;
        EXPECT_EQ(got_terms[static_cast<std::size_t>(2 * r)], want_max) << "row " << r;
        if (r == 2 || r == 4) {
          EXPECT_TRUE(std::isnan(got_terms[static_cast<std::size_t>(2 * r + 1)]))
              << "a NaN logit spreads to the log-sum, as in the search";
        } else {
          EXPECT_NEAR(got_terms[static_cast<std::size_t>(2 * r + 1)], want_log_sum, 1e-6) << "row " << r;
        }
      }
    }
  }
}

TEST(CpuHostRows, TopKRowsRejectsBadShapesAndColumns) {
  const auto backend = make_cpu_backend({.threads = 1});
  auto arena = backend->make_arena();
  const Tensor x = arena->alloc(DType::F32, {2, 5}), values = arena->alloc(DType::F32, {2, 6}),
               ids = arena->alloc(DType::I32, {2, 6}), terms = arena->alloc(DType::F32, {2, 2});
  EXPECT_THROW(backend->top_k_rows(x, 6, -1, values, ids, terms), Error);  // k > N
  EXPECT_THROW(backend->top_k_rows(x, 0, -1, values.rows(0, 2), ids, terms), Error);
  const Tensor v3 = arena->alloc(DType::F32, {2, 3}), i3 = arena->alloc(DType::I32, {2, 3});
  EXPECT_THROW(backend->top_k_rows(x, 3, 5, v3, i3, terms), Error);   // exclude outside the row
  EXPECT_THROW(backend->top_k_rows(x, 3, -1, v3, v3, terms), Error);  // ids not I32
  EXPECT_THROW(backend->top_k_rows(x, 2, -1, v3, i3, terms), Error);  // values not [2, 2]
}

// Every path of copy_strided: runs of i2 (a step's keys into the time-major cache), runs of i3
// (rows moved between caches), and element by element (a transposition); nothing outside the view
// is written.
TEST(CpuHostRows, CopyStridedEqualsAnElementLoop) {
  struct Case {
    StridedView from, to;
    std::array<std::int64_t, 4> extent;
  };
  const std::vector<Case> cases{
      {{3, {60, 20, 1, 0}}, {5, {7, 140, 1, 0}}, {2, 3, 6, 1}},
      {{1, {0, 40, 0, 1}}, {2, {0, 30, 100, 1}}, {1, 2, 3, 9}},
      {{0, {0, 24, 1, 6}}, {4, {0, 36, 7, 1}}, {1, 2, 5, 4}},
  };
  const auto backend = make_cpu_backend({.threads = 2});
  const auto arena = backend->make_arena();
  std::vector<float> src(512);
  std::iota(src.begin(), src.end(), 1.0f);
  for (const Case& c : cases) {
    std::vector<float> expected(512, -1.0f);
    for (std::int64_t i0 = 0; i0 < c.extent[0]; ++i0)
      for (std::int64_t i1 = 0; i1 < c.extent[1]; ++i1)
        for (std::int64_t i2 = 0; i2 < c.extent[2]; ++i2)
          for (std::int64_t i3 = 0; i3 < c.extent[3]; ++i3) {
            const std::array<std::int64_t, 4> i{i0, i1, i2, i3};
            std::int64_t s = c.from.offset, d = c.to.offset;
            for (std::size_t k = 0; k < 4; ++k) s += i[k] * c.from.strides[k], d += i[k] * c.to.strides[k];
            expected[static_cast<std::size_t>(d)] = src[static_cast<std::size_t>(s)];
          }
    const Tensor in = arena->alloc(DType::F32, Shape{512}), out = arena->alloc(DType::F32, Shape{512});
    backend->upload(src.data(), in);
    backend->upload(std::vector<float>(512, -1.0f).data(), out);
    backend->copy_strided(in, c.from, out, c.to, c.extent);
    EXPECT_EQ(backend->download_f32(out), expected) << "extent " << c.extent[2] << " × " << c.extent[3];
  }
}

TEST(CpuHostRows, GatherRowsCopiesScalesAndAccumulates) {
  const std::int64_t rows = 5, cols = 37;
  const auto backend = make_cpu_backend({.threads = 2});
  const auto arena = backend->make_arena();
  std::vector<float> table(static_cast<std::size_t>(rows * cols));
  std::iota(table.begin(), table.end(), -90.0f);
  const std::vector<std::int32_t> ids{4, 0, 4, 2};
  const Tensor t = arena->alloc(DType::F32, Shape{rows, cols}), id = arena->alloc(DType::I32, Shape{4}),
               out = arena->alloc(DType::F32, Shape{4, cols});
  backend->upload(table.data(), t);
  backend->upload(ids.data(), id);
  for (const auto& [scale, accumulate] : {std::pair{1.0f, false}, {0.5f, false}, {0.5f, true}, {1.0f, true}}) {
    std::vector<float> before(static_cast<std::size_t>(4 * cols), 3.0f), expected = before;
    for (std::size_t i = 0; i < ids.size(); ++i)
      for (std::int64_t c = 0; c < cols; ++c) {
        float& e = expected[i * cols + c];
        const float v = scale * table[static_cast<std::size_t>(ids[i] * cols + c)];
        e = accumulate ? e + v : v;
      }
    backend->upload(before.data(), out);
    backend->gather_rows(t, id, scale, accumulate, out);
    EXPECT_EQ(backend->download_f32(out), expected) << "scale " << scale << ", accumulate " << accumulate;
  }
}

}  // namespace
}  // namespace invar
