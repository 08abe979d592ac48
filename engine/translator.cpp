#include "engine/translator.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "engine/decode/batching.hpp"

namespace invar {

namespace {

bool has_text(const Tokenizer& tokenizer, const std::string& text) { return !tokenizer.tokenize(text).empty(); }

std::string where_of(const TranslateOptions& options, std::size_t index) {
  return options.where ? options.where(index) : fmt::format("text {}", index + 1);
}

// Runs `run` on length-sorted batches of the indices in `todo` (with their lengths), reporting
// progress over `total` texts.
template <typename Run>
void in_batches(const std::vector<std::size_t>& todo, const std::vector<std::size_t>& lengths, std::size_t total,
                const TranslateOptions& options, Run run) {
  std::size_t done = total - todo.size();
  for (const auto& batch : length_sorted_batches(lengths, std::max<std::size_t>(options.batch_size, 1), options.batch_tokens)) {
    std::vector<std::size_t> indices;
    for (std::size_t i : batch) indices.push_back(todo[i]);
    run(indices);
    done += indices.size();
    if (options.progress) options.progress(done);
  }
}

}  // namespace

Translator::Translator(const ModelSource& source, Backend& backend)
    : tokenizer_(make_tokenizer(source)), model_(source, backend) {}

void Translator::set_languages(const std::optional<std::string>& source_language,
                               const std::optional<std::string>& target_language) {
  const bool framed = codes_frame_sequences(tokenizer_->tokenizer_class().languages);
  if (source_language) {
    if (!framed) fail("the {} model takes no source language (--src-lang '{}')", model_.spec().model_type, *source_language);
    tokenizer_->lang_id(*source_language);  // fails for an unknown code before the tokenizer changes
    tokenizer_->set_source_language(*source_language);
  }
  if (!target_language) return;
  const std::int32_t id = tokenizer_->lang_id(*target_language);
  if (framed) {
    tokenizer_->set_target_language(*target_language);
    forced_bos_ = id;
  } else {
    // Multilingual Marian (opus-mt-en-ROMANCE, ...): the target is chosen by a token in the source.
    marian_target_token_ = tokenizer_->id_to_token(id) + " ";
  }
}

SearchSettings Translator::default_settings() const {
  SearchSettings settings = model_.default_settings();
  if (forced_bos_) settings.forced_bos_token_id = forced_bos_;
  return settings;
}

SearchSettings Translator::settings(const SearchOverrides& o) const {
  SearchSettings s = default_settings();
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
  if (s.do_sample && o.beam && *o.beam > 1) fail("sampling (--sample) draws one token at a time: leave out the beam size (--beam)");
  if (s.do_sample) s.num_beams = 1;
  return s;
}

std::int64_t Translator::max_source_length() const { return model_.spec().max_positions; }

void Translator::check_fits(const TokenIds& ids, const std::string& where, Side side) const {
  const std::int64_t positions = model_.spec().max_positions;
  if (positions > 0 && static_cast<std::int64_t>(ids.size()) > positions)
    fail("{}: {} tokens, more than the model's {} positions (max_position_embeddings); shorten or split the text",
         where, ids.size(), positions);
  // A tokenizer may hold ids the model has no row for (facebook/bart-large-cnn's <mask>): the
  // tokenizer warned at load; a text that holds one is refused here, where its line is known.
  const std::int64_t vocab = side == Side::Target ? model_.spec().decoder.vocab : model_.spec().encoder.vocab;
  for (std::int32_t id : ids)
    if (id < 0 || id >= vocab)
      fail("{}: token '{}' has id {}, beyond the model's vocabulary of {} (config.json): the model cannot read it",
           where, tokenizer_->id_to_token(id, side), id, vocab);
}

TokenIds Translator::source_ids(const std::string& text, const std::string& where, bool truncate, bool& cut) const {
  const std::string framed = marian_target_token_ + text;
  TokenIds ids = tokenizer_->encode(framed).ids;
  const std::int64_t positions = model_.spec().max_positions;
  if (truncate && positions > 0 && static_cast<std::int64_t>(ids.size()) > positions) {
    ids = tokenizer_->encode(framed, static_cast<std::size_t>(positions)).ids;
    cut = true;
  }
  check_fits(ids, where, Side::Source);
  return ids;
}

TokenIds Translator::target_ids(const std::string& text, const std::string& where) const {
  TokenIds ids;
  if (forced_bos_) ids.push_back(*forced_bos_);
  else if (const auto forced = model_.default_settings().forced_bos_token_id) ids.push_back(*forced);
  for (const auto& piece : tokenizer_->tokenize(text, Side::Target)) ids.push_back(tokenizer_->token_to_id(piece, Side::Target));
  ids.push_back(model_.spec().eos_token_id);
  // The decoder reads the start token and all but the last target token: as many positions.
  check_fits(ids, where, Side::Target);
  return ids;
}

std::vector<std::vector<Translation>> Translator::generate(const std::vector<std::string>& texts,
                                                           const SearchSettings& search, const TranslateOptions& options) {
  SearchSettings settings = search;
  if (forced_bos_) settings.forced_bos_token_id = forced_bos_;
  std::vector<std::vector<Translation>> results(texts.size());
  std::vector<TokenIds> sources(texts.size());
  std::vector<std::size_t> todo, lengths;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (!has_text(*tokenizer_, texts[i])) continue;
    bool cut = false;
    sources[i] = source_ids(texts[i], where_of(options, i), static_cast<bool>(options.truncated), cut);
    if (cut) options.truncated(i);
    todo.push_back(i);
    lengths.push_back(sources[i].size());
  }
  in_batches(todo, lengths, texts.size(), options, [&](const std::vector<std::size_t>& indices) {
    std::vector<TokenIds> batch;
    for (std::size_t i : indices) batch.push_back(sources[i]);
    auto hyps = model_.generate(batch, settings, options.vocab_map ? options.vocab_map->candidates(batch) : TokenIds{});
    for (std::size_t b = 0; b < indices.size(); ++b)
      for (auto& hyp : hyps[b])
        results[indices[b]].push_back({tokenizer_->decode(hyp.ids), std::move(hyp.ids), hyp.score});
  });
  return results;
}

std::vector<std::string> Translator::translate(const std::vector<std::string>& texts, const SearchSettings& settings,
                                               const TranslateOptions& options) {
  std::vector<std::string> best;
  for (auto& hyps : generate(texts, settings, options)) best.push_back(hyps.empty() ? std::string() : std::move(hyps[0].text));
  return best;
}

std::vector<std::vector<float>> Translator::classify(const std::vector<std::pair<std::string, std::string>>& inputs,
                                                    bool pairs, const TranslateOptions& options) {
  std::vector<TokenIds> ids(inputs.size());
  std::vector<std::size_t> todo, lengths;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ids[i] = pairs ? tokenizer_->encode_pair(inputs[i].first, inputs[i].second).ids
                   : tokenizer_->encode(inputs[i].first).ids;
    check_fits(ids[i], where_of(options, i), Side::Source);
    todo.push_back(i);
    lengths.push_back(ids[i].size());
  }
  std::vector<std::vector<float>> results(inputs.size());
  in_batches(todo, lengths, inputs.size(), options, [&](const std::vector<std::size_t>& indices) {
    std::vector<TokenIds> batch;
    for (std::size_t i : indices) batch.push_back(ids[i]);
    auto logits = model_.classify(batch);
    for (std::size_t b = 0; b < indices.size(); ++b) results[indices[b]] = std::move(logits[b]);
  });
  return results;
}

std::vector<TargetScore> Translator::score(const std::vector<std::pair<std::string, std::string>>& pairs,
                                           const TranslateOptions& options) {
  const bool forced = forced_bos_ || model_.default_settings().forced_bos_token_id;
  std::vector<TokenIds> sources(pairs.size()), targets(pairs.size());
  std::vector<std::size_t> todo, lengths;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string where = where_of(options, i);
    if (!has_text(*tokenizer_, pairs[i].first)) fail("{}: the source is empty", where);
    if (!has_text(*tokenizer_, pairs[i].second)) fail("{}: the target is empty", where);
    bool cut = false;
    sources[i] = source_ids(pairs[i].first, where, false, cut);
    targets[i] = target_ids(pairs[i].second, where);
    todo.push_back(i);
    lengths.push_back(sources[i].size());
  }
  std::vector<TargetScore> results(pairs.size());
  in_batches(todo, lengths, pairs.size(), options, [&](const std::vector<std::size_t>& indices) {
    std::vector<TokenIds> batch_sources, batch_targets;
    for (std::size_t i : indices) {
      batch_sources.push_back(sources[i]);
      batch_targets.push_back(targets[i]);
    }
    const std::size_t given = forced ? 1 : 0;
    const auto logprobs = model_.score(batch_sources, batch_targets, given);
    for (std::size_t b = 0; b < indices.size(); ++b)
      results[indices[b]] = {logprobs[b], batch_targets[b].size() - given};
  });
  return results;
}

}  // namespace invar
