#include "kernels/cpu/packed_matmul.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"

namespace invar::cpu {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DataType = memory::data_type;

// The row count the weight layout is chosen for. oneDNN's AVX-512 matmul (brgemm) picks the same
// blocked layout for every row count we measured (1 to 1024), and the per-call primitives below
// are created for exactly this layout, so the choice only has to be a typical one.
constexpr memory::dim kRepresentativeRows = 64;
// Distinct (rows, shape, bias, type) primitives kept; beyond it the cache starts over (a primitive
// takes ~0.1 ms to create, and oneDNN keeps its own cache of the generated kernels).
constexpr std::size_t kMaxPrimitives = 4096;
constexpr float kInt8Max = 127.0f;

memory::desc matrix(memory::dim rows, memory::dim cols, DataType type) { return {{rows, cols}, type, Tag::ab}; }
memory::desc plain(memory::dim rows, memory::dim cols) { return matrix(rows, cols, DataType::f32); }

// Symmetric int8 quantization of `count` values: the scale, and q = round(v / scale) into `out`.
float quantize(const float* values, std::int64_t count, std::int8_t* out) {
  float peak = 0.0f;
  for (std::int64_t i = 0; i < count; ++i) peak = std::max(peak, std::fabs(values[i]));
  const float scale = peak > 0.0f ? peak / kInt8Max : 1.0f;
  const float inverse = 1.0f / scale;
  for (std::int64_t i = 0; i < count; ++i) {
    out[i] = static_cast<std::int8_t>(std::clamp(std::nearbyint(values[i] * inverse), -kInt8Max, kInt8Max));
  }
  return scale;
}

}  // namespace

struct PackedWeight::Impl {
  memory packed;
};

PackedWeight::PackedWeight(std::int64_t n, std::int64_t k, std::unique_ptr<Impl> impl, std::vector<float> scales)
    : n_(n), k_(k), impl_(std::move(impl)), scales_(std::move(scales)) {}
PackedWeight::~PackedWeight() = default;
const void* PackedWeight::data() const { return impl_->packed.get_data_handle(); }
std::size_t PackedWeight::bytes() const {
  return impl_->packed.get_desc().get_size() + scales_.size() * sizeof(float);
}

// A primitive for one (rows, shape, bias, type) with its operand descriptions: a call only points
// them at its data (creating oneDNN memory objects per call costs as much as a one-row product).
struct Call {
  dnnl::matmul primitive;
  memory src, dst, bias, scales;
  std::unordered_map<int, memory> args;
};

struct PackedMatmul::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  // By (rows, k, n, bias, int8).
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, bool>, Call> calls;

  // f32: dst = src · weights + bias. int8: dst (f32) = scales[j] · (src · weights) (int32 sums),
  // with the scales given per call; the bias is added after the per-row scale, by the caller.
  dnnl::matmul::primitive_desc describe(memory::dim m, memory::dim k, memory::dim n, const memory::desc& weights,
                                        bool bias, bool int8) const {
    const DataType src = int8 ? DataType::s8 : DataType::f32;
    const memory::desc bias_desc = bias && !int8 ? plain(1, n) : memory::desc();
    dnnl::primitive_attr attr;
    if (int8) attr.set_output_scales(1 << 1, {DNNL_RUNTIME_F32_VAL});
    return {dnnl::matmul::desc(matrix(m, k, src), weights, bias_desc, plain(m, n)), attr, engine};
  }

  std::unique_ptr<PackedWeight> pack(const void* w, DataType type, std::int64_t n, std::int64_t k,
                                     std::vector<float> scales) {
    const bool int8 = type == DataType::s8;
    const auto layout = describe(kRepresentativeRows, k, n, {{k, n}, type, Tag::any}, false, int8).weights_desc();
    // nn.Linear's [n, k] row-major is the [k, n] matrix oneDNN multiplies by, stored column-major.
    memory source({{k, n}, type, Tag::ba}, engine, const_cast<void*>(w));
    auto impl = std::make_unique<PackedWeight::Impl>(PackedWeight::Impl{memory(layout, engine)});
    dnnl::reorder(source, impl->packed).execute(stream, source, impl->packed);
    stream.wait();
    return std::unique_ptr<PackedWeight>(new PackedWeight(n, k, std::move(impl), std::move(scales)));
  }

  Call& call(std::int64_t m, const PackedWeight& w, bool bias) {
    const std::int64_t n = w.rows(), k = w.cols();
    const auto key = std::make_tuple(m, k, n, bias, w.int8());
    auto found = calls.find(key);
    if (found != calls.end()) return found->second;
    if (calls.size() >= kMaxPrimitives) calls.clear();
    const DataType src = w.int8() ? DataType::s8 : DataType::f32;
    Call made{dnnl::matmul(describe(m, k, n, w.impl_->packed.get_desc(), bias, w.int8())),
              memory(matrix(m, k, src), engine, nullptr), memory(plain(m, n), engine, nullptr),
              memory(plain(1, n), engine, nullptr), memory({{n}, DataType::f32, Tag::a}, engine, nullptr), {}};
    made.args = {{DNNL_ARG_SRC, made.src}, {DNNL_ARG_DST, made.dst}};
    if (w.int8()) made.args.emplace(DNNL_ARG_ATTR_OUTPUT_SCALES, made.scales);
    else if (bias) made.args.emplace(DNNL_ARG_BIAS, made.bias);
    return calls.emplace(key, std::move(made)).first->second;
  }
};

PackedMatmul::PackedMatmul() : impl_(std::make_unique<Impl>()) {}
PackedMatmul::~PackedMatmul() = default;

std::unique_ptr<PackedWeight> PackedMatmul::pack(const float* w, std::int64_t n, std::int64_t k) {
  if (n <= 0 || k <= 0) fail("cannot pack an empty [{}, {}] weight", n, k);
  try {
    return impl_->pack(w, DataType::f32, n, k, {});
  } catch (const dnnl::error& e) {
    fail("oneDNN cannot pack a [{}, {}] weight: {}", n, k, e.what());
  }
}

std::unique_ptr<PackedWeight> PackedMatmul::pack_int8(const float* w, std::int64_t n, std::int64_t k) {
  if (n <= 0 || k <= 0) fail("cannot pack an empty [{}, {}] weight", n, k);
  std::vector<std::int8_t> quantized(static_cast<std::size_t>(n * k));
  std::vector<float> scales(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) scales[j] = quantize(w + j * k, k, quantized.data() + j * k);
  try {
    return impl_->pack(quantized.data(), DataType::s8, n, k, std::move(scales));
  } catch (const dnnl::error& e) {
    fail("oneDNN cannot pack a [{}, {}] int8 weight: {}", n, k, e.what());
  }
}

void PackedMatmul::linear(const float* x, std::int64_t m, const PackedWeight& w, const float* bias, float* y,
                          int threads) {
  if (m == 0) return;
  const std::int64_t n = w.rows(), k = w.cols();
  const void* src = x;
  if (w.int8()) {
    quantized_x_.resize(static_cast<std::size_t>(m * k));
    x_scales_.resize(static_cast<std::size_t>(m));
    for (std::int64_t r = 0; r < m; ++r) x_scales_[r] = quantize(x + r * k, k, quantized_x_.data() + r * k);
    src = quantized_x_.data();
  }
  try {
    // oneDNN runs on OpenMP; the thread count is the calling thread's setting, so set it per call.
    omp_set_num_threads(threads);
    Call& call = impl_->call(m, w, bias != nullptr);
    call.src.set_data_handle(const_cast<void*>(src));
    call.dst.set_data_handle(y);
    if (w.int8()) call.scales.set_data_handle(const_cast<float*>(w.scales_.data()));
    else if (bias) call.bias.set_data_handle(const_cast<float*>(bias));
    call.args.insert_or_assign(DNNL_ARG_WEIGHTS, w.impl_->packed);
    call.primitive.execute(impl_->stream, call.args);
    impl_->stream.wait();
  } catch (const dnnl::error& e) {
    fail("oneDNN matmul of [{}, {}] by a [{}, {}] weight failed: {}", m, k, n, k, e.what());
  }
  if (!w.int8()) return;
  for (std::int64_t r = 0; r < m; ++r) {
    float* row = y + r * n;
    const float scale = x_scales_[r];
    if (bias) {
      for (std::int64_t j = 0; j < n; ++j) row[j] = row[j] * scale + bias[j];
    } else {
      for (std::int64_t j = 0; j < n; ++j) row[j] *= scale;
    }
  }
}

}  // namespace invar::cpu
