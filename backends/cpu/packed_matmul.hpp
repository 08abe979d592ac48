#pragma once
// Linear-layer products on weights packed once: each weight is reordered at load into the blocked
// layout oneDNN's matmul prefers, and every product runs a cached oneDNN matmul primitive on it.
// OpenBLAS's sgemm instead re-packs the whole weight on every call, which dominates the small-M
// products of decoding (one row per beam and step): docs/performance.md has the measurements.
//
// An int8 weight is quantized per output channel, symmetrically (core/quantize.hpp): w[j, :] ≈
// scale[j] · q[j, :] with q in [-127, 127] and scale[j] = max|w[j, :]| / 127; an int8 .invar file
// stores it so. Each call quantizes the rows of x to u8 per row, dynamically and asymmetrically
// (x[r, :] ≈ s_r · (u[r, :] − z_r) over the row's range, so a row of one sign, as after an
// activation, keeps the whole grid), multiplies u8 by s8 with exact int32 sums (VNNI or AMX where
// the CPU has them: oneDNN picks), subtracts z_r · Σ_p q[j, p] and rescales each element by its
// row's and its channel's scale. docs/performance.md has the choice.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace invar::cpu {

// A weight w [n, k] (nn.Linear's [out, in]) in oneDNN's layout. Its memory is owned here.
class PackedWeight {
 public:
  ~PackedWeight();
  PackedWeight(const PackedWeight&) = delete;
  PackedWeight& operator=(const PackedWeight&) = delete;

  std::int64_t rows() const { return n_; }  // n: outputs
  std::int64_t cols() const { return k_; }  // k: inputs
  const void* data() const;                 // the packed elements: an identity for lookups
  std::size_t bytes() const;                // with the layout's padding (and int8 scales)
  bool int8() const { return !scales_.empty(); }
  int slices() const;
  // Slice s holds output channels [slice_begin(s), slice_begin(s + 1)); slice_begin(slices()) = n.
  std::int64_t slice_begin(int s) const;
  // Whether the slices lie side by side as the whole weight packed (oneDNN's AVX-512 layouts), so
  // that linear runs one product over all of them instead of one per slice and a copy of each.
  bool side_by_side() const;

 private:
  friend class PackedMatmul;
  struct Impl;
  PackedWeight(std::int64_t n, std::int64_t k, std::unique_ptr<Impl> impl, std::vector<float> scales,
               std::vector<float> sums);
  std::int64_t n_, k_;
  std::unique_ptr<Impl> impl_;
  std::vector<float> scales_;  // int8: one per output channel; f32: empty
  std::vector<float> sums_;    // int8: Σ_p q[j, p] per output channel, for the inputs' zero points
};

// The oneDNN engine of one backend and its lanes: a lane (a stream, a primitive cache and scratch)
// runs one product at a time, by default on the calling thread alone, so a backend can run several
// lanes at once on its own thread pool, one block of rows each. (Debian builds oneDNN on OpenMP,
// whose idle threads spin: beside OpenBLAS's and the pool's threads they made a 2-core encoder run
// 10× slower. A lane sets its thread's OpenMP thread count to the call's team, 1 unless asked.)
class PackedMatmul {
 public:
  PackedMatmul();
  ~PackedMatmul();
  PackedMatmul(const PackedMatmul&) = delete;
  PackedMatmul& operator=(const PackedMatmul&) = delete;

  // w [n, k] row-major F32, reordered into a new packed copy (w is not kept), in at most `slices`
  // column slices (fewer where n is too small for that many slices of kSliceAlign channels).
  std::unique_ptr<PackedWeight> pack(const float* w, std::int64_t n, std::int64_t k, int slices = 1);
  // The same weight quantized to int8 per output channel (see above), then packed.
  std::unique_ptr<PackedWeight> pack_int8(const float* w, std::int64_t n, std::int64_t k, int slices = 1);
  // A weight quantized already (an I8 tensor of an .invar file): q [n, k] row-major and its n
  // scales, packed as they are.
  std::unique_ptr<PackedWeight> pack_int8(const std::int8_t* q, const float* scales, std::int64_t n, std::int64_t k,
                                          int slices = 1);
  // Lanes 0 .. lanes − 1 exist (at least 1; more are made on demand, none are removed).
  void reserve_lanes(int lanes);
  // y [m, n] = x [m, k] · wᵀ (+ bias [n] when not null) on lane `lane`; y must not alias x. Calls on
  // different lanes may run at once. team > 1 lets oneDNN run this one product on an OpenMP team of
  // that many threads (it splits the outputs), for products with fewer rows than the backend has
  // threads; the caller's other threads must be idle meanwhile.
  void linear(const float* x, std::int64_t m, const PackedWeight& w, const float* bias, float* y, int lane,
              int team = 1);
  // The columns of slice s only: y [m, n]'s channels [slice_begin(s), slice_begin(s + 1)) (the rest
  // of y is not touched), on lane `lane` and its calling thread.
  void linear_slice(const float* x, std::int64_t m, const PackedWeight& w, int s, const float* bias, float* y,
                    int lane);

 private:
  struct Impl;
  struct Lane;
  std::unique_ptr<Impl> impl_;
};

}  // namespace invar::cpu
