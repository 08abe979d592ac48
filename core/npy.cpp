#include "core/npy.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/io.hpp"

namespace invar {

// Magic, header length, a Python dict literal padded to 64 bytes, data.
void write_npy(const std::string& path, const std::vector<std::vector<float>>& rows, std::size_t width) {
  std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", rows.size(), width);
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  AtomicOutput out(path);
  std::ostream& stream = out.stream();
  stream.write("\x93NUMPY\x01\x00", 8);
  const std::uint16_t size = static_cast<std::uint16_t>(header.size());
  const char size_bytes[2] = {static_cast<char>(size & 0xFF), static_cast<char>(size >> 8)};
  stream.write(size_bytes, 2);
  stream << header;
  for (const auto& row : rows) stream.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size() * sizeof(float)));
  out.commit();
}

}  // namespace invar
