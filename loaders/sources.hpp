#pragma once
// The concrete model sources behind ModelSource::open.
#include <memory>
#include <string>

#include "loaders/model_source.hpp"

namespace invar {

// A Hugging Face folder: config.json, auxiliary files, and weights from model.safetensors,
// model.safetensors.index.json, pytorch_model.bin or pytorch_model.bin.index.json (first present).
std::unique_ptr<ModelSource> open_hf_folder(const std::string& path);

// An .invar model file (docs/model-format.md).
std::unique_ptr<ModelSource> open_invar_file(const std::string& path);

}  // namespace invar
