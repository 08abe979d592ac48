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

namespace invar {

enum class DType : std::uint8_t { F32, F16, BF16, I32, I64 };

std::size_t dtype_size(DType dtype);
const char* dtype_name(DType dtype);  // "F32", "F16", "BF16", "I32", "I64" (safetensors' names)
std::optional<DType> parse_dtype_name(std::string_view name);
bool is_floating(DType dtype);

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

// The binary16 / bfloat16 value nearest to `value`, ties to even, as torch's .half() and
// .bfloat16() round; overflow gives infinity, NaN stays a (quiet) NaN.
std::uint16_t f32_to_f16_bits(float value);
std::uint16_t f32_to_bf16_bits(float value);

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
