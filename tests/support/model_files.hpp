#pragma once
// Builders for hand-made model files in tests: safetensors bytes from tensors, little-endian
// helpers, and Hugging Face folders around them.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace invar::test {

struct RawTensor {
  std::string name;
  std::string dtype;  // "F32", "F16", ...
  std::vector<std::int64_t> shape;
  std::string bytes;
};

inline std::string le64(std::uint64_t value) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xFF);
  return bytes;
}

template <typename T>
std::string bytes_of(const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// A safetensors file whose data follow in the given order; the header JSON is padded with spaces
// to `header_alignment` bytes, as the safetensors library pads it to 8.
inline std::string make_safetensors(const std::vector<RawTensor>& tensors, std::size_t header_alignment = 8) {
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  for (const auto& tensor : tensors) {
    header[tensor.name] = {{"dtype", tensor.dtype}, {"shape", tensor.shape},
                           {"data_offsets", {data.size(), data.size() + tensor.bytes.size()}}};
    data += tensor.bytes;
  }
  std::string text = header.dump();
  while (text.size() % header_alignment != 0) text += ' ';
  return le64(text.size()) + text + data;
}

// A safetensors file with a hand-written header (for malformed ones) followed by `data`.
inline std::string make_safetensors_raw(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}

// A folder holding config.json (a BERT config unless given) and the named files.
inline std::string make_model_folder(const std::vector<std::pair<std::string, std::string>>& files,
                                     const std::string& config = R"({"model_type": "bert"})") {
  const std::string dir = temp_dir();
  write_file(dir + "/config.json", config);
  for (const auto& [name, content] : files) write_file(dir + "/" + name, content);
  return dir;
}

// A copy of a model folder without the file `left_out`.
inline std::string copy_without(const std::string& folder, const std::string& left_out) {
  const std::string dir = temp_dir();
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().filename() != left_out)
      std::filesystem::copy(entry.path(), dir / entry.path().filename(), std::filesystem::copy_options::recursive);
  return dir;
}

// A copy of a model folder to spoil, weights as model.safetensors only.
inline std::string model_copy(const std::string& folder) { return copy_without(folder, "pytorch_model.bin"); }

// A copy of a model folder without its model.safetensors, so pytorch_model.bin is read.
inline std::string bin_only_copy(const std::string& folder) { return copy_without(folder, "model.safetensors"); }

// A copy of the model folder `fixture_folder` whose F32 tensor `tensor` in model.safetensors has
// `value` as its element `element` (the first unless given): a model with one poisoned weight.
inline std::string poisoned_copy(const std::string& fixture_folder, const std::string& tensor, float value,
                                 std::size_t element = 0) {
  const std::string dir = model_copy(fixture_folder);
  const std::string path = dir + "/model.safetensors";
  std::string bytes = read_file(path);
  std::uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) header_size |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  const auto header = nlohmann::json::parse(bytes.substr(8, header_size));
  const std::size_t offset =
      8 + header_size + header.at(tensor).at("data_offsets")[0].get<std::size_t>() + element * sizeof value;
  std::memcpy(bytes.data() + offset, &value, sizeof value);
  write_file(path, bytes);
  return dir;
}

}  // namespace invar::test
