#pragma once
// Scratch structures for n-gram matching (BLEU, chrF): an n-gram of order n is identified by the
// id of its (n−1)-prefix and its last symbol, so every n-gram gets a dense integer id and counting
// needs no strings, hashing of text or allocation once the buffers have grown. Reset is O(1).
// Not thread-safe: each thread keeps its own (thread_local) instances.
#include <cstdint>
#include <string_view>
#include <vector>

namespace invar::metrics::detail {

inline constexpr std::uint32_t kMissing = 0xFFFFFFFFu;

// A slot of the open-addressing tables below: one probe reads key, id and stamp side by side.
struct HashSlot {
  std::uint64_t key = 0;    // the key, or the string's hash
  std::uint32_t id = 0;
  std::uint32_t stamp = 0;  // the slot is used when its stamp equals the table's
};

// Open-addressing map from 64-bit keys to dense ids 0, 1, 2, ... in insertion order.
class IdTable {
 public:
  void reset();
  // Defined below: inlined into the counting loops, where every n-gram probes the table.
  std::uint32_t insert(std::uint64_t key);
  std::uint32_t find(std::uint64_t key) const;
  std::uint32_t size() const { return size_; }

  static std::uint64_t key(std::uint32_t prefix, std::uint32_t symbol) {
    return (static_cast<std::uint64_t>(prefix) << 32) | symbol;
  }

 private:
  void grow();
  std::size_t slot_of(std::uint64_t key) const;

  std::vector<HashSlot> slots_;
  std::uint32_t stamp_ = 1;
  std::uint32_t size_ = 0;
};

// Fibonacci hashing: the top bits of key × 2^64/φ spread consecutive keys over the table.
inline std::size_t spread(std::uint64_t key, std::size_t capacity) {
  return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (capacity - 1);
}

inline std::size_t IdTable::slot_of(std::uint64_t key) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = spread(key, slots_.size());
  while (slots_[slot].stamp == stamp_ && slots_[slot].key != key) slot = (slot + 1) & mask;
  return slot;
}

inline std::uint32_t IdTable::insert(std::uint64_t key) {
  if (2 * (static_cast<std::size_t>(size_) + 1) > slots_.size()) grow();
  HashSlot& slot = slots_[slot_of(key)];
  if (slot.stamp == stamp_) return slot.id;
  slot = {key, size_, stamp_};
  return size_++;
}

inline std::uint32_t IdTable::find(std::uint64_t key) const {
  if (slots_.empty()) return kMissing;
  const HashSlot& slot = slots_[slot_of(key)];
  return slot.stamp == stamp_ ? slot.id : kMissing;
}

// Interns strings (views that must outlive the current use) as dense ids.
class StringInterner {
 public:
  void reset();
  std::uint32_t insert(std::string_view text);
  std::uint32_t find(std::string_view text) const;

 private:
  std::uint32_t probe(std::string_view text, std::uint64_t hash, bool insert);

  std::vector<HashSlot> slots_;
  std::vector<std::string_view> strings_;
  std::uint32_t stamp_ = 1;
};

// Counts the n-grams of orders 1..max_order of a reference and matches a hypothesis against
// them (clipped counts: each reference occurrence matches at most one hypothesis occurrence).
class NgramMatcher {
 public:
  // Starts a new reference.
  void reset() { table_.reset(); }
  // Adds the n-grams of `symbols` (orders 1..max_order, rooted at `root` so several symbol
  // alphabets can share the table); ref_totals[n−1] += their number. Counts accumulate per id.
  void add_reference(const std::uint32_t* symbols, std::size_t n, int max_order, std::uint32_t root,
                     std::int64_t* ref_totals);
  // The counts per id of the reference n-grams added since reset().
  const std::vector<std::uint32_t>& counts() const { return counts_; }
  std::vector<std::uint32_t>& counts() { return counts_; }
  // Hypothesis totals and clipped matches per order against `limits` (the counts, or merged
  // maxima for several BLEU references).
  void match(const std::uint32_t* symbols, std::size_t n, int max_order, std::uint32_t root,
             const std::vector<std::uint32_t>& limits, std::int64_t* hyp_totals, std::int64_t* matches);
  // Ids (in order) of the n-grams added by the last add_reference call.
  const std::vector<std::uint32_t>& last_ids() const { return last_ids_; }
  std::uint32_t size() const { return table_.size(); }

 private:
  IdTable table_;
  std::vector<std::uint32_t> counts_, used_, prefix_, last_ids_;
};

}  // namespace invar::metrics::detail
