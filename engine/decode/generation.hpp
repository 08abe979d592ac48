#pragma once
// Autoregressive search over any decoder that can take one step: greedy, beam search and sampling,
// reproducing Hugging Face transformers 4.19 (generation_utils.py, generation_beam_search.py,
// generation_logits_process.py) decision for decision, so generated ids are identical and beam
// scores agree to float32 rounding.
//
// The search never sees a model: it drives a StepModel, which keeps one decoder state per live row
// (a source sentence, or one beam of it) and is told when rows are reordered or dropped.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace invar {

// A step's best logits per row (Backend::top_k_rows): what the search needs of each row where its
// logits processors only ban tokens.
struct TopLogits {
  std::int64_t k = 0;
  std::vector<float> values;       // rows × k raw logits, largest first (equal ones: lower token first)
  std::vector<std::int32_t> ids;   // rows × k tokens
  std::vector<float> terms;        // rows × 2: the row's log-softmax max and log-sum (LogSoftmaxTerms)
};

// One decoding step over the live rows. Rows start as `batch_size * expand` copies (source s owns
// rows s*expand ... s*expand+expand-1) with an empty prefix.
class StepModel {
 public:
  virtual ~StepModel() = default;
  virtual std::int64_t vocab_size() const = 0;
  // Appends tokens[r] to row r's prefix and writes the logits for the next token of every live row
  // to `logits` (rows × vocab_size, row-major), resizing it.
  virtual void step(std::span<const std::int32_t> tokens, std::vector<float>& logits) = 0;
  // Whether the search should call step_top_k where it needs no whole row (greedy and beam steps
  // whose processors only ban tokens): true on backends that prefer Backend::top_k_rows.
  virtual bool prefers_top_k() const { return false; }
  // As step, but each row's k largest logits only (0 < k ≤ vocab_size()), with token `exclude`
  // (-1: none) counted as -inf before anything is read. Called only where prefers_top_k().
  virtual void step_top_k(std::span<const std::int32_t> tokens, std::int64_t k, std::int32_t exclude, TopLogits& out);
  // New row i continues old row rows[i]: reorders beams (rows may repeat) and drops finished rows
  // (rows may be fewer than before). Never called with the identity.
  virtual void select_rows(std::span<const std::int32_t> rows) = 0;
  // Threads for the search's work on each step's rows (log-softmax, processors, top-k): rows are
  // independent there, so the result does not depend on it.
  virtual int threads() const { return 1; }
  // Runs that work: body(begin, end) on disjoint ranges covering [0, n); `body` does not throw.
  // The default is an OpenMP team of threads(); a model on a backend runs it where the backend's
  // products run (Backend::parallel_rows).
  virtual void parallel_rows(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body);
};

// Hugging Face's generate() arguments with their 4.19 defaults (PretrainedConfig). Lengths count
// the decoder start token, as Hugging Face's max_length does.
struct SearchSettings {
  int num_beams = 1;
  int num_return_sequences = 1;
  int max_length = 20;
  int min_length = 0;
  double length_penalty = 1.0;
  bool early_stopping = false;
  int no_repeat_ngram_size = 0;
  // CTRL's repetition penalty (Keskar et al. 2019), as HF's RepetitionPenaltyLogitsProcessor: the
  // score of every token already in the prefix is divided by it when positive, multiplied when not.
  double repetition_penalty = 1.0;
  // HF's EncoderNoRepeatNGramLogitsProcessor: no n-gram of the source is generated (the source as
  // generate() is given it, unpadded: HF on a padded batch also bans n-grams of the padding).
  int encoder_no_repeat_ngram_size = 0;
  // Token sequences never to generate; a single-token entry bans that token everywhere, a longer
  // one bans its last token after its prefix. An entry equal to [eos] is ignored, as in HF.
  std::vector<std::vector<std::int32_t>> bad_words_ids;
  std::optional<std::int32_t> forced_bos_token_id;  // forced as the first token after the start
  std::optional<std::int32_t> forced_eos_token_id;  // forced when max_length - 1 tokens exist
  std::int32_t decoder_start_token_id = 0;
  std::optional<std::int32_t> eos_token_id;
  std::int32_t pad_token_id = 0;
  // A token whose logit is set to -inf before log-softmax in beam search only: Hugging Face's
  // adjust_logits_during_generation (MarianMTModel never predicts its pad token there).
  std::optional<std::int32_t> beam_masked_token_id;

  // config.json's generate() settings that the search does not implement ("FILE: field value"),
  // for the caller to warn about (group beam search); the search ignores them.
  std::vector<std::string> unsupported;

  // Sampling (num_beams must be 1): processors, then temperature, top-k, top-p (HF's order).
  bool do_sample = false;
  double temperature = 1.0;
  int top_k = 50;
  double top_p = 1.0;
  std::uint64_t seed = 0;

  // Fails with a message naming the setting when the combination is invalid (HF's checks).
  void validate(std::int64_t vocab_size) const;
};

struct Hypothesis {
  // Starts with the decoder start token; ends with EOS unless max_length cut it.
  std::vector<std::int32_t> ids;
  // Beam search: Hugging Face's sequence score, sum of processed log-probs / len**length_penalty
  // with len = tokens before EOS, start token included. Greedy and sampling: the same formula over
  // the tokens chosen (processed log-softmax, before sampling warpers), so scores compare.
  float score = 0.0f;
};

// Runs the search for `batch_size` sources. Returns, per source, num_return_sequences hypotheses,
// best first (beam search) or in sampling order. `encoder_inputs` (one per source) are the sources'
// token ids, needed only for encoder_no_repeat_ngram_size.
std::vector<std::vector<Hypothesis>> generate(StepModel& model, int batch_size, const SearchSettings& settings,
                                              std::span<const std::vector<std::int32_t>> encoder_inputs = {});

// How many rows per source the model must start with for these settings.
int rows_per_source(const SearchSettings& settings);

}  // namespace invar
