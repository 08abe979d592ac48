#pragma once
// A target-vocabulary shortlist for translation: CTranslate2's vocabulary map (translate_batch with
// use_vmap). A text file of lines
//     <source n-gram> TAB <target token> <target token> ...
// (the n-gram's tokens separated by spaces, as the tokenizer writes them); a line with an empty
// n-gram lists target tokens that are always candidates. A batch may then produce only the
// candidates of the n-grams of its sources, the always-candidates and the tokens the search needs
// (unk, bos, eos, pad, the decoder start and forced tokens); the LM head runs over those rows only.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/text/tokenizer.hpp"

namespace invar {

class VocabularyMap {
 public:
  // Reads `path`; fails naming FILE:LINE for a line without a tab or a target token the
  // tokenizer's target vocabulary does not hold.
  VocabularyMap(const std::string& path, const Tokenizer& tokenizer);

  // The sorted, distinct target ids a batch of sources (token ids) may produce: the candidates of
  // every n-gram of every source with a rule, the always-candidates and the tokenizer's unk, bos
  // and eos (Seq2SeqModel::generate adds the ids its search needs).
  std::vector<std::int32_t> candidates(const std::vector<std::vector<std::int32_t>>& sources) const;

 private:
  const Tokenizer& tokenizer_;
  std::vector<std::unordered_map<std::string, std::vector<std::int32_t>>> rules_;  // [n - 1]: n-gram → targets
  std::vector<std::int32_t> always_;
};

}  // namespace invar
