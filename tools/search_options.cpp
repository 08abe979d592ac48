#include "tools/search_options.hpp"

#include <iostream>

#include "core/error.hpp"
#include "core/printable.hpp"

namespace invar::cli {

SearchSettings search_settings(const Translator& translator, const SearchOptions& o) {
  SearchSettings s = translator.default_settings();
  if (o.beam) s.num_beams = *o.beam;
  if (o.n_best) s.num_return_sequences = *o.n_best;
  if (o.max_length) s.max_length = *o.max_length;
  // Hugging Face 4.19: max_length = max_new_tokens + the decoder prompt (the start token).
  if (o.max_new_tokens) s.max_length = *o.max_new_tokens + 1;
  if (o.min_length) s.min_length = *o.min_length;
  if (o.no_repeat_ngram) s.no_repeat_ngram_size = *o.no_repeat_ngram;
  if (o.repetition_penalty) s.repetition_penalty = *o.repetition_penalty;
  if (o.encoder_no_repeat_ngram) s.encoder_no_repeat_ngram_size = *o.encoder_no_repeat_ngram;
  if (o.length_penalty) s.length_penalty = *o.length_penalty;
  if (o.early_stopping) s.early_stopping = *o.early_stopping;
  if (o.sample) s.do_sample = true;
  if (o.temperature) s.temperature = *o.temperature;
  if (o.top_k) s.top_k = *o.top_k;
  if (o.top_p) s.top_p = *o.top_p;
  s.seed = o.seed;
  if (s.do_sample && o.beam && *o.beam > 1) fail("--sample draws one token at a time; leave out --beam");
  if (s.do_sample) s.num_beams = 1;
  for (const auto& setting : s.unsupported)
    std::cerr << "invar: warning: " << printable(setting)
              << " is not implemented by invar's search (group beam search); "
                 "generations can differ from Hugging Face's\n";
  return s;
}

void add_language_options(CLI::App& app, SearchOptions& o) {
  app.add_option("--src-lang", o.source_language,
                 "Source language code of mBART (de_DE) or M2M100/NLLB (de) (default: tokenizer_config.json)");
  app.add_option("--tgt-lang", o.target_language,
                 "Target language code: mBART (en_XX), M2M100/NLLB (en) force it as the first token; "
                 "multilingual Marian (fr) gets >>fr<< before the source (default: config.json's forced_bos_token_id)");
}

void add_search_options(CLI::App& app, SearchOptions& o) {
  const char* from_config = " (default: config.json, else Hugging Face's default)";
  app.add_option("--beam", o.beam, std::string("Beam size, num_beams; 1 = greedy") + from_config)
      ->check(CLI::Range(1, 1024));
  app.add_option("--max-length", o.max_length,
                 std::string("Longest output in tokens, counting the decoder start token") + from_config)
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--max-new-tokens", o.max_new_tokens, "Longest output in generated tokens (overrides --max-length)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--min-length", o.min_length, std::string("EOS is banned before this many tokens") + from_config)
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--length-penalty", o.length_penalty,
                 std::string("Beam scores are divided by length**this") + from_config);
  app.add_option("--early-stopping", o.early_stopping,
                 std::string("Stop a beam search once num_beams hypotheses are done (true/false)") + from_config);
  app.add_option("--no-repeat-ngram", o.no_repeat_ngram,
                 std::string("No n-gram of this size appears twice, no_repeat_ngram_size") + from_config)
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--encoder-no-repeat-ngram", o.encoder_no_repeat_ngram,
                 std::string("No n-gram of this size of the source is generated, encoder_no_repeat_ngram_size") +
                     from_config)
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--repetition-penalty", o.repetition_penalty,
                 std::string("Scores of tokens already generated are divided by this (multiplied when negative), "
                             "repetition_penalty") + from_config);
  app.add_flag("--truncate", o.truncate,
               "Cut a source longer than the model's positions to fit (Hugging Face pipelines' truncation=True) "
               "and report how many were cut, instead of stopping at it");
  add_language_options(app, o);
}

void add_sampling_options(CLI::App& app, SearchOptions& o) {
  const char* from_config = " (default: config.json, else Hugging Face's default)";
  app.add_option("--n-best", o.n_best, std::string("Hypotheses per input, num_return_sequences") + from_config)
      ->check(CLI::Range(1, 1024));
  app.add_flag("--sample", o.sample, "Sample instead of searching (then --temperature, --top-k, --top-p apply)");
  app.add_option("--temperature", o.temperature, std::string("Sampling temperature") + from_config);
  app.add_option("--top-k", o.top_k, std::string("Sample among the k likeliest tokens (0 = all)") + from_config)
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--top-p", o.top_p, std::string("Sample within the smallest set of probability ≥ p") + from_config);
  app.add_option("--seed", o.seed, "Sampling seed: the same seed gives the same samples")->capture_default_str();
}

}  // namespace invar::cli
