#pragma once
// The decoder's state between steps: per decoder layer the self-attention cache laid out
// [capacity, rows, attention width] (time-major, so moving beams copies exactly the filled
// positions of the rows that move), and the cross-attention keys/values computed once per source,
// [groups × source length, 2 × width], shared by that source's group of rows. Rows that finish
// leave, and the groups with them. Where the backend's attention reads key rows
// (Backend::attention_reads_key_rows), beams that change parents move no cached position: a table
// records, per position and row, the cache row that holds it (a step's keys are written in the
// rows' own places), and the rows are moved only when some leave, when the capacity grows, or
// before a step of several positions (whose attention reads the rows' own places).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "backends/backend.hpp"

namespace invar::seq2seq {

class KvCache {
 public:
  // `backend` must outlive the cache; `layers` decoder layers of attention width `width`.
  KvCache(Backend& backend, std::int64_t layers, std::int64_t width);

  // New sources: the cross-attention keys/values per decoder layer, [groups × source_len, 2 × width],
  // for the caller to fill, and the key mask ([groups, source_len], 1 for a real token).
  const std::vector<Tensor>& begin_sources(std::int64_t groups, std::int64_t source_len,
                                           const std::vector<float>& mask);
  // Empty self-attention caches for `groups` × `group_size` rows, room for `capacity` positions.
  void start(std::int64_t groups, std::int64_t group_size, std::int64_t capacity);
  // Room for a step of `n` positions per row (the capacity grows to the next power of two), and
  // key_rows() for its attention.
  void prepare(std::int64_t n);
  // The step's `n` positions are written: length() grows by n.
  void advance(std::int64_t n) { length_ += n; }
  // New row i continues old row rows[i]; `scratch` is free for the call.
  void select_rows(std::span<const std::int32_t> rows, Arena& scratch);
  // Gives each of `expand` rows per source its own cross-attention group (sampling several per source).
  void expand_groups(std::int64_t expand, Arena& scratch);

  std::int64_t rows() const { return rows_; }
  std::int64_t length() const { return length_; }
  std::int64_t groups() const { return groups_; }
  std::int64_t group_size() const { return group_size_; }
  std::int64_t source_len() const { return source_len_; }
  const Tensor& keys(std::size_t layer) const { return cache_k_[layer]; }
  const Tensor& values(std::size_t layer) const { return cache_v_[layer]; }
  const Tensor& cross_kv(std::size_t layer) const { return cross_kv_[layer]; }
  const Tensor& key_mask() const { return key_mask_; }
  // The prepared step's AttentionOperands::key_rows [length() + n, rows()] for the self-attention:
  // empty while every row's positions lie in its own row of the cache (and for steps of several
  // positions, whose attention reads the rows' own places).
  const Tensor& key_rows() const { return key_rows_tensor_; }

 private:
  void alloc(Arena& arena, std::int64_t capacity, std::int64_t rows);
  void copy(std::span<const std::int32_t> rows, std::int64_t new_capacity);
  // The cache row holding row r's position p.
  std::int32_t holder(std::int64_t p, std::int64_t r) const {
    return key_rows_.empty() ? static_cast<std::int32_t>(r) : key_rows_[static_cast<std::size_t>(p * rows_ + r)];
  }
  void follow_parents(std::span<const std::int32_t> rows);
  void move_rows(std::span<const std::int32_t> rows, const std::vector<std::int64_t>& moved, Arena& scratch);

  Backend& backend_;
  std::int64_t layers_, width_;
  // Two arenas each: a reorder builds the new state in the other one while reading the old.
  std::unique_ptr<Arena> cross_arena_[2], cache_arena_[2];
  int cross_current_ = 0, cache_current_ = 0;
  std::vector<Tensor> cross_kv_;
  Tensor key_mask_;
  std::int64_t groups_ = 0, group_size_ = 0, source_len_ = 0;
  std::vector<Tensor> cache_k_, cache_v_;
  std::int64_t capacity_ = 0, rows_ = 0, length_ = 0;
  // [positions, rows]: holder(p, r); empty while every row's positions lie in its own row.
  std::vector<std::int32_t> key_rows_;
  std::unique_ptr<Arena> key_rows_arena_;
  Tensor key_rows_tensor_;
};

}  // namespace invar::seq2seq
