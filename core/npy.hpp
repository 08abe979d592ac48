#pragma once
// NumPy's .npy format 1.0 (`invar embed --output-format npy`): one float32 matrix, little-endian,
// C order.
#include <string>
#include <vector>

namespace invar {

// Writes `rows` (each `width` values) to `path` atomically ("-" = standard output).
void write_npy(const std::string& path, const std::vector<std::vector<float>>& rows, std::size_t width);

}  // namespace invar
