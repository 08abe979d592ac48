#pragma once
// The compute interface every model runs on. Model code (engine/encoder.cpp, the seq2seq models)
// allocates tensors from an Arena, uploads token ids, calls the ops below for every computation
// and downloads results; it never touches activation memory, so the same model code runs on the
// CPU backend (backends/cpu/backend.cpp: OpenBLAS sgemm + backends/cpu) and the OpenCL backend.
//
// Conventions for every op:
// - Tensors are dense row-major F32 unless an op says otherwise (ids are I32). "[M, N]" in an op
//   means a matrix view: N is the tensor's last dimension and M the product of the others, so a
//   [B, T, hidden] activation is a [B*T, hidden] matrix. Ops that need more structure say "rank k".
// - An empty Tensor (handle == nullptr) stands for an absent optional operand.
// - Shapes are checked on the host before any work: a mismatch is a bug in the caller and throws
//   invar::Error naming the op and the shapes. Out-of-range indices are never read or written.
// - An output may alias an input only where the op says so.
// - Ops run in order; download() returns once every earlier op has finished.
// - A Backend, and everything made from it, is used by one thread at a time.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/activation.hpp"
#include "core/pooling.hpp"
#include "core/tensor.hpp"
#include "core/tensor_data.hpp"

namespace invar {

// Element-wise binary operations.
enum class Binary : std::uint8_t { Add, Mul };

// The precision weights are stored in on a backend (BackendOptions::weights).
enum class WeightType : std::uint8_t { F32, F16, Int8 };
const char* weight_type_name(WeightType type);  // "f32", "f16", "int8"

// What multiplies a linear layer's input by its F32 weights on the CPU (BackendOptions::linear).
enum class LinearKernel : std::uint8_t {
  OneDnn,    // oneDNN's matmul on the weights packed once into its layout (backends/cpu/packed_matmul.hpp)
  OpenBlas,  // OpenBLAS's sgemm on the weights as stored, as every other matrix product
};
const char* linear_kernel_name(LinearKernel kernel);  // "onednn", "openblas"

// What a weight is used for, which decides the precision its store may keep it in.
enum class WeightUse : std::uint8_t {
  Any,     // any op (biases, norms, tables read by other ops): always stored F32
  Matrix,  // only `linear`'s w: stored as BackendOptions::weights says (on the CPU, packed for oneDNN)
  Table,   // only `gather_rows`' table: stored as BackendOptions::weights says
};

// Owns the storage of a model's weights on one backend. Weights are uploaded once, at load.
class WeightStore {
 public:
  virtual ~WeightStore() = default;
  // A floating tensor (F32, F16 or BF16) or an I8 matrix with its scales (dequantized first:
  // scale · q) as a backend tensor of the same shape: F32, or F16 for a
  // Matrix or Table where the backend stores those in half precision (values rounded to nearest,
  // ties to even; a value beyond ±65504 fails). The CPU backend returns a zero-copy view of aligned
  // F32 data, so `src` must stay valid (keep the ModelSource alive) as long as this store; F16/BF16
  // are converted once into owned memory. It packs a rank-2 Matrix into oneDNN's layout (owned;
  // the source is not read again) unless it computes deterministically; with WeightType::Int8 it
  // packs an I8 Matrix's q and scales as they are, without dequantizing them.
  virtual Tensor add(const TensorData& src, WeightUse use) = 0;
  // A tensor from host values (computed tables: sinusoidal positions, fused weights), stored as
  // add(TensorData) stores an F32 tensor of the same use.
  virtual Tensor add(const std::vector<float>& values, Shape shape, WeightUse use) = 0;
  // Bytes of backend memory the weights take (on the CPU, zero-copy views of the file count too).
  virtual std::size_t bytes() const = 0;
};

// The shape of a weight for WeightStore::add; fails unless it is a floating tensor (F32, F16,
// BF16) or an I8 one of rank 1 to kMaxRank.
Shape weight_shape(const TensorData& src);

// Per-batch scratch memory: a bump allocator over backend storage. reset() at the start of a
// batch, then alloc() every activation the batch needs before the layer loop, so the loop itself
// never allocates. Storage grows in chunks and is never moved, so tensors allocated since the
// last reset() stay valid until the next; after a batch that needed several chunks, reset()
// merges them into one, so steady state makes no backend allocation at all.
class Arena {
 public:
  static constexpr std::size_t kAlignment = 256;  // bytes; every tensor starts at a multiple

  virtual ~Arena();
  void reset();
  Tensor alloc(DType dtype, Shape shape);
  std::size_t used() const;      // bytes handed out since reset()
  std::size_t capacity() const;  // bytes of storage held

 protected:
  virtual void* allocate_storage(std::size_t bytes) = 0;  // fails with invar::Error
  virtual void release_storage(void* handle) = 0;
  void release_all();  // subclasses call this from their destructor

 private:
  struct Chunk {
    void* handle = nullptr;
    std::size_t size = 0;
  };
  std::vector<Chunk> chunks_;
  std::size_t used_in_last_ = 0;  // bytes used in chunks_.back()
  std::size_t used_ = 0;
};

// A matrix family inside a tensor's storage, for gemm_batched: matrix (o, i), o < outer and
// i < inner, has element (r, c) at element index
//   offset + o * outer_stride + i * inner_stride + r * ld + c
// of the tensor. All values count elements. Two levels cover attention without copies: outer =
// batch, inner = head (e.g. Q of head h in a [B*T, hidden] projection: offset 0, ld = hidden,
// outer_stride = T*hidden, inner_stride = head_dim).
struct MatrixView {
  std::int64_t offset = 0;
  std::int64_t ld = 0;
  std::int64_t outer_stride = 0;
  std::int64_t inner_stride = 0;
};

// A 4-D strided walk over a tensor's storage, for copy_strided: element (i0, i1, i2, i3) is at
// element index offset + Σ_k i_k * strides[k].
struct StridedView {
  std::int64_t offset = 0;
  std::array<std::int64_t, 4> strides{};
};

// What Backend::attention reads and writes (documented there).
struct AttentionOperands {
  std::int64_t outer = 0, inner = 0, queries = 0, keys = 0, head_dim = 0;
  Tensor q, k, v, context;
  MatrixView q_view, k_view, v_view, context_view;
  float scale = 1.0f;
  Tensor key_mask, position_bias;
  bool causal = false;
  std::int64_t causal_offset = 0;
  Tensor scores;
  // I32 [keys, outer], optional, one query per outer only: key and value j of outer o are read from
  // outer key_rows[j, o]'s matrices (k_view's and v_view's, same head, row j) instead of o's (each
  // value in [0, outer), checked by the backends that read them). A beam search's rows then keep
  // their cached positions where they were written when beams change parents: each position
  // records whose row holds it (Backend::attention_reads_key_rows).
  Tensor key_rows;
};

// body(i, i + 1) for every i in [0, n), on an OpenMP team of `threads` (the team oneDNN's products
// share from 4 threads on); `body` must not throw.
void openmp_rows(std::int64_t n, int threads, const std::function<void(std::int64_t, std::int64_t)>& body);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Threads for the backend's own work (CPU: OpenBLAS and the element-wise kernels). Results do
  // not depend on it beyond float rounding in OpenBLAS's GEMM (≤ 1e-6 observed), and not at all
  // with BackendOptions::deterministic. threads() is also what the host-side work between the
  // backend's calls runs on (a search step's log-softmax and top-k per row; OpenCL: only that).
  virtual void set_threads(int threads) = 0;
  virtual int threads() const = 0;
  // Calls body(begin, end) on disjoint ranges covering [0, n), on threads() threads, for the host
  // work between the backend's calls (a search step's rows); `body` must not throw. The default is
  // openmp_rows(); the CPU backend runs it on the threads its products use, so no second set of
  // threads spins beside them.
  virtual void parallel_rows(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body) {
    openmp_rows(n, threads(), body);
  }

  virtual std::unique_ptr<WeightStore> make_weight_store() = 0;
  virtual std::unique_ptr<Arena> make_arena() = 0;

  // Host ↔ backend copies of dst.nbytes() / src.nbytes() bytes.
  virtual void upload(const void* host, const Tensor& dst) = 0;
  virtual void download(const Tensor& src, void* host) = 0;
  std::vector<float> download_f32(const Tensor& src);  // convenience for F32 tensors

  // ---- matrix products (OpenBLAS sgemm on CPU) ----

  // c = alpha · op(a) · op(b) + beta · c, op(x) = x or xᵀ, on the matrix views of a, b, c:
  // op(a) is [M, K], op(b) is [K, N], c is [M, N]. With beta = 0, c is not read (may be garbage).
  void gemm(bool trans_a, bool trans_b, float alpha, const Tensor& a, const Tensor& b, float beta, const Tensor& c);

  // For every matrix (o, i) of the views (see MatrixView), o < outer, i < inner:
  //   C_oi = alpha · op(A_oi) · op(B_oi) + beta · C_oi,  op(A_oi) [m, k], op(B_oi) [k, n], C_oi [m, n]
  // where A_oi is stored as [m, k] (or [k, m] when trans_a) with row stride av.ld, likewise B.
  // Every addressed element must lie inside its tensor (checked). c must not overlap a or b.
  void gemm_batched(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                    const Tensor& a, const MatrixView& av, const Tensor& b, const MatrixView& bv, float beta,
                    const Tensor& c, const MatrixView& cv, std::int64_t outer, std::int64_t inner);

  // y [M, N] = act(x [M, K] · wᵀ + bias), w [N, K] (rank 2) as Hugging Face stores nn.Linear weights,
  // bias [N] optional. w may be F16 on a backend whose stores make F16 weights (OpenCL; the others
  // reject it): its values are widened to F32 and the product is computed in F32. y must not alias x.
  void linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y);

  // ---- element-wise and row ops ----

  // x [M, N] = act(x + bias) in place; bias [N] optional.
  void bias_act(const Tensor& x, const Tensor& bias, Activation act);
  // out = a + b, all the same element count; out may alias a or b.
  void add(const Tensor& a, const Tensor& b, const Tensor& out) { binary(Binary::Add, a, b, out); }
  // out = a ⊙ b (T5 v1.1's gated feed-forward), as add.
  void mul(const Tensor& a, const Tensor& b, const Tensor& out) { binary(Binary::Mul, a, b, out); }
  void binary(Binary op, const Tensor& a, const Tensor& b, const Tensor& out);
  // out [M, N] = LayerNorm(x + residual) over each row: (v − mean) / sqrt(var + eps) · gamma + beta,
  // var the biased variance (as torch.nn.LayerNorm). residual optional; out may alias x or residual.
  void layer_norm(const Tensor& x, const Tensor& residual, const Tensor& gamma, const Tensor& beta, float eps,
                  const Tensor& out);
  // out [M, N] = x / sqrt(mean(x²) + eps) · weight over each row (T5LayerNorm: no mean, no bias).
  // out may alias x.
  void rms_norm(const Tensor& x, const Tensor& weight, float eps, const Tensor& out);

  // Attention probabilities in place. scores [B, H, Tq, Tk] (rank 4). For row (b, h, i):
  //   s_j ← scale · s_j + position_bias[h, i, j]   (bias [H, Tq, Tk], or [B, H, Tq, Tk]: optional)
  // then key j is dropped when key_mask[b, j] == 0 (key_mask F32 [B, Tk], 1 = attend, optional) or,
  // when causal, when j > i + causal_offset (query i sits at absolute position i + causal_offset:
  // 0 for a full causal pass, the step index when one new query attends a cache). The row becomes
  // softmax over the remaining keys, dropped keys get exactly 0, and a row with no key left is all
  // zeros. (Hugging Face adds a large negative number instead; outputs agree whenever a row keeps
  // a key, which a real input always does.)
  void attention_softmax(const Tensor& scores, float scale, const Tensor& key_mask, const Tensor& position_bias,
                         bool causal, std::int64_t causal_offset);

  // Multi-head attention on matrix views (see MatrixView), without copies: for every (o, i) with
  // o < outer (a sequence, or a group of rows that share their keys) and i < inner (a head),
  //   context_oi [queries, head_dim] = P_oi · V_oi,  P_oi the softmax of scale · Q_oi · K_oiᵀ,
  // Q_oi [queries, head_dim], K_oi and V_oi [keys, head_dim], the softmax as attention_softmax
  // computes it on scores [outer, inner, queries, keys] (key_mask [outer, keys], position_bias
  // [inner, queries, keys] or [outer, inner, queries, keys], causal with causal_offset). scores is
  // scratch of that shape which a backend may use or leave alone (the default: gemm_batched,
  // attention_softmax and gemm_batched through it); it may be empty where
  // !attention_needs_scores(keys), so that callers need not allocate it. context must not overlap
  // the other tensors.
  void attention(const AttentionOperands& a);
  // Whether attention takes AttentionOperands::key_rows (the CPU backend outside --deterministic;
  // elsewhere a caller moves the rows themselves).
  virtual bool attention_reads_key_rows() const { return false; }
  // Whether attention of `keys` keys uses its scores scratch (the default does; the CPU backend only
  // with BackendOptions::deterministic, OpenCL past the keys its fused kernel holds).
  virtual bool attention_needs_scores(std::int64_t keys) const {
    (void)keys;
    return true;
  }
  // attention() of `batch` sequences of `len` positions whose projections lie side by side in qkv
  // [batch*len, 3*heads*head_dim] (each position's query, key and value), into context
  // [batch*len, heads*head_dim]; scores [batch, heads, len, len] as attention's.
  void self_attention(const Tensor& qkv, std::int64_t batch, std::int64_t len, std::int64_t heads,
                      std::int64_t head_dim, float scale, const Tensor& key_mask, const Tensor& bias,
                      const Tensor& scores, const Tensor& context);

  // out [M, N] = scale · table[ids[i], :] (+ out[i, :] when accumulate). table F32 [R, N], or F16 as
  // linear's w (widened to F32 before scaling), ids I32
  // [M] (any shape with M elements). Embedding lookup (word, position, token-type: call once per
  // table with accumulate), and row reordering (beam-search cache reorder: view the cache as
  // [rows, row_size]). Ids outside [0, R) are the caller's bug: validate on the host; the CPU
  // backend throws, others must not read outside the table. out must not alias table.
  void gather_rows(const Tensor& table, const Tensor& ids, float scale, bool accumulate, const Tensor& out);

  // dst(i0..i3) = src(i0..i3) for every index below extent (see StridedView), both tensors with a
  // 4-byte dtype (F32 or I32). Extract rows (the [CLS] row of each sequence), split or merge heads,
  // write keys/values into a cache at a step offset. Every addressed element must lie inside its
  // tensor (checked); the regions must not overlap.
  void copy_strided(const Tensor& src, const StridedView& sv, const Tensor& dst, const StridedView& dv,
                    const std::array<std::int64_t, 4>& extent);

  // Attention terms read at relative positions (DeBERTa's disentangled attention): out [B, H, T, T]
  // (rank 4) with
  //   out[b, h, i, j] = c2p[b, h, i, index[i, j]] + p2c[b, h, j, index[i, j]]
  // c2p and p2c F32 [B, H, T, R] (rank 4; either may be absent, not both), index I32 [T, T]. Index
  // values outside [0, R) are the caller's bug, as gather_rows' ids: the CPU backend throws, others
  // must not read outside. out must not overlap the others.
  void relative_gather(const Tensor& c2p, const Tensor& p2c, const Tensor& index, const Tensor& out);

  // out [B, N] from x [B, T, N] (rank 3) and mask F32 [B, T] (1 = token, 0 = padding), as
  // sentence-transformers Pooling computes it:
  //   Mean:        Σ_t m·x / max(Σ_t m, 1e-9)
  //   MeanSqrtLen: Σ_t m·x / sqrt(max(Σ_t m, 1e-9))
  //   Cls:         x[b, 0, :]
  //   Max:         max_t (m ? x : −1e9)
  void pool(const Tensor& x, const Tensor& mask, Pooling mode, const Tensor& out);

  // x [M, N] in place: each row divided by max(‖row‖₂, 1e-12) (torch.nn.functional.normalize).
  void l2_normalize(const Tensor& x);

  // out [M, N] = log_softmax over each row of x; out may alias x.
  void log_softmax(const Tensor& x, const Tensor& out);

  // A decoding step's candidates, so that a backend whose downloads cost need not return whole
  // rows of logits: for each row of x [M, N] and 0 < k ≤ N,
  //   values [M, k] F32  the k largest entries, largest first (equal values: lower column first),
  //   ids    [M, k] I32  their columns,
  //   terms  [M, 2] F32  (max, log Σ_j exp(x_j − max)) over the whole row, so that
  //                      log_softmax(x)_j = (x_j − max) − log_sum; (0, 0) when max is not finite.
  // NaN ranks as −∞. Column `exclude` (−1: none) counts as −∞ in all three, as Hugging Face's
  // adjust_logits_during_generation masks a token before the log-softmax. The sum's rounding is the
  // backend's (float on OpenCL).
  void top_k_rows(const Tensor& x, std::int64_t k, std::int64_t exclude, const Tensor& values, const Tensor& ids,
                  const Tensor& terms);
  // Whether a search should ask top_k_rows for its candidates instead of downloading the logits.
  // Both backends do: on OpenCL a download crosses the bus, and on the CPU the backend's vector
  // kernels on its threads beat the search's scans of downloaded rows (docs/performance.md); the
  // benchmarks override it to measure the whole-row path.
  virtual bool prefers_top_k_rows() const { return true; }

 protected:
  // Whether linear's w and gather_rows' table may be F16 (the backend's stores can make them).
  virtual bool takes_f16_weights() const { return false; }

  // Implementations, called after the public op checked its operands (shapes, dtypes, bounds).
  virtual void do_gemm(bool trans_a, bool trans_b, float alpha, const Tensor& a, const Tensor& b, float beta,
                       const Tensor& c) = 0;
  virtual void do_gemm_batched(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                               const Tensor& a, const MatrixView& av, const Tensor& b, const MatrixView& bv, float beta,
                               const Tensor& c, const MatrixView& cv, std::int64_t outer, std::int64_t inner) = 0;
  // Default: gemm + bias_act; backends may fuse.
  virtual void do_linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y);
  virtual void do_bias_act(const Tensor& x, const Tensor& bias, Activation act) = 0;
  virtual void do_binary(Binary op, const Tensor& a, const Tensor& b, const Tensor& out) = 0;
  virtual void do_layer_norm(const Tensor& x, const Tensor& residual, const Tensor& gamma, const Tensor& beta,
                             float eps, const Tensor& out) = 0;
  virtual void do_rms_norm(const Tensor& x, const Tensor& weight, float eps, const Tensor& out) = 0;
  virtual void do_attention_softmax(const Tensor& scores, float scale, const Tensor& key_mask,
                                    const Tensor& position_bias, bool causal, std::int64_t causal_offset) = 0;
  // Default: gemm_batched, attention_softmax, gemm_batched on a.scores; backends may fuse.
  virtual void do_attention(const AttentionOperands& a);
  virtual void do_gather_rows(const Tensor& table, const Tensor& ids, float scale, bool accumulate,
                              const Tensor& out) = 0;
  virtual void do_copy_strided(const Tensor& src, const StridedView& sv, const Tensor& dst, const StridedView& dv,
                               const std::array<std::int64_t, 4>& extent) = 0;
  virtual void do_relative_gather(const Tensor& c2p, const Tensor& p2c, const Tensor& index, const Tensor& out) = 0;
  virtual void do_pool(const Tensor& x, const Tensor& mask, Pooling mode, const Tensor& out) = 0;
  virtual void do_l2_normalize(const Tensor& x) = 0;
  virtual void do_log_softmax(const Tensor& x, const Tensor& out) = 0;
  virtual void do_top_k_rows(const Tensor& x, std::int64_t k, std::int64_t exclude, const Tensor& values,
                             const Tensor& ids, const Tensor& terms) = 0;

 private:
  // A weight operand: F32, or F16 where takes_f16_weights().
  void require_weight(const Tensor& t, const char* op, const char* what) const;
};

// How a backend computes, beyond where.
struct BackendOptions {
  int threads = 1;
  // Results bit-identical for every thread count and batch-invariant (a row's results do not depend
  // on the other rows of its batch, its position or its padding): the CPU backend sums each
  // matrix-product element in one fixed order (backends/cpu/gemm.hpp) instead of calling OpenBLAS,
  // and computes every row op in cpu::Order::Fixed. OpenCL results depend on neither already (one
  // work-group of fixed size per row, each work-item summing its own stride of the row; CLBlast
  // sums each product element along k), so it changes nothing there.
  bool deterministic = false;
  // Storage of WeightUse::Matrix and Table weights. F16 halves their memory; arithmetic stays F32. Only the
  // OpenCL backend offers F16 (any device: it needs no cl_khr_fp16); the CPU backend rejects it.
  // Int8 (CPU only) quantizes each Matrix per output channel and computes linear in int8 with its
  // input rows quantized per call (backends/cpu/packed_matmul.hpp); tables stay F32.
  WeightType weights = WeightType::F32;
  // CPU, F32 weights: the linear layers' products on oneDNN (each Matrix packed once) or on OpenBLAS
  // (weights kept as stored, read in place from the mapped file). Int8 weights need OneDnn;
  // deterministic computes every product in its fixed order, whichever this says. Other devices
  // ignore it.
  LinearKernel linear = LinearKernel::OneDnn;
};

}  // namespace invar
