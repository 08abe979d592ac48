// The backend-independent half of backends/backend.hpp: operand checks (so that every backend
// rejects the same bad calls with the same message), the arena's bookkeeping, and helpers.
#include "backends/backend.hpp"

#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"

namespace invar {

const char* weight_type_name(WeightType type) {
  switch (type) {
    case WeightType::F16:
      return "f16";
    case WeightType::Int8:
      return "int8";
    case WeightType::F32:
      break;
  }
  return "f32";
}

void openmp_rows(std::int64_t n, int threads, const std::function<void(std::int64_t, std::int64_t)>& body) {
#pragma omp parallel for num_threads(threads) schedule(dynamic) if (threads > 1 && n > 1)
  for (std::int64_t i = 0; i < n; ++i) body(i, i + 1);
}

const char* linear_kernel_name(LinearKernel kernel) {
  return kernel == LinearKernel::OpenBlas ? "openblas" : "onednn";
}

Shape weight_shape(const TensorData& src) {
  if (!is_floating(src.dtype) && src.dtype != DType::I8) {
    fail("weight of dtype {} is neither a floating nor an int8 tensor", dtype_name(src.dtype));
  }
  if (src.shape.empty() || src.shape.size() > static_cast<std::size_t>(kMaxRank)) {
    fail("weight of rank {} (supported: 1 to {})", src.shape.size(), kMaxRank);
  }
  Shape shape;
  for (std::int64_t size : src.shape) shape.dims[static_cast<std::size_t>(shape.rank++)] = size;
  return shape;
}

// ---- Arena ----

Arena::~Arena() = default;

void Arena::release_all() {
  for (const Chunk& chunk : chunks_) release_storage(chunk.handle);
  chunks_.clear();
  used_ = used_in_last_ = 0;
}

void Arena::reset() {
  if (chunks_.size() > 1) {
    // The last batch needed several chunks: replace them by one that holds it all.
    std::size_t total = 0;
    for (const Chunk& chunk : chunks_) total += chunk.size;
    release_all();
    chunks_.push_back({allocate_storage(total), total});
  }
  used_ = used_in_last_ = 0;
}

Tensor Arena::alloc(DType dtype, Shape shape) {
  const std::size_t bytes = static_cast<std::size_t>(shape.numel()) * dtype_size(dtype);
  const std::size_t padded = (std::max<std::size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  if (chunks_.empty() || used_in_last_ + padded > chunks_.back().size) {
    // A new chunk, never a moved one: tensors handed out earlier stay valid.
    const std::size_t previous = chunks_.empty() ? 0 : chunks_.back().size;
    const std::size_t size = std::max(padded, std::max<std::size_t>(previous, 1 << 20));
    chunks_.push_back({allocate_storage(size), size});
    used_in_last_ = 0;
  }
  Tensor tensor;
  tensor.dtype = dtype;
  tensor.shape = shape;
  tensor.handle = chunks_.back().handle;
  tensor.offset = used_in_last_;
  used_in_last_ += padded;
  used_ += padded;
  return tensor;
}

std::size_t Arena::used() const { return used_; }

std::size_t Arena::capacity() const {
  std::size_t total = 0;
  for (const Chunk& chunk : chunks_) total += chunk.size;
  return total;
}

// ---- operand checks ----

namespace {

// Every op views a tensor as a matrix [rows, cols] with cols its last dimension.
struct Dims {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

Dims matrix(const Tensor& t) {
  if (t.shape.rank == 0) return {};
  const std::int64_t cols = t.shape[t.shape.rank - 1];
  return {cols == 0 ? 0 : t.numel() / cols, cols};
}

void require(bool ok, const char* op, const std::string& message) {
  if (!ok) fail("backend op {}: {}", op, message);
}

void require_present(const Tensor& t, const char* op, const char* what) {
  require(!t.empty(), op, fmt::format("{} is missing", what));
}

void require_f32(const Tensor& t, const char* op, const char* what) {
  require_present(t, op, what);
  require(t.dtype == DType::F32, op, fmt::format("{} must be F32, not {}", what, dtype_name(t.dtype)));
}

void require_vector(const Tensor& t, std::int64_t n, const char* op, const char* what) {
  require_f32(t, op, what);
  require(t.numel() == n, op, fmt::format("{} {} must have {} elements", what, t.shape.str(), n));
}

// attention_softmax's optional operands for scores [batch, heads, tq, tk].
void require_softmax_operands(std::int64_t batch, std::int64_t heads, std::int64_t tq, std::int64_t tk,
                              const Tensor& key_mask, const Tensor& position_bias, const char* op) {
  if (!key_mask.empty()) {
    require_f32(key_mask, op, "key_mask");
    require(key_mask.numel() == batch * tk && matrix(key_mask).cols == tk, op,
            fmt::format("key_mask {} must be [{}, {}]", key_mask.shape.str(), batch, tk));
  }
  if (!position_bias.empty()) {
    require_f32(position_bias, op, "position_bias");
    const Shape& s = position_bias.shape;
    const bool shared = s == Shape{heads, tq, tk};
    const bool per_batch = s == Shape{batch, heads, tq, tk};
    require(shared || per_batch, op,
            fmt::format("position_bias {} must be [{}, {}, {}] or [{}, {}, {}, {}]", s.str(), heads, tq, tk, batch,
                        heads, tq, tk));
  }
}

bool overlaps(const Tensor& a, const Tensor& b) {
  return a.handle == b.handle && a.offset < b.offset + b.nbytes() && b.offset < a.offset + a.nbytes();
}

// The largest element index a (outer × inner) family of [rows, cols] matrices addresses.
void require_view(const Tensor& t, const MatrixView& v, std::int64_t rows, std::int64_t cols, std::int64_t outer,
                  std::int64_t inner, const char* op, const char* what) {
  require_f32(t, op, what);
  require(v.offset >= 0 && v.outer_stride >= 0 && v.inner_stride >= 0 && v.ld >= cols, op,
          fmt::format("{} view has a negative offset or stride, or ld {} < {} columns", what, v.ld, cols));
  if (rows == 0 || cols == 0 || outer == 0 || inner == 0) return;
  const std::int64_t last =
      v.offset + (outer - 1) * v.outer_stride + (inner - 1) * v.inner_stride + (rows - 1) * v.ld + cols - 1;
  require(last < t.numel(), op,
          fmt::format("{} view reaches element {} of a tensor {} with {}", what, last, t.shape.str(), t.numel()));
}

void require_strided(const Tensor& t, const StridedView& v, const std::array<std::int64_t, 4>& extent, const char* op,
                     const char* what) {
  require_present(t, op, what);
  require(dtype_size(t.dtype) == 4, op, fmt::format("{} must have a 4-byte dtype", what));
  std::int64_t last = v.offset;
  bool empty = false;
  for (std::size_t k = 0; k < 4; ++k) {
    require(extent[k] >= 0 && v.strides[k] >= 0, op, "negative extent or stride");
    if (extent[k] == 0)
      empty = true;
    else
      last += (extent[k] - 1) * v.strides[k];
  }
  require(v.offset >= 0, op, "negative offset");
  if (!empty) {
    require(last < t.numel(), op, fmt::format("{} view reaches element {} of a tensor {}", what, last, t.shape.str()));
  }
}

}  // namespace

void Backend::require_weight(const Tensor& t, const char* op, const char* what) const {
  require_present(t, op, what);
  const bool f16 = t.dtype == DType::F16 && takes_f16_weights();
  require(t.dtype == DType::F32 || f16, op,
          fmt::format("{} must be F32{}, not {}", what, takes_f16_weights() ? " or F16" : "", dtype_name(t.dtype)));
}

std::vector<float> Backend::download_f32(const Tensor& src) {
  require_f32(src, "download_f32", "src");
  std::vector<float> host(static_cast<std::size_t>(src.numel()));
  download(src, host.data());
  return host;
}

void Backend::gemm(bool trans_a, bool trans_b, float alpha, const Tensor& a, const Tensor& b, float beta,
                   const Tensor& c) {
  require_f32(a, "gemm", "a");
  require_f32(b, "gemm", "b");
  require_f32(c, "gemm", "c");
  const Dims da = matrix(a), db = matrix(b), dc = matrix(c);
  const std::int64_t m = trans_a ? da.cols : da.rows, k = trans_a ? da.rows : da.cols;
  const std::int64_t kb = trans_b ? db.cols : db.rows, n = trans_b ? db.rows : db.cols;
  require(k == kb && dc.rows == m && dc.cols == n, "gemm",
          fmt::format("op(a) [{}, {}] · op(b) [{}, {}] does not give c {}", m, k, kb, n, c.shape.str()));
  require(!overlaps(c, a) && !overlaps(c, b), "gemm", "c overlaps an input");
  do_gemm(trans_a, trans_b, alpha, a, b, beta, c);
}

void Backend::gemm_batched(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                           const Tensor& a, const MatrixView& av, const Tensor& b, const MatrixView& bv, float beta,
                           const Tensor& c, const MatrixView& cv, std::int64_t outer, std::int64_t inner) {
  require(m >= 0 && n >= 0 && k >= 0 && outer >= 0 && inner >= 0, "gemm_batched", "negative size");
  require_view(a, av, trans_a ? k : m, trans_a ? m : k, outer, inner, "gemm_batched", "a");
  require_view(b, bv, trans_b ? n : k, trans_b ? k : n, outer, inner, "gemm_batched", "b");
  require_view(c, cv, m, n, outer, inner, "gemm_batched", "c");
  require(!overlaps(c, a) && !overlaps(c, b), "gemm_batched", "c overlaps an input");
  do_gemm_batched(trans_a, trans_b, m, n, k, alpha, a, av, b, bv, beta, c, cv, outer, inner);
}

void Backend::linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y) {
  require_f32(x, "linear", "x");
  require_weight(w, "linear", "w");
  require_f32(y, "linear", "y");
  const Dims dx = matrix(x), dw = matrix(w), dy = matrix(y);
  require(w.shape.rank == 2 && dw.cols == dx.cols && dy.rows == dx.rows && dy.cols == dw.rows, "linear",
          fmt::format("x {} · wᵀ {} does not give y {}", x.shape.str(), w.shape.str(), y.shape.str()));
  if (!bias.empty()) require_vector(bias, dw.rows, "linear", "bias");
  require(!overlaps(y, x) && !overlaps(y, w), "linear", "y overlaps an input");
  do_linear(x, w, bias, act, y);
}

void Backend::do_linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y) {
  const Dims dx = matrix(x), dy = matrix(y);
  const Tensor x2 = x.reshaped({dx.rows, dx.cols}), y2 = y.reshaped({dy.rows, dy.cols});
  do_gemm(false, true, 1.0f, x2, w, 0.0f, y2);
  if (!bias.empty() || act != Activation::None) do_bias_act(y2, bias, act);
}

void Backend::bias_act(const Tensor& x, const Tensor& bias, Activation act) {
  require_f32(x, "bias_act", "x");
  if (!bias.empty()) require_vector(bias, matrix(x).cols, "bias_act", "bias");
  do_bias_act(x, bias, act);
}

void Backend::binary(Binary op, const Tensor& a, const Tensor& b, const Tensor& out) {
  const char* name = op == Binary::Add ? "add" : "mul";
  require_f32(a, name, "a");
  require_f32(b, name, "b");
  require_f32(out, name, "out");
  require(a.numel() == b.numel() && a.numel() == out.numel(), name,
          fmt::format("sizes differ: {} and {} → {}", a.shape.str(), b.shape.str(), out.shape.str()));
  do_binary(op, a, b, out);
}

void Backend::layer_norm(const Tensor& x, const Tensor& residual, const Tensor& gamma, const Tensor& beta, float eps,
                         const Tensor& out) {
  require_f32(x, "layer_norm", "x");
  require_f32(out, "layer_norm", "out");
  const Dims d = matrix(x);
  require(out.numel() == x.numel() && matrix(out).cols == d.cols, "layer_norm",
          fmt::format("out {} does not match x {}", out.shape.str(), x.shape.str()));
  if (!residual.empty()) {
    require_f32(residual, "layer_norm", "residual");
    require(residual.numel() == x.numel(), "layer_norm",
            fmt::format("residual {} does not match x {}", residual.shape.str(), x.shape.str()));
  }
  require_vector(gamma, d.cols, "layer_norm", "gamma");
  require_vector(beta, d.cols, "layer_norm", "beta");
  do_layer_norm(x, residual, gamma, beta, eps, out);
}

void Backend::rms_norm(const Tensor& x, const Tensor& weight, float eps, const Tensor& out) {
  require_f32(x, "rms_norm", "x");
  require_f32(out, "rms_norm", "out");
  require(out.numel() == x.numel() && matrix(out).cols == matrix(x).cols, "rms_norm",
          fmt::format("out {} does not match x {}", out.shape.str(), x.shape.str()));
  require_vector(weight, matrix(x).cols, "rms_norm", "weight");
  do_rms_norm(x, weight, eps, out);
}

void Backend::attention_softmax(const Tensor& scores, float scale, const Tensor& key_mask, const Tensor& position_bias,
                                bool causal, std::int64_t causal_offset) {
  require_f32(scores, "attention_softmax", "scores");
  require(scores.shape.rank == 4, "attention_softmax",
          fmt::format("scores {} must be [B, H, Tq, Tk]", scores.shape.str()));
  const std::int64_t batch = scores.dim(0), heads = scores.dim(1), tq = scores.dim(2), tk = scores.dim(3);
  require_softmax_operands(batch, heads, tq, tk, key_mask, position_bias, "attention_softmax");
  require(!causal || causal_offset >= 0, "attention_softmax", "negative causal offset");
  do_attention_softmax(scores, scale, key_mask, position_bias, causal, causal_offset);
}

void Backend::attention(const AttentionOperands& a) {
  const char* op = "attention";
  require(a.outer >= 0 && a.inner >= 0 && a.queries >= 0 && a.keys >= 0 && a.head_dim >= 0, op, "negative size");
  require_view(a.q, a.q_view, a.queries, a.head_dim, a.outer, a.inner, op, "q");
  require_view(a.k, a.k_view, a.keys, a.head_dim, a.outer, a.inner, op, "k");
  require_view(a.v, a.v_view, a.keys, a.head_dim, a.outer, a.inner, op, "v");
  require_view(a.context, a.context_view, a.queries, a.head_dim, a.outer, a.inner, op, "context");
  if (!a.scores.empty() || attention_needs_scores(a.keys)) {
    require_f32(a.scores, op, "scores");
    const Shape want{a.outer, a.inner, a.queries, a.keys};
    require(a.scores.shape == want, op, fmt::format("scores {} must be {}", a.scores.shape.str(), want.str()));
  }
  require_softmax_operands(a.outer, a.inner, a.queries, a.keys, a.key_mask, a.position_bias, op);
  require(!a.causal || a.causal_offset >= 0, op, "negative causal offset");
  if (!a.key_rows.empty()) {
    require(attention_reads_key_rows(), op, fmt::format("the {} backend does not read key_rows", name()));
    require(a.key_rows.dtype == DType::I32, op, "key_rows must be I32");
    require(a.key_rows.shape == Shape{a.keys, a.outer}, op,
            fmt::format("key_rows {} must be [{}, {}]", a.key_rows.shape.str(), a.keys, a.outer));
    require(a.queries == 1, op, fmt::format("key_rows needs one query per outer, not {}", a.queries));
  }
  for (const Tensor* input : {&a.q, &a.k, &a.v, &a.scores})
    require(!overlaps(a.context, *input), op, "context overlaps q, k, v or scores");
  if (a.outer * a.inner * a.queries == 0 || a.head_dim == 0) return;  // no context element to write
  do_attention(a);
}

void Backend::do_attention(const AttentionOperands& a) {
  const MatrixView score_view{0, a.keys, a.inner * a.queries * a.keys, a.queries * a.keys};
  gemm_batched(false, true, a.queries, a.keys, a.head_dim, 1.0f, a.q, a.q_view, a.k, a.k_view, 0.0f, a.scores,
               score_view, a.outer, a.inner);
  attention_softmax(a.scores, a.scale, a.key_mask, a.position_bias, a.causal, a.causal_offset);
  gemm_batched(false, false, a.queries, a.head_dim, a.keys, 1.0f, a.scores, score_view, a.v, a.v_view, 0.0f, a.context,
               a.context_view, a.outer, a.inner);
}

void Backend::self_attention(const Tensor& qkv, std::int64_t batch, std::int64_t len, std::int64_t heads,
                             std::int64_t head_dim, float scale, const Tensor& key_mask, const Tensor& bias,
                             const Tensor& scores, const Tensor& context) {
  const char* op = "self_attention";
  require(batch >= 0 && len >= 0 && heads >= 0 && head_dim >= 0, op, "negative size");
  require_f32(qkv, op, "qkv");
  require_f32(context, op, "context");
  const std::int64_t inner = heads * head_dim, width = 3 * inner;
  const Dims dq = matrix(qkv), dc = matrix(context);
  require(dq.rows == batch * len && dq.cols == width, op,
          fmt::format("qkv {} must be [{}, {}]", qkv.shape.str(), batch * len, width));
  require(dc.rows == batch * len && dc.cols == inner, op,
          fmt::format("context {} must be [{}, {}]", context.shape.str(), batch * len, inner));
  attention({.outer = batch, .inner = heads, .queries = len, .keys = len, .head_dim = head_dim,
             .q = qkv, .k = qkv, .v = qkv, .context = context,
             .q_view = {0, width, len * width, head_dim}, .k_view = {inner, width, len * width, head_dim},
             .v_view = {2 * inner, width, len * width, head_dim}, .context_view = {0, inner, len * inner, head_dim},
             .scale = scale, .key_mask = key_mask, .position_bias = bias, .scores = scores});
}

void Backend::gather_rows(const Tensor& table, const Tensor& ids, float scale, bool accumulate, const Tensor& out) {
  require_weight(table, "gather_rows", "table");
  require_f32(out, "gather_rows", "out");
  require_present(ids, "gather_rows", "ids");
  require(ids.dtype == DType::I32, "gather_rows", "ids must be I32");
  const Dims dt = matrix(table), dout = matrix(out);
  require(dout.cols == dt.cols && dout.rows == ids.numel(), "gather_rows",
          fmt::format("out {} must be [{}, {}]", out.shape.str(), ids.numel(), dt.cols));
  require(!overlaps(out, table), "gather_rows", "out overlaps the table");
  do_gather_rows(table, ids, scale, accumulate, out);
}

void Backend::copy_strided(const Tensor& src, const StridedView& sv, const Tensor& dst, const StridedView& dv,
                           const std::array<std::int64_t, 4>& extent) {
  require_strided(src, sv, extent, "copy_strided", "src");
  require_strided(dst, dv, extent, "copy_strided", "dst");
  require(src.dtype == dst.dtype, "copy_strided", "src and dst dtypes differ");
  do_copy_strided(src, sv, dst, dv, extent);
}

void Backend::relative_gather(const Tensor& c2p, const Tensor& p2c, const Tensor& index, const Tensor& out) {
  require(!c2p.empty() || !p2c.empty(), "relative_gather", "needs c2p or p2c");
  require_f32(out, "relative_gather", "out");
  require_present(index, "relative_gather", "index");
  require(index.dtype == DType::I32, "relative_gather", "index must be I32");
  require(out.shape.rank == 4 && out.dim(2) == out.dim(3), "relative_gather",
          fmt::format("out {} must be [B, H, T, T]", out.shape.str()));
  const std::int64_t len = out.dim(2);
  require(index.shape.rank == 2 && index.dim(0) == len && index.dim(1) == len, "relative_gather",
          fmt::format("index {} must be [{}, {}]", index.shape.str(), len, len));
  const Tensor& first = c2p.empty() ? p2c : c2p;
  for (const auto& [term, name] : {std::pair{&c2p, "c2p"}, std::pair{&p2c, "p2c"}}) {
    if (term->empty()) continue;
    require_f32(*term, "relative_gather", name);
    require(term->shape.rank == 4 && term->dim(0) == out.dim(0) && term->dim(1) == out.dim(1) && term->dim(2) == len &&
                term->dim(3) == first.dim(3),
            "relative_gather",
            fmt::format("{} {} must be [{}, {}, {}, R] as the other term", name, term->shape.str(), out.dim(0),
                        out.dim(1), len));
    require(!overlaps(out, *term), "relative_gather", fmt::format("out overlaps {}", name));
  }
  require(!overlaps(out, index), "relative_gather", "out overlaps index");
  do_relative_gather(c2p, p2c, index, out);
}

void Backend::pool(const Tensor& x, const Tensor& mask, Pooling mode, const Tensor& out) {
  require_f32(x, "pool", "x");
  require_f32(mask, "pool", "mask");
  require_f32(out, "pool", "out");
  require(x.shape.rank == 3, "pool", fmt::format("x {} must be [B, T, N]", x.shape.str()));
  const std::int64_t batch = x.dim(0), length = x.dim(1), width = x.dim(2);
  require(mask.numel() == batch * length && matrix(mask).cols == length, "pool",
          fmt::format("mask {} must be [{}, {}]", mask.shape.str(), batch, length));
  require(out.numel() == batch * width && matrix(out).cols == width, "pool",
          fmt::format("out {} must be [{}, {}]", out.shape.str(), batch, width));
  require(mode != Pooling::Cls || length > 0, "pool", "CLS pooling of empty sequences");
  do_pool(x, mask, mode, out);
}

void Backend::l2_normalize(const Tensor& x) {
  require_f32(x, "l2_normalize", "x");
  do_l2_normalize(x);
}

void Backend::log_softmax(const Tensor& x, const Tensor& out) {
  require_f32(x, "log_softmax", "x");
  require_f32(out, "log_softmax", "out");
  require(out.numel() == x.numel() && matrix(out).cols == matrix(x).cols, "log_softmax",
          fmt::format("out {} does not match x {}", out.shape.str(), x.shape.str()));
  do_log_softmax(x, out);
}

void Backend::top_k_rows(const Tensor& x, std::int64_t k, std::int64_t exclude, const Tensor& values,
                         const Tensor& ids, const Tensor& terms) {
  require_f32(x, "top_k_rows", "x");
  require_f32(values, "top_k_rows", "values");
  require_f32(terms, "top_k_rows", "terms");
  require(ids.dtype == DType::I32, "top_k_rows", "ids must be I32");
  const std::int64_t rows = matrix(x).rows, cols = matrix(x).cols;
  require(k > 0 && k <= cols, "top_k_rows", fmt::format("k {} must be in [1, {}]", k, cols));
  require(exclude >= -1 && exclude < cols, "top_k_rows", fmt::format("exclude {} is not a column of x {}", exclude,
                                                                     x.shape.str()));
  const auto shaped = [&](const Tensor& t, std::int64_t width, const char* what) {
    require(t.numel() == rows * width && matrix(t).cols == width, "top_k_rows",
            fmt::format("{} {} must be [{}, {}]", what, t.shape.str(), rows, width));
  };
  shaped(values, k, "values");
  shaped(ids, k, "ids");
  shaped(terms, 2, "terms");
  do_top_k_rows(x, k, exclude, values, ids, terms);
}

}  // namespace invar
