#pragma once
// Where a model's files and weights come from: a Hugging Face folder (safetensors or
// pytorch_model.bin, possibly sharded) or an .invar file. Tensors keep their Hugging Face names as
// stored; the per-family tables in models/ map them to the engine's canonical names.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"

namespace invar {

// A read-only view of one stored tensor. `data` points into a memory-mapped file (or a buffer the
// source owns) and stays valid for the source's lifetime.
struct TensorData {
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  const std::byte* data = nullptr;
  std::size_t nbytes = 0;

  std::int64_t numel() const;
};

// Converts any floating dtype to float32 (F16 and BF16 exactly; F32 copied).
std::vector<float> to_f32(const TensorData& tensor);

class ModelSource {
 public:
  virtual ~ModelSource() = default;

  // Opens a Hugging Face folder or an .invar file; fails with a message naming the path.
  static std::unique_ptr<ModelSource> open(const std::string& path);

  virtual const std::string& path() const = 0;
  virtual const nlohmann::json& config() const = 0;  // config.json as stored
  // Auxiliary files by relative path: tokenizer files, modules.json, 1_Pooling/config.json, ...
  virtual bool has_file(const std::string& name) const = 0;
  virtual std::string read_file(const std::string& name) const = 0;
  virtual std::vector<std::string> file_names() const = 0;
  virtual std::vector<std::string> tensor_names() const = 0;
  virtual bool has_tensor(const std::string& name) const = 0;
  virtual TensorData tensor(const std::string& name) const = 0;
};

}  // namespace invar
