#pragma once
// PyTorch checkpoints (pytorch_model.bin): a zip archive of "<prefix>/data.pkl", the pickled state
// dict, and "<prefix>/data/<key>", the raw storages. The pickle is read by a restricted
// unpickler that knows only what torch.save emits for a state dict and executes nothing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loaders/tensor_set.hpp"

namespace invar {

// One entry of a pickled state dict: torch._utils._rebuild_tensor_v2(storage, offset, size,
// stride, ...) with the storage given by its persistent id ('storage', <dtype>Storage, key,
// location, numel). Offsets, sizes and strides count elements, as torch does.
struct PickledTensor {
  std::string name;
  std::string storage_key;      // the zip entry "<prefix>/data/<key>"
  DType dtype = DType::F32;
  std::int64_t storage_numel = 0;
  std::int64_t offset = 0;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> stride;
};

// Reads a state dict pickle ([bytes, bytes + size), protocol 2 as torch.save writes it, or up to
// protocol 5 with the same objects). Only collections.OrderedDict, torch._utils._rebuild_tensor_v2
// and the torch.{Float,Half,BFloat16,Long,Int}Storage classes may be named; anything else fails
// naming the global. Fails with a one-line message starting with `where` on any malformed input.
std::vector<PickledTensor> parse_state_dict_pickle(const std::byte* bytes, std::size_t size,
                                                   const std::string& where);

// Reads every tensor of the checkpoint into `tensors` (the storages are read into buffers the set
// owns; strided views are copied out contiguously). Fails with a one-line message naming the file
// on anything unexpected: a missing data.pkl or storage, a storage key that is not a plain name, a
// storage whose entry size disagrees with the pickle, a tensor reaching past its storage.
void read_pytorch_checkpoint(const std::string& path, TensorSet& tensors);

}  // namespace invar
