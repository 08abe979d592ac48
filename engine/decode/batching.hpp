#pragma once
// Batches for model commands: inputs of similar length go together so little padding is computed;
// the caller writes results back by original index, so output order is input order.
#include <cstddef>
#include <vector>

namespace invar {

// The indices 0..lengths.size()-1 in batches of at most batch_size (≥ 1), longest first; equal
// lengths keep input order, so the batching is deterministic.
std::vector<std::vector<std::size_t>> length_sorted_batches(const std::vector<std::size_t>& lengths,
                                                            std::size_t batch_size);

}  // namespace invar
