#include "tools/search_options.hpp"


#include "core/log.hpp"
#include "core/printable.hpp"

namespace invar::cli {

SearchSettings search_settings(const Translator& translator, const SearchOptions& o) {
  SearchSettings s = translator.settings(o);
  for (const auto& setting : s.unsupported)
    warn(printable(setting) + " is not implemented by invar's search (group beam search); "
                              "generations can differ from Hugging Face's");
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
