// The CPU backend's work spread over its own threads: parallel_rows (a search step's rows) reaches
// every row exactly once for any thread count, and a decoding step's many small attention products
// (gemm_batched, spread over the pool) give the bits of one OpenBLAS call per matrix, on any count.
#include <gtest/gtest.h>
#include <cblas.h>

#include <atomic>
#include <random>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"

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
  // One cblas_sgemm per matrix, as the backend calls it.
  std::vector<float> expected(static_cast<std::size_t>(rows * heads * keys));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t h = 0; h < heads; ++h)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 1, static_cast<int>(keys), static_cast<int>(dh), 0.5f,
                  query.data() + r * a + h * dh, static_cast<int>(a), cache.data() + r * a + h * dh,
                  static_cast<int>(ld), 0.0f, expected.data() + (r * heads + h) * keys, static_cast<int>(keys));
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

}  // namespace
}  // namespace invar
