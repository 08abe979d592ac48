// Seq2seq calls: generate and translate with Hugging Face generate()'s settings over the model's
// config.json, as `invar generate` and `invar translate` run them (tools/cmd_generate.cpp), on
// Translator.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "capi/file_job.hpp"
#include "capi/guard.hpp"
#include "capi/model.hpp"
#include "capi/results.hpp"
#include "core/printable.hpp"

namespace invar::capi {
namespace {

// -1 = unset; otherwise within [minimum, maximum] (the command line's ranges).
std::optional<int> optional_int(int value, const char* name, int minimum, int maximum) {
  if (value == -1) return std::nullopt;
  if (value < minimum || value > maximum)
    throw ArgumentError(fmt::format("{} must be -1 (the model's) or {}..{}, got {}", name, minimum, maximum, value));
  return value;
}

std::optional<double> optional_real(double value) {
  return std::isnan(value) ? std::nullopt : std::optional<double>(value);
}

SearchOverrides overrides(const invar_search_options& o) {
  constexpr int kMaxBeams = 1024, kMaxLength = 1 << 20;
  SearchOverrides out;
  out.beam = optional_int(o.num_beams, "num_beams", 1, kMaxBeams);
  out.n_best = optional_int(o.num_return_sequences, "num_return_sequences", 1, kMaxBeams);
  out.max_length = optional_int(o.max_length, "max_length", 1, kMaxLength);
  out.max_new_tokens = optional_int(o.max_new_tokens, "max_new_tokens", 1, kMaxLength);
  out.min_length = optional_int(o.min_length, "min_length", 0, kMaxLength);
  out.no_repeat_ngram = optional_int(o.no_repeat_ngram_size, "no_repeat_ngram_size", 0, kMaxLength);
  out.encoder_no_repeat_ngram =
      optional_int(o.encoder_no_repeat_ngram_size, "encoder_no_repeat_ngram_size", 0, kMaxLength);
  out.top_k = optional_int(o.top_k, "top_k", 0, std::numeric_limits<int>::max());
  const auto early_stopping = optional_int(o.early_stopping, "early_stopping", 0, 1);
  if (early_stopping) out.early_stopping = *early_stopping == 1;
  out.repetition_penalty = optional_real(o.repetition_penalty);
  out.length_penalty = optional_real(o.length_penalty);
  out.temperature = optional_real(o.temperature);
  out.top_p = optional_real(o.top_p);
  out.sample = o.do_sample != 0;
  out.seed = o.seed;
  return out;
}

// The model's settings with `options` over them, checked as generate() checks them; a setting
// the search refuses is an ArgumentError.
SearchSettings search_settings(Translator& translator, const invar_search_options* options) {
  invar_search_options defaults;
  invar_search_options_init(&defaults);
  try {
    const SearchSettings settings = translator.settings(overrides(options != nullptr ? *options : defaults));
    settings.validate(translator.model().spec().decoder.vocab);
    return settings;
  } catch (const ArgumentError&) {
    throw;
  } catch (const Error& e) {
    throw ArgumentError(e.what());
  }
}

// Every field of `options` (NULL = the defaults), for a file job's fingerprint.
std::string options_text(const invar_search_options* options) {
  invar_search_options o;
  invar_search_options_init(&o);
  if (options != nullptr) o = *options;
  return fmt::format("beams={} return={} max_length={} max_new={} min_length={} no_repeat={} encoder_no_repeat={} "
                     "repetition={} length={} early={} sample={} temperature={} top_k={} top_p={} seed={} truncate={}",
                     o.num_beams, o.num_return_sequences, o.max_length, o.max_new_tokens, o.min_length,
                     o.no_repeat_ngram_size, o.encoder_no_repeat_ngram_size, o.repetition_penalty, o.length_penalty,
                     o.early_stopping, o.do_sample, o.temperature, o.top_k, o.top_p, o.seed, o.truncate);
}

// One generate or translate call: its translator, texts, settings and batching.
struct Search {
  Translator* translator = nullptr;
  std::vector<std::string> texts;
  SearchSettings settings;
  TranslateOptions run;
  std::size_t truncated = 0;
};

void prepare(Search& search, invar_model* model, const char* call, const char* const* texts, std::size_t count,
             const invar_search_options* options) {
  search.translator = &translator_of(model, call);
  require_texts(texts, count, "texts");
  search.settings = search_settings(*search.translator, options);
  search.texts.assign(texts, texts + count);
  search.run.batch_size = model->batch_size;
  search.run.where = [](std::size_t i) { return fmt::format("texts[{}]", i); };
  if (model->progress != nullptr)
    search.run.progress = [model, count](std::size_t done) { report_progress(*model, done, count); };
  if (options != nullptr && options->truncate) search.run.truncated = [&search](std::size_t) { ++search.truncated; };
}

// One generate or translate call: `*output` stays NULL unless `make` builds it from the prepared search.
template <typename T, typename Make>
invar_status search_call(T** output, const char* output_name, invar_model* model, const char* call,
                         const char* const* texts, std::size_t count, const invar_search_options* options, Make make) {
  if (output != nullptr) *output = nullptr;
  return guarded([&] {
    require(output, output_name);
    Search search;
    prepare(search, model, call, texts, count, options);
    *output = make(search);
  });
}

void fill(invar_hypothesis& out, const Translation& hypothesis) {
  out.text = new_string(hypothesis.text);
  out.length = hypothesis.ids.size();
  out.ids = new_array<std::int32_t>(hypothesis.ids);
  out.score = hypothesis.score;
}

void fill(invar_hypotheses& out, const std::vector<Translation>& hypotheses) {
  out.items = new invar_hypothesis[hypotheses.size()]();
  out.count = hypotheses.size();
  for (std::size_t k = 0; k < hypotheses.size(); ++k) fill(out.items[k], hypotheses[k]);
}

}  // namespace
}  // namespace invar::capi

using namespace invar::capi;

extern "C" {

void invar_search_options_init(invar_search_options* options) {
  if (options == nullptr) return;
  const double unset = std::numeric_limits<double>::quiet_NaN();
  *options = invar_search_options{.num_beams = -1,
                                  .num_return_sequences = -1,
                                  .max_length = -1,
                                  .max_new_tokens = -1,
                                  .min_length = -1,
                                  .no_repeat_ngram_size = -1,
                                  .encoder_no_repeat_ngram_size = -1,
                                  .repetition_penalty = unset,
                                  .length_penalty = unset,
                                  .early_stopping = -1,
                                  .do_sample = 0,
                                  .temperature = unset,
                                  .top_k = -1,
                                  .top_p = unset,
                                  .seed = 0,
                                  .truncate = 0};
}

invar_status invar_generate(invar_model* model, const char* const* texts, size_t count,
                            const invar_search_options* options, invar_generation** generation) {
  return search_call(generation, "generation", model, "generate", texts, count, options, [&](Search& search) {
    const auto hypotheses = search.translator->generate(search.texts, search.settings, search.run);
    Result<invar_generation, invar_generation_free> out;
    out->inputs = new invar_hypotheses[count]();
    out->count = count;
    out->truncated = search.truncated;
    for (std::size_t i = 0; i < count; ++i) fill(out->inputs[i], hypotheses[i]);
    return out.release();
  });
}

void invar_generation_free(invar_generation* generation) {
  if (generation == nullptr) return;
  for (std::size_t i = 0; generation->inputs != nullptr && i < generation->count; ++i) {
    const invar_hypotheses& hypotheses = generation->inputs[i];
    for (std::size_t k = 0; hypotheses.items != nullptr && k < hypotheses.count; ++k) {
      delete[] hypotheses.items[k].text;
      delete[] hypotheses.items[k].ids;
    }
    delete[] hypotheses.items;
  }
  delete[] generation->inputs;
  delete generation;
}

invar_status invar_translate(invar_model* model, const char* const* texts, size_t count,
                             const invar_search_options* options, invar_texts** translations) {
  return search_call(translations, "translations", model, "translate", texts, count, options, [&](Search& search) {
    const auto best = search.translator->translate(search.texts, search.settings, search.run);
    Result<invar_texts, invar_texts_free> out;
    out->count = count;
    out->texts = new_strings(best);
    return out.release();
  });
}

invar_status invar_translate_file(invar_model* model, const char* input, const char* output,
                                  const invar_search_options* options, const invar_run_options* run) {
  return guarded([&] {
    invar::Translator& translator = translator_of(model, "translate_file");
    const invar::SearchSettings settings = search_settings(translator, options);
    run_file_job({.input = input,
                  .output = output,
                  .run = run,
                  .settings = {"translate", "--model", model->source->path(), "--batch-size",
                               std::to_string(model->batch_size), "--search", options_text(options)},
                  .chunk = 8 * model->batch_size,
                  .work = [&](std::span<const std::string> lines, std::size_t first) {
                    invar::TranslateOptions batching{.batch_size = model->batch_size};
                    batching.where = [&](std::size_t i) { return fmt::format("{}:{}", input, first + i + 1); };
                    if (options != nullptr && options->truncate) batching.truncated = [](std::size_t) {};
                    std::vector<std::string> records;
                    for (auto& text : translator.translate({lines.begin(), lines.end()}, settings, batching))
                      records.push_back(invar::one_line(std::move(text)));
                    return records;
                  }});
  });
}

void invar_texts_free(invar_texts* texts) {
  if (texts == nullptr) return;
  delete_strings(texts->texts, texts->count);
  delete texts;
}

}  // extern "C"
