#pragma once
// zlib's CRC-32 (ISO-HDLC, the one of zip and PNG): the checksum of .invar model files
// (docs/model-format.md) and of the chunks of run files (run/run_file.hpp).
#include <cstddef>
#include <cstdint>

namespace invar {

// The CRC of `size` bytes at `data`, continuing from `crc` (0 to start), for any size.
std::uint32_t crc32_of(std::uint32_t crc, const std::byte* data, std::uint64_t size);
inline std::uint32_t crc32_of(const std::byte* data, std::uint64_t size) { return crc32_of(0, data, size); }

}  // namespace invar
