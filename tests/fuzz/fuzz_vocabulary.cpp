// libFuzzer target: the vocabulary files, each in a fixture folder that uses it: SentencePiece
// models (through the sentencepiece library), byte-level BPE vocab.json + merges.txt, FSMT's BPE
// vocabularies, WordPiece vocab.txt, Marian's vocab.json. The first input byte picks the file, the
// rest is its content; the tokenizer is built and run. Any bytes must be accepted or rejected with
// an invar::Error: never a crash, hang, leak or another exception.
#include <string>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "loaders/model_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const invar::fuzz::VocabularyFile& target = invar::fuzz::kVocabularyFiles[data[0] % invar::fuzz::kVocabularyFiles.size()];
  auto& copy = invar::fuzz::FixtureCopy::of(target.folder);
  copy.replace(target.file, invar::fuzz::as_text(data + 1, size - 1));
  try {
    const auto source = invar::ModelSource::open(copy.path());
    invar::fuzz::exercise(*invar::make_tokenizer(*source));
  } catch (const invar::Error&) {
  }
  return 0;
}
