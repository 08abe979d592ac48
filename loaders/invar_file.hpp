#pragma once
// The .invar model file (docs/model-format.md): one self-contained, memory-mappable file holding a
// model's config.json, its auxiliary files and its tensors, with a CRC-32 of each part and an XXH3
// hash of each block of the data.
#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>

#include "loaders/model_source.hpp"

namespace invar {

inline constexpr char kInvarMagic[8] = {'I', 'N', 'V', 'A', 'R', 'M', 'D', 'L'};
inline constexpr std::uint32_t kInvarVersion = 1;
inline constexpr std::uint64_t kInvarAlignment = 64;
inline constexpr std::uint64_t kInvarPreambleBytes = 64;
// The data section's blocks, each with its own XXH3 hash in the header: a reader checks the blocks
// a tensor, a file or a table's row lies in when it first reads them, instead of the whole file's
// CRC at open (docs/model-format.md).
inline constexpr std::uint64_t kInvarBlockBytes = std::uint64_t{1} << 18;

// Writes every auxiliary file and tensor of `source` as an .invar file to `out`. With `float_dtype`,
// floating tensors are converted to it (rounding to nearest, ties to even) and I8 ones dequantized
// to it; integer tensors and, without it, every tensor keep their stored dtype. The floating
// matrices named in `int8_tensors` are stored as I8 with their per-row scales (core/quantize.hpp),
// which excludes `float_dtype`. Fails naming the source on anything unreadable.
void write_invar_file(const ModelSource& source, std::ostream& out, std::optional<DType> float_dtype,
                      const std::set<std::string>& int8_tensors = {});

}  // namespace invar
