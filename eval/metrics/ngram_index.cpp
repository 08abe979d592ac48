#include "eval/metrics/ngram_index.hpp"

#include <algorithm>
#include <functional>

namespace invar::metrics::detail {

namespace {

constexpr std::size_t kInitialCapacity = 256;

// Fibonacci hashing: the top bits of key × 2^64/φ spread consecutive keys over the table.
std::size_t spread(std::uint64_t key, std::size_t capacity) {
  return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (capacity - 1);
}

// Starts a new generation: every slot becomes free without touching the arrays.
void next_stamp(std::uint32_t& stamp, std::vector<std::uint32_t>& stamps) {
  if (++stamp == 0) {
    std::fill(stamps.begin(), stamps.end(), 0u);
    stamp = 1;
  }
}

}  // namespace

void IdTable::reset() {
  next_stamp(stamp_, stamps_);
  size_ = 0;
}

std::size_t IdTable::slot_of(std::uint64_t key) const {
  const std::size_t capacity = keys_.size();
  std::size_t slot = spread(key, capacity);
  while (stamps_[slot] == stamp_ && keys_[slot] != key) slot = (slot + 1) & (capacity - 1);
  return slot;
}

void IdTable::grow() {
  const std::size_t capacity = keys_.empty() ? kInitialCapacity : keys_.size() * 2;
  std::vector<std::uint64_t> old_keys(capacity);
  std::vector<std::uint32_t> old_ids(capacity), old_stamps(capacity, 0);
  old_keys.swap(keys_);
  old_ids.swap(ids_);
  old_stamps.swap(stamps_);
  const std::uint32_t old_stamp = stamp_;
  stamp_ = 1;
  for (std::size_t i = 0; i < old_keys.size(); ++i) {
    if (old_stamps[i] != old_stamp) continue;
    const std::size_t slot = slot_of(old_keys[i]);
    keys_[slot] = old_keys[i];
    ids_[slot] = old_ids[i];
    stamps_[slot] = stamp_;
  }
}

std::uint32_t IdTable::insert(std::uint64_t key) {
  if (2 * (static_cast<std::size_t>(size_) + 1) > keys_.size()) grow();
  const std::size_t slot = slot_of(key);
  if (stamps_[slot] == stamp_) return ids_[slot];
  stamps_[slot] = stamp_;
  keys_[slot] = key;
  ids_[slot] = size_;
  return size_++;
}

std::uint32_t IdTable::find(std::uint64_t key) const {
  if (keys_.empty()) return kMissing;
  const std::size_t slot = slot_of(key);
  return stamps_[slot] == stamp_ ? ids_[slot] : kMissing;
}

void StringInterner::reset() {
  next_stamp(stamp_, stamps_);
  strings_.clear();
}

std::uint32_t StringInterner::probe(std::string_view text, std::uint64_t hash, bool insert) {
  if (insert && 2 * (strings_.size() + 1) > hashes_.size()) {
    const std::size_t capacity = hashes_.empty() ? kInitialCapacity : hashes_.size() * 2;
    hashes_.assign(capacity, 0);
    ids_.assign(capacity, 0);
    stamps_.assign(capacity, 0);
    stamp_ = 1;
    for (std::uint32_t id = 0; id < strings_.size(); ++id) {
      const std::uint64_t h = std::hash<std::string_view>{}(strings_[id]);
      std::size_t slot = spread(h, capacity);
      while (stamps_[slot] == stamp_) slot = (slot + 1) & (capacity - 1);
      hashes_[slot] = h;
      ids_[slot] = id;
      stamps_[slot] = stamp_;
    }
  }
  if (hashes_.empty()) return kMissing;
  const std::size_t capacity = hashes_.size();
  std::size_t slot = spread(hash, capacity);
  while (stamps_[slot] == stamp_) {
    if (hashes_[slot] == hash && strings_[ids_[slot]] == text) return ids_[slot];
    slot = (slot + 1) & (capacity - 1);
  }
  if (!insert) return kMissing;
  const auto id = static_cast<std::uint32_t>(strings_.size());
  strings_.push_back(text);
  hashes_[slot] = hash;
  ids_[slot] = id;
  stamps_[slot] = stamp_;
  return id;
}

std::uint32_t StringInterner::insert(std::string_view text) {
  return probe(text, std::hash<std::string_view>{}(text), true);
}

std::uint32_t StringInterner::find(std::string_view text) const {
  return const_cast<StringInterner*>(this)->probe(text, std::hash<std::string_view>{}(text), false);
}

void NgramMatcher::add_reference(const std::uint32_t* symbols, std::size_t n, int max_order, std::uint32_t root,
                                 std::int64_t* ref_totals) {
  if (table_.size() == 0) counts_.clear();
  prefix_.assign(n, root);
  last_ids_.clear();
  for (int order = 1; order <= max_order && static_cast<std::size_t>(order) <= n; ++order) {
    const std::size_t count = n - static_cast<std::size_t>(order) + 1;
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t id = table_.insert(IdTable::key(prefix_[i], symbols[i + order - 1]));
      if (id == counts_.size()) counts_.push_back(0);
      ++counts_[id];
      prefix_[i] = id;
      last_ids_.push_back(id);
    }
    ref_totals[order - 1] += static_cast<std::int64_t>(count);
  }
}

void NgramMatcher::match(const std::uint32_t* symbols, std::size_t n, int max_order, std::uint32_t root,
                         const std::vector<std::uint32_t>& limits, std::int64_t* hyp_totals, std::int64_t* matches) {
  used_.assign(table_.size(), 0);
  prefix_.assign(n, root);
  for (int order = 1; order <= max_order && static_cast<std::size_t>(order) <= n; ++order) {
    const std::size_t count = n - static_cast<std::size_t>(order) + 1;
    for (std::size_t i = 0; i < count; ++i) {
      std::uint32_t id = kMissing;
      if (prefix_[i] != kMissing) id = table_.find(IdTable::key(prefix_[i], symbols[i + order - 1]));
      prefix_[i] = id;
      if (id != kMissing && used_[id] < limits[id]) {
        ++used_[id];
        ++matches[order - 1];
      }
    }
    hyp_totals[order - 1] += static_cast<std::int64_t>(count);
  }
}

}  // namespace invar::metrics::detail
