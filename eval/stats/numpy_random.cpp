#include "eval/stats/numpy_random.hpp"

#include <array>

namespace invar::stats {

namespace {

using u128 = unsigned __int128;

// SeedSequence(seed).generate_state(4, np.uint64), numpy's bit_generator.pyx (pool size 4).
std::array<std::uint64_t, 4> seed_sequence_state(std::uint64_t seed) {
  constexpr std::uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875, kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
  constexpr std::uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;
  constexpr int kShift = 16;
  // _coerce_to_uint32_array: the integer's 32-bit words, least significant first; 0 is [0].
  std::vector<std::uint32_t> entropy{static_cast<std::uint32_t>(seed)};
  if (seed >> 32) entropy.push_back(static_cast<std::uint32_t>(seed >> 32));
  std::uint32_t hash_const = kInitA;
  const auto hashmix = [&](std::uint32_t value) {
    value ^= hash_const;
    hash_const *= kMultA;
    value *= hash_const;
    value ^= value >> kShift;
    return value;
  };
  const auto mix = [](std::uint32_t x, std::uint32_t y) {
    std::uint32_t result = kMixMultL * x - kMixMultR * y;
    result ^= result >> kShift;
    return result;
  };
  std::array<std::uint32_t, 4> pool{};
  for (std::size_t i = 0; i < pool.size(); ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0);
  for (std::size_t src = 0; src < pool.size(); ++src)
    for (std::size_t dst = 0; dst < pool.size(); ++dst)
      if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
  // (entropy words beyond the pool size: none for a 64-bit seed)
  std::array<std::uint32_t, 8> words{};
  hash_const = kInitB;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::uint32_t value = pool[i % pool.size()];
    value ^= hash_const;
    hash_const *= kMultB;
    value *= hash_const;
    value ^= value >> kShift;
    words[i] = value;
  }
  std::array<std::uint64_t, 4> out{};
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = words[2 * i] | (static_cast<std::uint64_t>(words[2 * i + 1]) << 32);  // .view(uint64), little-endian
  return out;
}

constexpr u128 kMultiplier = (static_cast<u128>(2549297995355413924ULL) << 64) | 4865540595714422341ULL;

}  // namespace

NumpyGenerator::NumpyGenerator(std::uint64_t seed) {
  const auto words = seed_sequence_state(seed);
  // pcg64_set_seed: state from words 0-1, stream from words 2-3 (high word first), then
  // pcg_setseq_128_srandom_r.
  const u128 initstate = (static_cast<u128>(words[0]) << 64) | words[1];
  const u128 initseq = (static_cast<u128>(words[2]) << 64) | words[3];
  increment_ = (initseq << 1) | 1;
  state_ = increment_;  // 0 * multiplier + increment
  state_ += initstate;
  state_ = state_ * kMultiplier + increment_;
}

std::uint64_t NumpyGenerator::next64() {
  state_ = state_ * kMultiplier + increment_;
  const auto folded = static_cast<std::uint64_t>(state_ >> 64) ^ static_cast<std::uint64_t>(state_);
  const unsigned rotation = static_cast<unsigned>(state_ >> 122);
  return (folded >> rotation) | (folded << ((64 - rotation) & 63));
}

std::uint32_t NumpyGenerator::next32() {
  if (has_half_) {
    has_half_ = false;
    return half_;
  }
  const std::uint64_t next = next64();
  has_half_ = true;
  half_ = static_cast<std::uint32_t>(next >> 32);
  return static_cast<std::uint32_t>(next);
}

std::uint64_t NumpyGenerator::below(std::uint64_t bound) {
  const std::uint64_t range = bound - 1;  // numpy's inclusive `rng`
  if (range == 0) return 0;
  if (range <= 0xFFFFFFFFULL) {
    if (range == 0xFFFFFFFFULL) return next32();
    const auto excl = static_cast<std::uint32_t>(bound);
    std::uint64_t m = static_cast<std::uint64_t>(next32()) * excl;
    auto leftover = static_cast<std::uint32_t>(m);
    if (leftover < excl) {
      const std::uint32_t threshold = (0xFFFFFFFFU - static_cast<std::uint32_t>(range)) % excl;
      while (leftover < threshold) {
        m = static_cast<std::uint64_t>(next32()) * excl;
        leftover = static_cast<std::uint32_t>(m);
      }
    }
    return m >> 32;
  }
  if (range == ~0ULL) return next64();
  u128 m = static_cast<u128>(next64()) * bound;
  auto leftover = static_cast<std::uint64_t>(m);
  if (leftover < bound) {
    const std::uint64_t threshold = (~0ULL - range) % bound;
    while (leftover < threshold) {
      m = static_cast<u128>(next64()) * bound;
      leftover = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

bool NumpyGenerator::Bools::next() {
  if (left_ == 0) {
    buffer_ = rng_.next32();
    left_ = 31;
  } else {
    buffer_ >>= 1;
    --left_;
  }
  return buffer_ & 1U;
}

}  // namespace invar::stats
