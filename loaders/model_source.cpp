#include "loaders/model_source.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/printable.hpp"
#include "loaders/sources.hpp"
#include "loaders/tensor_set.hpp"

namespace invar {

namespace {

// Non-finite values by their exponent bits (all ones), without converting to float.
template <typename Bits>
std::size_t count_non_finite(const std::byte* data, std::size_t count, Bits exponent) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < count; ++i) {
    Bits bits;
    std::memcpy(&bits, data + i * sizeof(Bits), sizeof(Bits));
    found += (bits & exponent) == exponent;
  }
  return found;
}

}  // namespace

std::size_t count_non_finite(const TensorData& tensor) {
  const std::size_t count = tensor.nbytes / dtype_size(tensor.dtype);
  switch (tensor.dtype) {
    case DType::F32: return count_non_finite<std::uint32_t>(tensor.data, count, 0x7F800000u);
    case DType::F16: return count_non_finite<std::uint16_t>(tensor.data, count, 0x7C00u);
    case DType::BF16: return count_non_finite<std::uint16_t>(tensor.data, count, 0x7F80u);
    case DType::I8:  // its scales were checked when the file was read
    case DType::I32:
    case DType::I64: return 0;
  }
  return 0;
}

void ModelSource::report_non_finite(const std::string& name, std::size_t found, const std::string& where) const {
  if (found == 0) return;
  if (non_finite_ == NonFinite::Refuse)
    fail("{}: weight '{}'{} holds {} non-finite value{} (NaN or infinity): the file is damaged or the model diverged "
         "in training (--allow-non-finite loads it anyway)", path(), name, where, found, found == 1 ? "" : "s");
  if (warned_.insert(name).second)
    warn(fmt::format("{}: weight '{}'{} holds {} non-finite value{} (NaN or infinity)", path(), printable(name), where,
                     found, found == 1 ? "" : "s"));
}

void ModelSource::check_finite(const std::string& name, const TensorData& tensor) const {
  std::lock_guard lock(mutex_);
  if (!checked_.insert(name).second || verified_finite(name)) return;
  report_non_finite(name, count_non_finite(tensor), "");
}

void ModelSource::check_rows(const std::string& name, const TensorData& table, std::span<const std::int32_t> rows) const {
  if (table.shape.empty() || table.shape[0] == 0) return;
  const auto count = static_cast<std::size_t>(table.shape[0]);
  const std::size_t row_bytes = table.nbytes / count;
  std::lock_guard lock(mutex_);
  const bool finite = checked_.count(name) != 0 || verified_finite(name);
  std::vector<bool>& done = checked_rows_[name];
  done.resize(count);
  for (const std::int32_t row : rows) {
    // An id outside the table is the caller's to refuse (gather_rows); it has no bytes to check.
    if (row < 0 || static_cast<std::size_t>(row) >= count || done[static_cast<std::size_t>(row)]) continue;
    const TensorData bytes{table.dtype, {1}, table.data + static_cast<std::size_t>(row) * row_bytes, row_bytes};
    verify_bytes(name, bytes.data, bytes.nbytes);
    if (!finite) report_non_finite(name, count_non_finite(bytes), fmt::format(" row {}", row));
    done[static_cast<std::size_t>(row)] = true;
  }
}

void TensorSet::add(const std::string& name, TensorData tensor, const std::string& where) {
  if (tensors_.count(name)) fail("{}: tensor '{}' is stored twice", where, name);
  const std::size_t alignment = dtype_size(tensor.dtype);
  if (tensor.nbytes > 0 && reinterpret_cast<std::uintptr_t>(tensor.data) % alignment != 0) {
    auto copy = std::make_shared<std::vector<std::uint64_t>>((tensor.nbytes + 7) / 8);
    std::memcpy(copy->data(), tensor.data, tensor.nbytes);
    tensor.data = reinterpret_cast<const std::byte*>(copy->data());
    keep(std::move(copy));
  }
  tensors_.emplace(name, Entry{std::move(tensor), nullptr});
}

void TensorSet::add_copied_on_use(const std::string& name, TensorData tensor, CopyOut copy_out,
                                  const std::string& where) {
  if (tensors_.count(name)) fail("{}: tensor '{}' is stored twice", where, name);
  tensors_.emplace(name, Entry{std::move(tensor), std::move(copy_out)});
}

TensorSet::Entry& TensorSet::entry(const std::string& name, const std::string& where) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) fail("{}: no tensor named '{}'", where, name);
  return it->second;
}

const TensorData& TensorSet::get(const std::string& name, const std::string& where) const {
  auto& [tensor, copy_out] = entry(name, where);
  if (copy_out) {
    std::shared_ptr<const std::vector<std::uint64_t>> bytes;
    try {
      bytes = copy_out();
    } catch (const std::bad_alloc&) {
      fail("{}: out of memory copying out tensor '{}' ({} bytes)", where, name, tensor.nbytes);
    }
    tensor.data = reinterpret_cast<const std::byte*>(bytes->data());
    owners_.push_back(std::move(bytes));
    copy_out = nullptr;
  }
  return tensor;
}

TensorInfo TensorSet::info(const std::string& name, const std::string& where) const {
  const TensorData& tensor = entry(name, where).tensor;
  return {tensor.dtype, tensor.shape};
}

std::vector<std::string> TensorSet::names() const {
  std::vector<std::string> names;
  names.reserve(tensors_.size());
  for (const auto& [name, tensor] : tensors_) names.push_back(name);
  return names;
}

std::size_t checked_nbytes(const std::vector<std::int64_t>& shape, DType dtype, const std::string& where,
                           const std::string& what) {
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 62;
  std::uint64_t bytes = dtype_size(dtype);
  for (std::int64_t size : shape) {
    if (size < 0) fail("{}: {} has a negative dimension ({})", where, what, size);
    if (size != 0 && bytes > kLimit / static_cast<std::uint64_t>(size))
      fail("{}: {} is impossibly large (its shape overflows)", where, what);
    bytes *= static_cast<std::uint64_t>(size);
  }
  return static_cast<std::size_t>(bytes);
}

std::unique_ptr<ModelSource> ModelSource::open(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status)) fail("{}: no such model folder or file", path);
  try {
    if (std::filesystem::is_directory(status)) return open_hf_folder(path);
    return open_invar_file(path);
  } catch (const std::bad_alloc&) {
    fail("{}: out of memory while reading the model", path);
  }
}

}  // namespace invar
