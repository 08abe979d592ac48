// The CPU backend: oneDNN matmul on weights packed at load for linear layers
// (backends/cpu/packed_matmul.hpp), OpenBLAS sgemm for every other matrix product (or, when
// deterministic, the fixed-order product of backends/cpu/gemm.hpp for all of them), backends/cpu for
// the rest, row loops split across a ThreadPool. Tensor handles are host pointers; a packed
// weight's handle points at its packed elements, which only `linear` reads.
#include <cblas.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <thread>
#include <unordered_map>
#include <vector>

#include "backends/cpu/backend.hpp"

#include "core/error.hpp"
#include "backends/cpu/gemm.hpp"
#include "backends/cpu/kernels.hpp"
#include "backends/cpu/packed_matmul.hpp"
#include "backends/cpu/row_kernels.hpp"
#include "backends/cpu/thread_pool.hpp"

namespace invar {

namespace {

float* ptr(const Tensor& t) { return reinterpret_cast<float*>(static_cast<std::byte*>(t.handle) + t.offset); }
std::int32_t* id_ptr(const Tensor& t) {
  return reinterpret_cast<std::int32_t*>(static_cast<std::byte*>(t.handle) + t.offset);
}
std::int64_t cols_of(const Tensor& t) { return t.shape[t.shape.rank - 1]; }
std::int64_t rows_of(const Tensor& t) { return cols_of(t) == 0 ? 0 : t.numel() / cols_of(t); }

// Whether [data, data + bytes) lies inside one read-only mapping of a file (/proc/self/maps): a
// weight read in place from the mapped model file, not one copied to the heap (an unaligned
// tensor, a strided view copied out), whose pages MADV_DONTNEED would zero.
bool in_read_only_file_mapping(const void* data, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(data), end = begin + bytes;
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return false;
  bool found = false;
  char line[4096];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long low = 0, high = 0, inode = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s %*s %*s %lu", &low, &high, perms, &inode) != 4) continue;
    if (begin >= low && begin < high) {
      found = end <= high && perms[1] == '-' && inode != 0;
      break;
    }
  }
  std::fclose(maps);
  return found;
}

// Unmaps the whole pages inside [data, data + bytes) from this process when they are pages of a
// read-only mapped file: after packing, the source of a packed weight is not read again, so it
// should not count as resident beside the packed copy. MADV_DONTNEED there only drops this
// process's page-table entries (a later read maps the page again, unchanged) and leaves the file
// in the page cache. (MADV_PAGEOUT, used before, evicted it from the cache too, so the next run of
// a command read every linear layer's weights from disk again.)
void release_pages(const void* data, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
  if (end > begin && in_read_only_file_mapping(data, bytes))
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

// The packed weights of a backend's stores, by handle: what `linear` multiplies by with oneDNN, and
// what no other op may read.
using PackedIndex = std::unordered_map<const void*, const cpu::PackedWeight*>;

// Every weight F32 (make_cpu_backend rejects WeightType::F16; I8 tensors are dequantized), but a
// Matrix of rank 2 packed once for oneDNN where the backend has a packer (not for F32 when
// deterministic): quantized to int8 first with WeightType::Int8, unless stored as I8 already. The
// packed copy is the only one kept.
class CpuWeightStore final : public WeightStore {
 public:
  CpuWeightStore(cpu::PackedMatmul* packer, bool int8, int slices, PackedIndex& index)
      : packer_(packer), int8_(int8), slices_(slices), index_(index) {}
  ~CpuWeightStore() override {
    for (const auto& weight : packed_) index_.erase(weight->data());
  }
  CpuWeightStore(const CpuWeightStore&) = delete;
  CpuWeightStore& operator=(const CpuWeightStore&) = delete;

  Tensor add(const TensorData& src, WeightUse use) override {
    Tensor t;
    t.shape = weight_shape(src);
    const bool aligned_f32 =
        src.dtype == DType::F32 && reinterpret_cast<std::uintptr_t>(src.data) % alignof(float) == 0;
    if (packs(use, t.shape)) {
      if (int8_ && src.dtype == DType::I8) return pack_int8(src, t.shape);
      if (aligned_f32) {
        const Tensor packed = pack(reinterpret_cast<const float*>(src.data), t.shape);
        release_pages(src.data, src.nbytes);
        return packed;
      }
      return pack(to_f32(src).data(), t.shape);
    }
    bytes_ += t.nbytes();
    if (aligned_f32) {
      t.handle = const_cast<std::byte*>(src.data);  // zero-copy: the backend never writes weights
      return t;
    }
    owned_.push_back(to_f32(src));
    t.handle = owned_.back().data();
    return t;
  }

  Tensor add(const std::vector<float>& values, Shape shape, WeightUse use) override {
    if (static_cast<std::int64_t>(values.size()) != shape.numel()) {
      fail("{} values for a weight of shape {}", values.size(), shape.str());
    }
    if (packs(use, shape)) return pack(values.data(), shape);
    owned_.push_back(values);
    Tensor t;
    t.shape = shape;
    t.handle = owned_.back().data();
    bytes_ += t.nbytes();
    return t;
  }

  std::size_t bytes() const override { return bytes_; }

 private:
  bool packs(WeightUse use, const Shape& shape) const {
    return packer_ && use == WeightUse::Matrix && shape.rank == 2 && shape.numel() > 0;
  }
  Tensor pack(const float* values, const Shape& shape) {
    const std::int64_t n = shape[0], k = shape[1];
    return keep(int8_ ? packer_->pack_int8(values, n, k, slices_) : packer_->pack(values, n, k, slices_), shape);
  }
  // An I8 matrix of an .invar file: its stored q and scales are what pack(values) would make.
  Tensor pack_int8(const TensorData& src, const Shape& shape) {
    if (!src.scales) fail("an I8 weight without its scales");
    const auto* q = reinterpret_cast<const std::int8_t*>(src.data);
    Tensor packed = keep(packer_->pack_int8(q, src.scales, shape[0], shape[1], slices_), shape);
    release_pages(src.data, src.nbytes);
    return packed;
  }
  Tensor keep(std::unique_ptr<cpu::PackedWeight> packed, const Shape& shape) {
    packed_.push_back(std::move(packed));
    const cpu::PackedWeight& weight = *packed_.back();
    index_.emplace(weight.data(), &weight);
    bytes_ += weight.bytes();
    Tensor t;
    t.shape = shape;
    t.handle = const_cast<void*>(weight.data());
    return t;
  }

  cpu::PackedMatmul* packer_;  // null: nothing is packed
  bool int8_;
  int slices_;  // column slices per packed weight (PackedMatmul::pack)
  PackedIndex& index_;
  std::deque<std::vector<float>> owned_;  // converted weights; a deque never moves its elements
  std::vector<std::unique_ptr<cpu::PackedWeight>> packed_;
  std::size_t bytes_ = 0;
};

class CpuArena final : public Arena {
 public:
  ~CpuArena() override { release_all(); }

 protected:
  void* allocate_storage(std::size_t bytes) override {
    void* p = std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    if (!p) fail("out of memory: cannot allocate {} MiB of activations", bytes >> 20);
    return p;
  }
  void release_storage(void* handle) override { std::free(handle); }
};

CBLAS_TRANSPOSE blas_trans(bool trans) { return trans ? CblasTrans : CblasNoTrans; }

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const BackendOptions& options)
      : pool_((require_threads(options.threads), options.threads), pool_spins(options.threads)),
        deterministic_(options.deterministic),
        int8_(options.weights == WeightType::Int8),
        rows_(&cpu::selected_row_kernels()) {
    // F32 weights stay plain when deterministic: the fixed-order product reads them.
    if (int8_ || (options.linear == LinearKernel::OneDnn && !options.deterministic))
      packer_ = std::make_unique<cpu::PackedMatmul>();
    set_threads(options.threads);
  }

  std::string name() const override { return "cpu"; }

  void set_threads(int threads) override {
    threads = std::max(threads, 1);
    if (threads > pool_.threads()) require_threads(threads);
    if (packer_) packer_->reserve_lanes(threads);
    openblas_set_num_threads(threads);
    pool_.set_threads(threads, pool_spins(threads));
  }
  int threads() const override { return pool_.threads(); }
  // Below kMinTeam the products run on the pool and no OpenMP team exists: an OpenMP loop here
  // would start one whose idle thread spins (libgomp's default) through the next products, on the
  // cores they run on.
  void parallel_rows(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body) override {
    if (pool_.threads() >= kMinTeam) Backend::parallel_rows(n, body);
    else pool_.parallel_for(n, kHostRowCost, body);
  }
  bool attention_needs_scores(std::int64_t) const override { return deterministic_; }

  std::unique_ptr<WeightStore> make_weight_store() override {
    // One column slice per thread where the pool runs the products (packed_linear); set_threads
    // made a lane for each, and lanes are never removed, so every slice keeps one.
    const int threads = pool_.threads(), slices = threads < kMinTeam ? threads : 1;
    return std::make_unique<CpuWeightStore>(packer_.get(), int8_, slices, packed_);
  }
  std::unique_ptr<Arena> make_arena() override { return std::make_unique<CpuArena>(); }

  // An empty tensor's host side may be a null pointer (an empty vector's data()): no memcpy then.
  void upload(const void* host, const Tensor& dst) override {
    if (dst.nbytes() > 0) std::memcpy(ptr(dst), host, dst.nbytes());
  }
  void download(const Tensor& src, void* host) override {
    require_unpacked(src, "download");
    if (src.nbytes() > 0) std::memcpy(host, ptr(src), src.nbytes());
  }

 protected:
  void do_linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y) override {
    const auto packed = packed_.find(w.handle);
    if (packed == packed_.end()) {
      Backend::do_linear(x, w, bias, act, y);
      return;
    }
    if (w.offset != 0 || w.shape != Shape{packed->second->rows(), packed->second->cols()})
      fail("linear: a view {} of a packed weight is not a weight", w.shape.str());
    packed_linear(ptr(x), rows_of(x), *packed->second, bias.empty() ? nullptr : ptr(bias), act, ptr(y));
  }

  void do_gemm(bool trans_a, bool trans_b, float alpha, const Tensor& a, const Tensor& b, float beta,
               const Tensor& c) override {
    require_unpacked(a, "gemm");
    require_unpacked(b, "gemm");
    const std::int64_t m = rows_of(c), n = cols_of(c), k = trans_a ? rows_of(a) : cols_of(a);
    product(trans_a, trans_b, m, n, k, alpha, {ptr(a), cols_of(a)}, {ptr(b), cols_of(b)}, beta, ptr(c), n);
  }

  void do_gemm_batched(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                       const Tensor& a, const MatrixView& av, const Tensor& b, const MatrixView& bv, float beta,
                       const Tensor& c, const MatrixView& cv, std::int64_t outer, std::int64_t inner) override {
    require_unpacked(a, "gemm_batched");
    require_unpacked(b, "gemm_batched");
    const auto matrices = [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t j = begin; j < end; ++j) {
        const std::int64_t o = j / inner, i = j % inner;
        product(trans_a, trans_b, m, n, k, alpha, {ptr(a) + at(av, o, i), av.ld}, {ptr(b) + at(bv, o, i), bv.ld}, beta,
                ptr(c) + at(cv, o, i), cv.ld);
      }
    };
    // A decoding step's attention is many products of a few rows each (one per row and head), which
    // OpenBLAS runs on the calling thread alone: spread them over the pool. Larger ones stay one at
    // a time on OpenBLAS's own threads, and the fixed-order product runs on the pool itself. Each
    // product is the same call either way, so results do not change.
    if (!deterministic_ && m * n * k <= kSmallProduct) rows_parallel(outer * inner, m * n * k, matrices);
    else matrices(0, outer * inner);
  }

  void do_bias_act(const Tensor& x, const Tensor& bias, Activation act) override {
    const std::int64_t cols = cols_of(x);
    float* data = ptr(x);
    const float* b = bias.empty() ? nullptr : ptr(bias);
    rows_parallel(rows_of(x), cols * cost(act), [&](std::int64_t begin, std::int64_t end) {
      bias_act_rows(data + begin * cols, end - begin, cols, b, act);
    });
  }

  void do_binary(Binary op, const Tensor& a, const Tensor& b, const Tensor& out) override {
    const float *pa = ptr(a), *pb = ptr(b);
    float* po = ptr(out);
    const auto kernel = op == Binary::Add ? cpu::add : cpu::mul;
    rows_parallel(a.numel(), 1, [&](std::int64_t begin, std::int64_t end) {
      kernel(pa + begin, pb + begin, po + begin, end - begin);
    });
  }

  void do_layer_norm(const Tensor& x, const Tensor& residual, const Tensor& gamma, const Tensor& beta, float eps,
                     const Tensor& out) override {
    const std::int64_t cols = cols_of(x);
    const float* px = ptr(x);
    const float* pr = residual.empty() ? nullptr : ptr(residual);
    float* po = ptr(out);
    rows_parallel(rows_of(x), cols * 4, [&](std::int64_t begin, std::int64_t end) {
      rows_->layer_norm(px + begin * cols, pr ? pr + begin * cols : nullptr, ptr(gamma), ptr(beta), eps,
                        po + begin * cols, end - begin, cols);
    });
  }

  void do_rms_norm(const Tensor& x, const Tensor& weight, float eps, const Tensor& out) override {
    const std::int64_t cols = cols_of(x);
    rows_parallel(rows_of(x), cols * 3, [&](std::int64_t begin, std::int64_t end) {
      cpu::rms_norm(ptr(x) + begin * cols, ptr(weight), eps, ptr(out) + begin * cols, end - begin, cols, order());
    });
  }

  void do_attention_softmax(const Tensor& scores, float scale, const Tensor& key_mask, const Tensor& position_bias,
                            bool causal, std::int64_t causal_offset) override {
    const std::int64_t heads = scores.dim(1), tq = scores.dim(2), tk = scores.dim(3);
    const bool bias_per_batch = !position_bias.empty() && position_bias.shape.rank == 4;
    float* s = ptr(scores);
    const float* bias = position_bias.empty() ? nullptr : ptr(position_bias);
    const float* mask = key_mask.empty() ? nullptr : ptr(key_mask);
    rows_parallel(rows_of(scores), tk * 8, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t row = begin; row < end; ++row) {
        const std::int64_t query = row % tq, head = (row / tq) % heads, batch = row / (tq * heads);
        const float* row_bias = nullptr;
        if (bias) row_bias = bias + ((bias_per_batch ? batch * heads : 0) + head) * tq * tk + query * tk;
        const std::int64_t limit = causal ? query + causal_offset + 1 : tk;
        float* scores_row = s + row * tk;
        const float* keep = mask ? mask + batch * tk : nullptr;
        if (deterministic_)
          cpu::attention_softmax_row(scores_row, tk, scale, row_bias, keep, limit, cpu::Order::Fixed);
        else
          rows_->attention_softmax_row(scores_row, tk, scale, row_bias, keep, limit);
      }
    });
  }

  // One pool hand-off for the whole attention: each task takes one (sequence or group, head, block
  // of queries) through its scores, softmax and value product in a buffer of its thread, so no
  // [outer, heads, queries, keys] tensor goes through memory, and the heads' products, which
  // gemm_batched runs one after another (each on one thread, or on OpenBLAS's team from
  // m·n·k > 262144 on, whose hand-offs cost more than they gave: docs/performance.md), run side by
  // side on the pool. One query per (outer, head) (a decoding step's self-attention, and greedy
  // search's cross-attention) and a few queries without a causal limit (beam search's
  // cross-attention: a source's beams share its keys) run on attend_query's row kernel, query by
  // query, all heads of a row in one task: two BLAS calls per head took 1.4-1.6x its time at 16
  // rows, and a step's attention at 80 rows in beams of 5 took 1.4-1.5x as long with two sgemm calls
  // per head for the cross-attention (bench_decode_attention, 16 keys). Causal blocks (teacher
  // forcing) and more queries go through OpenBLAS around attention_softmax's row kernel: sgemm sums
  // along the head in one chain of multiply-adds, as PyTorch's products do, and the row kernel's
  // lane sums moved a T5 teacher-forced logit 2.0e-4 from Hugging Face's (the test's bound:
  // 1.6e-4). Deterministic runs keep the fixed-order products of the default. key_rows (a beam
  // search's rows whose positions other rows of the cache hold) are read by the row kernel only;
  // --deterministic says it does not read them, so its caches move the rows instead.
  bool attention_reads_key_rows() const override { return !deterministic_; }
  void do_attention(const AttentionOperands& a) override {
    if (deterministic_) {
      Backend::do_attention(a);
      return;
    }
    for (const Tensor* t : {&a.q, &a.k, &a.v}) require_unpacked(*t, "attention");
    if (!a.key_rows.empty()) {
      const std::int32_t* row = id_ptr(a.key_rows);
      for (std::int64_t i = 0; i < a.key_rows.numel(); ++i)
        if (row[i] < 0 || row[i] >= a.outer) fail("attention: key row {} outside [0, {})", row[i], a.outer);
    }
    if (a.queries == 1 || (a.queries <= kRowKernelQueries && !a.causal)) {
      attend_each_query(a);
      return;
    }
    // Queries per task: the block's scores within L2 (kScoreBlock floats).
    const std::int64_t keys = a.keys, dh = a.head_dim;
    const std::int64_t block = keys > 0 ? std::clamp<std::int64_t>(kScoreBlock / keys, 1, a.queries) : a.queries;
    const std::int64_t blocks = (a.queries + block - 1) / block;
    // Checked before OpenBLAS is held to one thread: nothing below may throw.
    for (const std::int64_t size : {keys, dh, block, a.q_view.ld, a.k_view.ld, a.v_view.ld, a.context_view.ld})
      blas_int(size);
    openblas_set_num_threads(1);
    rows_parallel(a.outer * a.inner * blocks, block * keys * dh * 4, [&](std::int64_t begin, std::int64_t end) {
      thread_local std::vector<float> buffer;
      buffer.resize(static_cast<std::size_t>(block * keys));
      float* s = buffer.data();
      for (std::int64_t task = begin; task < end; ++task) {
        const std::int64_t o = task / (a.inner * blocks), i = task / blocks % a.inner, first = task % blocks * block;
        const std::int64_t rows = std::min(block, a.queries - first);
        const float* q = ptr(a.q) + at(a.q_view, o, i) + first * a.q_view.ld;
        const float *k = ptr(a.k) + at(a.k_view, o, i), *v = ptr(a.v) + at(a.v_view, o, i);
        float* out = ptr(a.context) + at(a.context_view, o, i) + first * a.context_view.ld;
        product(false, true, rows, keys, dh, 1.0f, {q, a.q_view.ld}, {k, a.k_view.ld}, 0.0f, s, keys);
        for (std::int64_t r = 0; r < rows; ++r)
          rows_->attention_softmax_row(s + r * keys, keys, a.scale, bias_row(a, o, i, first + r), key_mask_row(a, o),
                                       key_limit(a, first + r));
        product(false, false, rows, dh, keys, 1.0f, {s, keys}, {v, a.v_view.ld}, 0.0f, out, a.context_view.ld);
      }
    });
    openblas_set_num_threads(pool_.threads());
  }

  // attention() query by query: one task per (outer, query) for all heads, on attend_query's row
  // kernel.
  void attend_each_query(const AttentionOperands& a) {
    const std::int64_t keys = a.keys, heads = a.inner, queries = a.queries;
    rows_parallel(a.outer * queries, heads * keys * a.head_dim * 4, [&](std::int64_t begin, std::int64_t end) {
      thread_local std::vector<float> scores;
      scores.resize(static_cast<std::size_t>(heads * keys));
      for (std::int64_t task = begin; task < end; ++task) {
        const std::int64_t o = task / queries, query = task % queries, keys_of = a.key_rows.empty() ? o : 0;
        rows_->attend_query({.q = ptr(a.q) + at(a.q_view, o, 0) + query * a.q_view.ld,
                             .k = ptr(a.k) + at(a.k_view, keys_of, 0),
                             .v = ptr(a.v) + at(a.v_view, keys_of, 0),
                             .bias = bias_row(a, o, 0, query),
                             .keep = key_mask_row(a, o),
                             .out = ptr(a.context) + at(a.context_view, o, 0) + query * a.context_view.ld,
                             .heads = heads, .head_dim = a.head_dim, .keys = keys,
                             .limit = key_limit(a, query),
                             .q_head = a.q_view.inner_stride, .k_head = a.k_view.inner_stride,
                             .v_head = a.v_view.inner_stride, .out_head = a.context_view.inner_stride,
                             .bias_head = a.queries * keys, .k_ld = a.k_view.ld, .v_ld = a.v_view.ld, .scale = a.scale,
                             .key_rows = a.key_rows.empty() ? nullptr : id_ptr(a.key_rows) + o,
                             .key_rows_ld = a.outer, .k_row = a.k_view.outer_stride, .v_row = a.v_view.outer_stride},
                            scores.data());
      }
    });
  }

  void do_gather_rows(const Tensor& table, const Tensor& ids, float scale, bool accumulate,
                      const Tensor& out) override {
    require_unpacked(table, "gather_rows");
    const std::int64_t rows = rows_of(table), cols = cols_of(table), count = ids.numel();
    const std::int32_t* id = id_ptr(ids);
    for (std::int64_t i = 0; i < count; ++i) {
      if (id[i] < 0 || id[i] >= rows) fail("gather_rows: id {} outside the table's {} rows", id[i], rows);
    }
    const float* src = ptr(table);
    float* dst = ptr(out);
    rows_parallel(count, cols, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        const float* from = src + id[i] * cols;
        float* to = dst + i * cols;
        // Moving cache rows (KvCache's copies, beam reorders where attention does not read key
        // rows) is a plain copy; the branch stays out of the loops so that they vectorize.
        if (accumulate) {
          for (std::int64_t c = 0; c < cols; ++c) to[c] += scale * from[c];
        } else if (scale == 1.0f) {
          std::copy_n(from, cols, to);
        } else {
          for (std::int64_t c = 0; c < cols; ++c) to[c] = scale * from[c];
        }
      }
    });
  }

  void do_copy_strided(const Tensor& src, const StridedView& sv, const Tensor& dst, const StridedView& dv,
                       const std::array<std::int64_t, 4>& extent) override {
    const auto* from = reinterpret_cast<const std::uint32_t*>(ptr(src));
    auto* to = reinterpret_cast<std::uint32_t*>(ptr(dst));
    // Runs contiguous on both sides (a step's keys into the cache: i2 with i3 of extent 1; rows
    // moved between caches: i3) are one copy each, not an element loop.
    const bool runs_of_i2 = extent[3] == 1 && sv.strides[2] == 1 && dv.strides[2] == 1;
    const bool runs_of_i3 = sv.strides[3] == 1 && dv.strides[3] == 1;
    for (std::int64_t i0 = 0; i0 < extent[0]; ++i0) {
      for (std::int64_t i1 = 0; i1 < extent[1]; ++i1) {
        const std::int64_t s01 = sv.offset + i0 * sv.strides[0] + i1 * sv.strides[1];
        const std::int64_t d01 = dv.offset + i0 * dv.strides[0] + i1 * dv.strides[1];
        if (runs_of_i2) {
          std::copy_n(from + s01, extent[2], to + d01);
          continue;
        }
        for (std::int64_t i2 = 0; i2 < extent[2]; ++i2) {
          const std::int64_t s = s01 + i2 * sv.strides[2], d = d01 + i2 * dv.strides[2];
          if (runs_of_i3) {
            std::copy_n(from + s, extent[3], to + d);
            continue;
          }
          for (std::int64_t i3 = 0; i3 < extent[3]; ++i3) to[d + i3 * dv.strides[3]] = from[s + i3 * sv.strides[3]];
        }
      }
    }
  }

  void do_relative_gather(const Tensor& c2p, const Tensor& p2c, const Tensor& index, const Tensor& out) override {
    const std::int64_t len = out.dim(2), span = (c2p.empty() ? p2c : c2p).dim(3), matrices = out.dim(0) * out.dim(1);
    const std::int32_t* at = id_ptr(index);
    for (std::int64_t i = 0; i < len * len; ++i)
      if (at[i] < 0 || at[i] >= span) fail("relative_gather: index {} outside the {} relative positions", at[i], span);
    const float* query_terms = c2p.empty() ? nullptr : ptr(c2p);
    const float* key_terms = p2c.empty() ? nullptr : ptr(p2c);
    float* o = ptr(out);
    rows_parallel(matrices * len, len * 2, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t row = begin; row < end; ++row) {  // row = (b·H + h)·T + i
        const std::int64_t i = row % len, matrix = row / len;
        for (std::int64_t j = 0; j < len; ++j) {
          const std::int32_t r = at[i * len + j];
          float v = 0.0f;
          if (query_terms) v += query_terms[row * span + r];
          if (key_terms) v += key_terms[(matrix * len + j) * span + r];
          o[row * len + j] = v;
        }
      }
    });
  }

  void do_pool(const Tensor& x, const Tensor& mask, Pooling mode, const Tensor& out) override {
    const std::int64_t batch = x.dim(0), length = x.dim(1), cols = x.dim(2);
    for (std::int64_t b = 0; b < batch; ++b) {
      const float* seq = ptr(x) + b * length * cols;
      const float* m = ptr(mask) + b * length;
      float* o = ptr(out) + b * cols;
      switch (mode) {
        case Pooling::Mean:
          cpu::mean_pool(seq, m, length, cols, false, o);
          break;
        case Pooling::MeanSqrtLen:
          cpu::mean_pool(seq, m, length, cols, true, o);
          break;
        case Pooling::Max:
          cpu::max_pool(seq, m, length, cols, o);
          break;
        case Pooling::Cls:
          std::memcpy(o, seq, static_cast<std::size_t>(cols) * sizeof(float));
          break;
      }
    }
  }

  void do_l2_normalize(const Tensor& x) override { cpu::l2_normalize(ptr(x), rows_of(x), cols_of(x), order()); }

  void do_log_softmax(const Tensor& x, const Tensor& out) override {
    const std::int64_t cols = cols_of(x);
    rows_parallel(rows_of(x), cols * 8, [&](std::int64_t begin, std::int64_t end) {
      cpu::log_softmax(ptr(x) + begin * cols, ptr(out) + begin * cols, end - begin, cols, order());
    });
  }

  void do_top_k_rows(const Tensor& x, std::int64_t k, std::int64_t exclude, const Tensor& values, const Tensor& ids,
                     const Tensor& terms) override {
    const std::int64_t cols = cols_of(x);
    // Where the search's own work on rows runs (parallel_rows): from kMinTeam threads on, that is
    // the OpenMP team the products run on, not the pool beside it.
    parallel_rows(rows_of(x), [&](std::int64_t begin, std::int64_t end) {
      cpu::top_k_rows(ptr(x) + begin * cols, end - begin, cols, k, exclude, row_kernels().exp_sum,
                      ptr(values) + begin * k, id_ptr(ids) + begin * k, ptr(terms) + begin * 2);
    });
  }

 private:
  // Few rows: one column slice of the weight per thread (sliced_linear). Otherwise one block of rows
  // per thread, each on its own lane of the packer: on a few threads, where
  // OpenMP's spinning team beside the pool's threads cost more than it gave. From kMinTeam threads
  // on, oneDNN runs the whole product on an OpenMP team and splits it itself: blocks of rows would
  // leave threads idle on a decoding step's few rows, and have every thread read the whole weight.
  // The activation runs on each block's rows right after its product, on the same thread: no second
  // pool hand-off, and the rows were just written by that thread (in its caches as far as they
  // fit). The same code as bias_act's, so the same bits.
  void packed_linear(const float* x, std::int64_t m, const cpu::PackedWeight& w, const float* bias, Activation act,
                     float* y) {
    const int threads = pool_.threads();
    if (threads >= kMinTeam) {
      packer_->linear(x, m, w, bias, y, 0, threads);
      if (act != Activation::None) {
        const std::int64_t n = w.rows();
        rows_parallel(m, n * cost(act), [&](std::int64_t begin, std::int64_t end) {
          bias_act_rows(y + begin * n, end - begin, n, nullptr, act);
        });
      }
      return;
    }
    if (w.slices() > 1 && m < kSliceRows) {
      sliced_linear(x, m, w, bias, act, y);
      return;
    }
    const std::int64_t blocks = std::clamp<std::int64_t>(m, 1, threads);
    const std::int64_t rows = (m + blocks - 1) / blocks, k = w.cols(), n = w.rows();
    rows_parallel(blocks, rows * n * k / 16, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t block = begin; block < end; ++block) {
        const std::int64_t first = block * rows, count = std::min(rows, m - first);
        if (count <= 0) continue;
        packer_->linear(x + first * k, count, w, bias, y + first * n, static_cast<int>(block));
        if (act != Activation::None) bias_act_rows(y + first * n, count, n, nullptr, act);
      }
    });
  }
  // Each thread one column slice of the weight, for all m rows, and the activation on its columns.
  void sliced_linear(const float* x, std::int64_t m, const cpu::PackedWeight& w, const float* bias, Activation act,
                     float* y) {
    const std::int64_t n = w.rows();
    rows_parallel(w.slices(), m * n * w.cols() / w.slices() / 16, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t s = begin; s < end; ++s) {
        const int slice = static_cast<int>(s);
        packer_->linear_slice(x, m, w, slice, bias, y, slice);
        if (act == Activation::None) continue;
        const std::int64_t first = w.slice_begin(slice), count = w.slice_begin(slice + 1) - first;
        for (std::int64_t r = 0; r < m; ++r) bias_act_rows(y + r * n + first, 1, count, nullptr, act);
      }
    });
  }
  // A packed weight's elements are in oneDNN's blocked layout: only linear can read them.
  void require_unpacked(const Tensor& t, const char* op) const {
    if (packed_.count(t.handle))
      fail("{}: a linear layer's packed weight {} is readable by linear only", op, t.shape.str());
  }
  void product(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
               cpu::MatrixRef a, cpu::MatrixRef b, float beta, float* c, std::int64_t c_ld) {
    if (m == 0 || n == 0) return;
    if (deterministic_) {
      cpu::fixed_order_gemm(trans_a, trans_b, m, n, k, alpha, a, b, beta, c, c_ld, scratch_, pool_);
      return;
    }
    if (m == 1 && k > 0) {
      vector_product(trans_a, trans_b, n, k, alpha, a, b, beta, c);
      return;
    }
    cblas_sgemm(CblasRowMajor, blas_trans(trans_a), blas_trans(trans_b), blas_int(m), blas_int(n), blas_int(k), alpha,
                a.data, blas_ld(a.ld), b.data, blas_ld(b.ld), beta, c, blas_ld(c_ld));
  }
  // One row times a matrix, as sgemv: OpenBLAS's sgemm packs both operands on every call even for
  // one row, which was three quarters of a decoding step's attention products (one query row per
  // sequence and head) in perf. beta = 0 must not read c, which BLAS's scaling by 0 would (NaN · 0).
  static void vector_product(bool trans_a, bool trans_b, std::int64_t n, std::int64_t k, float alpha, cpu::MatrixRef a,
                             cpu::MatrixRef b, float beta, float* c) {
    if (beta == 0.0f) std::fill_n(c, n, 0.0f);
    const blasint x_step = trans_a ? blas_ld(a.ld) : 1;  // a is [k, 1] when transposed
    if (trans_b)  // b [n, k]: c = b · a
      cblas_sgemv(CblasRowMajor, CblasNoTrans, blas_int(n), blas_int(k), alpha, b.data, blas_ld(b.ld), a.data, x_step,
                  beta, c, 1);
    else  // b [k, n]: c = bᵀ · a
      cblas_sgemv(CblasRowMajor, CblasTrans, blas_int(k), blas_int(n), alpha, b.data, blas_ld(b.ld), a.data, x_step,
                  beta, c, 1);
  }
  static blasint blas_int(std::int64_t v) {
    if (v > std::numeric_limits<blasint>::max()) fail("matrix dimension {} exceeds the BLAS integer range", v);
    return static_cast<blasint>(v);
  }
  // BLAS rejects a leading dimension of 0 even when the operand is empty.
  static blasint blas_ld(std::int64_t v) { return blas_int(std::max<std::int64_t>(v, 1)); }
  static std::int64_t at(const MatrixView& v, std::int64_t o, std::int64_t i) {
    return v.offset + o * v.outer_stride + i * v.inner_stride;
  }
  // attention()'s softmax operands for row `query` of head i of outer o, as attention_softmax_row
  // takes them: the position bias row (null: none; heads follow `queries × keys` apart), the key
  // mask row (null: none) and the keys the causal limit keeps.
  static const float* bias_row(const AttentionOperands& a, std::int64_t o, std::int64_t i, std::int64_t query) {
    if (a.position_bias.empty()) return nullptr;
    const std::int64_t matrix = (a.position_bias.shape.rank == 4 ? o * a.inner : 0) + i;
    return ptr(a.position_bias) + (matrix * a.queries + query) * a.keys;
  }
  static const float* key_mask_row(const AttentionOperands& a, std::int64_t o) {
    return a.key_mask.empty() ? nullptr : ptr(a.key_mask) + o * a.keys;
  }
  static std::int64_t key_limit(const AttentionOperands& a, std::int64_t query) {
    return a.causal ? query + a.causal_offset + 1 : a.keys;
  }
  // rows [count, cols] += bias (may be null), then the activation, on the calling thread.
  void bias_act_rows(float* rows, std::int64_t count, std::int64_t cols, const float* bias, Activation act) const {
    // GELU and SiLU on this CPU's instruction set, outside --deterministic (row_kernels.hpp).
    const auto wide = act == Activation::GeluErf ? rows_->bias_gelu_erf
                      : act == Activation::Silu  ? rows_->bias_silu
                                                 : nullptr;
    if (wide && !deterministic_) {
      wide(rows, count, cols, bias);
      return;
    }
    if (bias) cpu::add_bias(rows, count, cols, bias);
    // Row by row: Eigen computes the elements before the first aligned address with scalar
    // functions, so a thread's range must start where a row does for results not to depend on
    // the split.
    for (std::int64_t r = 0; r < count; ++r) activate(act, rows + r * cols, cols, order());
  }
  // Rough per-element cost of an activation, for the parallel-or-inline decision.
  static std::int64_t cost(Activation act) { return act == Activation::None || act == Activation::Relu ? 1 : 16; }
  // The pool's workers, an OpenMP team of as many (oneDNN) and OpenBLAS's: threads − 1 each.
  static void require_threads(int threads) {
    cpu::require_thread_budget(threads, 3 * (static_cast<std::int64_t>(std::max(threads, 1)) - 1));
  }
  // From kMinTeam threads on, the products run on an OpenMP team whose threads spin on the cores
  // the pool's run on: the pool then sleeps at once (spinning beside them made generation on 16
  // cores of an H200 machine 1.3–7× slower, the main thread getting a quarter of a core).
  static bool pool_spins(int threads) { return threads < kMinTeam; }
  // Batch-invariant row work when deterministic (cpu::Order).
  cpu::Order order() const { return deterministic_ ? cpu::Order::Fixed : cpu::Order::Fast; }
  // The row kernels whose results may depend on the instruction set: the portable ones under
  // --deterministic (the same bits on every x86-64 machine).
  const cpu::RowKernels& row_kernels() const { return deterministic_ ? *portable_rows_ : *rows_; }
  static void activate(Activation act, float* x, std::int64_t n, cpu::Order order) {
    switch (act) {
      case Activation::None:
        break;
      case Activation::GeluErf:
        cpu::gelu_erf(x, n, order);
        break;
      case Activation::GeluTanh:
        cpu::gelu_tanh(x, n, order);
        break;
      case Activation::Relu:
        cpu::relu(x, n);
        break;
      case Activation::Silu:
        cpu::silu(x, n, order);
        break;
      case Activation::Tanh:
        cpu::tanh(x, n, order);
        break;
    }
  }
  template <typename F>
  void rows_parallel(std::int64_t rows, std::int64_t cost_per_row, F body) {
    pool_.parallel_for(rows, cost_per_row, body);
  }

  cpu::ThreadPool pool_;
  bool deterministic_;
  bool int8_;      // Matrix weights quantized to int8 (exact int32 sums: deterministic too)
  // For this CPU's instruction set: the layer norm (Order::Fixed's bits in every variant), and GELU
  // and the attention softmax outside --deterministic (Order::Fixed keeps their portable code,
  // whose bits do not depend on the CPU).
  const cpu::RowKernels* rows_;
  const cpu::RowKernels* portable_rows_ = cpu::supported_row_kernels().front();
  static constexpr int kMinTeam = 4;
  // Below this many rows a product sliced by columns runs one slice per thread (sliced_linear); at
  // and above it, blocks of rows, each over the whole weight (its slices side by side where the
  // layout allows, else each slice in turn). Measured on XLM-R base and the
  // opus-mt-base Marian at 2 threads (docs/performance.md): slices took 0.67–0.92 of the time at 1 to
  // 32 rows, broke even at 80, and at 256 rows int8 took 1.3× (each slice quantizes every row).
  static constexpr std::int64_t kSliceRows = 128;
  // Below OpenBLAS's threshold for threads (m·n·k ≤ 65536 · GEMM_MULTITHREAD_THRESHOLD, 4 by default).
  static constexpr std::int64_t kSmallProduct = 65536;
  static constexpr std::int64_t kHostRowCost = 1 << 20;  // a row of host work is worth a thread
  static constexpr std::int64_t kScoreBlock = 65536;  // floats: 256 KiB
  // The most queries per (outer, head) attend_each_query takes without a causal limit; more share
  // sgemm's packing of the keys among enough rows to pay for it.
  static constexpr std::int64_t kRowKernelQueries = 8;
  std::unique_ptr<cpu::PackedMatmul> packer_;  // null when nothing is packed
  PackedIndex packed_;
  cpu::GemmScratch scratch_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options) {
  // Half-precision storage would need a converting GEMM; OpenBLAS has none (sbgemm is bfloat16).
  if (options.weights == WeightType::F16)
    fail("the cpu device stores weights in f32 or int8 ({} weights need an OpenCL device)",
         weight_type_name(options.weights));
  if (options.weights == WeightType::Int8 && options.linear != LinearKernel::OneDnn)
    fail("int8 weights run on oneDNN only, not with linear layers on {}", linear_kernel_name(options.linear));
  return std::make_unique<CpuBackend>(options);
}

BackendFactory cpu_backend_factory() {
  return {"cpu", "", [](const std::string& device) { return device == "cpu"; },
          [](const std::string&, const BackendOptions& options) { return make_cpu_backend(options); },
          [] {
            return std::vector<DeviceInfo>{{"cpu", "host CPU (oneDNN, OpenBLAS + Eigen kernels)", "", 0,
                                            std::max(1u, std::thread::hardware_concurrency()), false,
                                            {WeightType::F32, WeightType::Int8}}};
          }};
}

}  // namespace invar
