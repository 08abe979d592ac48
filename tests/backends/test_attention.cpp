// Backend::attention against softmax(scale·QKᵀ + bias, masked) V summed in double on the host:
// through self_attention (padding, both bias shapes, a sequence whose every key is masked, lengths
// that split a head's queries into several blocks) and on the views a decoding step gives it (one
// or two new queries against a time-major cache, causal, with a position bias; a group of rows
// sharing their source's keys and values, masked; rows whose keys other rows hold, key_rows). On
// the CPU its fused path (one (sequence, head, block of queries) per task, scores never in
// `scores`) and its deterministic one (gemm_batched and attention_softmax through `scores`); on
// OpenCL the fused kernel (one work-group per query, its scores in __local memory) and, past its
// 2048 keys, the path through `scores`.
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

// attention()'s operands on the host: one storage per tensor, the views into them.
struct Problem {
  std::int64_t outer, inner, queries, keys, head_dim;
  std::vector<float> q, k, v;  // k or v empty: the same storage as q (self-attention's qkv)
  MatrixView q_view, k_view, v_view, context_view;
  std::int64_t context_size;
  std::vector<float> mask;  // [outer, keys], empty: none
  int bias_rank;            // 0: none, 3: [inner, queries, keys], 4: [outer, inner, queries, keys]
  std::vector<float> bias;
  bool causal;
  std::int64_t causal_offset;
  float scale;
};

const std::vector<float>& keys_of(const Problem& p) { return p.k.empty() ? p.q : p.k; }
const std::vector<float>& values_of(const Problem& p) { return p.v.empty() ? p.q : p.v; }

std::int64_t at(const MatrixView& v, std::int64_t o, std::int64_t i, std::int64_t r) {
  return v.offset + o * v.outer_stride + i * v.inner_stride + r * v.ld;
}

// The context in double, zeros outside the views; with key_rows ([keys, outer]), key and value j of
// outer o from outer key_rows[j, o]'s views.
std::vector<double> reference(const Problem& p, const std::vector<std::int32_t>& key_rows = {}) {
  std::vector<double> out(static_cast<std::size_t>(p.context_size), 0.0);
  std::vector<double> s(static_cast<std::size_t>(p.keys));
  const auto& k = keys_of(p);
  const auto& v = values_of(p);
  const auto holder = [&](std::int64_t j, std::int64_t o) {
    return key_rows.empty() ? o : std::int64_t{key_rows[static_cast<std::size_t>(j * p.outer + o)]};
  };
  for (std::int64_t o = 0; o < p.outer; ++o)
    for (std::int64_t h = 0; h < p.inner; ++h)
      for (std::int64_t i = 0; i < p.queries; ++i) {
        double max = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < p.keys; ++j) {
          const bool dropped = (!p.mask.empty() && p.mask[static_cast<std::size_t>(o * p.keys + j)] == 0.0f) ||
                               (p.causal && j > i + p.causal_offset);
          if (dropped) {
            s[j] = -std::numeric_limits<double>::infinity();
            continue;
          }
          double dot = 0.0;
          for (std::int64_t d = 0; d < p.head_dim; ++d)
            dot += double{p.q[static_cast<std::size_t>(at(p.q_view, o, h, i) + d)]} *
                   k[static_cast<std::size_t>(at(p.k_view, holder(j, o), h, j) + d)];
          s[j] = p.scale * dot;
          if (p.bias_rank > 0) {
            const std::int64_t matrix = p.bias_rank == 4 ? o * p.inner + h : h;
            s[j] += p.bias[static_cast<std::size_t>((matrix * p.queries + i) * p.keys + j)];
          }
          max = std::max(max, s[j]);
        }
        if (max == -std::numeric_limits<double>::infinity()) continue;  // no key: all zeros
        double sum = 0.0;
        for (double& x : s) sum += (x = std::exp(x - max));
        for (std::int64_t d = 0; d < p.head_dim; ++d) {
          double acc = 0.0;
          for (std::int64_t j = 0; j < p.keys; ++j)
            acc += s[j] / sum * v[static_cast<std::size_t>(at(p.v_view, holder(j, o), h, j) + d)];
          out[static_cast<std::size_t>(at(p.context_view, o, h, i) + d)] = acc;
        }
      }
  return out;
}

// Self-attention of c: qkv [batch·len, 3·inner]; sequence b keeps its first len − 3b keys (the last
// sequence of a batch of 3 or more keeps none when len is small, every other one some).
Problem self_problem(const Case& c) {
  const std::int64_t inner = c.heads * c.head_dim, width = 3 * inner, rows = c.batch * c.len;
  Problem p{c.batch, c.heads, c.len, c.len, c.head_dim, test::random_floats(rows * width, 5, 1.0f), {}, {},
            {0, width, c.len * width, c.head_dim}, {inner, width, c.len * width, c.head_dim},
            {2 * inner, width, c.len * width, c.head_dim}, {0, inner, c.len * inner, c.head_dim}, rows * inner,
            std::vector<float>(static_cast<std::size_t>(rows), 0.0f), c.bias_rank, {}, false, 0,
            1.0f / std::sqrt(static_cast<float>(c.head_dim))};
  for (std::int64_t b = 0; b < c.batch; ++b)
    for (std::int64_t j = 0; j < c.len - 3 * b; ++j) p.mask[static_cast<std::size_t>(b * c.len + j)] = 1.0f;
  const std::int64_t bias_matrices = c.bias_rank == 4 ? c.batch * c.heads : c.heads;
  p.bias = test::random_floats(bias_matrices * c.len * c.len, 6, 2.0f);
  return p;
}

// A decoding step's self-attention: `n` new queries per row (qkv [rows·n, 3·a]) against `keys`
// positions of a time-major cache [capacity, rows, a], causal from `offset`, with a bias [heads,
// n, keys].
Problem decode_problem(std::int64_t rows, std::int64_t heads, std::int64_t dh, std::int64_t n, std::int64_t keys,
                       std::int64_t capacity) {
  const std::int64_t a = heads * dh, width = 3 * a, ld = rows * a;
  return {rows, heads, n, keys, dh, test::random_floats(rows * n * width, 7, 1.0f),
          test::random_floats(capacity * ld, 8, 1.0f), test::random_floats(capacity * ld, 9, 1.0f),
          {0, width, n * width, dh}, {0, ld, a, dh}, {0, ld, a, dh}, {0, a, n * a, dh}, rows * n * a, {}, 3,
          test::random_floats(heads * n * keys, 10, 2.0f), true, keys - n, 0.125f};
}

// Cross-attention: `groups` groups of `group_rows` rows (query [groups·group_rows, a]) sharing their
// source's keys and values (kv [groups·len, 2·a]); group g keeps its first len − 3g keys.
Problem cross_problem(std::int64_t groups, std::int64_t group_rows, std::int64_t heads, std::int64_t dh,
                      std::int64_t len) {
  const std::int64_t a = heads * dh;
  Problem p{groups, heads, group_rows, len, dh, test::random_floats(groups * group_rows * a, 11, 1.0f),
            test::random_floats(groups * len * 2 * a, 12, 1.0f), {}, {0, a, group_rows * a, dh},
            {0, 2 * a, len * 2 * a, dh}, {a, 2 * a, len * 2 * a, dh}, {0, a, group_rows * a, dh},
            groups * group_rows * a, std::vector<float>(static_cast<std::size_t>(groups * len), 0.0f), 0, {}, false,
            0, 0.25f};
  p.v = p.k;
  for (std::int64_t g = 0; g < groups; ++g)
    for (std::int64_t j = 0; j < len - 3 * g; ++j) p.mask[static_cast<std::size_t>(g * len + j)] = 1.0f;
  return p;
}

// Which backend: "cpu", "cpu-deterministic" or "opencl".
class AttentionTest : public ::testing::TestWithParam<std::string> {
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
  // The fused paths need no scores: they must not read or write them.
  bool needs_scores(std::int64_t keys) const {
    return GetParam() == "cpu-deterministic" || (GetParam() == "opencl" && keys > 2048);
  }

  Tensor upload(const std::vector<float>& host) {
    const Tensor t = arena_->alloc(DType::F32, {static_cast<std::int64_t>(host.size())});
    backend_->upload(host.data(), t);
    return t;
  }

  Tensor upload_ids(const std::vector<std::int32_t>& host, Shape shape) {
    const Tensor t = arena_->alloc(DType::I32, shape);
    backend_->upload(host.data(), t);
    return t;
  }

  // Through attention() (self = false) or self_attention() (the views of self_problem); key_rows
  // ([keys, outer], attention() only) as AttentionOperands::key_rows.
  void expect_matches_reference(const Problem& p, bool self, const std::vector<std::int32_t>& key_rows = {}) {
    SCOPED_TRACE(testing::Message() << "outer " << p.outer << " heads " << p.inner << " queries " << p.queries
                                    << " keys " << p.keys << " dh " << p.head_dim << " bias rank " << p.bias_rank
                                    << (p.causal ? " causal" : "") << (self ? " self" : ""));
    arena_->reset();
    const Tensor q = upload(p.q), k = p.k.empty() ? q : upload(p.k), v = p.v.empty() ? k : upload(p.v);
    const Tensor mask = p.mask.empty() ? Tensor{} : upload(p.mask).reshaped({p.outer, p.keys});
    Tensor bias;
    if (p.bias_rank == 3) bias = upload(p.bias).reshaped({p.inner, p.queries, p.keys});
    if (p.bias_rank == 4) bias = upload(p.bias).reshaped({p.outer, p.inner, p.queries, p.keys});
    const Tensor scores = arena_->alloc(DType::F32, {p.outer, p.inner, p.queries, p.keys});
    const Tensor context = upload(std::vector<float>(static_cast<std::size_t>(p.context_size), 0.0f));
    ASSERT_EQ(backend_->attention_needs_scores(p.keys), needs_scores(p.keys));
    const Tensor scratch = needs_scores(p.keys) ? scores : Tensor{};
    if (self) {
      const std::int64_t rows = p.outer * p.queries;
      backend_->self_attention(q.reshaped({rows, p.q_view.ld}), p.outer, p.queries, p.inner, p.head_dim, p.scale, mask,
                               bias, scratch, context.reshaped({rows, p.context_view.ld}));
    } else {
      backend_->attention({.outer = p.outer, .inner = p.inner, .queries = p.queries, .keys = p.keys,
                           .head_dim = p.head_dim, .q = q, .k = k, .v = v, .context = context, .q_view = p.q_view,
                           .k_view = p.k_view, .v_view = p.v_view, .context_view = p.context_view, .scale = p.scale,
                           .key_mask = mask, .position_bias = bias, .causal = p.causal,
                           .causal_offset = p.causal_offset, .scores = scratch,
                           .key_rows = key_rows.empty() ? Tensor{} : upload_ids(key_rows, {p.keys, p.outer})});
    }
    const auto got = backend_->download_f32(context);
    const auto want = reference(p, key_rows);
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

TEST_P(AttentionTest, SelfAttentionMatchesTheAttentionSummedInDouble) {
  for (const Case& c : std::vector<Case>{
           {1, 5, 2, 4, 0},
           {1, 2, 2, 1, 0},
           {3, 7, 3, 8, 3},     // the third sequence keeps 1 key
           {4, 3, 2, 4, 4},     // sequences 1 to 3 keep no key: zeros
           {2, 300, 2, 16, 3},  // 218 queries per block: 2 blocks per head
           {2, 1, 1, 1, 0},
           {1, 2100, 1, 4, 3},  // past OpenCL's fused 2048 keys
       })
    expect_matches_reference(self_problem(c), true);
}

TEST_P(AttentionTest, DecodingStepsViewsMatchTheAttentionSummedInDouble) {
  expect_matches_reference(decode_problem(3, 2, 8, 1, 6, 8), false);   // one new query per row
  expect_matches_reference(decode_problem(2, 3, 4, 2, 5, 5), false);   // two: the first sees 4 keys
  expect_matches_reference(decode_problem(1, 1, 4, 1, 2100, 2100), false);  // past OpenCL's fused keys
  expect_matches_reference(cross_problem(2, 5, 2, 8, 7), false);       // beams of a source share keys
  expect_matches_reference(cross_problem(3, 1, 4, 4, 9), false);       // greedy: a group per row
  Problem per_outer = cross_problem(2, 3, 2, 4, 6);
  per_outer.bias_rank = 4;
  per_outer.bias = test::random_floats(2 * 2 * 3 * 6, 13, 2.0f);
  expect_matches_reference(per_outer, false);
}

// Beams that changed parents: row o's key and value j lie in row key_rows[j, o] of the cache
// (Backend::attention_reads_key_rows: the CPU's fast path). Backends that do not read key rows, a
// value outside the rows, another shape and more than one query per row are refused.
TEST_P(AttentionTest, KeyRowsReadEachPositionFromTheRowThatHoldsIt) {
  const Problem p = decode_problem(4, 2, 8, 1, 6, 8);
  std::vector<std::int32_t> key_rows(static_cast<std::size_t>(p.keys * p.outer));
  for (std::size_t i = 0; i < key_rows.size(); ++i) key_rows[i] = static_cast<std::int32_t>((i * 7 + i / 4) % 4);
  EXPECT_EQ(backend_->attention_reads_key_rows(), GetParam() == "cpu");
  if (backend_->attention_reads_key_rows()) expect_matches_reference(p, false, key_rows);
  arena_->reset();
  const Tensor q = upload(p.q), k = upload(p.k), v = upload(p.v), context = upload(std::vector<float>(p.context_size));
  const Tensor scores = arena_->alloc(DType::F32, {p.outer, p.inner, p.queries, p.keys});
  const AttentionOperands ok{.outer = p.outer, .inner = p.inner, .queries = 1, .keys = p.keys,
                             .head_dim = p.head_dim, .q = q, .k = k, .v = v, .context = context, .q_view = p.q_view,
                             .k_view = p.k_view, .v_view = p.v_view, .context_view = p.context_view, .scale = p.scale,
                             .scores = scores, .key_rows = upload_ids(key_rows, {p.keys, p.outer})};
  if (!backend_->attention_reads_key_rows()) {
    EXPECT_THROW(
        {
          try {
            backend_->attention(ok);
          } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("does not read key_rows"), std::string::npos) << e.what();
            throw;
          }
        },
        Error);
    return;
  }
  EXPECT_NO_THROW(backend_->attention(ok));
  AttentionOperands bad = ok;
  std::vector<std::int32_t> outside = key_rows;
  outside[5] = 4;
  bad.key_rows = upload_ids(outside, {p.keys, p.outer});
  EXPECT_THROW(backend_->attention(bad), Error);
  bad = ok;
  bad.key_rows = ok.key_rows.reshaped({p.outer, p.keys});
  EXPECT_THROW(backend_->attention(bad), Error);
  bad = ok;
  bad.queries = 2;  // every row's two queries in rows 0 and 1 of q and context: the views fit
  bad.q_view.outer_stride = bad.context_view.outer_stride = 0;
  bad.context = upload(std::vector<float>(p.context_size));
  bad.scores = {};
  EXPECT_THROW(backend_->attention(bad), Error);
}

// No query (an empty batch or sequence) writes nothing; queries without keys get zeros, as
// attention_softmax's rows without a key.
TEST_P(AttentionTest, NoQueryWritesNothingAndNoKeyGivesZeros) {
  arena_->reset();
  const Tensor qkv = arena_->alloc(DType::F32, {4, 3 * 6}), context = upload(std::vector<float>(24, 5.0f));
  const Tensor no_scores = needs_scores(0) ? arena_->alloc(DType::F32, {2, 3, 0, 0}) : Tensor{};
  EXPECT_NO_THROW(backend_->self_attention(qkv.rows(0, 0), 2, 0, 3, 2, 1.0f, {}, {}, no_scores,
                                           context.reshaped({4, 6}).rows(0, 0)));
  EXPECT_EQ(backend_->download_f32(context), std::vector<float>(24, 5.0f));
  if (needs_scores(0)) return;  // the default's path needs a scores tensor of no element
  const Tensor q = upload(test::random_floats(2 * 2 * 6, 3, 1.0f));
  backend_->attention({.outer = 2, .inner = 3, .queries = 2, .keys = 0, .head_dim = 2, .q = q, .k = q, .v = q,
                       .context = context, .q_view = {0, 6, 12, 2}, .k_view = {0, 6, 12, 2},
                       .v_view = {0, 6, 12, 2}, .context_view = {0, 6, 12, 2}});
  EXPECT_EQ(backend_->download_f32(context), std::vector<float>(24, 0.0f));
}

TEST_P(AttentionTest, RejectsScoresOfAnotherShape) {
  arena_->reset();
  const Tensor qkv = arena_->alloc(DType::F32, {2 * 4, 3 * 6});
  const Tensor scores = arena_->alloc(DType::F32, {2, 3, 4, 5});
  const Tensor context = arena_->alloc(DType::F32, {2 * 4, 6});
  EXPECT_THROW(backend_->self_attention(qkv, 2, 4, 3, 2, 1.0f, {}, {}, scores, context), Error);
  const Tensor narrow = arena_->alloc(DType::F32, {2 * 4, 5});
  const Tensor right = arena_->alloc(DType::F32, {2, 3, 4, 4});
  EXPECT_THROW(backend_->self_attention(qkv, 2, 4, 3, 2, 1.0f, {}, {}, right, narrow), Error);
  // Without scores only where the backend does not use them.
  if (needs_scores(4)) EXPECT_THROW(backend_->self_attention(qkv, 2, 4, 3, 2, 1.0f, {}, {}, Tensor{}, context), Error);
  else EXPECT_NO_THROW(backend_->self_attention(qkv, 2, 4, 3, 2, 1.0f, {}, {}, Tensor{}, context));
}

TEST_P(AttentionTest, RejectsViewsOutsideTheirTensorsAndOverlaps) {
  arena_->reset();
  Problem p = cross_problem(2, 3, 2, 4, 6);
  const Tensor q = upload(p.q), kv = upload(p.k), context = upload(std::vector<float>(p.context_size, 0.0f));
  const Tensor scores = arena_->alloc(DType::F32, {p.outer, p.inner, p.queries, p.keys});
  AttentionOperands ok{.outer = p.outer, .inner = p.inner, .queries = p.queries, .keys = p.keys,
                       .head_dim = p.head_dim, .q = q, .k = kv, .v = kv, .context = context, .q_view = p.q_view,
                       .k_view = p.k_view, .v_view = p.v_view, .context_view = p.context_view, .scores = scores};
  EXPECT_NO_THROW(backend_->attention(ok));
  AttentionOperands bad = ok;
  bad.keys = p.keys + 1;  // the last group's keys run past kv, and scores no longer fit
  EXPECT_THROW(backend_->attention(bad), Error);
  bad = ok;
  bad.v_view.offset += 1;  // the last group's last value reaches one past the end of kv
  EXPECT_THROW(backend_->attention(bad), Error);
  bad = ok;
  bad.context = kv;  // writes over its own keys
  bad.context_view = p.k_view;
  EXPECT_THROW(backend_->attention(bad), Error);
  bad = ok;
  bad.causal = true;
  bad.causal_offset = -1;
  EXPECT_THROW(backend_->attention(bad), Error);
}

INSTANTIATE_TEST_SUITE_P(Backends, AttentionTest, ::testing::Values("cpu", "cpu-deterministic", "opencl"),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace invar
