#pragma once
// Text in, text out for encoder-decoder models: the model's tokenizer around Seq2SeqModel, with
// the language handling of the multilingual families (mBART, M2M100/NLLB, multilingual Marian),
// length-sorted batching and results in input order. What Hugging Face's
// tokenizer → generate() → batch_decode does, line by line.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/decode/generation.hpp"
#include "engine/seq2seq.hpp"
#include "engine/text/tokenizer.hpp"
#include "engine/vocabulary_map.hpp"
#include "backends/backend.hpp"
#include "loaders/model_source.hpp"

namespace invar {

// One output: decoded text (special tokens skipped, Hugging Face's cleanup), the generated ids
// (decoder start first) and the search's score (see Hypothesis::score).
struct Translation {
  std::string text;
  TokenIds ids;
  float score = 0.0f;
};

// Forced decoding of one target: Σ log p over its tokens, and how many were scored.
struct TargetScore {
  double logprob = 0.0;
  std::size_t tokens = 0;
};

// generate() settings given over config.json's; an unset field keeps the model's. What the generate
// and translate commands' options and the C API's invar_search_options say.
struct SearchOverrides {
  std::optional<int> beam, n_best, max_length, max_new_tokens, min_length, no_repeat_ngram, encoder_no_repeat_ngram, top_k;
  std::optional<double> length_penalty, repetition_penalty, temperature, top_p;
  std::optional<bool> early_stopping;
  bool sample = false;
  std::uint64_t seed = 0;
};

struct TranslateOptions {
  std::size_t batch_size = 32;
  // With batch_tokens > 0, a batch also holds at most this many padded source tokens (longest
  // source × sources; engine/decode/batching.hpp).
  std::size_t batch_tokens = 0;
  // Set: generate() restricts each batch's target vocabulary to this map's candidates for its sources.
  const VocabularyMap* vocab_map = nullptr;
  // Names the i-th input (0-based) in errors, e.g. "FILE:LINE"; unset: "text N" (1-based).
  std::function<std::string(std::size_t)> where;
  // Called after each batch with the number of texts done so far.
  std::function<void(std::size_t)> progress;
  // Set: generate() truncates a source longer than the model's positions to fit, as Hugging Face
  // pipelines do with truncation=True (text tokens cut from the end, special tokens kept), and calls
  // this with the text's index. Unset: such a source fails naming it.
  std::function<void(std::size_t)> truncated;
};

class Translator {
 public:
  // Opens the tokenizer and the model of `source` on `backend`; both must outlive the translator.
  Translator(const ModelSource& source, Backend& backend);

  // Languages, for the models that have them. mBART / M2M100: the source code frames the source
  // ids and the target code is the forced first token (forced_bos_token_id) and frames scored
  // targets; multilingual Marian: the target code becomes the ">>xx<<" token before the text.
  // Fails for an unknown code (listing valid ones) or a model without languages.
  void set_languages(const std::optional<std::string>& source_language,
                     const std::optional<std::string>& target_language);

  // config.json's generate() settings, with the target language's forced first token.
  SearchSettings default_settings() const;
  // default_settings() with `overrides` over them; fails when sampling is asked with a beam size.
  SearchSettings settings(const SearchOverrides& overrides) const;

  // Hypotheses per text, best first, in input order. A text without any token (empty or only
  // spaces) gets no hypotheses. A text longer than the model's positions fails naming it.
  std::vector<std::vector<Translation>> generate(const std::vector<std::string>& texts, const SearchSettings& settings,
                                                 const TranslateOptions& options = {});
  // The best hypothesis's text per input ("" for a text without tokens).
  std::vector<std::string> translate(const std::vector<std::string>& texts, const SearchSettings& settings,
                                     const TranslateOptions& options = {});
  // Forced decoding of (source, target) pairs: the target as generate() would produce it (forced
  // first token, text, EOS), scored with the model's log-softmax; a forced first token is given,
  // not scored. A pair with an empty source or target fails naming it.
  std::vector<TargetScore> score(const std::vector<std::pair<std::string, std::string>>& pairs,
                                 const TranslateOptions& options = {});

  // A sequence classifier's logits per input (Seq2SeqModel::classify): each text, or each pair
  // (first, second) framed as the tokenizer frames pairs (BART: `<s> A </s></s> B </s>`). An input
  // longer than the model's positions, or holding an id beyond its vocabulary, fails naming it.
  std::vector<std::vector<float>> classify(const std::vector<std::pair<std::string, std::string>>& inputs, bool pairs,
                                           const TranslateOptions& options = {});

  // The model's positions (max_position_embeddings): the longest source in tokens; 0 = no limit.
  std::int64_t max_source_length() const;

  Tokenizer& tokenizer() { return *tokenizer_; }
  Seq2SeqModel& model() { return model_; }

 private:
  // With `truncate`, cuts an over-long source to the model's positions and sets `cut`.
  TokenIds source_ids(const std::string& text, const std::string& where, bool truncate, bool& cut) const;
  TokenIds target_ids(const std::string& text, const std::string& where) const;
  // Fails naming `where` for more tokens than the model's positions or an id beyond its vocabulary
  // on that side.
  void check_fits(const TokenIds& ids, const std::string& where, Side side) const;

  std::unique_ptr<Tokenizer> tokenizer_;
  Seq2SeqModel model_;
  std::optional<std::int32_t> forced_bos_;   // from the target language
  std::string marian_target_token_;          // ">>xx<<" before each source, multilingual Marian
};

}  // namespace invar
