#pragma once
// Batches for model commands: inputs of similar length go together so little padding is computed;
// the caller writes results back by original index, so output order is input order.
#include <cstddef>
#include <vector>

namespace invar {

// The indices 0..lengths.size()-1 in batches of at most batch_size (≥ 1), longest first; equal
// lengths keep input order, so the batching is deterministic. With max_tokens > 0 a batch also
// holds at most max_tokens padded tokens (its longest length × its size), so batches of short
// inputs are large and batches of long ones small; an input longer than max_tokens is a batch alone.
std::vector<std::vector<std::size_t>> length_sorted_batches(const std::vector<std::size_t>& lengths,
                                                            std::size_t batch_size, std::size_t max_tokens = 0);

}  // namespace invar
