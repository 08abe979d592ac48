#include "engine/model_weights.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"

namespace invar {

namespace {

std::vector<std::int64_t> dims_of(const Shape& shape) {
  return std::vector<std::int64_t>(shape.dims.begin(), shape.dims.begin() + shape.rank);
}

// add(), with a failure (out of device memory, a value beyond half precision) naming the weight.
template <typename Add>
Tensor named(const std::string& path, const std::string& weight, Add add) {
  try {
    return add();
  } catch (const Error& e) {
    fail("{}: weight '{}': {}", path, weight, e.what());
  }
}

// Matrices of equal width stacked along the rows as one Matrix. I8 parts (an int8 .invar file) stay
// I8 with their scales: quantization is per row, so an int8 store packs exactly what it makes of
// the f32 parts stacked; any other parts are stacked in F32.
Tensor add_stacked(WeightStore& store, const std::vector<TensorData>& parts) {
  const std::int64_t cols = parts.front().shape[1];
  std::int64_t rows = 0;
  for (const auto& part : parts) rows += part.shape[0];
  const bool int8 = std::all_of(parts.begin(), parts.end(), [](const TensorData& p) { return p.dtype == DType::I8; });
  if (!int8) {
    // F32 parts are copied straight into place: through to_f32's own copy first, a base model's
    // q, k and v took a tenth of its start-up in memmove and fresh pages.
    std::vector<float> values(static_cast<std::size_t>(rows * cols));
    float* at = values.data();
    for (const auto& part : parts) {
      if (part.dtype == DType::F32) {
        std::memcpy(at, part.data, part.nbytes);
      } else {
        const auto part_values = to_f32(part);
        std::copy(part_values.begin(), part_values.end(), at);
      }
      at += part.shape[0] * cols;
    }
    return store.add(values, Shape{rows, cols}, WeightUse::Matrix);
  }
  std::vector<std::byte> q;
  std::vector<float> scales;
  for (const auto& part : parts) {
    q.insert(q.end(), part.data, part.data + part.nbytes);
    scales.insert(scales.end(), part.scales, part.scales + part.shape[0]);
  }
  return store.add(TensorData{DType::I8, {rows, cols}, q.data(), q.size(), scales.data()}, WeightUse::Matrix);
}

}  // namespace

ModelWeights::ModelWeights(const ModelSource& source, Backend& backend, std::vector<WeightName> names)
    : source_(source), names_(std::move(names)), store_(backend.make_weight_store()) {
  for (std::size_t i = 0; i < names_.size(); ++i) index_[names_[i].canonical] = i;
}

bool ModelWeights::listed(const std::string& canonical) const { return index_.count(canonical) != 0; }

bool ModelWeights::stored(const std::string& canonical) const { return listed(canonical) && find(canonical) != nullptr; }

const WeightName& ModelWeights::name(const std::string& canonical) const {
  const auto it = index_.find(canonical);
  if (it == index_.end()) fail_internal("no weight named {}", canonical);
  return names_[it->second];
}

const std::string* ModelWeights::find(const std::string& canonical) const {
  for (const auto& stored : name(canonical).stored)
    if (source_.has_tensor(stored)) return &stored;
  return nullptr;
}

const TensorData ModelWeights::require(const std::string& canonical, const std::vector<std::int64_t>& expected,
                                       WeightUse use) const {
  const std::string* stored = find(canonical);
  if (!stored) fail("{}: weight '{}' is missing", source_.path(), name(canonical).stored.front());
  uses_[*stored].insert(use);
  // The shape is checked before the bytes are asked for, which may copy a strided view out.
  const std::vector<std::int64_t> shape = source_.tensor_info(*stored).shape;
  if (!expected.empty() && shape != expected)
    fail("{}: weight '{}' is [{}], expected [{}]", source_.path(), *stored, fmt::join(shape, ", "),
         fmt::join(expected, ", "));
  if (use == WeightUse::Table) return source_.table(*stored);
  TensorData data = source_.tensor(*stored);
  source_.check_finite(*stored, data);
  return data;
}

Tensor ModelWeights::get(const std::string& canonical, const Shape& expected, WeightUse use) const {
  if (!name(canonical).required && !find(canonical)) return {};
  const TensorData data = require(canonical, dims_of(expected), use);
  auto key = std::pair{*find(canonical), use};
  if (auto it = uploaded_.find(key); it != uploaded_.end()) return it->second;
  const Tensor tensor = named(source_.path(), key.first, [&] { return store_->add(data, use); });
  if (use == WeightUse::Table)
    tables_.emplace(std::pair<const void*, std::size_t>{tensor.handle, tensor.offset}, std::pair{key.first, data});
  uploaded_.emplace(std::move(key), tensor);
  return tensor;
}

void ModelWeights::check_rows(const Tensor& table, std::span<const std::int32_t> ids) const {
  const auto it = tables_.find({table.handle, table.offset});
  if (it != tables_.end()) source_.check_rows(it->second.first, it->second.second, ids);
}

Linear ModelWeights::linear(const std::string& canonical, std::int64_t out, std::int64_t in) const {
  const bool has_bias = listed(canonical + ".bias");
  return {get(canonical + ".weight", Shape{out, in}, WeightUse::Matrix),
          has_bias ? get(canonical + ".bias", Shape{out}) : Tensor{}};
}

Norm ModelWeights::norm(const std::string& canonical, std::int64_t width) const {
  const bool has_bias = listed(canonical + ".bias");
  return {get(canonical + ".weight", Shape{width}), has_bias ? get(canonical + ".bias", Shape{width}) : Tensor{}};
}

Linear ModelWeights::fused(const std::string& canonical, std::initializer_list<const char*> parts, std::int64_t rows,
                           std::int64_t cols) const {
  std::vector<TensorData> weights;
  std::vector<float> biases;
  const bool has_bias = listed(canonical + "." + *parts.begin() + ".bias");
  for (const char* part : parts) {
    const std::string prefix = canonical + "." + part;
    weights.push_back(require(prefix + ".weight", {rows, cols}, WeightUse::Matrix));
    if (has_bias) {
      const auto bias = to_f32(require(prefix + ".bias", {rows}, WeightUse::Any));
      biases.insert(biases.end(), bias.begin(), bias.end());
    }
  }
  Linear result;
  result.weight = named(source_.path(), canonical, [&] { return add_stacked(*store_, weights); });
  if (has_bias) result.bias = store_->add(biases, Shape{static_cast<std::int64_t>(biases.size())}, WeightUse::Any);
  return result;
}

std::vector<float> ModelWeights::host(const std::string& canonical, const std::vector<std::int64_t>& expected) const {
  return to_f32(require(canonical, expected, WeightUse::Any));
}

void ModelWeights::may_get(const std::string& canonical, WeightUse use) const {
  if (const std::string* stored = find(canonical)) uses_[*stored].insert(use);
}

}  // namespace invar
