#pragma once
// Where a model's files and weights come from: a Hugging Face folder (safetensors or
// pytorch_model.bin, possibly sharded) or an .invar file. Tensors keep their Hugging Face names as
// stored; the per-family tables in models/ map them to the engine's canonical names.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/tensor_data.hpp"

namespace invar {

// What loading does with a floating weight that holds NaN or infinity: such a model computes
// NaN for every input, so it is refused unless the user asks only to be warned.
enum class NonFinite { Refuse, Warn };

// Which files a model's tokenizer is read from: tokenizer.json where the folder has one (the fast
// tokenizer, which AutoTokenizer loads by default) and the slow files otherwise; only
// tokenizer.json; or only the slow tokenizer's files (vocab.txt, spiece.model, vocab.json, ...).
enum class TokenizerChoice { Auto, Json, Slow };

class ModelSource {
 public:
  virtual ~ModelSource() = default;

  // Opens a Hugging Face folder or an .invar file; fails with a message naming the path.
  static std::unique_ptr<ModelSource> open(const std::string& path);

  virtual const std::string& path() const = 0;
  virtual const nlohmann::json& config_json() const = 0;  // config.json as stored
  // Auxiliary files by relative path: tokenizer files, modules.json, 1_Pooling/config.json, ...
  virtual bool has_file(const std::string& name) const = 0;
  virtual std::string read_file(const std::string& name) const = 0;
  virtual std::vector<std::string> file_names() const = 0;
  virtual std::vector<std::string> tensor_names() const = 0;
  virtual bool has_tensor(const std::string& name) const = 0;
  // The tensor's bytes, every one of them checked against the source's checksums where it has
  // them (an .invar file's blocks) before they are handed out.
  virtual TensorData tensor(const std::string& name) const = 0;
  // The tensor's bytes unchecked, for a table that is read a few rows at a time (an embedding):
  // check_rows() must pass for the rows before they are read. Reading a 768 MB embedding table
  // whole at load, for its checksums and its NaN scan, was most of the start-up of a base model.
  virtual TensorData table(const std::string& name) const { return tensor(name); }
  // The tensor's dtype and shape, for checks made before its bytes are needed (a strided view in a
  // pytorch_model.bin is copied out only when tensor() first asks for it).
  virtual TensorInfo tensor_info(const std::string& name) const {
    const TensorData data = tensor(name);
    return {data.dtype, data.shape};
  }

  void set_non_finite(NonFinite policy) { non_finite_ = policy; }
  void set_tokenizer_choice(TokenizerChoice choice) { tokenizer_choice_ = choice; }
  TokenizerChoice tokenizer_choice() const { return tokenizer_choice_; }
  // Fails naming the tensor (Refuse), or warns once per tensor on stderr (Warn), when the floating
  // tensor `name` holds NaN or infinity. Integer tensors pass, and so do tensors the source vouches
  // for (verified_finite).
  void check_finite(const std::string& name, const TensorData& tensor) const;
  // The same checks for rows `rows` of the [rows, ...] table `name` as table() gave it, each row
  // once: its bytes against the source's checksums, then its values as check_finite's (failing,
  // or warning once per tensor, naming the tensor and the row). Any thread may call it.
  void check_rows(const std::string& name, const TensorData& table, std::span<const std::int32_t> rows) const;
  // Checks every byte of the model against the source's checksums (`invar info`); a folder has none.
  virtual void verify_all() const {}

 protected:
  // Whether the tensor `name` is known to hold no NaN or infinity without reading it: an .invar
  // file records the check `invar convert` made, and its data CRC or block hashes, checked before
  // the bytes are used, prove them unchanged since.
  virtual bool verified_finite(const std::string& /*name*/) const { return false; }
  // Checks [data, data + size), bytes of the tensor `name`, against the source's checksums, failing
  // naming it; a source without checksums has nothing to check.
  virtual void verify_bytes(const std::string& /*name*/, const std::byte* /*data*/, std::size_t /*size*/) const {}

 private:
  // Fails or warns as the policy says when `found` values of `name` (at `where`) are not finite.
  void report_non_finite(const std::string& name, std::size_t found, const std::string& where) const;

  NonFinite non_finite_ = NonFinite::Refuse;
  TokenizerChoice tokenizer_choice_ = TokenizerChoice::Auto;
  mutable std::mutex mutex_;  // guards what follows: the commands' threads may share a source
  mutable std::set<std::string> checked_;
  mutable std::set<std::string> warned_;
  mutable std::map<std::string, std::vector<bool>> checked_rows_;  // by table: rows check_rows passed
};

// How many values of a floating tensor are NaN or infinite (by their exponent bits); 0 for an
// integer or I8 tensor.
std::size_t count_non_finite(const TensorData& tensor);

}  // namespace invar
