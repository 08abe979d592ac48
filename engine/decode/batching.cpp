#include "engine/decode/batching.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace invar {

std::vector<std::vector<std::size_t>> length_sorted_batches(const std::vector<std::size_t>& lengths,
                                                            std::size_t batch_size, std::size_t max_tokens) {
  if (batch_size == 0) fail("batch size must be at least 1");
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lengths[a] > lengths[b]; });
  std::vector<std::vector<std::size_t>> batches;
  for (std::size_t begin = 0, size = 0; begin < order.size(); begin += size) {
    // Longest first: the batch's first input sets its padded length.
    const std::size_t longest = std::max<std::size_t>(lengths[order[begin]], 1);
    size = max_tokens > 0 ? std::clamp<std::size_t>(max_tokens / longest, 1, batch_size) : batch_size;
    const auto end = std::min(order.size(), begin + size);
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(begin), order.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return batches;
}

}  // namespace invar
