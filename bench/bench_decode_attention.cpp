// A decoding step's attention on the CPU, as Seq2SeqModel's decoder calls Backend::attention in
// the 6 layers of an opus-mt-base-sized Marian (8 heads of 64; each layer its own cache, so that the
// caches do not stay in cache as one layer's would): self-attention of `rows` rows, one new
// query each, against `keys` positions of the time-major cache [capacity, rows, 512], and
// cross-attention of the rows in groups of `beams` against 21 source positions. Path 0 is the
// backend's own (its fused one), path 1 the default through the scores tensor (gemm_batched,
// attention_softmax, gemm_batched), in the same process on the same operands. Time: per step (the
// 6 layers' self- and cross-attention).
//
//   INVAR_BENCH_THREADS=2 build/bench/bench_decode_attention
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/backend.hpp"
#include "bench/forwarding_backend.hpp"
#include "bench/products.hpp"

namespace invar {
namespace {

constexpr std::int64_t kHeads = 8, kHeadDim = 64, kWidth = kHeads * kHeadDim, kSourceLen = 21, kLayers = 6;

// The default's path: the scores tensor allocated and gone through.
class ThroughScores final : public bench::ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;
  bool attention_needs_scores(std::int64_t) const override { return true; }

 protected:
  void do_attention(const AttentionOperands& a) override { Backend::do_attention(a); }
};

Tensor random_tensor(Backend& backend, Arena& arena, Shape shape, unsigned seed) {
  const Tensor t = arena.alloc(DType::F32, shape);
  std::vector<float> host(static_cast<std::size_t>(t.numel()));
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  for (float& v : host) v = normal(rng);
  backend.upload(host.data(), t);
  return t;
}

// Arguments: rows, beams (rows per source), keys (positions so far), path.
void BM_DecodeAttention(benchmark::State& state) {
  const std::int64_t rows = state.range(0), beams = state.range(1), keys = state.range(2), groups = rows / beams;
  std::unique_ptr<Backend> backend = make_cpu_backend({.threads = bench::bench_threads(2)});
  if (state.range(3) == 1) backend = std::make_unique<ThroughScores>(std::move(backend));
  const auto arena = backend->make_arena();
  const std::int64_t capacity = 64, cache_ld = rows * kWidth;
  const Tensor qkv = random_tensor(*backend, *arena, {rows, 3 * kWidth}, 1);
  const Tensor query = random_tensor(*backend, *arena, {rows, kWidth}, 2);
  const Tensor context = arena->alloc(DType::F32, {rows, kWidth});
  const auto scores = [&](Shape shape) {
    return backend->attention_needs_scores(shape.dims[3]) ? arena->alloc(DType::F32, shape) : Tensor{};
  };
  const Tensor self_scores = scores({rows, kHeads, 1, keys}), cross_scores = scores({groups, kHeads, beams, kSourceLen});
  std::vector<AttentionOperands> layers;
  for (std::int64_t l = 0; l < kLayers; ++l) {
    const auto seed = static_cast<unsigned>(3 * l + 3);
    const Tensor cache_k = random_tensor(*backend, *arena, {capacity, rows, kWidth}, seed);
    const Tensor cache_v = random_tensor(*backend, *arena, {capacity, rows, kWidth}, seed + 1);
    const Tensor kv = random_tensor(*backend, *arena, {groups * kSourceLen, 2 * kWidth}, seed + 2);
    layers.push_back({.outer = rows, .inner = kHeads, .queries = 1, .keys = keys, .head_dim = kHeadDim,
                      .q = qkv, .k = cache_k, .v = cache_v, .context = context,
                      .q_view = {0, 3 * kWidth, 3 * kWidth, kHeadDim}, .k_view = {0, cache_ld, kWidth, kHeadDim},
                      .v_view = {0, cache_ld, kWidth, kHeadDim}, .context_view = {0, kWidth, kWidth, kHeadDim},
                      .scale = 0.125f, .causal = true, .causal_offset = keys - 1, .scores = self_scores});
    layers.push_back({.outer = groups, .inner = kHeads, .queries = beams, .keys = kSourceLen, .head_dim = kHeadDim,
                      .q = query, .k = kv, .v = kv, .context = context,
                      .q_view = {0, kWidth, beams * kWidth, kHeadDim},
                      .k_view = {0, 2 * kWidth, kSourceLen * 2 * kWidth, kHeadDim},
                      .v_view = {kWidth, 2 * kWidth, kSourceLen * 2 * kWidth, kHeadDim},
                      .context_view = {0, kWidth, beams * kWidth, kHeadDim}, .scale = 0.125f,
                      .scores = cross_scores});
  }
  for (auto _ : state)
    for (const AttentionOperands& layer : layers) backend->attention(layer);
}

BENCHMARK(BM_DecodeAttention)
    ->ArgNames({"rows", "beams", "keys", "path"})
    ->ArgsProduct({{16}, {1}, {16, 64}, {0, 1}})
    ->ArgsProduct({{80}, {5}, {16, 64}, {0, 1}})
    ->UseRealTime();

}  // namespace
}  // namespace invar

BENCHMARK_MAIN();
