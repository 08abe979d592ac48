#include "engine/decode/batching.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace invar {

std::vector<std::vector<std::size_t>> length_sorted_batches(const std::vector<std::size_t>& lengths,
                                                            std::size_t batch_size) {
  if (batch_size == 0) fail("batch size must be at least 1");
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lengths[a] > lengths[b]; });
  std::vector<std::vector<std::size_t>> batches;
  for (std::size_t begin = 0; begin < order.size(); begin += batch_size) {
    auto end = std::min(order.size(), begin + batch_size);
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(begin), order.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return batches;
}

}  // namespace invar
