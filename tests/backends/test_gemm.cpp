// The fixed-order matrix product (backends/cpu/gemm.hpp): its bits follow the documented order on
// every shape and operand layout, do not depend on threads or on which other rows are computed
// with a row, and agree with OpenBLAS to float rounding.
#include <gtest/gtest.h>
#include <cblas.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "backends/cpu/gemm.hpp"

namespace invar::cpu {
namespace {

struct Problem {
  std::int64_t m, n, k;
  bool trans_a, trans_b;
  std::vector<float> a, b;  // stored [m, k] or [k, m]; [k, n] or [n, k]; with row padding
  std::int64_t lda, ldb;

  Problem(std::int64_t m_, std::int64_t n_, std::int64_t k_, bool ta, bool tb, unsigned seed)
      : m(m_), n(n_), k(k_), trans_a(ta), trans_b(tb) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    lda = (ta ? m : k) + 3;  // padded rows: the kernel must honour the stride
    ldb = (tb ? k : n) + 5;
    a.resize(static_cast<std::size_t>((ta ? k : m) * lda));
    b.resize(static_cast<std::size_t>((tb ? n : k) * ldb));
    for (auto& v : a) v = value(rng);
    for (auto& v : b) v = value(rng);
  }
  float op_a(std::int64_t i, std::int64_t p) const { return trans_a ? a[p * lda + i] : a[i * lda + p]; }
  float op_b(std::int64_t p, std::int64_t j) const { return trans_b ? b[j * ldb + p] : b[p * ldb + j]; }

  // The order gemm.hpp documents, written out element by element.
  float reference(std::int64_t i, std::int64_t j) const {
    float s[8] = {};
    for (std::int64_t p = 0; p < k; ++p) s[p % 8] = std::fma(op_a(i, p), op_b(p, j), s[p % 8]);
    const float t0 = s[0] + s[4], t1 = s[1] + s[5], t2 = s[2] + s[6], t3 = s[3] + s[7];
    return (t0 + t2) + (t1 + t3);
  }

  std::vector<float> run(int threads, float alpha = 1.0f, float beta = 0.0f, std::vector<float> c = {},
                         GemmKernel kernel = GemmKernel::Best) const {
    if (c.empty()) c.assign(static_cast<std::size_t>(m * n), std::nanf(""));  // beta = 0 must not read C
    ThreadPool pool(threads);
    GemmScratch scratch;
    fixed_order_gemm(trans_a, trans_b, m, n, k, alpha, {a.data(), lda}, {b.data(), ldb}, beta, c.data(), n, scratch,
                     pool, kernel);
    return c;
  }
};

bool same_bits(float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; }

TEST(FixedOrderGemm, FollowsTheDocumentedOrderBitForBit) {
  // Every tile remainder (rows mod 3, columns mod 4), k below, at and above the 8 lanes and not a
  // multiple of them, and every operand layout.
  const std::int64_t sizes[][3] = {{1, 1, 1}, {2, 3, 7}, {3, 4, 8}, {4, 5, 9}, {7, 13, 33}, {17, 70, 100}, {64, 9, 768}};
  unsigned seed = 1;
  for (const auto& s : sizes) {
    for (int layout = 0; layout < 4; ++layout) {
      const Problem p(s[0], s[1], s[2], layout & 1, layout & 2, seed++);
      for (GemmKernel kernel : {GemmKernel::Best, GemmKernel::Portable}) {
        const auto c = p.run(1, 1.0f, 0.0f, {}, kernel);
        for (std::int64_t i = 0; i < p.m; ++i) {
          for (std::int64_t j = 0; j < p.n; ++j) {
            ASSERT_TRUE(same_bits(c[i * p.n + j], p.reference(i, j)))
                << p.m << "x" << p.n << "x" << p.k << " layout " << layout << " kernel " << static_cast<int>(kernel)
                << " at (" << i << ", " << j << "): " << c[i * p.n + j] << " vs " << p.reference(i, j);
          }
        }
      }
    }
  }
}

TEST(FixedOrderGemm, AlphaAndBetaAreAppliedAfterTheSum) {
  const Problem p(5, 6, 19, false, true, 42);
  std::vector<float> c0(30);
  for (std::size_t i = 0; i < c0.size(); ++i) c0[i] = 0.25f * static_cast<float>(i) - 3.0f;
  const auto c = p.run(2, 0.5f, -1.5f, c0);
  for (std::int64_t i = 0; i < 5; ++i) {
    for (std::int64_t j = 0; j < 6; ++j) {
      const float expected = std::fma(-1.5f, c0[i * 6 + j], 0.5f * p.reference(i, j));
      EXPECT_TRUE(same_bits(c[i * 6 + j], expected)) << i << ", " << j;
    }
  }
}

TEST(FixedOrderGemm, SameBitsForEveryThreadCount) {
  for (bool trans_b : {false, true}) {
    const Problem p(301, 257, 200, false, trans_b, 7);  // many blocks, ragged edges
    const auto one = p.run(1);
    for (int threads : {2, 3, 8}) {
      const auto many = p.run(threads);
      EXPECT_EQ(std::memcmp(one.data(), many.data(), one.size() * sizeof(float)), 0) << threads << " threads";
    }
  }
}

TEST(FixedOrderGemm, ARowGetsTheSameBitsWhateverRowsComeWithIt) {
  // What makes batched equal to unbatched: rows 100..140 computed alone (a smaller batch, other
  // tiles) equal the same rows of the whole product.
  const Problem whole(301, 90, 130, false, true, 9);
  const auto all = whole.run(2);
  const std::int64_t first = 100, rows = 41;
  std::vector<float> part(static_cast<std::size_t>(rows * whole.n));
  ThreadPool pool(1);
  GemmScratch scratch;
  fixed_order_gemm(false, true, rows, whole.n, whole.k, 1.0f, {whole.a.data() + first * whole.lda, whole.lda},
                   {whole.b.data(), whole.ldb}, 0.0f, part.data(), whole.n, scratch, pool);
  EXPECT_EQ(std::memcmp(part.data(), all.data() + first * whole.n, part.size() * sizeof(float)), 0);
}

TEST(FixedOrderGemm, AgreesWithOpenBlasToRounding) {
  const Problem p(33, 65, 513, false, true, 11);
  const auto c = p.run(2);
  std::vector<float> blas(c.size());
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 33, 65, 513, 1.0f, p.a.data(), static_cast<int>(p.lda),
              p.b.data(), static_cast<int>(p.ldb), 0.0f, blas.data(), 65);
  for (std::size_t i = 0; i < c.size(); ++i) EXPECT_NEAR(c[i], blas[i], 1e-4f * (1.0f + std::abs(blas[i]))) << i;
}

TEST(FixedOrderGemm, EmptyProductsTouchNothingAndZeroKGivesBetaC) {
  const Problem p(4, 4, 0, false, true, 3);
  const auto c = p.run(1);
  for (float v : c) EXPECT_EQ(v, 0.0f);  // beta = 0, an empty sum
  std::vector<float> untouched{1.0f};
  ThreadPool pool(1);
  GemmScratch scratch;
  fixed_order_gemm(false, true, 0, 1, 3, 1.0f, {p.a.data(), 3}, {p.b.data(), 3}, 0.0f, untouched.data(), 1, scratch,
                   pool);
  EXPECT_EQ(untouched[0], 1.0f);
}

}  // namespace
}  // namespace invar::cpu
