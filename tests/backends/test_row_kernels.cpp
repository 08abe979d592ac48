// The CPU backend's row kernels built for wider instruction sets (backends/cpu/row_kernels.hpp)
// against the portable ones, on every variant this CPU can run: GELU, SiLU and the attention softmax
// within the stated ulp bounds (the same Eigen approximations on wider packets, with fused
// multiply-adds), the layer norm (Order::Fixed's) and the int8 quantization and rescaling bit for
// bit; exp_sum and attend_query (every variant) against double sums; and INVAR_CPU_KERNELS's
// choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/kernels.hpp"
#include "backends/cpu/row_kernels.hpp"
#include "core/error.hpp"

namespace invar::cpu {
namespace {

constexpr float kUlp = 0x1p-23f;  // of 1
// Row lengths: below, at and around every packet width (4, 8, 16), and model widths.
const std::vector<std::int64_t> kLengths{1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 384, 768, 771};

std::vector<float> random_values(std::int64_t n, float low, float high, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(low, high);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = value(rng);
  return v;
}

std::vector<const RowKernels*> wider() {
  std::vector<const RowKernels*> kernels = supported_row_kernels();
  kernels.erase(kernels.begin());
  return kernels;
}

const RowKernels& portable() { return *supported_row_kernels().front(); }

TEST(RowKernels, PortableFirstAndSelectionHonoursTheVariable) {
  const auto kernels = supported_row_kernels();
  ASSERT_FALSE(kernels.empty());
  EXPECT_STREQ(kernels.front()->name, "portable");
  const char* saved = std::getenv("INVAR_CPU_KERNELS");
  const std::string before = saved ? saved : "";
  unsetenv("INVAR_CPU_KERNELS");
  EXPECT_EQ(&selected_row_kernels(), kernels.back());
  for (const RowKernels* k : kernels) {
    setenv("INVAR_CPU_KERNELS", k->name, 1);
    EXPECT_EQ(&selected_row_kernels(), k);
  }
  setenv("INVAR_CPU_KERNELS", "sse9", 1);
  EXPECT_THROW(selected_row_kernels(), Error);
  if (saved)
    setenv("INVAR_CPU_KERNELS", before.c_str(), 1);
  else
    unsetenv("INVAR_CPU_KERNELS");
}

TEST(RowKernels, GeluAndSiluWithinFourUlpsOfTheInput) {
  // |wide − portable| ≤ 4 ulp of max(|x|, 1): erf's rational approximation (exp's, for SiLU)
  // evaluated with and without fused multiply-adds; 1 + erf cancels for x ≪ 0, hence the bound
  // relative to x.
  if (wider().empty()) GTEST_SKIP() << "this CPU runs the portable kernels only";
  using Kernel = void (*RowKernels::*)(float*, std::int64_t, std::int64_t, const float*);
  for (const RowKernels* k : wider())
    for (const Kernel kernel : {&RowKernels::bias_gelu_erf, &RowKernels::bias_silu}) {
    for (const std::int64_t cols : kLengths) {
      const std::int64_t rows = 3;
      std::vector<float> x = random_values(rows * cols, -9.0f, 9.0f, static_cast<unsigned>(cols));
      x[0] = 0.0f;
      if (x.size() > 2) x[2] = -1e-30f;
      const std::vector<float> bias = random_values(cols, -1.0f, 1.0f, 7);
      for (const bool with_bias : {false, true}) {
        std::vector<float> a = x, b = x;
        (portable().*kernel)(a.data(), rows, cols, with_bias ? bias.data() : nullptr);
        (k->*kernel)(b.data(), rows, cols, with_bias ? bias.data() : nullptr);
        for (std::size_t i = 0; i < x.size(); ++i) {
          const float input = x[i] + (with_bias ? bias[i % static_cast<std::size_t>(cols)] : 0.0f);
          EXPECT_LE(std::fabs(a[i] - b[i]), 4 * kUlp * std::max(std::fabs(input), 1.0f))
              << k->name << " cols " << cols << " x " << input << ": " << a[i] << " vs " << b[i];
        }
      }
    }
  }
}

TEST(RowKernels, LayerNormIsTheFixedOrdersBitForBit) {
  for (const RowKernels* k : supported_row_kernels()) {
    for (const std::int64_t cols : kLengths) {
      const std::int64_t rows = 4;
      const std::vector<float> x = random_values(rows * cols, -3.0f, 5.0f, static_cast<unsigned>(cols));
      const std::vector<float> residual = random_values(rows * cols, -2.0f, 2.0f, 11);
      const std::vector<float> gamma = random_values(cols, 0.5f, 1.5f, 12), beta = random_values(cols, -1.0f, 1.0f, 13);
      for (const bool with_residual : {false, true}) {
        std::vector<float> a(x.size()), b(x.size());
        const float* r = with_residual ? residual.data() : nullptr;
        layer_norm(x.data(), r, gamma.data(), beta.data(), 1e-5f, a.data(), rows, cols, Order::Fixed);
        k->layer_norm(x.data(), r, gamma.data(), beta.data(), 1e-5f, b.data(), rows, cols);
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << k->name << " cols " << cols;
        // In place over the residual, as the encoder calls it.
        if (with_residual) {
          std::vector<float> in_place = residual;
          k->layer_norm(x.data(), in_place.data(), gamma.data(), beta.data(), 1e-5f, in_place.data(), rows, cols);
          EXPECT_EQ(std::memcmp(a.data(), in_place.data(), a.size() * sizeof(float)), 0) << k->name << " cols " << cols;
        }
      }
    }
  }
}

TEST(RowKernels, AttentionSoftmaxWithinEightUlpsAndDropsTheSameKeys) {
  // exp's approximation with fused multiply-adds and the sum in other orders: each probability
  // within 8 ulp of itself; dropped keys below FLT_MIN in both (Eigen's SSE and AVX exp give a
  // denormal for −∞, its AVX-512 exp 0), and a row without keys all zeros.
  if (wider().empty()) GTEST_SKIP() << "this CPU runs the portable kernels only";
  for (const RowKernels* k : wider()) {
    for (const std::int64_t n : kLengths) {
      const std::vector<float> scores = random_values(n, -12.0f, 12.0f, static_cast<unsigned>(n));
      const std::vector<float> bias = random_values(n, -2.0f, 2.0f, 21);
      std::vector<float> keep(static_cast<std::size_t>(n), 1.0f);
      for (std::int64_t j = 0; j < n; j += 3) keep[static_cast<std::size_t>(j)] = 0.0f;
      std::vector<float> none(static_cast<std::size_t>(n), 0.0f);
      struct Variant {
        const float *bias, *keep;
        std::int64_t limit;
      };
      for (const Variant& v : {Variant{nullptr, nullptr, n}, Variant{bias.data(), nullptr, n},
                               Variant{nullptr, keep.data(), n}, Variant{bias.data(), keep.data(), n / 2 + 1},
                               Variant{nullptr, nullptr, n - 1}, Variant{nullptr, none.data(), n}}) {
        std::vector<float> a = scores, b = scores;
        portable().attention_softmax_row(a.data(), n, 0.125f, v.bias, v.keep, v.limit);
        k->attention_softmax_row(b.data(), n, 0.125f, v.bias, v.keep, v.limit);
        if (v.keep == none.data()) {
          for (std::size_t j = 0; j < b.size(); ++j) EXPECT_EQ(b[j], 0.0f) << k->name << " n " << n << " key " << j;
        }
        for (std::size_t j = 0; j < a.size(); ++j) {
          if (a[j] < std::numeric_limits<float>::min()) {
            EXPECT_GE(b[j], 0.0f) << k->name << " n " << n << " key " << j;
            EXPECT_LT(b[j], std::numeric_limits<float>::min()) << k->name << " n " << n << " key " << j;
            continue;
          }
          EXPECT_LE(std::fabs(a[j] - b[j]), 8 * kUlp * a[j]) << k->name << " n " << n << " key " << j;
        }
      }
    }
  }
}

// A decoding step's normalizer: every variant (the portable one included) within 4 ulp of Σ exp in
// double, for rows across the 1024-value blocks and a vocabulary's length; a −∞ entry adds nothing
// visible, a NaN spreads.
TEST(RowKernels, ExpSumWithinFourUlpsOfTheDoubleSum) {
  std::vector<std::int64_t> lengths = kLengths;
  lengths.insert(lengths.end(), {1023, 1024, 1025, 58101});
  for (const RowKernels* k : supported_row_kernels()) {
    for (const std::int64_t n : lengths) {
      std::vector<float> x = random_values(n, -20.0f, 5.0f, static_cast<unsigned>(n) + 7);
      if (n > 1) x[static_cast<std::size_t>(n / 2)] = -std::numeric_limits<float>::infinity();
      double max = -std::numeric_limits<double>::infinity(), want = 0.0;
      for (float v : x) max = std::max<double>(max, v);
      for (float v : x) want += std::exp(double(v) - max);
      const double got = k->exp_sum(x.data(), n, static_cast<float>(max));
      EXPECT_LE(std::fabs(got - want), 4 * kUlp * want) << k->name << " n " << n;
      x.front() = std::numeric_limits<float>::quiet_NaN();
      EXPECT_TRUE(std::isnan(k->exp_sum(x.data(), n, static_cast<float>(max)))) << k->name << " n " << n;
    }
  }
}

// A decoding step's one-query attention, every variant against the attention in double: heads side
// by side in a time-major cache (keys a cache row apart), head sizes around the packet widths, key
// counts around the kernel's groups, a bias, a masked key, keys past a causal limit, and a head
// stride of its own for the context.
TEST(RowKernels, AttendQueryMatchesTheAttentionSummedInDouble) {
  for (const RowKernels* k : supported_row_kernels()) {
    for (const std::int64_t dh : {1, 5, 16, 17, 64}) {
      for (const std::int64_t keys : {1, 3, 4, 5, 21, 64}) {
        const std::int64_t heads = 3, width = heads * dh, ld = 4 * width, out_head = dh + 2;
        const auto seed = static_cast<unsigned>(dh * 100 + keys);
        const auto q = random_values(width, -1.0f, 1.0f, seed), cache = random_values(keys * ld, -1.0f, 1.0f, seed + 1);
        const auto bias = random_values(heads * keys, -2.0f, 2.0f, seed + 2);
        std::vector<float> keep(static_cast<std::size_t>(keys), 1.0f);
        if (keys > 2) keep[1] = 0.0f;
        const std::int64_t limit = keys > 4 ? keys - 2 : keys;
        std::vector<float> out(static_cast<std::size_t>(heads * out_head), -7.0f), s(static_cast<std::size_t>(heads * keys));
        const float* v = cache.data() + 2 * width;  // values beside the keys in the cache's rows
        k->attend_query({.q = q.data(), .k = cache.data(), .v = v, .bias = bias.data(), .keep = keep.data(),
                         .out = out.data(), .heads = heads, .head_dim = dh, .keys = keys, .limit = limit,
                         .q_head = dh, .k_head = dh, .v_head = dh, .out_head = out_head, .bias_head = keys,
                         .k_ld = ld, .v_ld = ld, .scale = 0.5f},
                        s.data());
        for (std::int64_t h = 0; h < heads; ++h) {
          std::vector<double> p(static_cast<std::size_t>(keys), 0.0);
          double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
          for (std::int64_t j = 0; j < limit; ++j) {
            if (keep[j] == 0.0f) continue;
            double dot = 0.0;
            for (std::int64_t d = 0; d < dh; ++d) dot += double{q[h * dh + d]} * cache[j * ld + h * dh + d];
            p[j] = 0.5 * dot + bias[h * keys + j];
            max = std::max(max, p[j]);
          }
          for (std::int64_t j = 0; j < limit; ++j) sum += keep[j] == 0.0f ? 0.0 : (p[j] = std::exp(p[j] - max));
          for (std::int64_t d = 0; d < dh; ++d) {
            double want = 0.0;
            for (std::int64_t j = 0; j < limit; ++j)
              if (keep[j] != 0.0f) want += p[j] / sum * v[j * ld + h * dh + d];
            EXPECT_NEAR(out[h * out_head + d], want, 2e-6) << k->name << " dh " << dh << " keys " << keys << " head " << h;
          }
          for (std::int64_t d = dh; d < out_head; ++d) EXPECT_EQ(out[h * out_head + d], -7.0f) << "between heads";
        }
      }
    }
  }
}

TEST(RowKernels, Int8QuantizationAndRescalingAreBitIdentical) {
  if (wider().empty()) GTEST_SKIP() << "this CPU runs the portable kernels only";
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const RowKernels* k : wider()) {
    for (const std::int64_t cols : kLengths) {
      std::vector<std::vector<float>> rows{random_values(cols, -4.0f, 6.0f, static_cast<unsigned>(cols)),
                                           random_values(cols, 0.0f, 3.0f, 31), random_values(cols, -3.0f, 0.0f, 32),
                                           std::vector<float>(static_cast<std::size_t>(cols), 0.0f)};
      std::vector<float> odd = random_values(cols, -1.0f, 1.0f, 33);
      odd[0] = nan;
      odd[odd.size() / 2] = inf;
      odd[odd.size() - 1] = -0.0f;
      rows.push_back(odd);
      rows.emplace_back(static_cast<std::size_t>(cols), -0.0f);
      rows.emplace_back(static_cast<std::size_t>(cols), -inf);
      for (const auto& row : rows) {
        std::vector<std::uint8_t> qa(row.size()), qb(row.size());
        const RowScale sa = portable().quantize_row(row.data(), cols, qa.data());
        const RowScale sb = k->quantize_row(row.data(), cols, qb.data());
        EXPECT_EQ(std::memcmp(&sa, &sb, sizeof sa), 0) << k->name << " cols " << cols;
        EXPECT_EQ(qa, qb) << k->name << " cols " << cols;
      }
      const std::int64_t m = 3;
      const std::vector<float> sums = random_values(m * cols, -3000.0f, 3000.0f, 41);
      const std::vector<RowScale> scales{{0.01f, 3.0f}, {0.5f, 0.0f}, {1e-3f, 255.0f}};
      const std::vector<float> channel = random_values(cols, 1e-3f, 1e-2f, 42), weight_sums = random_values(cols, -500.0f, 500.0f, 43);
      const std::vector<float> bias = random_values(cols, -1.0f, 1.0f, 44);
      for (const bool with_bias : {false, true}) {
        std::vector<float> a = sums, b = sums;
        portable().rescale(a.data(), m, cols, scales.data(), channel.data(), weight_sums.data(),
                           with_bias ? bias.data() : nullptr);
        k->rescale(b.data(), m, cols, scales.data(), channel.data(), weight_sums.data(), with_bias ? bias.data() : nullptr);
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << k->name << " cols " << cols;
      }
    }
  }
}

}  // namespace
}  // namespace invar::cpu
