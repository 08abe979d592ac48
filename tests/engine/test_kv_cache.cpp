// The decoder's cache across beam reorders: where the backend's attention reads key rows (the
// CPU's fast path) a row that changes parents moves no cached position, and the prepared step's
// key_rows say which row of the cache holds each of its positions; elsewhere (--deterministic) the
// rows themselves move. Either way every row must hold its own lineage's positions: through parents
// that change, a capacity that grows, a step of two positions (whose attention reads the rows' own
// places) and a source whose rows leave.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"
#include "engine/seq2seq/kv_cache.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

constexpr std::int64_t kLayers = 2, kWidth = 3;

// The value layer l writes as row r's key (kind 0) or value (kind 1) at position p: distinct for
// every (layer, kind, position, writing row, element).
float written(std::int64_t l, int kind, std::int64_t p, std::int64_t r, std::int64_t c) {
  return static_cast<float>((((l * 2 + kind) * 100 + p) * 100 + r) * 10 + c);
}

class KvCacheTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    backend_ = make_cpu_backend({.threads = 2, .deterministic = GetParam() == "cpu-deterministic"});
    scratch_ = backend_->make_arena();
    cache_ = std::make_unique<seq2seq::KvCache>(*backend_, kLayers, kWidth);
  }

  const Tensor& cache(std::int64_t l, int kind) const {
    const auto layer = static_cast<std::size_t>(l);
    return kind == 0 ? cache_->keys(layer) : cache_->values(layer);
  }

  void start(std::int64_t groups, std::int64_t group_size, std::int64_t capacity) {
    cache_->begin_sources(groups, 1, std::vector<float>(static_cast<std::size_t>(groups), 1.0f));
    cache_->start(groups, group_size, capacity);
    lineage_.assign(static_cast<std::size_t>(groups * group_size), {});
  }

  // A step of n positions per row: each row writes its own, as the decoder does.
  void step(std::int64_t n) {
    cache_->prepare(n);
    check();
    const std::int64_t rows = cache_->rows(), start = cache_->length();
    for (std::int64_t l = 0; l < kLayers; ++l)
      for (int kind = 0; kind < 2; ++kind) {
        std::vector<float> host(static_cast<std::size_t>(n * rows * kWidth));
        for (std::int64_t p = 0; p < n; ++p)
          for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < kWidth; ++c)
              host[static_cast<std::size_t>((p * rows + r) * kWidth + c)] = written(l, kind, start + p, r, c);
        const std::int64_t size = n * rows * kWidth;
        scratch_->reset();
        const Tensor values = scratch_->alloc(DType::F32, {size});
        backend_->upload(host.data(), values);
        backend_->copy_strided(values, {0, {0, 0, 0, 1}}, cache(l, kind), {start * rows * kWidth, {0, 0, 0, 1}},
                               {1, 1, 1, size});
      }
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t p = start; p < start + n; ++p) lineage_[static_cast<std::size_t>(r)].push_back({p, r});
    cache_->advance(n);
  }

  void select(const std::vector<std::int32_t>& rows) {
    std::vector<std::vector<Written>> next;
    for (std::int32_t r : rows) next.push_back(lineage_[static_cast<std::size_t>(r)]);
    lineage_ = next;
    cache_->select_rows(rows, *scratch_);
  }

  // After prepare(): row r's position p holds what its lineage wrote there, in the row key_rows()
  // names (its own row without them).
  void check() {
    const std::int64_t rows = cache_->rows(), length = cache_->length();
    std::vector<std::int32_t> key_rows;
    if (!cache_->key_rows().empty()) {
      ASSERT_EQ(cache_->key_rows().dtype, DType::I32);
      ASSERT_EQ(cache_->key_rows().dim(1), rows);
      ASSERT_GE(cache_->key_rows().dim(0), length);
      key_rows.resize(static_cast<std::size_t>(cache_->key_rows().numel()));
      backend_->download(cache_->key_rows(), key_rows.data());
    }
    for (std::int64_t l = 0; l < kLayers; ++l)
      for (int kind = 0; kind < 2; ++kind) {
        const auto held = backend_->download_f32(cache(l, kind));
        for (std::int64_t r = 0; r < rows; ++r) {
          ASSERT_EQ(static_cast<std::int64_t>(lineage_[static_cast<std::size_t>(r)].size()), length);
          for (std::int64_t p = 0; p < length; ++p) {
            const std::int64_t holder = key_rows.empty() ? r : key_rows[static_cast<std::size_t>(p * rows + r)];
            const Written& w = lineage_[static_cast<std::size_t>(r)][static_cast<std::size_t>(p)];
            for (std::int64_t c = 0; c < kWidth; ++c)
              ASSERT_EQ(held[static_cast<std::size_t>((p * rows + holder) * kWidth + c)],
                        written(l, kind, w.position, w.row, c))
                  << "layer " << l << " kind " << kind << " row " << r << " position " << p;
          }
        }
      }
  }

  struct Written {
    std::int64_t position, row;  // where, and by which row of that step
  };
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Arena> scratch_;
  std::unique_ptr<seq2seq::KvCache> cache_;
  std::vector<std::vector<Written>> lineage_;  // per row, per position
};

TEST_P(KvCacheTest, EveryRowKeepsItsLineageThroughReordersGrowthAndLeaving) {
  const bool reads_key_rows = GetParam() == "cpu";
  start(2, 3, 2);
  step(1);
  select({0, 0, 1, 3, 5, 4});
  step(1);
  EXPECT_EQ(cache_->key_rows().empty(), !reads_key_rows);
  select({2, 2, 2, 3, 3, 4});
  step(1);  // 3 positions in a capacity of 2: the rows move to a larger cache
  select({1, 0, 2, 5, 4, 3});
  step(2);  // two positions per row: in the rows' own places
  EXPECT_TRUE(cache_->key_rows().empty());
  select({0, 1, 1, 3, 4, 5});
  select({1, 1, 0, 5, 3, 3});  // two reorders between steps
  step(1);
  EXPECT_EQ(cache_->key_rows().empty(), !reads_key_rows);
  select({3, 4, 5});  // the first source's rows leave
  step(1);
  EXPECT_EQ(cache_->rows(), 3);
  select({2, 0, 0});
  cache_->prepare(1);
  check();
}

// Rows that keep their parents need no table.
TEST_P(KvCacheTest, RowsThatKeepTheirParentsNeedNoKeyRows) {
  start(1, 3, 4);
  step(1);
  select({0, 1, 2});
  step(1);
  EXPECT_TRUE(cache_->key_rows().empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, KvCacheTest, ::testing::Values("cpu", "cpu-deterministic"),
                         [](const auto& info) { return test::param_name(info.param); });

}  // namespace
}  // namespace invar
