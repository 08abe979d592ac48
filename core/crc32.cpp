#include "core/crc32.hpp"

#include <zlib.h>

#include <algorithm>

namespace invar {

std::uint32_t crc32_of(std::uint32_t crc, const std::byte* data, std::uint64_t size) {
  while (size > 0) {
    const auto chunk = static_cast<uInt>(std::min<std::uint64_t>(size, 1u << 30));
    crc = static_cast<std::uint32_t>(::crc32(crc, reinterpret_cast<const Bytef*>(data), chunk));
    data += chunk;
    size -= chunk;
  }
  return crc;
}

}  // namespace invar
