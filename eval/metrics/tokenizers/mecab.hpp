#pragma once
// sacrebleu 2.4.3's MeCab tokenizers: `ja-mecab` (MeCab with the IPA dictionary, wakati output:
// the line strip()ped, parsed, the result strip()ped) and `ko-mecab` (MeCab-ko with mecab-ko-dic).
//
// ja-mecab reads IPADIC from, in order: $INVAR_MECAB_IPADIC; the dictionary the build compiles
// with scripts/build-ipadic.sh (Debian's mecab-ipadic source without Debian's added 令和 entry:
// 392,126 entries, the dictionary sacrebleu asserts); Debian's mecab-ipadic-utf8, which has 令和
// too (392,127 entries; only that word can tokenize differently, and invar says so on stderr).
// ko-mecab needs MeCab-ko and mecab-ko-dic, which Debian 12 does not package: it fails clearly.
#include <memory>
#include <string>
#include <string_view>

namespace invar::metrics {

class MecabTokenizer {
 public:
  enum class Language { Japanese, Korean };
  // Loads the dictionary once per process; fails with a clear message when it is missing or is
  // not the dictionary sacrebleu uses.
  static std::shared_ptr<const MecabTokenizer> get(Language language);

  MecabTokenizer(const MecabTokenizer&) = delete;
  MecabTokenizer& operator=(const MecabTokenizer&) = delete;
  ~MecabTokenizer();

  // Thread-safe (one MeCab lattice per call).
  std::string tokenize(std::string_view line) const;
  // The signature's tok value, e.g. "ja-mecab-0.996-IPA".
  const std::string& signature() const { return signature_; }

 private:
  struct Handle;
  MecabTokenizer(std::unique_ptr<Handle> handle, std::string signature);
  std::unique_ptr<Handle> handle_;
  std::string signature_;
};

}  // namespace invar::metrics
