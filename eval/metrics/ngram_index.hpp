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

// Open-addressing map from 64-bit keys to dense ids 0, 1, 2, ... in insertion order.
class IdTable {
 public:
  void reset();
  std::uint32_t insert(std::uint64_t key);
  std::uint32_t find(std::uint64_t key) const;
  std::uint32_t size() const { return size_; }

  static std::uint64_t key(std::uint32_t prefix, std::uint32_t symbol) {
    return (static_cast<std::uint64_t>(prefix) << 32) | symbol;
  }

 private:
  void grow();
  std::size_t slot_of(std::uint64_t key) const;

  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> ids_;
  std::vector<std::uint32_t> stamps_;  // a slot is used when its stamp equals stamp_
  std::uint32_t stamp_ = 1;
  std::uint32_t size_ = 0;
};

// Interns strings (views that must outlive the current use) as dense ids.
class StringInterner {
 public:
  void reset();
  std::uint32_t insert(std::string_view text);
  std::uint32_t find(std::string_view text) const;

 private:
  std::uint32_t probe(std::string_view text, std::uint64_t hash, bool insert);

  std::vector<std::uint64_t> hashes_;
  std::vector<std::uint32_t> ids_;
  std::vector<std::uint32_t> stamps_;
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
