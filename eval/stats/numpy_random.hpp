#pragma once
// numpy's np.random.default_rng(seed) and the draws sacrebleu's significance tests make with it,
// bit for bit: SeedSequence(seed) → PCG64 (XSL-RR 128/64), Generator.integers / choice(n,
// replace=True) via Lemire's bounded method on 32-bit draws (numpy's, buffered: one 64-bit draw
// gives two), and integers(2, dtype=bool) one bit per draw from a 32-bit word. Written from
// numpy's _pcg64 / bit_generator / distributions sources (stable since numpy 1.17).
#include <cstdint>
#include <vector>

namespace invar::stats {

class NumpyGenerator {
 public:
  // np.random.default_rng(seed) for a non-negative integer seed.
  explicit NumpyGenerator(std::uint64_t seed);
  std::uint64_t next64();
  std::uint32_t next32();
  // One value of Generator.integers(0, bound, dtype=int64) (= choice(bound, replace=True)).
  std::uint64_t below(std::uint64_t bound);

  // Generator.integers(2, size=count, dtype=bool) is drawn in one call: its 32-bit buffer
  // carries from one value to the next, and a new call starts a new buffer.
  class Bools {
   public:
    explicit Bools(NumpyGenerator& rng) : rng_(rng) {}
    bool next();

   private:
    NumpyGenerator& rng_;
    std::uint32_t buffer_ = 0;
    int left_ = 0;
  };

 private:
  unsigned __int128 state_ = 0, increment_ = 0;
  bool has_half_ = false;  // pcg64_next32's stored upper half
  std::uint32_t half_ = 0;
};

}  // namespace invar::stats
