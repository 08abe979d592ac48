// libFuzzer target: pytorch_model.bin through the zip layer, the unpickler and tensor
// materialisation (storages read, strided views copied out, values converted), as a model folder
// reads it. The first input byte picks the mode: even, the rest is the whole .bin file (mutating
// the zip structure; libzip checks every entry's CRC, so a mutated pickle rarely gets through);
// odd, the rest is data.pkl, which the target packs into a checkpoint with a storage of the size
// the pickle declares for each key (one element short with bit 1 set), so the pickle's offsets,
// sizes and strides reach materialisation. Any bytes must be accepted or rejected with an
// invar::Error: never a crash, hang, leak or another exception.
#include <zip.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "loaders/model_source.hpp"
#include "loaders/pytorch.hpp"
#include "loaders/tensor_set.hpp"

namespace {

// Storages larger than this are not synthesised (the pickle may declare any size).
constexpr std::uint64_t kMaxStorageBytes = 1 << 20;

// Packs data.pkl and its storages as torch.save does: entries "archive/data.pkl" and
// "archive/data/<key>", stored uncompressed. False when the pickle is unusable for that.
bool pack(const std::string& path, std::string_view pickle, bool short_storages) {
  std::vector<invar::PickledTensor> tensors;
  try {
    tensors = invar::parse_state_dict_pickle(reinterpret_cast<const std::byte*>(pickle.data()), pickle.size(), "fuzz");
  } catch (const invar::Error&) {
    return false;
  }
  std::map<std::string, std::string> entries{{"archive/data.pkl", std::string(pickle)}};
  for (const auto& tensor : tensors) {
    const std::uint64_t element = invar::dtype_size(tensor.dtype);
    if (tensor.storage_numel < 0) return false;
    const std::uint64_t numel = static_cast<std::uint64_t>(tensor.storage_numel) - (short_storages && tensor.storage_numel > 0);
    if (numel > kMaxStorageBytes / element) return false;
    // Bytes of 0x3c: finite values in every floating dtype.
    entries["archive/data/" + tensor.storage_key] = std::string(numel * element, '\x3c');
  }
  int error = 0;
  zip_t* zip = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (!zip) std::abort();
  for (const auto& [name, content] : entries) {
    // libzip refuses some names a pickle may hold (the reader refuses them too, from the .bin mode).
    zip_source_t* source = zip_source_buffer(zip, content.data(), content.size(), 0);
    const zip_int64_t index = source ? zip_file_add(zip, name.c_str(), source, ZIP_FL_ENC_UTF_8) : -1;
    if (index < 0) zip_source_free(source);
    if (index < 0 || zip_set_file_compression(zip, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0) != 0) {
      zip_discard(zip);
      return false;
    }
  }
  if (zip_close(zip) != 0) std::abort();
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = invar::fuzz::scratch() + "/pytorch_model.bin";
  const std::string_view rest = invar::fuzz::as_text(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    invar::fuzz::write_file(path, rest);
  } else if (!pack(path, rest, (data[0] & 2) != 0)) {
    return 0;
  }
  try {
    invar::TensorSet tensors;
    invar::read_pytorch_checkpoint(path, tensors);
    for (const auto& name : tensors.names()) {
      const invar::TensorData& tensor = tensors.get(name, path);
      const std::size_t expected = invar::checked_nbytes(tensor.shape, tensor.dtype, path, name);
      if (tensor.nbytes != expected || (tensor.nbytes > 0 && !tensor.data)) __builtin_trap();
      if (invar::is_floating(tensor.dtype)) invar::to_f32(tensor);
    }
  } catch (const invar::Error&) {
  }
  return 0;
}
