#include "kernels/cpu/packed_matmul.hpp"

#include <omp.h>

#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <tuple>

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
// Distinct (rows, shape, bias) primitives kept; beyond it the cache starts over (a primitive takes
// ~0.1 ms to create, and oneDNN keeps its own cache of the generated kernels).
constexpr std::size_t kMaxPrimitives = 4096;

memory::desc plain(memory::dim rows, memory::dim cols) { return {{rows, cols}, DataType::f32, Tag::ab}; }

}  // namespace

struct PackedWeight::Impl {
  memory packed;
};

PackedWeight::PackedWeight(std::int64_t n, std::int64_t k, std::unique_ptr<Impl> impl)
    : n_(n), k_(k), impl_(std::move(impl)) {}
PackedWeight::~PackedWeight() = default;
const void* PackedWeight::data() const { return impl_->packed.get_data_handle(); }
std::size_t PackedWeight::bytes() const { return impl_->packed.get_desc().get_size(); }

struct PackedMatmul::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  // By (rows, k, n, bias).
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>, dnnl::matmul> primitives;

  dnnl::matmul::primitive_desc describe(memory::dim m, memory::dim k, memory::dim n, const memory::desc& weights,
                                        bool bias) const {
    const memory::desc bias_desc = bias ? plain(1, n) : memory::desc();
    return {dnnl::matmul::desc(plain(m, k), weights, bias_desc, plain(m, n)), engine};
  }

  dnnl::matmul& primitive(std::int64_t m, const PackedWeight& w, bool bias) {
    const auto key = std::make_tuple(m, w.cols(), w.rows(), bias);
    auto found = primitives.find(key);
    if (found != primitives.end()) return found->second;
    if (primitives.size() >= kMaxPrimitives) primitives.clear();
    return primitives.emplace(key, dnnl::matmul(describe(m, w.cols(), w.rows(), w.impl_->packed.get_desc(), bias)))
        .first->second;
  }
};

PackedMatmul::PackedMatmul() : impl_(std::make_unique<Impl>()) {}
PackedMatmul::~PackedMatmul() = default;

std::unique_ptr<PackedWeight> PackedMatmul::pack(const float* w, std::int64_t n, std::int64_t k) {
  if (n <= 0 || k <= 0) fail("cannot pack an empty [{}, {}] weight", n, k);
  try {
    const memory::desc any({k, n}, DataType::f32, Tag::any);
    const auto layout = impl_->describe(kRepresentativeRows, k, n, any, false).weights_desc();
    // nn.Linear's [n, k] row-major is the [k, n] matrix oneDNN multiplies by, stored column-major.
    memory source({{k, n}, DataType::f32, Tag::ba}, impl_->engine, const_cast<float*>(w));
    auto impl = std::make_unique<PackedWeight::Impl>(PackedWeight::Impl{memory(layout, impl_->engine)});
    dnnl::reorder(source, impl->packed).execute(impl_->stream, source, impl->packed);
    impl_->stream.wait();
    return std::unique_ptr<PackedWeight>(new PackedWeight(n, k, std::move(impl)));
  } catch (const dnnl::error& e) {
    fail("oneDNN cannot pack a [{}, {}] weight: {}", n, k, e.what());
  }
}

void PackedMatmul::linear(const float* x, std::int64_t m, const PackedWeight& w, const float* bias, float* y,
                          int threads) {
  if (m == 0) return;
  try {
    // oneDNN runs on OpenMP; the thread count is the calling thread's setting, so set it per call.
    omp_set_num_threads(threads);
    const std::int64_t n = w.rows(), k = w.cols();
    memory src(plain(m, k), impl_->engine, const_cast<float*>(x));
    memory dst(plain(m, n), impl_->engine, y);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w.impl_->packed}, {DNNL_ARG_DST, dst}};
    if (bias) args.emplace(DNNL_ARG_BIAS, memory(plain(1, n), impl_->engine, const_cast<float*>(bias)));
    impl_->primitive(m, w, bias != nullptr).execute(impl_->stream, args);
    impl_->stream.wait();
  } catch (const dnnl::error& e) {
    fail("oneDNN matmul of [{}, {}] by a [{}, {}] weight failed: {}", m, w.cols(), w.rows(), w.cols(), e.what());
  }
}

}  // namespace invar::cpu
