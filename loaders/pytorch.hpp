#pragma once
// PyTorch checkpoints (pytorch_model.bin): a zip archive of "<prefix>/data.pkl", the pickled state
// dict, and "<prefix>/data/<key>", the raw storages. The pickle is read by a restricted
// unpickler that knows only what torch.save emits for a state dict and executes nothing.
#include <string>

#include "loaders/tensor_set.hpp"

namespace invar {

// Reads every tensor of the checkpoint into `tensors` (the storages are read into buffers the set
// owns). Fails with a one-line message naming the file on anything unexpected.
void read_pytorch_checkpoint(const std::string& path, TensorSet& tensors);

}  // namespace invar
