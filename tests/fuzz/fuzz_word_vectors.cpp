// libFuzzer target: the word-vector readers of `metric wmd`, `metric wvcos` and st-eval
// (eval/metrics/word_vectors): fastText's .vec text format and its .bin model, whose sizes are checked
// against the file before libfasttext reads it. The first input byte picks the format (even: .vec,
// odd: .bin); the rest is the file. Any bytes must be read or refused with an invar::Error: never a
// crash, hang, leak, allocation beyond the file's size, or another exception.
#include <string>

#include "core/error.hpp"
#include "eval/metrics/vectors/word_vectors.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = invar::fuzz::scratch() + (data[0] % 2 == 0 ? "/vectors.vec" : "/vectors.bin");
  invar::fuzz::write_file(path, invar::fuzz::as_text(data + 1, size - 1));
  try {
    const auto vectors = invar::metrics::WordVectors::load(path);
    for (const char* word : {"the", "cat", "</s>", ""}) vectors.find(word);
  } catch (const invar::Error&) {
  }
  return 0;
}
