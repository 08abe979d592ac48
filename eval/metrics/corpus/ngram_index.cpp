#include "eval/metrics/corpus/ngram_index.hpp"

#include <algorithm>
#include <functional>

namespace invar::metrics::detail {

namespace {

constexpr std::size_t kInitialCapacity = 256;

// Starts a new generation: every slot becomes free without touching the array.
void next_stamp(std::uint32_t& stamp, std::vector<HashSlot>& slots) {
  if (++stamp == 0) {
    for (auto& slot : slots) slot.stamp = 0;
    stamp = 1;
  }
}

}  // namespace

void IdTable::reset() {
  next_stamp(stamp_, slots_);
  size_ = 0;
}

void IdTable::grow() {
  std::vector<HashSlot> old(slots_.empty() ? kInitialCapacity : slots_.size() * 2);
  old.swap(slots_);
  const std::uint32_t old_stamp = stamp_;
  stamp_ = 1;
  for (const HashSlot& used : old)
    if (used.stamp == old_stamp) slots_[slot_of(used.key)] = {used.key, used.id, stamp_};
}

void StringInterner::reset() {
  next_stamp(stamp_, slots_);
  strings_.clear();
}

std::uint32_t StringInterner::probe(std::string_view text, std::uint64_t hash, bool insert) {
  if (insert && 2 * (strings_.size() + 1) > slots_.size()) {
    slots_.assign(slots_.empty() ? kInitialCapacity : slots_.size() * 2, HashSlot{});
    stamp_ = 1;
    const std::size_t mask = slots_.size() - 1;
    for (std::uint32_t id = 0; id < strings_.size(); ++id) {
      const std::uint64_t h = std::hash<std::string_view>{}(strings_[id]);
      std::size_t slot = spread(h, slots_.size());
      while (slots_[slot].stamp == stamp_) slot = (slot + 1) & mask;
      slots_[slot] = {h, id, stamp_};
    }
  }
  if (slots_.empty()) return kMissing;
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = spread(hash, slots_.size());
  while (slots_[slot].stamp == stamp_) {
    if (slots_[slot].key == hash && strings_[slots_[slot].id] == text) return slots_[slot].id;
    slot = (slot + 1) & mask;
  }
  if (!insert) return kMissing;
  const auto id = static_cast<std::uint32_t>(strings_.size());
  strings_.push_back(text);
  slots_[slot] = {hash, id, stamp_};
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
  const int orders = std::min<std::size_t>(max_order, n);
  std::size_t total = 0;
  for (int order = 1; order <= orders; ++order) total += n - static_cast<std::size_t>(order) + 1;
  // Room for every n-gram being new, so the loop below writes without checks; cut back after.
  if (table_.size() == 0) counts_.clear();
  counts_.resize(table_.size() + total, 0);
  last_ids_.resize(total);
  prefix_.assign(n, root);
  std::size_t added = 0;
  for (int order = 1; order <= orders; ++order) {
    const std::size_t count = n - static_cast<std::size_t>(order) + 1;
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t id = table_.insert(IdTable::key(prefix_[i], symbols[i + order - 1]));
      ++counts_[id];
      prefix_[i] = id;
      last_ids_[added++] = id;
    }
    ref_totals[order - 1] += static_cast<std::int64_t>(count);
  }
  counts_.resize(table_.size());
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
