#pragma once
// tokenizer.json's "model": WordPiece, Unigram (SentencePiece's Viterbi segmentation, unknown
// characters fused, byte fallback) and BPE (merge ranks, byte fallback, end-of-word suffix), each
// turning one pre-tokenized word into vocabulary tokens.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text/tokenizer.hpp"
#include "engine/text/tokenizer_json/node.hpp"

namespace invar::tokenizer_json {

class Model {
 public:
  virtual ~Model() = default;
  // Appends the tokens of `word`; each is in vocab() or is unk_token().
  virtual void tokenize(std::string_view word, std::vector<std::string>& out) const = 0;
  const Vocab& vocab() const { return vocab_; }
  // The model's unknown token ("" when it has none).
  const std::string& unk_token() const { return unk_; }

 protected:
  Vocab vocab_;
  std::string unk_;
};

// Fails naming the JSON path of anything not implemented or malformed; ids must be below
// `max_ids` (the model's vocabulary size, which bounds what the embeddings can look up).
std::unique_ptr<Model> make_model(const Node& node, std::int64_t max_ids);

}  // namespace invar::tokenizer_json
