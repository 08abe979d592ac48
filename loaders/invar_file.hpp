#pragma once
// The .invar model file (docs/model-format.md): one self-contained, memory-mappable file holding a
// model's config.json, its auxiliary files and its tensors, with CRC-32 checksums.
#include <cstdint>
#include <optional>
#include <ostream>

#include "loaders/model_source.hpp"

namespace invar {

inline constexpr char kInvarMagic[8] = {'I', 'N', 'V', 'A', 'R', 'M', 'D', 'L'};
inline constexpr std::uint32_t kInvarVersion = 1;
inline constexpr std::uint64_t kInvarAlignment = 64;
inline constexpr std::uint64_t kInvarPreambleBytes = 64;

// Writes every auxiliary file and tensor of `source` as an .invar file to `out`. With `float_dtype`,
// floating tensors are converted to it (rounding to nearest, ties to even); integer tensors and,
// without it, every tensor keep their stored dtype. Fails naming the source on anything unreadable.
void write_invar_file(const ModelSource& source, std::ostream& out, std::optional<DType> float_dtype);

}  // namespace invar
