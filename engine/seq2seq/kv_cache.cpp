#include "engine/seq2seq/kv_cache.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace invar::seq2seq {

namespace {

std::int64_t ceil_pow2(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace

KvCache::KvCache(Backend& backend, std::int64_t layers, std::int64_t width)
    : backend_(backend), layers_(layers), width_(width) {
  for (auto& arena : cross_arena_) arena = backend.make_arena();
  for (auto& arena : cache_arena_) arena = backend.make_arena();
  key_rows_arena_ = backend.make_arena();
}

const std::vector<Tensor>& KvCache::begin_sources(std::int64_t groups, std::int64_t source_len,
                                                  const std::vector<float>& mask) {
  cross_current_ = 0;
  Arena& cross = *cross_arena_[0];
  cross.reset();
  cross_kv_.clear();
  for (std::int64_t l = 0; l < layers_; ++l)
    cross_kv_.push_back(cross.alloc(DType::F32, Shape{groups * source_len, 2 * width_}));
  key_mask_ = cross.alloc(DType::F32, Shape{groups, source_len});
  backend_.upload(mask.data(), key_mask_);
  groups_ = groups;
  source_len_ = source_len;
  return cross_kv_;
}

void KvCache::alloc(Arena& arena, std::int64_t capacity, std::int64_t rows) {
  arena.reset();
  cache_k_.clear();
  cache_v_.clear();
  for (std::int64_t i = 0; i < layers_; ++i) {
    cache_k_.push_back(arena.alloc(DType::F32, Shape{capacity, rows, width_}));
    cache_v_.push_back(arena.alloc(DType::F32, Shape{capacity, rows, width_}));
  }
  capacity_ = capacity;
  rows_ = rows;
  key_rows_.clear();
  key_rows_tensor_ = {};
}

void KvCache::start(std::int64_t groups, std::int64_t group_size, std::int64_t capacity) {
  if (groups != groups_) fail("internal: decoder groups {} differ from the encoded batch {}", groups, groups_);
  group_size_ = group_size;
  cache_current_ = 0;
  alloc(*cache_arena_[0], std::max<std::int64_t>(capacity, 1), groups * group_size);
  length_ = 0;
}

void KvCache::prepare(std::int64_t n) {
  const std::int64_t total = length_ + n;
  // Key rows serve one query per row; a step of several positions reads the rows' own places.
  if (total > capacity_ || (!key_rows_.empty() && n > 1)) {
    std::vector<std::int32_t> identity(static_cast<std::size_t>(rows_));
    std::iota(identity.begin(), identity.end(), 0);
    copy(identity, std::max(capacity_, ceil_pow2(total)));
  }
  key_rows_tensor_ = {};
  if (key_rows_.empty()) return;
  // The step's positions are written in the rows' own places.
  key_rows_.resize(static_cast<std::size_t>(total * rows_));
  for (std::int64_t p = length_; p < total; ++p)
    std::iota(key_rows_.begin() + p * rows_, key_rows_.begin() + (p + 1) * rows_, 0);
  key_rows_arena_->reset();
  key_rows_tensor_ = key_rows_arena_->alloc(DType::I32, Shape{total, rows_});
  backend_.upload(key_rows_.data(), key_rows_tensor_);
}

// Moves the filled cache positions into the other arena: rows[i] of the old rows becomes row i,
// with room for new_capacity positions, every position in its row's own place. Copies
// length × rows × d per layer, no more.
void KvCache::copy(std::span<const std::int32_t> rows, std::int64_t new_capacity) {
  const std::int64_t old_rows = rows_, new_rows = static_cast<std::int64_t>(rows.size());
  const auto old_k = cache_k_, old_v = cache_v_;
  const std::int64_t old_capacity = capacity_, inner = width_;
  std::vector<std::int32_t> ids(static_cast<std::size_t>(length_ * new_rows));
  for (std::int64_t p = 0; p < length_; ++p)
    for (std::int64_t i = 0; i < new_rows; ++i)
      ids[static_cast<std::size_t>(p * new_rows + i)] =
          static_cast<std::int32_t>(p * old_rows + holder(p, rows[static_cast<std::size_t>(i)]));
  cache_current_ = 1 - cache_current_;
  Arena& arena = *cache_arena_[cache_current_];
  alloc(arena, new_capacity, new_rows);
  if (length_ == 0) return;
  Tensor id_tensor = arena.alloc(DType::I32, Shape{static_cast<std::int64_t>(ids.size())});
  backend_.upload(ids.data(), id_tensor);
  for (std::size_t l = 0; l < cache_k_.size(); ++l) {
    const Shape table{old_capacity * old_rows, inner};
    const std::int64_t filled = length_ * new_rows;
    backend_.gather_rows(old_k[l].reshaped(table), id_tensor, 1.0f, false,
                         cache_k_[l].reshaped(Shape{new_capacity * new_rows, inner}).rows(0, filled));
    backend_.gather_rows(old_v[l].reshaped(table), id_tensor, 1.0f, false,
                         cache_v_[l].reshaped(Shape{new_capacity * new_rows, inner}).rows(0, filled));
  }
}

// Beams that changed parents, in place: row moved[j] takes old row rows[moved[j]], every other
// row stays. The moved rows are gathered into scratch first (a row's source may itself be
// overwritten), then copied back run by run: 2 × length × moved × d per layer, against
// length × rows × d for copy().
void KvCache::move_rows(std::span<const std::int32_t> rows, const std::vector<std::int64_t>& moved, Arena& arena) {
  if (moved.empty() || length_ == 0) return;
  const std::int64_t count = static_cast<std::int64_t>(moved.size()), a = width_;
  auto moved_row = [&](std::int64_t j) { return moved[static_cast<std::size_t>(j)]; };
  std::vector<std::int32_t> ids(static_cast<std::size_t>(length_ * count));
  for (std::int64_t p = 0; p < length_; ++p)
    for (std::int64_t j = 0; j < count; ++j)
      ids[static_cast<std::size_t>(p * count + j)] =
          static_cast<std::int32_t>(p * rows_ + rows[static_cast<std::size_t>(moved_row(j))]);
  arena.reset();
  Tensor id_tensor = arena.alloc(DType::I32, Shape{static_cast<std::int64_t>(ids.size())});
  backend_.upload(ids.data(), id_tensor);
  Tensor scratch = arena.alloc(DType::F32, Shape{length_ * count, a});
  for (auto* caches : {&cache_k_, &cache_v_}) {
    for (const Tensor& cache : *caches) {
      backend_.gather_rows(cache.reshaped(Shape{capacity_ * rows_, a}), id_tensor, 1.0f, false, scratch);
      std::int64_t run = 1;
      for (std::int64_t j = 0; j < count; j += run) {
        // Consecutive moved rows are adjacent in both the cache and the scratch: one copy per run.
        for (run = 1; j + run < count && moved_row(j + run) == moved_row(j) + run; ++run) {
        }
        // The contiguous run last: the innermost loop of a copy is then a plain copy.
        backend_.copy_strided(scratch, {j * a, {count * a, 0, 0, 1}}, cache, {moved_row(j) * a, {rows_ * a, 0, 0, 1}},
                              {length_, 1, 1, run * a});
      }
    }
  }
}

// Row i continues old row rows[i]: its positions are where old row rows[i]'s are (the rows' count
// unchanged). No cached value moves.
void KvCache::follow_parents(std::span<const std::int32_t> rows) {
  std::vector<std::int32_t> followed(static_cast<std::size_t>(length_ * rows_));
  for (std::int64_t p = 0; p < length_; ++p)
    for (std::int64_t i = 0; i < rows_; ++i)
      followed[static_cast<std::size_t>(p * rows_ + i)] = holder(p, rows[static_cast<std::size_t>(i)]);
  key_rows_ = std::move(followed);
}

void KvCache::select_rows(std::span<const std::int32_t> rows, Arena& scratch) {
  for (std::int32_t r : rows)
    if (r < 0 || r >= rows_) fail("internal: select_rows row {} outside [0, {})", r, rows_);
  const std::int64_t new_rows = static_cast<std::int64_t>(rows.size());
  // Cross-attention groups: every group of the new rows must come from one old group.
  if (new_rows % group_size_ != 0) fail("internal: {} rows do not form groups of {}", new_rows, group_size_);
  const std::int64_t new_groups = new_rows / group_size_;
  std::vector<std::int32_t> group_of(static_cast<std::size_t>(new_groups));
  bool same_groups = new_groups == groups_;
  for (std::int64_t g = 0; g < new_groups; ++g) {
    const std::int32_t old = static_cast<std::int32_t>(rows[static_cast<std::size_t>(g * group_size_)] / group_size_);
    for (std::int64_t i = 0; i < group_size_; ++i)
      if (rows[static_cast<std::size_t>(g * group_size_ + i)] / group_size_ != old)
        fail("internal: a new row group mixes sources");
    group_of[static_cast<std::size_t>(g)] = old;
    same_groups = same_groups && old == g;
  }
  if (!same_groups) {
    std::vector<std::int32_t> source_rows(static_cast<std::size_t>(new_groups * source_len_));
    for (std::int64_t g = 0; g < new_groups; ++g)
      for (std::int64_t s = 0; s < source_len_; ++s)
        source_rows[static_cast<std::size_t>(g * source_len_ + s)] =
            static_cast<std::int32_t>(group_of[static_cast<std::size_t>(g)] * source_len_ + s);
    cross_current_ = 1 - cross_current_;
    Arena& arena = *cross_arena_[cross_current_];
    arena.reset();
    Tensor ids = arena.alloc(DType::I32, Shape{static_cast<std::int64_t>(source_rows.size())});
    backend_.upload(source_rows.data(), ids);
    for (Tensor& kv : cross_kv_) {
      Tensor moved = arena.alloc(DType::F32, Shape{new_groups * source_len_, 2 * width_});
      backend_.gather_rows(kv, ids, 1.0f, false, moved);
      kv = moved;
    }
    Tensor group_ids = arena.alloc(DType::I32, Shape{new_groups});
    backend_.upload(group_of.data(), group_ids);
    Tensor mask = arena.alloc(DType::F32, Shape{new_groups, source_len_});
    backend_.gather_rows(key_mask_, group_ids, 1.0f, false, mask);
    key_mask_ = mask;
    groups_ = new_groups;
  }
  std::vector<std::int64_t> moved;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i] != static_cast<std::int32_t>(i)) moved.push_back(static_cast<std::int64_t>(i));
  if (new_rows == rows_ && backend_.attention_reads_key_rows()) {
    if (!moved.empty()) follow_parents(rows);
    return;
  }
  // Beam search keeps its rows until a source finishes; often few beams change parents. Moving
  // fewer than half the rows in place copies less than rebuilding the cache.
  if (new_rows == rows_ && 2 * static_cast<std::int64_t>(moved.size()) < rows_) move_rows(rows, moved, scratch);
  else copy(rows, capacity_);
}

void KvCache::expand_groups(std::int64_t expand, Arena& scratch) {
  if (expand == 1) return;
  std::vector<std::int32_t> rows(static_cast<std::size_t>(groups_ * expand));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int32_t>(i / static_cast<std::size_t>(expand));
  group_size_ = 1;
  rows_ = groups_;
  select_rows(rows, scratch);  // with group size 1, each new row becomes a group of its own
}

}  // namespace invar::seq2seq
