// The OpenCL backend. Matrix products go to CLBlast (sgemm, strided-batched sgemm), everything
// else to the kernels of backends/opencl/kernels.cl, all enqueued in order on one queue: nothing
// returns to the host between upload() and download(). Weights are uploaded once into read-only
// buffers (matrices in half precision with --weights f16), activations live in Arena chunks (one
// cl_mem each).
#include "backends/opencl/backend.hpp"

#include <clblast.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "core/error.hpp"
#include "backends/opencl/runtime.hpp"

namespace invar {

namespace {

using opencl::check;
using opencl::Device;

cl_mem mem(const Tensor& t) { return static_cast<cl_mem>(t.handle); }
std::int64_t cols_of(const Tensor& t) { return t.shape[t.shape.rank - 1]; }
std::int64_t rows_of(const Tensor& t) { return cols_of(t) == 0 ? 0 : t.numel() / cols_of(t); }

// A buffer argument as the kernels take it: the buffer, then the element offset of the view.
struct Buffer {
  cl_mem mem;
  cl_ulong offset;
};
Buffer buffer(const Tensor& t) { return {mem(t), static_cast<cl_ulong>(t.offset / dtype_size(t.dtype))}; }
// An optional operand: absent ones pass `fallback`'s buffer (never read, flagged by an int).
Buffer buffer_or(const Tensor& t, const Tensor& fallback) { return buffer(t.empty() ? fallback : t); }

// __local scratch of one float per work-item, appended to the row kernels' arguments (also one
// uint per work-item: the same size).
struct LocalFloats {
  std::size_t count;
};

cl_ulong u64(std::int64_t v) { return static_cast<cl_ulong>(v); }

cl_mem allocate(const Device& device, std::size_t bytes, cl_mem_flags flags, const void* host) {
  const auto out_of_memory = [&](const char* why) {
    fail("OpenCL device {} is out of memory: cannot allocate {} bytes ({} MiB; {}, the device allows {} MiB per "
         "buffer and has {} MiB)",
         device.info.name, bytes, bytes >> 20, why, device.info.max_allocation >> 20, device.info.global_memory >> 20);
  };
  // Checked here too: NVIDIA's driver returned a buffer of 4 PiB, beyond its own per-buffer limit.
  if (bytes > device.info.max_allocation) out_of_memory("larger than one buffer may be");
  cl_int status = CL_SUCCESS;
  // A zero-size buffer is invalid in OpenCL; empty tensors still get a handle.
  cl_mem buffer = clCreateBuffer(device.context, flags, std::max<std::size_t>(bytes, 4), const_cast<void*>(host),
                                 &status);
  if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ||
      status == CL_OUT_OF_HOST_MEMORY || status == CL_INVALID_BUFFER_SIZE) {
    out_of_memory(opencl::error_name(status));
  }
  check(status, "clCreateBuffer");
  return buffer;
}

// Matrices in `matrices` precision, everything else F32. Half values are stored, never computed
// with: the kernels widen them with vload_half, which is core OpenCL C, so any device can.
class OpenClWeightStore final : public WeightStore {
 public:
  OpenClWeightStore(std::shared_ptr<const Device> device, WeightType matrices)
      : device_(std::move(device)), matrices_(matrices) {}
  ~OpenClWeightStore() override {
    for (cl_mem buffer : buffers_) clReleaseMemObject(buffer);
  }

  Tensor add(const TensorData& src, WeightUse use) override {
    const Shape shape = weight_shape(src);
    const bool half = in_half(use);
    if (src.dtype == (half ? DType::F16 : DType::F32)) return add_bytes(src.data, shape, src.dtype);
    return add(to_f32(src), shape, use);
  }

  Tensor add(const std::vector<float>& values, Shape shape, WeightUse use) override {
    if (static_cast<std::int64_t>(values.size()) != shape.numel()) {
      fail("{} values for a weight of shape {}", values.size(), shape.str());
    }
    if (!in_half(use)) return add_bytes(values.data(), shape, DType::F32);
    std::vector<std::uint16_t> bits(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      bits[i] = f32_to_f16_bits(values[i]);
      // Infinity from a finite value: the weight does not fit half precision.
      if ((bits[i] & 0x7FFF) == 0x7C00 && std::isfinite(values[i]))
        fail("value {} is beyond half precision's range (±65504): load this model with f32 weights", values[i]);
    }
    return add_bytes(bits.data(), shape, DType::F16);
  }

  std::size_t bytes() const override { return bytes_; }

 private:
  bool in_half(WeightUse use) const {
    return (use == WeightUse::Matrix || use == WeightUse::Table) && matrices_ == WeightType::F16;
  }

  Tensor add_bytes(const void* data, Shape shape, DType dtype) {
    Tensor t;
    t.dtype = dtype;
    t.shape = shape;
    const std::size_t bytes = t.nbytes();
    const cl_mem_flags flags = CL_MEM_READ_ONLY | (bytes > 0 ? CL_MEM_COPY_HOST_PTR : 0);
    buffers_.push_back(allocate(*device_, bytes, flags, bytes > 0 ? data : nullptr));
    t.handle = buffers_.back();
    bytes_ += bytes;
    return t;
  }

  std::shared_ptr<const Device> device_;
  WeightType matrices_;
  std::vector<cl_mem> buffers_;
  std::size_t bytes_ = 0;
};

class OpenClArena final : public Arena {
 public:
  explicit OpenClArena(std::shared_ptr<const Device> device) : device_(std::move(device)) {}
  ~OpenClArena() override { release_all(); }

 protected:
  void* allocate_storage(std::size_t bytes) override { return allocate(*device_, bytes, CL_MEM_READ_WRITE, nullptr); }
  void release_storage(void* handle) override { clReleaseMemObject(static_cast<cl_mem>(handle)); }

 private:
  std::shared_ptr<const Device> device_;
};

// The kernels of kernels.cl, in the order of kKernelNames.
enum class Kernel { Scale, BiasAct, Binary, LayerNorm, RmsNorm, AttentionSoftmax, LogSoftmax, L2Normalize,
                    GatherRows, GatherRowsHalf, CopyStrided, Pool, WidenHalf, RelativeGather, TopKRows, Attention,
                    Count };
constexpr std::array<const char*, static_cast<std::size_t>(Kernel::Count)> kKernelNames = {
    "scale", "bias_act", "binary", "layer_norm", "rms_norm", "attention_softmax", "log_softmax", "l2_normalize",
    "gather_rows", "gather_rows_half", "copy_strided", "pool", "widen_half", "relative_gather", "top_k_rows",
    "attention"};
// Work-items per row in the row kernels, and per group in the others (fewer where the device or
// kernel allows fewer).
constexpr std::size_t kRowGroup = 128;
constexpr std::size_t kElementGroup = 64;
// Keys up to which attention runs fused (its scores in a work-group's __local memory: 8 KiB,
// a quarter of the least OpenCL promises); more keys take the scores tensor.
constexpr std::int64_t kFusedAttentionKeys = 2048;
// Floats of the scratch buffer F16 weights are widened into before CLBlast multiplies them (16 MiB;
// a weight with more elements goes through it in blocks of rows).
constexpr std::int64_t kWidenFloats = std::int64_t{4} << 20;

clblast::Transpose blas_trans(bool trans) { return trans ? clblast::Transpose::kYes : clblast::Transpose::kNo; }

void check_blas(clblast::StatusCode status, const char* routine) {
  if (status != clblast::StatusCode::kSuccess) fail("CLBlast {} failed with status {}", routine, int(status));
}

class OpenClBackend final : public Backend {
 public:
  OpenClBackend(std::shared_ptr<const Device> device, WeightType weights)
      : device_(std::move(device)), weights_(weights) {
    try {
      create_queue_and_kernels();
    } catch (...) {
      release();
      throw;
    }
  }

  ~OpenClBackend() override { release(); }

  std::string name() const override {
    return fmt::format("opencl:{}:{}", device_->info.platform, device_->info.device);
  }

  // The OpenCL driver schedules its own compute units: the threads are the host's, for the work
  // between kernels.
  void set_threads(int threads) override { threads_ = std::max(threads, 1); }
  int threads() const override { return threads_; }

  std::unique_ptr<WeightStore> make_weight_store() override {
    return std::make_unique<OpenClWeightStore>(device_, weights_);
  }
  std::unique_ptr<Arena> make_arena() override { return std::make_unique<OpenClArena>(device_); }

  void upload(const void* host, const Tensor& dst) override {
    if (dst.nbytes() == 0) return;
    check(clEnqueueWriteBuffer(queue_, mem(dst), CL_TRUE, dst.offset, dst.nbytes(), host, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer");
  }

  void download(const Tensor& src, void* host) override {
    if (src.nbytes() == 0) return;
    check(clEnqueueReadBuffer(queue_, mem(src), CL_TRUE, src.offset, src.nbytes(), host, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  }

 protected:
  bool takes_f16_weights() const override { return true; }

  void do_gemm(bool trans_a, bool trans_b, float alpha, const Tensor& a, const Tensor& b, float beta,
               const Tensor& c) override {
    const std::int64_t m = rows_of(c), n = cols_of(c), k = trans_a ? rows_of(a) : cols_of(a);
    if (m == 0 || n == 0) return;
    if (k == 0) return scale_matrices(c, {0, n, 0, 0}, m, n, beta, 1, 1);
    check_blas(clblast::Gemm<float>(clblast::Layout::kRowMajor, blas_trans(trans_a), blas_trans(trans_b), m, n, k,
                                    alpha, mem(a), buffer(a).offset, cols_of(a), mem(b), buffer(b).offset,
                                    cols_of(b), beta, mem(c), buffer(c).offset, n, &queue_),
               "sgemm");
  }

  // CLBlast's strided-batched sgemm walks one stride; the two levels of a MatrixView become one
  // call when the outer stride continues the inner one (heads of a contiguous batch) or either
  // level is a single matrix, and one call per outer index otherwise.
  void do_gemm_batched(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                       const Tensor& a, const MatrixView& av, const Tensor& b, const MatrixView& bv, float beta,
                       const Tensor& c, const MatrixView& cv, std::int64_t outer, std::int64_t inner) override {
    if (m == 0 || n == 0 || outer == 0 || inner == 0) return;
    if (k == 0) return scale_matrices(c, cv, m, n, beta, outer, inner);
    const auto continues = [inner](const MatrixView& v) { return v.outer_stride == inner * v.inner_stride; };
    const auto call = [&](std::int64_t o, std::int64_t count, bool by_outer) {
      const auto at = [&](const Tensor& t, const MatrixView& v) {
        return buffer(t).offset + u64(v.offset + o * v.outer_stride);
      };
      const auto stride = [by_outer](const MatrixView& v) { return u64(by_outer ? v.outer_stride : v.inner_stride); };
      check_blas(clblast::GemmStridedBatched<float>(
                     clblast::Layout::kRowMajor, blas_trans(trans_a), blas_trans(trans_b), m, n, k, alpha, mem(a),
                     at(a, av), av.ld, stride(av), mem(b), at(b, bv), bv.ld, stride(bv), beta, mem(c), at(c, cv), cv.ld,
                     stride(cv), count, &queue_),
                 "sgemm (strided batched)");
    };
    if (inner == 1) {
      call(0, outer, true);
    } else if (outer == 1 || (continues(av) && continues(bv) && continues(cv))) {
      call(0, outer * inner, false);
    } else {
      for (std::int64_t o = 0; o < outer; ++o) call(o, inner, false);
    }
  }

  // An F16 weight is widened into scratch_ in blocks of whole rows, each block one sgemm into its
  // columns of y: CLBlast has no mixed-precision GEMM, and this keeps its tuned sgemm (the choice
  // is measured in docs/opencl.md).
  void do_linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y) override {
    if (w.dtype == DType::F32) return Backend::do_linear(x, w, bias, act, y);
    const std::int64_t m = rows_of(x), k = cols_of(x), n = rows_of(w);
    if (m == 0 || n == 0) return;  // also when k = 0: an [M, 0] matrix has no rows
    const std::int64_t block = std::min(n, std::max<std::int64_t>(1, kWidenFloats / k));
    const Buffer scratch = widen_scratch(static_cast<std::size_t>(block * k));
    for (std::int64_t row = 0; row < n; row += block) {
      const std::int64_t rows = std::min(block, n - row);
      run(Kernel::WidenHalf, {u64(rows * k)}, Buffer{mem(w), buffer(w).offset + u64(row * k)}, scratch,
          u64(rows * k));
      check_blas(clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kYes,
                                      m, rows, k, 1.0f, mem(x), buffer(x).offset, k, scratch.mem, 0, k, 0.0f, mem(y),
                                      buffer(y).offset + u64(row), n, &queue_),
                 "sgemm");
    }
    if (!bias.empty() || act != Activation::None) do_bias_act(y, bias, act);
  }

  void do_bias_act(const Tensor& x, const Tensor& bias, Activation act) override {
    if (x.numel() == 0) return;
    run(Kernel::BiasAct, {u64(x.numel())}, buffer(x), buffer_or(bias, x), cl_int(!bias.empty()), u64(cols_of(x)),
        cl_int(act), u64(x.numel()));
  }

  void do_binary(Binary op, const Tensor& a, const Tensor& b, const Tensor& out) override {
    if (a.numel() == 0) return;
    run(Kernel::Binary, {u64(a.numel())}, buffer(a), buffer(b), buffer(out), u64(a.numel()),
        cl_int(op == Binary::Add ? 0 : 1));
  }

  void do_layer_norm(const Tensor& x, const Tensor& residual, const Tensor& gamma, const Tensor& beta, float eps,
                     const Tensor& out) override {
    run_rows(Kernel::LayerNorm, rows_of(x), buffer(x), buffer_or(residual, x), cl_int(!residual.empty()),
             buffer(gamma), buffer(beta), eps, buffer(out), u64(cols_of(x)));
  }

  void do_rms_norm(const Tensor& x, const Tensor& weight, float eps, const Tensor& out) override {
    run_rows(Kernel::RmsNorm, rows_of(x), buffer(x), buffer(weight), eps, buffer(out), u64(cols_of(x)));
  }

  void do_attention_softmax(const Tensor& scores, float scale, const Tensor& key_mask, const Tensor& position_bias,
                            bool causal, std::int64_t causal_offset) override {
    if (scores.dim(3) == 0) return;
    run_rows(Kernel::AttentionSoftmax, rows_of(scores), buffer(scores), scale, buffer_or(key_mask, scores),
             cl_int(!key_mask.empty()), buffer_or(position_bias, scores), cl_int(!position_bias.empty()),
             cl_int(position_bias.shape.rank == 4), u64(scores.dim(1)), u64(scores.dim(2)), u64(scores.dim(3)),
             cl_int(causal), u64(causal_offset));
  }

  // Fused where the scores fit a work-group's __local memory.
  bool attention_needs_scores(std::int64_t keys) const override { return keys > kFusedAttentionKeys; }
  void do_attention(const AttentionOperands& a) override {
    if (a.keys > kFusedAttentionKeys) return Backend::do_attention(a);
    // A group as wide as the longer of a query's keys and its head (a power of two for the reductions).
    const std::size_t local = std::min(
        row_group_, std::bit_ceil(static_cast<std::size_t>(std::max<std::int64_t>({a.keys, a.head_dim, 32}))));
    const std::size_t global = static_cast<std::size_t>(a.outer * a.inner * a.queries) * local;
    const auto view = [](const MatrixView& m) {
      cl_ulong4 v;
      v.s[0] = u64(m.offset), v.s[1] = u64(m.ld), v.s[2] = u64(m.outer_stride), v.s[3] = u64(m.inner_stride);
      return v;
    };
    launch(Kernel::Attention, 1, &global, &local, buffer(a.q), view(a.q_view), buffer(a.k), view(a.k_view),
           buffer(a.v), view(a.v_view), buffer(a.context), view(a.context_view), u64(a.inner), u64(a.queries),
           u64(a.keys), u64(a.head_dim), a.scale, buffer_or(a.key_mask, a.q), cl_int(!a.key_mask.empty()),
           buffer_or(a.position_bias, a.q), cl_int(!a.position_bias.empty()),
           cl_int(a.position_bias.shape.rank == 4), cl_int(a.causal), u64(a.causal_offset),
           LocalFloats{std::max(local, static_cast<std::size_t>(a.keys))}, LocalFloats{local});
  }

  void do_gather_rows(const Tensor& table, const Tensor& ids, float scale, bool accumulate,
                      const Tensor& out) override {
    if (cols_of(table) == 0 || ids.numel() == 0) return;
    const Kernel kernel = table.dtype == DType::F16 ? Kernel::GatherRowsHalf : Kernel::GatherRows;
    run(kernel, {u64(cols_of(table)), u64(ids.numel())}, buffer(table), u64(rows_of(table)),
        buffer(ids), scale, cl_int(accumulate), buffer(out), u64(cols_of(table)));
  }

  void do_copy_strided(const Tensor& src, const StridedView& sv, const Tensor& dst, const StridedView& dv,
                       const std::array<std::int64_t, 4>& extent) override {
    if (std::ranges::find(extent, 0) != extent.end()) return;
    const auto strides = [](const StridedView& v) {
      cl_ulong4 s;
      for (std::size_t k = 0; k < 4; ++k) s.s[k] = u64(v.strides[k]);
      return s;
    };
    run(Kernel::CopyStrided, {u64(extent[3]), u64(extent[2]), u64(extent[0] * extent[1])},
        Buffer{mem(src), buffer(src).offset + u64(sv.offset)}, strides(sv),
        Buffer{mem(dst), buffer(dst).offset + u64(dv.offset)}, strides(dv), u64(extent[1]), u64(extent[3]));
  }

  void do_relative_gather(const Tensor& c2p, const Tensor& p2c, const Tensor& index, const Tensor& out) override {
    const std::int64_t len = out.dim(2);
    if (out.numel() == 0) return;
    const Tensor& present = c2p.empty() ? p2c : c2p;
    run(Kernel::RelativeGather, {u64(len * len), u64(out.dim(0) * out.dim(1))}, buffer_or(c2p, present),
        cl_int(!c2p.empty()), buffer_or(p2c, present), cl_int(!p2c.empty()), buffer(index), buffer(out), u64(len),
        u64(present.dim(3)));
  }

  void do_pool(const Tensor& x, const Tensor& mask, Pooling mode, const Tensor& out) override {
    if (x.dim(0) == 0 || x.dim(2) == 0) return;
    run(Kernel::Pool, {u64(x.dim(2)), u64(x.dim(0))}, buffer(x), buffer(mask), buffer(out), u64(x.dim(1)),
        cl_int(mode), u64(x.dim(2)));
  }

  void do_l2_normalize(const Tensor& x) override { run_rows(Kernel::L2Normalize, rows_of(x), buffer(x), u64(cols_of(x))); }

  void do_log_softmax(const Tensor& x, const Tensor& out) override {
    run_rows(Kernel::LogSoftmax, rows_of(x), buffer(x), buffer(out), u64(cols_of(x)));
  }

  void do_top_k_rows(const Tensor& x, std::int64_t k, std::int64_t exclude, const Tensor& values, const Tensor& ids,
                     const Tensor& terms) override {
    run_rows(Kernel::TopKRows, rows_of(x), buffer(x), u64(cols_of(x)), cl_long(exclude), u64(k), buffer(values),
             buffer(ids), buffer(terms), LocalFloats{row_group_});
  }

 private:
  void create_queue_and_kernels() {
    cl_int status = CL_SUCCESS;
    queue_ = clCreateCommandQueue(device_->context, device_->id, 0, &status);
    check(status, "clCreateCommandQueue");
    for (std::size_t i = 0; i < kernels_.size(); ++i) {
      kernels_[i] = clCreateKernel(device_->program, kKernelNames[i], &status);
      check(status, "clCreateKernel");
    }
    // Powers of two: the reductions halve the group.
    row_group_ = group_size({Kernel::LayerNorm, Kernel::RmsNorm, Kernel::AttentionSoftmax, Kernel::LogSoftmax,
                             Kernel::L2Normalize, Kernel::TopKRows, Kernel::Attention},
                            kRowGroup);
    element_group_ = group_size({Kernel::Scale, Kernel::BiasAct, Kernel::Binary, Kernel::GatherRows,
                                 Kernel::GatherRowsHalf, Kernel::CopyStrided, Kernel::Pool, Kernel::WidenHalf},
                                kElementGroup);
  }
  void release() {
    if (queue_) clFinish(queue_);
    if (scratch_) clReleaseMemObject(scratch_);
    for (cl_kernel kernel : kernels_) {
      if (kernel) clReleaseKernel(kernel);
    }
    if (queue_) clReleaseCommandQueue(queue_);
  }

  cl_kernel get(Kernel kernel) const { return kernels_[static_cast<std::size_t>(kernel)]; }

  void set_arg(cl_kernel kernel, cl_uint& index, const Buffer& b) {
    set_arg(kernel, index, b.mem);
    set_arg(kernel, index, b.offset);
  }
  void set_arg(cl_kernel kernel, cl_uint& index, const LocalFloats& local) {
    check(clSetKernelArg(kernel, index++, local.count * sizeof(float), nullptr), "clSetKernelArg");
  }
  template <typename T>
  void set_arg(cl_kernel kernel, cl_uint& index, const T& value) {
    check(clSetKernelArg(kernel, index++, sizeof(T), &value), "clSetKernelArg");
  }

  // Enqueues `kernel` over `global` work-items in work-groups of `local`.
  template <typename... Args>
  void launch(Kernel which, cl_uint dims, const std::size_t* global, const std::size_t* local, const Args&... args) {
    const cl_kernel kernel = get(which);
    cl_uint index = 0;
    (set_arg(kernel, index, args), ...);
    check(clEnqueueNDRangeKernel(queue_, kernel, dims, nullptr, global, local, 0, nullptr, nullptr),
          kKernelNames[static_cast<std::size_t>(which)]);
  }
  // One work-item per element of `range` (1 to 3 sizes), in groups of element_group_ along
  // dimension 0, which is rounded up to a whole group (the kernels skip the excess).
  template <typename... Args>
  void run(Kernel which, std::initializer_list<cl_ulong> range, const Args&... args) {
    std::array<std::size_t, 3> global{1, 1, 1};
    std::ranges::copy(range, global.begin());
    global[0] = (global[0] + element_group_ - 1) / element_group_ * element_group_;
    const std::array<std::size_t, 3> local{element_group_, 1, 1};
    launch(which, static_cast<cl_uint>(range.size()), global.data(), local.data(), args...);
  }
  // One work-group of row_group_ work-items per row.
  template <typename... Args>
  void run_rows(Kernel which, std::int64_t rows, const Args&... args) {
    if (rows == 0) return;
    const std::size_t global = static_cast<std::size_t>(rows) * row_group_;
    launch(which, 1, &global, &row_group_, args..., LocalFloats{row_group_});
  }
  // The largest power of two ≤ `target` that every kernel in `kernels` accepts as work-group size.
  std::size_t group_size(std::initializer_list<Kernel> kernels, std::size_t target) const {
    for (Kernel kernel : kernels) {
      std::size_t limit = 0;
      check(clGetKernelWorkGroupInfo(get(kernel), device_->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit,
                                     nullptr),
            "clGetKernelWorkGroupInfo");
      target = std::min(target, limit);
    }
    return std::bit_floor(std::max<std::size_t>(target, 1));
  }

  // C_oi = beta · C_oi over a family of [m, n] matrices: GEMM with k = 0 (CLBlast rejects it).
  void scale_matrices(const Tensor& c, const MatrixView& cv, std::int64_t m, std::int64_t n, float beta,
                      std::int64_t outer, std::int64_t inner) {
    run(Kernel::Scale, {u64(n), u64(m), u64(outer * inner)}, buffer(c), u64(cv.offset), u64(cv.ld),
        u64(cv.outer_stride), u64(cv.inner_stride), u64(inner), beta, u64(n));
  }

  // scratch_ with room for `floats` (grown, never shrunk: allocated once for a model's widest weight).
  Buffer widen_scratch(std::size_t floats) {
    if (floats > scratch_floats_) {
      // Commands already enqueued keep the old buffer alive until they finish (OpenCL counts references).
      if (scratch_) clReleaseMemObject(scratch_);
      scratch_ = nullptr;
      scratch_floats_ = 0;
      scratch_ = allocate(*device_, floats * sizeof(float), CL_MEM_READ_WRITE, nullptr);
      scratch_floats_ = floats;
    }
    return {scratch_, 0};
  }

  std::shared_ptr<const Device> device_;
  WeightType weights_;
  int threads_ = 1;
  cl_mem scratch_ = nullptr;
  std::size_t scratch_floats_ = 0;
  cl_command_queue queue_ = nullptr;
  std::array<cl_kernel, static_cast<std::size_t>(Kernel::Count)> kernels_{};
  std::size_t row_group_ = 1;
  std::size_t element_group_ = 1;
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend(const std::string& name, const BackendOptions& options) {
  if (options.weights == WeightType::Int8) fail("int8 weights need the cpu device (OpenCL stores f32 or f16)");
  const auto [platform, device] = opencl::parse_device_name(name);
  auto backend = std::make_unique<OpenClBackend>(opencl::open_device(platform, device), options.weights);
  backend->set_threads(options.threads);
  return backend;
}

BackendFactory opencl_backend_factory() {
  return {"opencl", "opencl:PLATFORM:DEVICE picks an OpenCL device",
          [](const std::string& device) { return device == "opencl" || device.starts_with("opencl:"); },
          make_opencl_backend, [] {
            std::vector<DeviceInfo> devices;
            for (const opencl::DeviceInfo& d : opencl::list_devices())
              devices.push_back({fmt::format("opencl:{}:{}", d.platform, d.device),
                                 d.name + " (" + d.platform_name + ")", d.version + ", driver " + d.driver_version,
                                 d.global_memory, d.compute_units, d.fp16, {WeightType::F32, WeightType::F16}});
            return devices;
          }};
}

}  // namespace invar
