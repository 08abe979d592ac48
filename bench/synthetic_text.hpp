#pragma once
// Deterministic synthetic MT output for the metric benchmarks: references of about 25 words drawn
// from a Zipf-like vocabulary (capitalised sentence starts, commas, full stops, numbers), and
// hypotheses that keep most reference words, substitute some, drop some and swap neighbours — so
// every n-gram order has partial matches, as with real system output. The same seed gives the
// same text on every platform (own xorshift generator, no std:: distributions).
#include <cstdint>
#include <string>
#include <vector>

namespace invar::bench {

struct SyntheticCorpus {
  std::vector<std::string> hyps;
  std::vector<std::string> refs;
};

class XorShift {
 public:
  explicit XorShift(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  std::uint64_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

inline std::vector<std::string> synthetic_vocabulary(XorShift& rng, std::size_t size) {
  static const char* const kSyllables[] = {"ka", "to", "ri", "en", "sa", "mo", "lu", "de", "in", "or",
                                           "ste", "ver", "na", "ul", "pe", "gra", "che", "is", "bo", "an"};
  std::vector<std::string> words;
  for (std::size_t i = 0; i < size; ++i) {
    std::string w;
    const std::size_t syllables = 1 + rng.below(3) + (i > size / 4 ? 1 : 0);
    for (std::size_t s = 0; s < syllables; ++s) w += kSyllables[rng.below(20)];
    words.push_back(w);
  }
  return words;
}

inline SyntheticCorpus synthetic_corpus(std::size_t lines, std::size_t words_per_line = 25, std::uint64_t seed = 1) {
  XorShift rng(seed);
  const auto vocabulary = synthetic_vocabulary(rng, 5000);
  // Zipf-like: the product of two uniform draws favours small indices.
  auto word = [&] { return vocabulary[rng.below(vocabulary.size()) * rng.below(vocabulary.size()) / vocabulary.size()]; };
  SyntheticCorpus corpus;
  for (std::size_t l = 0; l < lines; ++l) {
    std::vector<std::string> ref;
    const std::size_t n = words_per_line - 3 + rng.below(7);
    for (std::size_t i = 0; i < n; ++i) {
      std::string w = rng.below(40) == 0 ? std::to_string(rng.below(10000)) : word();
      if (i == 0 && w[0] >= 'a' && w[0] <= 'z') w[0] = static_cast<char>(w[0] - 'a' + 'A');
      if (i + 1 < n && rng.below(12) == 0) w += ",";
      ref.push_back(w);
    }
    ref.back() += ".";
    std::vector<std::string> hyp;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const auto roll = rng.below(100);
      if (roll < 10) hyp.push_back(word());                       // substitution
      else if (roll < 14) continue;                               // deletion
      else if (roll < 18) hyp.insert(hyp.end(), {ref[i], word()});  // insertion
      else hyp.push_back(ref[i]);
      if (roll >= 18 && roll < 24 && hyp.size() >= 2) std::swap(hyp[hyp.size() - 1], hyp[hyp.size() - 2]);
    }
    auto join = [](const std::vector<std::string>& ws) {
      std::string s;
      for (const auto& w : ws) s += (s.empty() ? "" : " ") + w;
      return s;
    };
    corpus.refs.push_back(join(ref));
    corpus.hyps.push_back(join(hyp));
  }
  return corpus;
}

}  // namespace invar::bench
