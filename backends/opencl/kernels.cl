// The OpenCL backend's own kernels (backends/opencl/backend.cpp; matrix products go to CLBlast).
// Semantics are those of the matching op in backends/backend.hpp and follow backends/cpu/kernels.cpp
// operation for operation, so results agree with the CPU backend to float rounding.
//
// Every buffer argument comes with an element offset (Tensor.offset / 4), as views made by
// Tensor::rows() start anywhere. Row kernels run one work-group per row; each work-item owns the
// elements at its stride, reads them before the group's last barrier and writes only them, which
// is what makes the in-place and aliased forms (out = x, out = residual) safe. The other kernels
// run one work-item per element in work-groups of a fixed size (drivers such as PoCL compile one
// variant per work-group size), so dimension 0 of their range is rounded up and checked.

// No fused multiply-add: the CPU kernels round every product, so must we.
#pragma OPENCL FP_CONTRACT OFF

enum { ACT_NONE, ACT_GELU_ERF, ACT_GELU_TANH, ACT_RELU, ACT_SILU, ACT_TANH };
enum { POOL_MEAN, POOL_CLS, POOL_MAX, POOL_MEAN_SQRT_LEN };

float activate(float v, int act) {
  switch (act) {
    case ACT_GELU_ERF:
      return 0.5f * v * (1.0f + erf(v * M_SQRT1_2_F));
    case ACT_GELU_TANH:
      return 0.5f * v * (1.0f + tanh(sqrt(2.0f / M_PI_F) * (v + 0.044715f * (v * v * v))));
    case ACT_RELU:
      return fmax(v, 0.0f);
    case ACT_SILU:
      return v / (1.0f + exp(-v));
    case ACT_TANH:
      return tanh(v);
    default:
      return v;
  }
}

// Tree reductions over a work-group whose size is a power of two; `scratch` holds one float per
// work-item. Every work-item gets the result.
float group_sum(float v, __local float* scratch) {
  const ulong lid = get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (ulong width = get_local_size(0) / 2; width > 0; width /= 2) {
    if (lid < width) scratch[lid] += scratch[lid + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

float group_max(float v, __local float* scratch) {
  const ulong lid = get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (ulong width = get_local_size(0) / 2; width > 0; width /= 2) {
    if (lid < width) scratch[lid] = fmax(scratch[lid], scratch[lid + width]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float best = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return best;
}

// C = beta · C (0 when beta is 0, so garbage is not read) for every matrix of a MatrixView family:
// a GEMM with k = 0. Range (n, m, outer · inner).
__kernel void scale(__global float* c, ulong c_off, ulong offset, ulong ld, ulong outer_stride, ulong inner_stride,
                    ulong inner, float beta, ulong n) {
  const ulong col = get_global_id(0), row = get_global_id(1), o = get_global_id(2) / inner,
               i = get_global_id(2) % inner;
  if (col >= n) return;
  __global float* x = c + c_off + offset + o * outer_stride + i * inner_stride + row * ld + col;
  *x = beta == 0.0f ? 0.0f : beta * *x;
}

__kernel void bias_act(__global float* x, ulong x_off, __global const float* bias, ulong bias_off, int has_bias,
                       ulong cols, int act, ulong n) {
  x += x_off;
  bias += bias_off;
  const ulong i = get_global_id(0);
  if (i >= n) return;
  float v = x[i];
  if (has_bias) v += bias[i % cols];
  x[i] = activate(v, act);
}

// op: 0 = add, 1 = multiply (Binary in backends/backend.hpp).
__kernel void binary(__global const float* a, ulong a_off, __global const float* b, ulong b_off, __global float* out,
                     ulong out_off, ulong n, int op) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  const float x = a[a_off + i], y = b[b_off + i];
  out[out_off + i] = op == 0 ? x + y : x * y;
}

// Two passes (mean, then centred variance), as the CPU kernel.
__kernel void layer_norm(__global const float* x, ulong x_off, __global const float* residual, ulong residual_off,
                         int has_residual, __global const float* gamma, ulong gamma_off, __global const float* beta,
                         ulong beta_off, float eps, __global float* out, ulong out_off, ulong cols,
                         __local float* scratch) {
  const ulong row = get_group_id(0), lid = get_local_id(0), step = get_local_size(0);
  x += x_off + row * cols;
  residual += residual_off + row * cols;
  out += out_off + row * cols;
  gamma += gamma_off;
  beta += beta_off;
  float sum = 0.0f;
  for (ulong c = lid; c < cols; c += step) sum += has_residual ? x[c] + residual[c] : x[c];
  const float mean = group_sum(sum, scratch) / (float)cols;
  float squares = 0.0f;
  for (ulong c = lid; c < cols; c += step) {
    const float d = (has_residual ? x[c] + residual[c] : x[c]) - mean;
    squares += d * d;
  }
  const float inv = 1.0f / sqrt(group_sum(squares, scratch) / (float)cols + eps);
  for (ulong c = lid; c < cols; c += step) {
    const float d = (has_residual ? x[c] + residual[c] : x[c]) - mean;
    out[c] = d * inv * gamma[c] + beta[c];
  }
}

__kernel void rms_norm(__global const float* x, ulong x_off, __global const float* weight, ulong weight_off,
                       float eps, __global float* out, ulong out_off, ulong cols, __local float* scratch) {
  const ulong row = get_group_id(0), lid = get_local_id(0), step = get_local_size(0);
  x += x_off + row * cols;
  out += out_off + row * cols;
  weight += weight_off;
  float squares = 0.0f;
  for (ulong c = lid; c < cols; c += step) squares += x[c] * x[c];
  const float inv = 1.0f / sqrt(group_sum(squares, scratch) / (float)cols + eps);
  for (ulong c = lid; c < cols; c += step) out[c] = x[c] * inv * weight[c];
}

// One row (b, h, i) of scores [B, H, Tq, Tk] per work-group; see Backend::attention_softmax.
__kernel void attention_softmax(__global float* scores, ulong scores_off, float scale, __global const float* key_mask,
                                ulong mask_off, int has_mask, __global const float* position_bias, ulong bias_off,
                                int has_bias, int bias_per_batch, ulong heads, ulong tq, ulong tk, int causal,
                                ulong causal_offset, __local float* scratch) {
  const ulong row = get_group_id(0), lid = get_local_id(0), step = get_local_size(0);
  const ulong query = row % tq, head = (row / tq) % heads, batch = row / (tq * heads);
  __global float* s = scores + scores_off + row * tk;
  __global const float* bias =
      position_bias + bias_off + ((bias_per_batch ? batch * heads : 0) + head) * tq * tk + query * tk;
  __global const float* keep = key_mask + mask_off + batch * tk;
  const ulong limit = causal ? min(query + causal_offset + 1, tk) : tk;
  float best = -INFINITY;
  for (ulong j = lid; j < tk; j += step) {
    float v = scale * s[j];
    if (has_bias) v += bias[j];
    if (j >= limit || (has_mask && keep[j] == 0.0f)) v = -INFINITY;
    s[j] = v;
    best = fmax(best, v);
  }
  best = group_max(best, scratch);
  if (best == -INFINITY) {
    for (ulong j = lid; j < tk; j += step) s[j] = 0.0f;
    return;
  }
  float sum = 0.0f;
  for (ulong j = lid; j < tk; j += step) {
    const float e = exp(s[j] - best);  // exp(−∞) = 0 exactly
    s[j] = e;
    sum += e;
  }
  const float total = group_sum(sum, scratch);
  for (ulong j = lid; j < tk; j += step) s[j] /= total;
}

// Backend::attention in one kernel: one work-group per (outer o, head h, query i), its scores in
// __local memory (keys floats; the host uses this kernel only where they fit). Views are (offset,
// ld, outer stride, inner stride), as MatrixView. Each score is scale · q·k summed along the head
// in order, plus the bias; the softmax is attention_softmax's; each work-item then sums its columns
// of the context over the keys in order. Range: groups in (o · heads + h) · queries + i order.
__kernel void attention(__global const float* q, ulong q_off, ulong4 qv, __global const float* k, ulong k_off,
                        ulong4 kv, __global const float* v, ulong v_off, ulong4 vv, __global float* context,
                        ulong context_off, ulong4 cv, ulong heads, ulong queries, ulong keys, ulong head_dim,
                        float scale, __global const float* key_mask, ulong mask_off, int has_mask,
                        __global const float* position_bias, ulong bias_off, int has_bias, int bias_per_outer,
                        int causal, ulong causal_offset, __local float* s, __local float* scratch) {
  const ulong group = get_group_id(0), lid = get_local_id(0), step = get_local_size(0);
  const ulong query = group % queries, head = (group / queries) % heads, outer = group / (queries * heads);
  __global const float* row = q + q_off + qv.s0 + outer * qv.s2 + head * qv.s3 + query * qv.s1;
  __global const float* key = k + k_off + kv.s0 + outer * kv.s2 + head * kv.s3;
  __global const float* value = v + v_off + vv.s0 + outer * vv.s2 + head * vv.s3;
  __global const float* bias =
      position_bias + bias_off + ((bias_per_outer ? outer * heads : 0) + head) * queries * keys + query * keys;
  __global const float* keep = key_mask + mask_off + outer * keys;
  __global float* out = context + context_off + cv.s0 + outer * cv.s2 + head * cv.s3 + query * cv.s1;
  const ulong limit = causal ? min(query + causal_offset + 1, keys) : keys;
  float best = -INFINITY;
  for (ulong j = lid; j < keys; j += step) {
    float dot = 0.0f;
    for (ulong d = 0; d < head_dim; ++d) dot += row[d] * key[j * kv.s1 + d];
    float x = scale * dot;
    if (has_bias) x += bias[j];
    if ((has_mask && keep[j] == 0.0f) || j >= limit) x = -INFINITY;
    s[j] = x;
    best = fmax(best, x);
  }
  best = group_max(best, scratch);
  // No key left: every probability 0 (no early return: the barriers below are the whole group's).
  const int none = best == -INFINITY;
  float sum = 0.0f;
  for (ulong j = lid; j < keys; j += step) {
    const float e = none ? 0.0f : exp(s[j] - best);  // exp(−∞) = 0 exactly
    s[j] = e;
    sum += e;
  }
  const float total = group_sum(sum, scratch);
  for (ulong j = lid; j < keys; j += step) s[j] = none ? 0.0f : s[j] / total;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (ulong d = lid; d < head_dim; d += step) {
    float acc = 0.0f;
    for (ulong j = 0; j < keys; ++j) acc += s[j] * value[j * vv.s1 + d];
    out[d] = acc;
  }
}

__kernel void log_softmax(__global const float* x, ulong x_off, __global float* out, ulong out_off, ulong cols,
                          __local float* scratch) {
  const ulong row = get_group_id(0), lid = get_local_id(0), step = get_local_size(0);
  x += x_off + row * cols;
  out += out_off + row * cols;
  float best = -INFINITY;
  for (ulong c = lid; c < cols; c += step) best = fmax(best, x[c]);
  best = group_max(best, scratch);
  float sum = 0.0f;
  for (ulong c = lid; c < cols; c += step) sum += exp(x[c] - best);
  const float shift = best + log(group_sum(sum, scratch));
  for (ulong c = lid; c < cols; c += step) out[c] = x[c] - shift;
}

// Backend::top_k_rows, one work-group per row: the terms in two passes, then one pass per
// candidate, each finding the entry that ranks next after the last one found (larger value first,
// then lower column) with a group reduction over (value, column) pairs: no per-item lists, and
// ties resolve as the host's scan does.
bool ranks_before(float a, uint ia, float b, uint ib) { return a > b || (a == b && ia < ib); }

__kernel void top_k_rows(__global const float* x, ulong x_off, ulong cols, long exclude, ulong k,
                         __global float* values, ulong values_off, __global int* ids, ulong ids_off,
                         __global float* terms, ulong terms_off, __local uint* scratch_ids, __local float* scratch) {
  const ulong row = get_group_id(0), lid = get_local_id(0), step = get_local_size(0);
  x += x_off + row * cols;
  values += values_off + row * k;
  ids += ids_off + row * k;
  terms += terms_off + row * 2;
#define TOP_K_VALUE(c) ((long)(c) == exclude || isnan(x[c]) ? -INFINITY : x[c])
  float best = -INFINITY;
  for (ulong c = lid; c < cols; c += step) best = fmax(best, TOP_K_VALUE(c));
  best = group_max(best, scratch);
  float sum = 0.0f;
  if (isfinite(best))
    for (ulong c = lid; c < cols; c += step) sum += (long)c == exclude ? 0.0f : exp(x[c] - best);
  sum = group_sum(sum, scratch);
  if (lid == 0) {
    terms[0] = isfinite(best) ? best : 0.0f;
    terms[1] = isfinite(best) ? log(sum) : 0.0f;
  }
  float last = INFINITY;
  uint last_id = 0;
  for (ulong r = 0; r < k; ++r) {
    float mine = -INFINITY;
    uint mine_id = UINT_MAX;  // no entry: ranks after every real one
    for (ulong c = lid; c < cols; c += step) {
      const float v = TOP_K_VALUE(c);
      if ((r == 0 || ranks_before(last, last_id, v, (uint)c)) && ranks_before(v, (uint)c, mine, mine_id)) {
        mine = v;
        mine_id = (uint)c;
      }
    }
    scratch[lid] = mine;
    scratch_ids[lid] = mine_id;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong width = step / 2; width > 0; width /= 2) {
      if (lid < width && ranks_before(scratch[lid + width], scratch_ids[lid + width], scratch[lid], scratch_ids[lid])) {
        scratch[lid] = scratch[lid + width];
        scratch_ids[lid] = scratch_ids[lid + width];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    last = scratch[0];
    last_id = scratch_ids[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
      values[r] = last;
      ids[r] = (int)last_id;
    }
  }
#undef TOP_K_VALUE
}

__kernel void l2_normalize(__global float* x, ulong x_off, ulong cols, __local float* scratch) {
  const ulong row = get_group_id(0), lid = get_local_id(0), step = get_local_size(0);
  x += x_off + row * cols;
  float squares = 0.0f;
  for (ulong c = lid; c < cols; c += step) squares += x[c] * x[c];
  const float norm = fmax(sqrt(group_sum(squares, scratch)), 1e-12f);
  for (ulong c = lid; c < cols; c += step) x[c] /= norm;
}

// gather_rows and gather_rows_half: range (cols, count). Ids outside [0, rows) leave their output
// row untouched: the table is never read out of bounds (the host validates ids; see
// Backend::gather_rows). The element of the table to read for work-item (c, i), or -1.
long gather_source(ulong rows, __global const int* ids, ulong ids_off, ulong cols) {
  const ulong c = get_global_id(0), i = get_global_id(1);
  if (c >= cols) return -1;
  const int id = ids[ids_off + i];
  if (id < 0 || (ulong)id >= rows) return -1;
  return (long)((ulong)id * cols + c);
}

void gather_store(float v, float scale, int accumulate, __global float* out, ulong out_off, ulong cols) {
  __global float* to = out + out_off + get_global_id(1) * cols + get_global_id(0);
  *to = accumulate ? *to + scale * v : scale * v;
}

__kernel void gather_rows(__global const float* table, ulong table_off, ulong rows, __global const int* ids,
                          ulong ids_off, float scale, int accumulate, __global float* out, ulong out_off,
                          ulong cols) {
  const long at = gather_source(rows, ids, ids_off, cols);
  if (at >= 0) gather_store(table[table_off + at], scale, accumulate, out, out_off, cols);
}

// A half-precision table (--weights f16): vload_half is core OpenCL C, no cl_khr_fp16 needed.
__kernel void gather_rows_half(__global const half* table, ulong table_off, ulong rows, __global const int* ids,
                               ulong ids_off, float scale, int accumulate, __global float* out, ulong out_off,
                               ulong cols) {
  const long at = gather_source(rows, ids, ids_off, cols);
  if (at >= 0) gather_store(vload_half(table_off + at, table), scale, accumulate, out, out_off, cols);
}

// relative_gather: range (T·T, B·H). An index outside [0, span) leaves its output 0 and reads
// nothing (the host computes the indices; see Backend::relative_gather).
__kernel void relative_gather(__global const float* c2p, ulong c2p_off, int has_c2p, __global const float* p2c,
                              ulong p2c_off, int has_p2c, __global const int* index, ulong index_off,
                              __global float* out, ulong out_off, ulong len, ulong span) {
  const ulong ij = get_global_id(0), matrix = get_global_id(1);
  if (ij >= len * len) return;
  const ulong i = ij / len, j = ij % len;
  const int r = index[index_off + ij];
  float v = 0.0f;
  if (r >= 0 && (ulong)r < span) {
    if (has_c2p) v += c2p[c2p_off + (matrix * len + i) * span + (ulong)r];
    if (has_p2c) v += p2c[p2c_off + (matrix * len + j) * span + (ulong)r];
  }
  out[out_off + matrix * len * len + ij] = v;
}

// dst[i] = src[i] widened from half precision, for i < n: an F16 weight block before CLBlast's
// sgemm (see OpenClBackend::do_linear). Range (n).
__kernel void widen_half(__global const half* src, ulong src_off, __global float* dst, ulong dst_off, ulong n) {
  const ulong i = get_global_id(0);
  if (i < n) dst[dst_off + i] = vload_half(src_off + i, src);
}

// Range (extent3, extent2, extent0 · extent1); 4-byte elements of any type.
__kernel void copy_strided(__global const uint* src, ulong src_off, ulong4 src_strides, __global uint* dst,
                           ulong dst_off, ulong4 dst_strides, ulong extent1, ulong extent3) {
  const ulong i3 = get_global_id(0), i2 = get_global_id(1), i1 = get_global_id(2) % extent1,
               i0 = get_global_id(2) / extent1;
  if (i3 >= extent3) return;
  const ulong4 index = (ulong4)(i0, i1, i2, i3);
  const ulong4 s = index * src_strides, d = index * dst_strides;
  dst[dst_off + d.s0 + d.s1 + d.s2 + d.s3] = src[src_off + s.s0 + s.s1 + s.s2 + s.s3];
}

// Range (cols, batch); sentence-transformers Pooling as the CPU kernels compute it.
__kernel void pool(__global const float* x, ulong x_off, __global const float* mask, ulong mask_off,
                   __global float* out, ulong out_off, ulong length, int mode, ulong cols) {
  const ulong c = get_global_id(0), b = get_global_id(1);
  if (c >= cols) return;
  x += x_off + b * length * cols + c;
  mask += mask_off + b * length;
  float result;
  if (mode == POOL_CLS) {
    result = x[0];
  } else if (mode == POOL_MAX) {
    result = -FLT_MAX;
    for (ulong t = 0; t < length; ++t) result = fmax(result, mask[t] == 0.0f ? -1e9f : x[t * cols]);
  } else {
    float sum = 0.0f, count = 0.0f;
    for (ulong t = 0; t < length; ++t) {
      if (mask[t] == 0.0f) continue;
      sum += mask[t] * x[t * cols];
      count += mask[t];
    }
    count = fmax(count, 1e-9f);
    result = sum / (mode == POOL_MEAN_SQRT_LEN ? sqrt(count) : count);
  }
  out[out_off + b * cols + c] = result;
}
