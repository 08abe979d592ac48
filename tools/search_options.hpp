#pragma once
// The generation options shared by the commands that run a seq2seq model (generate, translate, lip
// --transform): search settings over config.json's, languages, truncation of over-long sources.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "engine/translator.hpp"

namespace invar::cli {

// The search settings (Translator::settings takes them), languages and truncation.
struct SearchOptions : SearchOverrides {
  std::optional<std::string> source_language, target_language;
  bool truncate = false;  // cut over-long sources to the model's positions instead of failing
};

// config.json's settings with the options given over them; warns on stderr about config.json
// settings the search does not implement.
SearchSettings search_settings(const Translator& translator, const SearchOptions& o);

// --src-lang, --tgt-lang.
void add_language_options(CLI::App& app, SearchOptions& o);
// --beam, --max-length, --max-new-tokens, --min-length, --length-penalty, --early-stopping,
// --no-repeat-ngram, --truncate and the language options.
void add_search_options(CLI::App& app, SearchOptions& o);
// --n-best, --sample, --temperature, --top-k, --top-p, --seed.
void add_sampling_options(CLI::App& app, SearchOptions& o);

}  // namespace invar::cli
