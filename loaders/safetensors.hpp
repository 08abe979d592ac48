#pragma once
// safetensors files (https://github.com/huggingface/safetensors): an 8-byte little-endian header
// length N, N bytes of JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__":
// {...}}, then the tensor bytes, offsets relative to the end of the header. Every field is
// validated against the file before any tensor byte is read.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loaders/mapped_file.hpp"
#include "loaders/model_source.hpp"
#include "loaders/tensor_set.hpp"

namespace invar {

struct SafetensorsEntry {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // byte range relative to data_start
};

struct SafetensorsHeader {
  std::uint64_t data_start = 0;  // 8 + N
  std::vector<SafetensorsEntry> tensors;  // in the order of their data
  nlohmann::json metadata = nlohmann::json::object();  // "__metadata__", string to string
};

// Parses the header of a safetensors file whose whole content is [bytes, bytes + size) and checks
// it: header length within the file, JSON object, known dtypes, shapes whose byte size equals the
// data range, ranges inside the file and not overlapping. Fails with a one-line message that
// starts with `where`.
SafetensorsHeader parse_safetensors_header(const std::byte* bytes, std::size_t size, const std::string& where);

// Maps a safetensors file and registers its tensors (views into the mapping) in `tensors`.
void read_safetensors(const std::string& path, TensorSet& tensors);

}  // namespace invar
