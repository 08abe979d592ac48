#include "loaders/safetensors.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"

namespace invar {

namespace {

// safetensors' own reader refuses headers above 100 MB; so do we, before parsing.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

DType parse_dtype(const std::string& name, const std::string& where, const std::string& tensor) {
  // I8 is invar's quantized matrix, which needs scales that only an .invar file stores.
  if (const auto dtype = parse_dtype_name(name); dtype && *dtype != DType::I8) return *dtype;
  fail("{}: tensor '{}' has dtype '{}'; invar reads F32, F16, BF16, I32 and I64", where, tensor, name);
}

std::uint64_t unsigned_field(const nlohmann::json& value, const std::string& where, const std::string& tensor,
                             const char* field) {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
    fail("{}: tensor '{}': '{}' must hold non-negative integers", where, tensor, field);
  return value.get<std::uint64_t>();
}

SafetensorsEntry parse_entry(const std::string& name, const nlohmann::json& value, std::uint64_t data_size,
                             const std::string& where) {
  if (!value.is_object()) fail("{}: tensor '{}' is not described by an object", where, name);
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!value.contains(field)) fail("{}: tensor '{}' has no '{}'", where, name, field);
  const auto& dtype = value["dtype"];
  const auto& shape = value["shape"];
  const auto& offsets = value["data_offsets"];
  if (!dtype.is_string()) fail("{}: tensor '{}': 'dtype' must be a string", where, name);
  if (!shape.is_array()) fail("{}: tensor '{}': 'shape' must be an array", where, name);
  if (!offsets.is_array() || offsets.size() != 2)
    fail("{}: tensor '{}': 'data_offsets' must be [begin, end]", where, name);

  SafetensorsEntry entry;
  entry.name = name;
  entry.dtype = parse_dtype(dtype.get<std::string>(), where, name);
  for (const auto& size : shape) {
    const std::uint64_t dim = unsigned_field(size, where, name, "shape");
    if (dim > (std::uint64_t{1} << 62)) fail("{}: tensor '{}' has an impossible dimension {}", where, name, dim);
    entry.shape.push_back(static_cast<std::int64_t>(dim));
  }
  entry.begin = unsigned_field(offsets[0], where, name, "data_offsets");
  entry.end = unsigned_field(offsets[1], where, name, "data_offsets");
  if (entry.begin > entry.end)
    fail("{}: tensor '{}': data_offsets [{}, {}] run backwards", where, name, entry.begin, entry.end);
  if (entry.end > data_size)
    fail("{}: tensor '{}': data_offsets [{}, {}] run past the end of the file ({} data bytes)", where, name,
         entry.begin, entry.end, data_size);
  const std::size_t expected = checked_nbytes(entry.shape, entry.dtype, where, "tensor '" + name + "'");
  if (entry.end - entry.begin != expected)
    fail("{}: tensor '{}': {} {} needs {} bytes but data_offsets [{}, {}] hold {}", where, name,
         dtype_name(entry.dtype), nlohmann::json(entry.shape).dump(), expected, entry.begin, entry.end,
         entry.end - entry.begin);
  return entry;
}

}  // namespace

SafetensorsHeader parse_safetensors_header(const std::byte* bytes, std::size_t size, const std::string& where) {
  if (size < 8) fail("{}: truncated safetensors file: {} bytes, too short for the header length", where, size);
  std::uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | static_cast<std::uint8_t>(bytes[i]);
  if (header_size > size - 8)
    fail("{}: truncated safetensors header: it declares {} bytes but the file has {} after the length", where,
         header_size, size - 8);
  if (header_size > kMaxHeaderBytes) fail("{}: safetensors header of {} bytes is too large", where, header_size);

  const char* text = reinterpret_cast<const char*>(bytes + 8);
  // The header nests at most three deep ({name: {"shape": [..]}}); refusing deeper input keeps
  // hostile headers from costing more than their size.
  const nlohmann::json::parser_callback_t depth_limit = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > 3) fail("{}: safetensors header nests deeper than a safetensors header can", where);
    return true;
  };
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, text + header_size, depth_limit);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: safetensors header is not valid JSON: {}", where, e.what());
  }
  if (!header.is_object()) fail("{}: safetensors header is not a JSON object", where);

  SafetensorsHeader result;
  result.data_start = 8 + header_size;
  const std::uint64_t data_size = size - result.data_start;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) fail("{}: '__metadata__' is not an object", where);
      for (const auto& [key, item] : value.items())
        if (!item.is_string()) fail("{}: '__metadata__' entry '{}' is not a string", where, key);
      result.metadata = value;
      continue;
    }
    result.tensors.push_back(parse_entry(name, value, data_size, where));
  }
  std::sort(result.tensors.begin(), result.tensors.end(),
            [](const auto& a, const auto& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  for (std::size_t i = 1; i < result.tensors.size(); ++i) {
    const auto& previous = result.tensors[i - 1];
    const auto& current = result.tensors[i];
    if (current.begin < previous.end)
      fail("{}: tensors '{}' [{}, {}] and '{}' [{}, {}] overlap", where, previous.name, previous.begin, previous.end,
           current.name, current.begin, current.end);
  }
  return result;
}

void read_safetensors(const std::string& path, TensorSet& tensors) {
  auto file = MappedFile::open(path);
  const SafetensorsHeader header = parse_safetensors_header(file->data(), file->size(), path);
  for (const auto& entry : header.tensors) {
    TensorData tensor;
    tensor.dtype = entry.dtype;
    tensor.shape = entry.shape;
    tensor.data = file->data() + header.data_start + entry.begin;
    tensor.nbytes = entry.end - entry.begin;
    tensors.add(entry.name, std::move(tensor), path);
  }
  tensors.keep(std::move(file));
}

}  // namespace invar
