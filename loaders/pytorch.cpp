#include "loaders/pytorch.hpp"

#include "engine/error.hpp"

namespace invar {

void read_pytorch_checkpoint(const std::string& path, TensorSet& tensors) {
  fail("{}: reading pytorch_model.bin is not implemented yet; use model.safetensors", path);
}

}  // namespace invar
