#pragma once
// A Backend that hands every operation to another one: the base of the benchmarks' wrappers, which
// override only what they observe (bench_generate's timing) or change (tool_int8_quality's
// simulated quantization).
#include <memory>
#include <string>
#include <utility>

#include "backends/backend.hpp"

namespace invar::bench {

class ForwardingBackend : public Backend {
 public:
  explicit ForwardingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }
  void set_threads(int threads) override { inner_->set_threads(threads); }
  int threads() const override { return inner_->threads(); }
  void parallel_rows(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body) override {
    inner_->parallel_rows(n, body);
  }
  std::unique_ptr<WeightStore> make_weight_store() override { return inner_->make_weight_store(); }
  std::unique_ptr<Arena> make_arena() override { return inner_->make_arena(); }
  bool attention_needs_scores(std::int64_t keys) const override { return inner_->attention_needs_scores(keys); }
  bool prefers_top_k_rows() const override { return inner_->prefers_top_k_rows(); }
  bool attention_reads_key_rows() const override { return inner_->attention_reads_key_rows(); }
  void upload(const void* host, const Tensor& dst) override { inner_->upload(host, dst); }
  void download(const Tensor& src, void* host) override { inner_->download(src, host); }

 protected:
  void do_gemm(bool ta, bool tb, float alpha, const Tensor& a, const Tensor& b, float beta, const Tensor& c) override {
    inner_->gemm(ta, tb, alpha, a, b, beta, c);
  }
  void do_linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y) override {
    inner_->linear(x, w, bias, act, y);
  }
  void do_gemm_batched(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const Tensor& a,
                       const MatrixView& av, const Tensor& b, const MatrixView& bv, float beta, const Tensor& c,
                       const MatrixView& cv, std::int64_t outer, std::int64_t inner) override {
    inner_->gemm_batched(ta, tb, m, n, k, alpha, a, av, b, bv, beta, c, cv, outer, inner);
  }
  void do_attention_softmax(const Tensor& scores, float scale, const Tensor& mask, const Tensor& bias, bool causal,
                            std::int64_t offset) override {
    inner_->attention_softmax(scores, scale, mask, bias, causal, offset);
  }
  void do_attention(const AttentionOperands& a) override { inner_->attention(a); }
  void do_bias_act(const Tensor& x, const Tensor& bias, Activation act) override { inner_->bias_act(x, bias, act); }
  void do_binary(Binary op, const Tensor& a, const Tensor& b, const Tensor& out) override {
    inner_->binary(op, a, b, out);
  }
  void do_layer_norm(const Tensor& x, const Tensor& residual, const Tensor& gamma, const Tensor& beta, float eps,
                     const Tensor& out) override {
    inner_->layer_norm(x, residual, gamma, beta, eps, out);
  }
  void do_rms_norm(const Tensor& x, const Tensor& weight, float eps, const Tensor& out) override {
    inner_->rms_norm(x, weight, eps, out);
  }
  void do_gather_rows(const Tensor& table, const Tensor& ids, float scale, bool accumulate, const Tensor& out) override {
    inner_->gather_rows(table, ids, scale, accumulate, out);
  }
  void do_copy_strided(const Tensor& src, const StridedView& sv, const Tensor& dst, const StridedView& dv,
                       const std::array<std::int64_t, 4>& extent) override {
    inner_->copy_strided(src, sv, dst, dv, extent);
  }
  void do_relative_gather(const Tensor& c2p, const Tensor& p2c, const Tensor& index, const Tensor& out) override {
    inner_->relative_gather(c2p, p2c, index, out);
  }
  void do_pool(const Tensor& x, const Tensor& mask, Pooling mode, const Tensor& out) override {
    inner_->pool(x, mask, mode, out);
  }
  void do_l2_normalize(const Tensor& x) override { inner_->l2_normalize(x); }
  void do_log_softmax(const Tensor& x, const Tensor& out) override { inner_->log_softmax(x, out); }
  void do_top_k_rows(const Tensor& x, std::int64_t k, std::int64_t exclude, const Tensor& values, const Tensor& ids,
                     const Tensor& terms) override {
    inner_->top_k_rows(x, k, exclude, values, ids, terms);
  }

  std::unique_ptr<Backend> inner_;
};

}  // namespace invar::bench
