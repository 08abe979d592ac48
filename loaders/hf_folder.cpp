// A Hugging Face model folder as save_pretrained (and sentence-transformers) write it.
#include <algorithm>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "core/io.hpp"
#include "loaders/model_files.hpp"
#include "loaders/pytorch.hpp"
#include "loaders/safetensors.hpp"
#include "loaders/sources.hpp"

namespace invar {

namespace {

namespace fs = std::filesystem;

nlohmann::json parse_json_file(const std::string& path) {
  try {
    return nlohmann::json::parse(read_whole_file(path));
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid JSON: {}", path, e.what());
  }
}

// Sharded checkpoints: {"weight_map": {tensor name: shard file}}. Returns the shard files in order.
std::vector<std::string> shard_files(const std::string& index_path) {
  const nlohmann::json index = parse_json_file(index_path);
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
    fail("{}: no 'weight_map' object", index_path);
  std::set<std::string> shards;
  for (const auto& [tensor, shard] : index["weight_map"].items()) {
    if (!shard.is_string()) fail("{}: weight_map entry '{}' is not a file name", index_path, tensor);
    check_relative_path(shard.get<std::string>(), index_path);
    shards.insert(shard.get<std::string>());
  }
  if (shards.empty()) fail("{}: 'weight_map' is empty", index_path);
  return {shards.begin(), shards.end()};
}

class HfFolderSource : public ModelSource {
 public:
  explicit HfFolderSource(std::string path) : path_(std::move(path)) {
    const std::string config_path = path_ + "/config.json";
    if (!fs::is_regular_file(config_path)) fail("{}: no config.json (not a Hugging Face model folder)", path_);
    config_ = parse_json_file(config_path);
    if (!config_.is_object()) fail("{}: not a JSON object", config_path);
    load_weights();
    for (auto it = fs::recursive_directory_iterator(path_); it != fs::recursive_directory_iterator(); ++it) {
      const std::string relative = fs::relative(it->path(), path_).generic_string();
      if (it->is_regular_file() && is_auxiliary_file(relative)) files_.push_back(relative);
    }
    std::sort(files_.begin(), files_.end());
  }

  const std::string& path() const override { return path_; }
  const nlohmann::json& config_json() const override { return config_; }
  bool has_file(const std::string& name) const override {
    check_relative_path(name, path_);
    return is_auxiliary_file(name) && fs::is_regular_file(path_ + "/" + name);
  }
  std::string read_file(const std::string& name) const override {
    if (!has_file(name)) fail("{}: no file '{}'", path_, name);
    return read_whole_file(path_ + "/" + name);
  }
  std::vector<std::string> file_names() const override { return files_; }
  std::vector<std::string> tensor_names() const override { return tensors_.names(); }
  bool has_tensor(const std::string& name) const override { return tensors_.has(name); }
  TensorData tensor(const std::string& name) const override { return tensors_.get(name, weights_path_); }
  TensorInfo tensor_info(const std::string& name) const override { return tensors_.info(name, weights_path_); }

 private:
  void load_weights() {
    for (const char* name : {"model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                             "pytorch_model.bin.index.json"}) {
      const std::string candidate = path_ + "/" + name;
      if (!fs::is_regular_file(candidate)) continue;
      weights_path_ = candidate;
      const std::string file = name;
      const bool safetensors = file.starts_with("model.safetensors");
      const auto read = [&](const std::string& weights) {
        if (safetensors) {
          read_safetensors(weights, tensors_);
        } else {
          read_pytorch_checkpoint(weights, tensors_);
        }
      };
      if (file.ends_with(".index.json")) {
        for (const auto& shard : shard_files(candidate)) read(path_ + "/" + shard);
      } else {
        read(candidate);
      }
      return;
    }
    fail("{}: no weights (model.safetensors, pytorch_model.bin, or their sharded .index.json)", path_);
  }

  std::string path_;
  std::string weights_path_;
  nlohmann::json config_;
  TensorSet tensors_;
  std::vector<std::string> files_;
};

}  // namespace

bool is_auxiliary_file(const std::string& relative) {
  const fs::path path(relative);
  for (const auto& part : path)
    if (part.string().starts_with(".")) return false;  // .git, .gitattributes, caches
  const std::string name = path.filename().string();
  const std::string extension = path.extension().string();
  // Weights, in any framework's format: they are read as tensors, never as files.
  if (name.starts_with("model.safetensors") || name.starts_with("pytorch_model") || extension == ".safetensors" ||
      extension == ".bin" || extension == ".h5" || extension == ".msgpack" || extension == ".ot" ||
      extension == ".onnx" || extension == ".pt" || extension == ".pth" || extension == ".ckpt" ||
      extension == ".gguf")
    return false;
  return true;
}

void check_relative_path(const std::string& name, const std::string& where) {
  if (name.empty() || name.front() == '/' || name.find('\0') != std::string::npos || name.find('\\') != std::string::npos)
    fail("{}: '{}' is not a relative path inside the model", where, name);
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    if (name.compare(start, end - start, "..") == 0 && end - start == 2)
      fail("{}: '{}' points outside the model", where, name);
    start = end + 1;
  }
}

std::unique_ptr<ModelSource> open_hf_folder(const std::string& path) { return std::make_unique<HfFolderSource>(path); }

}  // namespace invar
