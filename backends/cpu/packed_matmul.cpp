#include "backends/cpu/packed_matmul.hpp"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <oneapi/dnnl/dnnl.hpp>
#include <tuple>
#include <utility>
#include <unordered_map>

#include "core/error.hpp"
#include "core/quantize.hpp"
#include "backends/cpu/row_kernels.hpp"

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
// Column slices start at multiples of this many output channels: the blocks oneDNN's AVX-512
// kernels lay weights out in (16 to 64 channels) then never straddle two slices.
constexpr std::int64_t kSliceAlign = 64;
// The most inputs an int8 product may sum: 255 · 127 · k must fit the int32 sums.
constexpr std::int64_t kMaxInt8Inputs = std::numeric_limits<std::int32_t>::max() / (255 * 127);

memory::desc matrix(memory::dim rows, memory::dim cols, DataType type) { return {{rows, cols}, type, Tag::ab}; }
memory::desc plain(memory::dim rows, memory::dim cols) { return matrix(rows, cols, DataType::f32); }

constexpr std::size_t kPage = 4096;

// Memory for a packed weight: anonymous pages, 2 MiB-aligned and marked MADV_HUGEPAGE, so that the
// kernel backs each whole 2 MiB of it with one huge page (transparent huge pages in "madvise" mode,
// Debian's default) and what is left with small ones. Filling a base model's ~340 MB of packed copies
// page by page took 85,000 page faults, half the CPU time of its start-up (perf, docs/performance.md).
class PageBuffer {
 public:
  explicit PageBuffer(std::size_t bytes) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    size_ = (std::max<std::size_t>(bytes, 1) + kPage - 1) / kPage * kPage;
    void* mapped = mmap(nullptr, size_ + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) fail("out of memory: cannot allocate {} MiB for a packed weight", bytes >> 20);
    const auto base = reinterpret_cast<std::uintptr_t>(mapped);
    const auto aligned = (base + kHuge - 1) / kHuge * kHuge;
    if (aligned > base) munmap(mapped, aligned - base);
    const std::size_t after = base + size_ + kHuge - (aligned + size_);
    if (after > 0) munmap(reinterpret_cast<void*>(aligned + size_), after);
    data_ = reinterpret_cast<void*>(aligned);
    madvise(data_, size_, MADV_HUGEPAGE);  // advice: without it (or without THP) small pages serve
  }
  ~PageBuffer() { munmap(data_, size_); }
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace

// The first channel of each of (at most) `slices` column slices of n channels, and n.
std::vector<std::int64_t> slice_bounds(std::int64_t n, int slices) {
  const std::int64_t count = std::max<std::int64_t>(1, std::min<std::int64_t>(slices, n / kSliceAlign));
  std::vector<std::int64_t> bounds{0};
  for (std::int64_t s = 1; s < count; ++s) bounds.push_back(n * s / count / kSliceAlign * kSliceAlign);
  bounds.push_back(n);
  return bounds;
}

struct PackedWeight::Impl {
  struct Slice {
    std::int64_t begin;  // its first output channel
    memory packed;       // its elements, in `storage`
  };
  // Every slice's packed elements, each from a page boundary: one buffer, so that the weight gets
  // as many whole huge pages as unsliced (separate buffers per slice cost start-up 10–20 ms on XLM-R
  // base in page faults). Outlives `slices`, declared first.
  std::unique_ptr<PageBuffer> storage;
  std::vector<Slice> slices;
  // All slices as one weight, where they lie in `storage` exactly as the whole weight packed would
  // (packed_side_by_side): products of many rows then run once over every channel, into y itself.
  // Empty otherwise.
  memory whole;
};

PackedWeight::PackedWeight(std::int64_t n, std::int64_t k, std::unique_ptr<Impl> impl, std::vector<float> scales,
                           std::vector<float> sums)
    : n_(n), k_(k), impl_(std::move(impl)), scales_(std::move(scales)), sums_(std::move(sums)) {}
PackedWeight::~PackedWeight() = default;
const void* PackedWeight::data() const { return impl_->slices.front().packed.get_data_handle(); }
std::size_t PackedWeight::bytes() const {
  std::size_t packed = 0;
  for (const auto& slice : impl_->slices) packed += slice.packed.get_desc().get_size();
  return packed + (scales_.size() + sums_.size()) * sizeof(float);
}
int PackedWeight::slices() const { return static_cast<int>(impl_->slices.size()); }
bool PackedWeight::side_by_side() const { return static_cast<bool>(impl_->whole); }
std::int64_t PackedWeight::slice_begin(int s) const {
  return s == slices() ? n_ : impl_->slices.at(static_cast<std::size_t>(s)).begin;
}

// Whether slices packed one after another are, byte for byte, the whole weight packed: where
// oneDNN's blocked layout keeps each block of output channels apart, outermost (its AVX-512
// layouts, 16a64b and 16a64b4a, do), every slice starts at a whole block (kSliceAlign), and
// each slice's layout is the whole's restricted to its blocks.
static bool packed_side_by_side(const memory::desc& whole, const std::vector<memory::desc>& slices,
                                const std::vector<std::int64_t>& bounds, std::size_t element) {
  if (whole.data.format_kind != dnnl_blocked) return false;
  const dnnl_blocking_desc_t& blocking = whole.data.format_desc.blocking;
  memory::dim channel_block = 1;
  for (int i = 0; i < blocking.inner_nblks; ++i)
    if (blocking.inner_idxs[i] == 1) channel_block *= blocking.inner_blks[i];
  std::size_t offset = 0;
  for (std::size_t s = 0; s < slices.size(); ++s) {
    const dnnl_memory_desc_t& slice = slices[s].data;
    if (slice.format_kind != dnnl_blocked || bounds[s] % channel_block != 0) return false;
    const dnnl_blocking_desc_t& b = slice.format_desc.blocking;
    if (b.inner_nblks != blocking.inner_nblks || b.strides[0] != blocking.strides[0] ||
        b.strides[1] != blocking.strides[1] || slice.extra.flags != whole.data.extra.flags)
      return false;
    for (int i = 0; i < b.inner_nblks; ++i)
      if (b.inner_blks[i] != blocking.inner_blks[i] || b.inner_idxs[i] != blocking.inner_idxs[i]) return false;
    if (offset != static_cast<std::size_t>(bounds[s] / channel_block * blocking.strides[1]) * element) return false;
    offset += slices[s].get_size();
  }
  return offset == whole.get_size();
}

// A primitive for one (rows, shape, bias, type) with its operand descriptions: a call only points
// them at its data (creating oneDNN memory objects per call costs as much as a one-row product).
struct Call {
  dnnl::matmul primitive;
  memory src, dst, bias;
  std::unordered_map<int, memory> args;
};

// oneDNN's description of a product. f32: dst = src · weights + bias. int8: dst = src · weights of
// u8 inputs and s8 weights, the exact int32 sums as f32; the caller shifts them by the inputs' zero
// points, scales them and adds the bias. (Scales given to oneDNN per call, as runtime output
// scales, make oneDNN 2.6 fall back from its AMX/VNNI kernels to a generic one ~10× slower.)
static dnnl::matmul::primitive_desc describe(const dnnl::engine& engine, memory::dim m, memory::dim k, memory::dim n,
                                             const memory::desc& weights, bool bias, bool int8) {
  const DataType src = int8 ? DataType::u8 : DataType::f32;
  const memory::desc bias_desc = bias && !int8 ? plain(1, n) : memory::desc();
  return {dnnl::matmul::desc(matrix(m, k, src), weights, bias_desc, plain(m, n)), engine};
}

// Lane's slice index for the whole weight (PackedWeight::Impl::whole).
constexpr int kWhole = -1;

struct PackedMatmul::Lane {
  dnnl::stream stream;
  // By (rows, k, slice channels, bias, int8, OpenMP threads): oneDNN splits a primitive's work for
  // the thread count current when it is created.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, bool, int>, Call> calls;
  std::vector<std::uint8_t> quantized_x;  // int8 calls: the rows of x, quantized
  std::vector<RowScale> x_scales;         // and their scales and zero points
  // A slice's product before it is copied into its columns of y: oneDNN 2.6 runs a product into
  // rows further apart than its width (a strided dst) on its reference kernel, ~100× slower.
  std::vector<float> slice_y;

  // Slice s, or (s = kWhole) the whole weight.
  Call& call(const dnnl::engine& engine, std::int64_t m, const PackedWeight& w, int s, bool bias, int team) {
    const std::int64_t k = w.cols(), n = s == kWhole ? w.rows() : w.slice_begin(s + 1) - w.slice_begin(s);
    const auto key = std::make_tuple(m, k, n, bias, w.int8(), team);
    auto found = calls.find(key);
    if (found != calls.end()) return found->second;
    if (calls.size() >= kMaxPrimitives) calls.clear();
    const DataType src = w.int8() ? DataType::u8 : DataType::f32;
    const memory::desc weights = packed(w, s).get_desc();
    Call made{dnnl::matmul(describe(engine, m, k, n, weights, bias, w.int8())), memory(matrix(m, k, src), engine, nullptr),
              memory(plain(m, n), engine, nullptr), memory(plain(1, n), engine, nullptr), {}};
    made.args = {{DNNL_ARG_SRC, made.src}, {DNNL_ARG_DST, made.dst}};
    if (bias && !w.int8()) made.args.emplace(DNNL_ARG_BIAS, made.bias);
    return calls.emplace(key, std::move(made)).first->second;
  }

  // The product's input as oneDNN reads it: x itself, or (int8) its rows quantized here.
  const void* input(const float* x, std::int64_t m, const PackedWeight& w, const RowKernels& rows) {
    if (!w.int8()) return x;
    const std::int64_t k = w.cols();
    quantized_x.resize(static_cast<std::size_t>(m * k));
    x_scales.resize(static_cast<std::size_t>(m));
    for (std::int64_t r = 0; r < m; ++r) x_scales[r] = rows.quantize_row(x + r * k, k, quantized_x.data() + r * k);
    return quantized_x.data();
  }

  static const memory& packed(const PackedWeight& w, int s) {
    return s == kWhole ? w.impl_->whole : w.impl_->slices[static_cast<std::size_t>(s)].packed;
  }

  // Slice s (or kWhole) of the product from `src` (input()'s) into y [m, n]'s columns of the slice.
  void run(const dnnl::engine& engine, const void* src, std::int64_t m, const PackedWeight& w, int s,
           const float* bias, float* y, int team) {
    const std::int64_t begin = s == kWhole ? 0 : w.slice_begin(s), n = w.rows(),
                       count = s == kWhole ? n : w.slice_begin(s + 1) - begin;
    float* dst = y;
    if (count < n) {
      // Grown, never shrunk: a resize back up after a narrower weight's product zero-filled the LM
      // head's slice (9 MB a thread) at every step of a beam-5 batch-16 search.
      const auto size = static_cast<std::size_t>(m * count);
      if (slice_y.size() < size) slice_y.resize(size);
      dst = slice_y.data();
    }
    try {
      omp_set_num_threads(team);  // this thread's setting: the product's OpenMP team, usually 1
      Call& made = call(engine, m, w, s, bias != nullptr, team);
      made.src.set_data_handle(const_cast<void*>(src));
      made.dst.set_data_handle(dst);
      if (bias && !w.int8()) made.bias.set_data_handle(const_cast<float*>(bias + begin));
      made.args.insert_or_assign(DNNL_ARG_WEIGHTS, packed(w, s));
      made.primitive.execute(stream, made.args);
      stream.wait();
    } catch (const dnnl::error& e) {
      fail("oneDNN matmul of [{}, {}] by a [{}, {}] weight failed: {}", m, w.cols(), w.rows(), w.cols(), e.what());
    }
    if (dst == y) return;
    for (std::int64_t r = 0; r < m; ++r)
      std::copy_n(dst + r * count, count, y + r * n + begin);
  }
};

struct PackedMatmul::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  const RowKernels* rows = &selected_row_kernels();  // int8 inputs' quantization and rescaling
  std::vector<std::unique_ptr<Lane>> lanes;

  std::unique_ptr<PackedWeight> pack(const void* w, DataType type, std::int64_t n, std::int64_t k, int slices,
                                     std::vector<float> scales = {}, std::vector<float> sums = {}) {
    const bool int8 = type == DataType::s8;
    const std::size_t element = int8 ? sizeof(std::int8_t) : sizeof(float);
    const std::vector<std::int64_t> bounds = slice_bounds(n, slices);
    const auto layout = [&](std::int64_t count) {
      return describe(engine, kRepresentativeRows, k, count, {{k, count}, type, Tag::any}, false, int8).weights_desc();
    };
    std::vector<memory::desc> layouts;
    for (std::size_t s = 0; s + 1 < bounds.size(); ++s) layouts.push_back(layout(bounds[s + 1] - bounds[s]));
    const memory::desc whole = layouts.size() == 1 ? layouts.front() : layout(n);
    const bool side_by_side = packed_side_by_side(whole, layouts, bounds, element);
    // Side by side: exactly the whole weight's bytes; otherwise each slice from a page boundary.
    std::vector<std::size_t> offsets{0};
    for (const memory::desc& slice : layouts) {
      const std::size_t size = slice.get_size();
      offsets.push_back(offsets.back() + (side_by_side ? size : (size + kPage - 1) / kPage * kPage));
    }
    auto impl = std::make_unique<PackedWeight::Impl>();
    impl->storage = std::make_unique<PageBuffer>(offsets.back());
    if (side_by_side) impl->whole = memory(whole, engine, impl->storage->data());
    omp_set_num_threads(1);
    for (std::size_t s = 0; s < layouts.size(); ++s) {
      const std::int64_t begin = bounds[s], count = bounds[s + 1] - begin;
      // nn.Linear's [n, k] row-major is the [k, n] matrix oneDNN multiplies by, stored column-major;
      // a slice's channels are consecutive rows of it.
      const auto* first = static_cast<const char*>(w) + static_cast<std::size_t>(begin * k) * element;
      memory source({{k, count}, type, Tag::ba}, engine, const_cast<char*>(first));
      memory packed(layouts[s], engine, static_cast<char*>(impl->storage->data()) + offsets[s]);
      dnnl::reorder(source, packed).execute(lanes.front()->stream, source, packed);
      lanes.front()->stream.wait();
      impl->slices.push_back({begin, std::move(packed)});
    }
    return std::unique_ptr<PackedWeight>(new PackedWeight(n, k, std::move(impl), std::move(scales), std::move(sums)));
  }
};

PackedMatmul::PackedMatmul() : impl_(std::make_unique<Impl>()) { reserve_lanes(1); }
PackedMatmul::~PackedMatmul() = default;

void PackedMatmul::reserve_lanes(int lanes) {
  while (static_cast<int>(impl_->lanes.size()) < lanes)
    impl_->lanes.push_back(std::make_unique<Lane>(Lane{dnnl::stream(impl_->engine), {}, {}, {}}));
}
std::unique_ptr<PackedWeight> PackedMatmul::pack(const float* w, std::int64_t n, std::int64_t k, int slices) {
  if (n <= 0 || k <= 0) fail("cannot pack an empty [{}, {}] weight", n, k);
  try {
    return impl_->pack(w, DataType::f32, n, k, slices);
  } catch (const dnnl::error& e) {
    fail("oneDNN cannot pack a [{}, {}] weight: {}", n, k, e.what());
  }
}

std::unique_ptr<PackedWeight> PackedMatmul::pack_int8(const float* w, std::int64_t n, std::int64_t k, int slices) {
  if (n <= 0 || k <= 0) fail("cannot pack an empty [{}, {}] weight", n, k);
  if (k > kMaxInt8Inputs) fail("an int8 weight of {} inputs is too wide: at most {} fit int32 sums", k, kMaxInt8Inputs);
  std::vector<std::int8_t> quantized(static_cast<std::size_t>(n * k));
  std::vector<float> scales(static_cast<std::size_t>(n));
  quantize_rows_int8(w, n, k, quantized.data(), scales.data());
  return pack_int8(quantized.data(), scales.data(), n, k, slices);
}

std::unique_ptr<PackedWeight> PackedMatmul::pack_int8(const std::int8_t* q, const float* scales, std::int64_t n,
                                                      std::int64_t k, int slices) {
  if (n <= 0 || k <= 0) fail("cannot pack an empty [{}, {}] weight", n, k);
  if (k > kMaxInt8Inputs) fail("an int8 weight of {} inputs is too wide: at most {} fit int32 sums", k, kMaxInt8Inputs);
  std::vector<float> sums(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int8_t* channel = q + j * k;
    // Exact in f32: |Σ| ≤ 127 · k < 2^24 for every k allowed.
    sums[j] = static_cast<float>(std::accumulate(channel, channel + k, std::int32_t{0}));
  }
  try {
    return impl_->pack(q, DataType::s8, n, k, slices, std::vector<float>(scales, scales + n), std::move(sums));
  } catch (const dnnl::error& e) {
    fail("oneDNN cannot pack a [{}, {}] int8 weight: {}", n, k, e.what());
  }
}

void PackedMatmul::linear(const float* x, std::int64_t m, const PackedWeight& w, const float* bias, float* y,
                          int lane_index, int team) {
  if (m == 0) return;
  Lane& lane = *impl_->lanes.at(static_cast<std::size_t>(lane_index));
  const void* src = lane.input(x, m, w, *impl_->rows);
  if (w.impl_->whole) {
    lane.run(impl_->engine, src, m, w, kWhole, bias, y, team);
  } else {
    for (int s = 0; s < w.slices(); ++s) lane.run(impl_->engine, src, m, w, s, bias, y, team);
  }
  // Σ_p (q_rp − z_r) · w_jp is the int32 sum less z_r · Σ_p w_jp; then the row's and channel's scales.
  if (w.int8()) impl_->rows->rescale(y, m, w.rows(), lane.x_scales.data(), w.scales_.data(), w.sums_.data(), bias);
}

void PackedMatmul::linear_slice(const float* x, std::int64_t m, const PackedWeight& w, int s, const float* bias,
                                float* y, int lane_index) {
  if (m == 0) return;
  Lane& lane = *impl_->lanes.at(static_cast<std::size_t>(lane_index));
  lane.run(impl_->engine, lane.input(x, m, w, *impl_->rows), m, w, s, bias, y, 1);
  if (!w.int8()) return;
  const std::int64_t begin = w.slice_begin(s), count = w.slice_begin(s + 1) - begin, n = w.rows();
  for (std::int64_t r = 0; r < m; ++r)
    impl_->rows->rescale(y + r * n + begin, 1, count, &lane.x_scales[static_cast<std::size_t>(r)],
                         w.scales_.data() + begin, w.sums_.data() + begin, bias ? bias + begin : nullptr);
}

}  // namespace invar::cpu
