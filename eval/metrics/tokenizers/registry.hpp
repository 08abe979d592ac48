#pragma once
// sacrebleu's tokenizers by name (sacrebleu.metrics.bleu._TOKENIZERS): what BLEU's `tokenize`
// setting, the CLI's --tokenize and the C API's `tokenize` field choose from. A new tokenizer is
// one file in this folder and one row in registry.cpp.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace invar::metrics {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // The tokenized line, tokens joined by single spaces, as sacrebleu returns it. Thread-safe.
  virtual std::string tokenize(std::string_view line) const = 0;
  // The signature's tok value: the name, or what the tokenizer reports of itself ("ja-mecab-0.996-IPA").
  virtual std::string signature() const = 0;
};

// The registered names, in the order help and error messages list them.
const std::vector<std::string>& tokenizer_names();
// "13a, intl, zh, char, ja-mecab, ko-mecab or none": the names for an error message.
std::string tokenizer_choices();
// Whether a tokenizer has that name (without building it).
bool has_tokenizer(std::string_view name);
// The tokenizer of that name (built once per process; MeCab's fail when their dictionary is
// missing), or nullptr when no tokenizer has that name.
std::shared_ptr<const Tokenizer> find_tokenizer(std::string_view name);
// sacrebleu's choice when no tokenizer is given but the target language is known (`-l de-ja`):
// zh → zh, ja → ja-mecab, ko → ko-mecab, anything else 13a.
std::string tokenizer_for_language(std::string_view target_language);

}  // namespace invar::metrics
