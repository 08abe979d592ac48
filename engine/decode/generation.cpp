#include "engine/decode/generation.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "engine/decode/beam_search.hpp"
#include "engine/decode/logits_processors.hpp"

namespace invar {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

void check_token(std::int64_t vocab_size, const char* name, std::optional<std::int32_t> token) {
  if (token && (*token < 0 || *token >= vocab_size))
    fail("{} {} is outside the vocabulary (size {})", name, *token, vocab_size);
}

std::span<float> row_of(std::vector<float>& logits, std::size_t row, std::int64_t vocab) {
  return {logits.data() + row * static_cast<std::size_t>(vocab), static_cast<std::size_t>(vocab)};
}

using EncoderInputs = std::span<const std::vector<std::int32_t>>;

// The token ids of source s, or none when the caller gave no sources.
std::span<const std::int32_t> encoder_input(EncoderInputs inputs, std::size_t s) {
  return inputs.empty() ? std::span<const std::int32_t>() : std::span<const std::int32_t>(inputs[s]);
}

// Processed log-probabilities of one row, as beam search scores tokens.
void processed_log_probs(std::span<float> row, std::span<const std::int32_t> prefix, const SearchSettings& settings,
                         std::span<const std::int32_t> source) {
  log_softmax(row);
  apply_logits_processors(row, prefix, settings, source);
}

// HF's greedy_search takes the argmax of the processed raw logits (first of equals).
std::int32_t argmax(std::span<const float> row) {
  return static_cast<std::int32_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

double length_normalized(double sum_logprobs, std::size_t length, double length_penalty) {
  return sum_logprobs / std::pow(static_cast<double>(length), length_penalty);
}

bool is_identity(const std::vector<std::int32_t>& rows, std::size_t previous) {
  if (rows.size() != previous) return false;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i] != static_cast<std::int32_t>(i)) return false;
  return true;
}

// A uniform double in [0, 1) from 53 random bits: the same on every platform, unlike
// std::uniform_real_distribution.
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Runs body(i) for every i in [0, n) on the model's threads. An exception (out of memory in a
// processor) is rethrown here, once every row has run.
template <class Body>
void for_each_row(StepModel& model, std::size_t n, const Body& body) {
  std::exception_ptr failure;
  std::mutex failure_mutex;
  model.parallel_rows(static_cast<std::int64_t>(n), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      try {
        body(static_cast<std::size_t>(i));
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  });
  if (failure) std::rethrow_exception(failure);
}

std::int32_t sample_token(std::span<const float> warped, std::mt19937_64& rng) {
  const float max = *std::max_element(warped.begin(), warped.end());
  std::vector<double> weights(warped.size());
  double total = 0.0;
  for (std::size_t i = 0; i < warped.size(); ++i) total += weights[i] = std::exp(static_cast<double>(warped[i] - max));
  double target = uniform(rng) * total;
  std::size_t last_positive = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0.0) continue;
    last_positive = i;
    if (target < weights[i]) return static_cast<std::int32_t>(i);
    target -= weights[i];
  }
  return static_cast<std::int32_t>(last_positive);  // rounding left target at the very end
}

struct Choice {
  std::int32_t token = 0;
  float log_prob = 0.0f;  // processed, as HF's scores
};

// The next token of one row (greedy: HF's argmax of the processed logits; sampling: a draw from the
// warped ones) and its processed log-prob. `scratch` holds a copy of the row where the processors do
// more than ban; `rng` is used only when sampling.
Choice choose_token(std::span<float> raw, std::span<const std::int32_t> prefix, const SearchSettings& settings,
                    std::span<const std::int32_t> source, std::vector<float>& scratch, std::mt19937_64& rng) {
  if (!settings.do_sample && processors_only_ban(prefix.size(), settings)) {
    // The processed log-prob of the chosen token is the banned raw row's, shifted: no copy of the row.
    const LogSoftmaxTerms terms = log_softmax_terms(raw);
    apply_logits_processors(raw, prefix, settings, source);
    const std::int32_t token = argmax(raw);
    return {token, terms(raw[static_cast<std::size_t>(token)])};
  }
  scratch.assign(raw.begin(), raw.end());
  processed_log_probs(scratch, prefix, settings, source);
  apply_logits_processors(raw, prefix, settings, source);
  if (settings.do_sample) apply_sampling_warpers(raw, settings);
  const std::int32_t token = settings.do_sample ? sample_token(raw, rng) : argmax(raw);
  return {token, scratch[static_cast<std::size_t>(token)]};
}

// Candidates per row beyond its bans that step_top_k may be asked for; a step with more bans than
// this reads whole rows.
constexpr std::size_t kMaxTopK = 64;

// The bans of each live row where the step can read candidates instead of whole rows: the model
// prefers it, nothing samples, and the processors only ban, few enough tokens. Returns the
// candidates each row needs (`wanted` plus the most bans of any row), or 0 to read whole rows.
std::int64_t top_k_plan(StepModel& model, const SearchSettings& settings, std::size_t cur_len, std::size_t wanted,
                        std::size_t rows, const std::function<void(std::size_t, std::vector<std::int32_t>&)>& bans_of,
                        std::vector<std::vector<std::int32_t>>& bans) {
  if (!model.prefers_top_k() || settings.do_sample || !processors_only_ban(cur_len, settings)) return 0;
  bans.resize(rows);
  std::size_t most = 0;
  for (std::size_t row = 0; row < rows; ++row) {
    bans_of(row, bans[row]);
    most = std::max(most, bans[row].size());
  }
  const std::size_t k = wanted + most;
  return k <= kMaxTopK && k <= static_cast<std::size_t>(model.vocab_size()) ? static_cast<std::int64_t>(k) : 0;
}

// Greedy's choice from a row's candidates: the first one outside its bans, as argmax over the
// banned row. Where that is -inf the whole banned row is, and argmax is HF's first token.
Choice top_choice(const TopLogits& top, std::size_t row, const std::vector<std::int32_t>& banned) {
  const std::size_t k = static_cast<std::size_t>(top.k);
  const LogSoftmaxTerms terms{top.terms[2 * row], top.terms[2 * row + 1]};
  for (std::size_t j = row * k; j < (row + 1) * k; ++j) {
    if (std::ranges::find(banned, top.ids[j]) != banned.end()) continue;
    if (top.values[j] == kNegInf) break;
    return {top.ids[j], terms(top.values[j])};
  }
  return {0, kNegInf};
}

// Greedy search and sampling: every row continues alone until EOS or max_length; finished rows are
// dropped from the model (HF keeps computing them and pads, which changes nothing in the output).
std::vector<std::vector<Hypothesis>> search_rows(StepModel& model, int batch_size, const SearchSettings& settings,
                                                 EncoderInputs encoder_inputs) {
  const std::int64_t vocab = model.vocab_size();
  const int per_source = rows_per_source(settings);
  const std::size_t total = static_cast<std::size_t>(batch_size) * static_cast<std::size_t>(per_source);
  std::vector<std::vector<std::int32_t>> sequences(total, {settings.decoder_start_token_id});
  std::vector<float> sum_logprobs(total, 0.0f);
  std::vector<bool> ended_by_eos(total, false);
  std::vector<std::size_t> live(total);  // live row -> sequence
  std::iota(live.begin(), live.end(), 0);
  std::vector<std::int32_t> tokens(total, settings.decoder_start_token_id);
  std::mt19937_64 rng(settings.seed);
  std::vector<float> logits;
  std::vector<Choice> choices;
  TopLogits top;
  std::vector<std::vector<std::int32_t>> bans;
  const auto source_of = [&](std::size_t row) {
    return encoder_input(encoder_inputs, live[row] / static_cast<std::size_t>(per_source));
  };

  for (int cur_len = 1; !live.empty() && cur_len < settings.max_length; ++cur_len) {
    choices.resize(live.size());
    const auto bans_of = [&](std::size_t row, std::vector<std::int32_t>& out) {
      banned_tokens(sequences[live[row]], settings, source_of(row), out);
    };
    const auto choose = [&](std::size_t row) {
      thread_local std::vector<float> scratch;
      choices[row] = choose_token(row_of(logits, row, vocab), sequences[live[row]], settings, source_of(row), scratch,
                                  rng);
    };
    if (const std::int64_t k =
            top_k_plan(model, settings, static_cast<std::size_t>(cur_len), 1, live.size(), bans_of, bans)) {
      model.step_top_k(tokens, k, -1, top);
      for (std::size_t row = 0; row < live.size(); ++row) choices[row] = top_choice(top, row, bans[row]);
    } else {
      model.step(tokens, logits);
      if (settings.do_sample) {
        for (std::size_t row = 0; row < live.size(); ++row) choose(row);  // one generator, drawn in row order
      } else {
        for_each_row(model, live.size(), choose);
      }
    }
    std::vector<std::int32_t> keep;
    std::vector<std::size_t> next_live;
    tokens.clear();
    for (std::size_t row = 0; row < live.size(); ++row) {
      auto& sequence = sequences[live[row]];
      const auto [token, log_prob] = choices[row];
      sum_logprobs[live[row]] += log_prob;
      sequence.push_back(token);
      if (settings.eos_token_id && token == *settings.eos_token_id) {
        ended_by_eos[live[row]] = true;
        continue;
      }
      keep.push_back(static_cast<std::int32_t>(row));
      next_live.push_back(live[row]);
      tokens.push_back(token);
    }
    if (!next_live.empty() && !is_identity(keep, live.size())) model.select_rows(keep);
    live = std::move(next_live);
  }

  std::vector<std::vector<Hypothesis>> results(static_cast<std::size_t>(batch_size));
  for (std::size_t i = 0; i < total; ++i) {
    const std::size_t length = sequences[i].size() - (ended_by_eos[i] ? 1 : 0);
    const double score = length_normalized(sum_logprobs[i], length, settings.length_penalty);
    results[i / static_cast<std::size_t>(per_source)].push_back({std::move(sequences[i]), static_cast<float>(score)});
  }
  return results;
}

// HF's beam_search: log-softmax, processors, add beam scores, top 2*num_beams over all beams of a
// source, BeamSearchScorer.process; sources that are done leave the model.
std::vector<std::vector<Hypothesis>> beam_search(StepModel& model, int batch_size, const SearchSettings& settings,
                                                 EncoderInputs encoder_inputs) {
  const int num_beams = settings.num_beams;
  const std::size_t beams_per_source = static_cast<std::size_t>(num_beams);
  const std::int64_t vocab = model.vocab_size();
  const std::int32_t* eos = settings.eos_token_id ? &*settings.eos_token_id : nullptr;

  struct Source {
    BeamHypotheses hypotheses;
    std::vector<std::vector<std::int32_t>> beams;
    std::vector<float> scores;
    bool done = false;
  };
  std::vector<Source> sources;
  for (int s = 0; s < batch_size; ++s) {
    Source source{BeamHypotheses(num_beams, settings.length_penalty, settings.early_stopping),
                  std::vector<std::vector<std::int32_t>>(beams_per_source, {settings.decoder_start_token_id}),
                  std::vector<float>(beams_per_source, -1e9f)};
    source.scores[0] = 0.0f;  // identical beams at first: only the first may spread
    sources.push_back(std::move(source));
  }
  std::vector<std::size_t> live(static_cast<std::size_t>(batch_size));  // live source order in the model
  std::iota(live.begin(), live.end(), 0);
  std::vector<std::int32_t> tokens(live.size() * beams_per_source, settings.decoder_start_token_id);
  std::vector<float> logits;
  std::vector<std::vector<BeamCandidate>> candidates;  // per live source
  std::vector<LogSoftmaxTerms> terms;                  // per row
  TopLogits top;
  std::vector<std::vector<std::int32_t>> bans;         // per row, where the step reads candidates

  for (int cur_len = 1; !live.empty() && cur_len < settings.max_length; ++cur_len) {
    candidates.resize(live.size());
    terms.resize(live.size() * beams_per_source);
    const auto bans_of = [&](std::size_t row, std::vector<std::int32_t>& out) {
      const std::size_t position = row / beams_per_source;
      banned_tokens(sources[live[position]].beams[row % beams_per_source], settings,
                    encoder_input(encoder_inputs, live[position]), out);
    };
    if (const std::int64_t k = top_k_plan(model, settings, static_cast<std::size_t>(cur_len), 2 * beams_per_source,
                                          live.size() * beams_per_source, bans_of, bans)) {
      model.step_top_k(tokens, k, settings.beam_masked_token_id.value_or(-1), top);
      for (std::size_t row = 0; row < terms.size(); ++row) terms[row] = {top.terms[2 * row], top.terms[2 * row + 1]};
      for (std::size_t position = 0; position < live.size(); ++position) {
        const std::size_t first_row = position * beams_per_source;
        top_candidates(top, first_row, vocab, std::span(terms).subspan(first_row, beams_per_source),
                       std::span(bans).subspan(first_row, beams_per_source), sources[live[position]].scores,
                       candidates[position]);
      }
    } else {
      model.step(tokens, logits);
      // Each source's rows and candidates on their own: the vocabulary-sized passes, on every thread.
      for_each_row(model, live.size(), [&](std::size_t position) {
        const Source& source = sources[live[position]];
        const std::size_t first_row = position * beams_per_source;
        const std::span<LogSoftmaxTerms> source_terms(terms.data() + first_row, beams_per_source);
        for (std::size_t beam = 0; beam < beams_per_source; ++beam) {
          const std::span<float> row = row_of(logits, first_row + beam, vocab);
          if (settings.beam_masked_token_id) row[static_cast<std::size_t>(*settings.beam_masked_token_id)] = kNegInf;
          const auto source_ids = encoder_input(encoder_inputs, live[position]);
          if (processors_only_ban(source.beams[beam].size(), settings)) {
            // Bans on the raw row after its terms are read: top_candidates applies the shift.
            source_terms[beam] = log_softmax_terms(row);
            apply_logits_processors(row, source.beams[beam], settings, source_ids);
          } else {
            processed_log_probs(row, source.beams[beam], settings, source_ids);
            source_terms[beam] = LogSoftmaxTerms{};
          }
        }
        const std::span<const float> rows(logits.data() + first_row * static_cast<std::size_t>(vocab),
                                          beams_per_source * static_cast<std::size_t>(vocab));
        top_candidates(rows, vocab, source_terms, source.scores, candidates[position]);
      });
    }
    std::vector<std::int32_t> rows;
    std::vector<std::size_t> next_live;
    tokens.clear();
    for (std::size_t position = 0; position < live.size(); ++position) {
      Source& source = sources[live[position]];
      const std::size_t first_row = position * beams_per_source;
      const auto next =
          advance_beams(source.hypotheses, candidates[position], source.beams, cur_len, eos, num_beams, source.done);
      std::vector<std::vector<std::int32_t>> beams;
      for (std::size_t beam = 0; beam < next.size(); ++beam) {
        beams.push_back(source.beams[static_cast<std::size_t>(next[beam].beam)]);
        beams.back().push_back(next[beam].token);
        source.scores[beam] = next[beam].score;
      }
      source.beams = std::move(beams);
      if (source.done) continue;
      next_live.push_back(live[position]);
      for (const auto& candidate : next) {
        rows.push_back(static_cast<std::int32_t>(first_row) + candidate.beam);
        tokens.push_back(candidate.token);
      }
    }
    if (!next_live.empty() && !is_identity(rows, live.size() * beams_per_source)) model.select_rows(rows);
    live = std::move(next_live);
  }

  std::vector<std::vector<Hypothesis>> results;
  for (Source& source : sources) {
    if (!source.done)
      for (std::size_t beam = 0; beam < beams_per_source; ++beam)
        source.hypotheses.add(source.beams[beam], source.scores[beam], nullptr);
    std::vector<Hypothesis> best;
    for (auto& entry : source.hypotheses.best(static_cast<std::size_t>(settings.num_return_sequences)))
      best.push_back({std::move(entry.ids), static_cast<float>(entry.score)});
    results.push_back(std::move(best));
  }
  return results;
}

}  // namespace

void StepModel::step_top_k(std::span<const std::int32_t>, std::int64_t, std::int32_t, TopLogits&) {
  fail("internal: this model reads whole rows of logits (prefers_top_k() is false)");
}

void StepModel::parallel_rows(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body) {
  openmp_rows(n, threads(), body);
}

void SearchSettings::validate(std::int64_t vocab_size) const {
  if (num_beams < 1) fail("num_beams must be at least 1, got {}", num_beams);
  if (num_return_sequences < 1) fail("num_return_sequences must be at least 1, got {}", num_return_sequences);
  if (max_length < 2) fail("max_length must be at least 2 (the decoder start token and one more), got {}", max_length);
  if (min_length < 0) fail("min_length must not be negative, got {}", min_length);
  if (no_repeat_ngram_size < 0) fail("no_repeat_ngram_size must not be negative, got {}", no_repeat_ngram_size);
  if (encoder_no_repeat_ngram_size < 0)
    fail("encoder_no_repeat_ngram_size must not be negative, got {}", encoder_no_repeat_ngram_size);
  if (!std::isfinite(length_penalty)) fail("length_penalty must be a finite number");
  if (!(repetition_penalty > 0.0) || !std::isfinite(repetition_penalty))
    fail("repetition_penalty must be a positive number, got {}", repetition_penalty);
  if (do_sample) {
    if (num_beams > 1) fail("sampling with num_beams > 1 (beam sampling) is not supported; use num_beams 1");
    if (!(temperature > 0.0) || !std::isfinite(temperature)) fail("temperature must be positive, got {}", temperature);
    if (top_k < 0) fail("top_k must not be negative, got {}", top_k);
    if (!(top_p > 0.0 && top_p <= 1.0)) fail("top_p must be in (0, 1], got {}", top_p);
  } else if (num_beams == 1 && num_return_sequences > 1) {
    fail("num_return_sequences must be 1 for greedy search, got {} (use beam search or sampling)", num_return_sequences);
  } else if (num_return_sequences > num_beams) {
    fail("num_return_sequences ({}) must not exceed num_beams ({})", num_return_sequences, num_beams);
  }
  check_token(vocab_size, "decoder_start_token_id", decoder_start_token_id);
  check_token(vocab_size, "eos_token_id", eos_token_id);
  check_token(vocab_size, "forced_bos_token_id", forced_bos_token_id);
  check_token(vocab_size, "forced_eos_token_id", forced_eos_token_id);
  check_token(vocab_size, "beam_masked_token_id", beam_masked_token_id);
  for (const auto& words : bad_words_ids)
    for (std::int32_t token : words) check_token(vocab_size, "bad_words_ids entry", token);
  if (num_beams > 1 && vocab_size < 2 * num_beams)
    fail("num_beams {} needs a vocabulary of at least {} tokens", num_beams, 2 * num_beams);
}

int rows_per_source(const SearchSettings& settings) {
  if (settings.num_beams > 1) return settings.num_beams;
  return settings.do_sample ? settings.num_return_sequences : 1;
}

std::vector<std::vector<Hypothesis>> generate(StepModel& model, int batch_size, const SearchSettings& settings,
                                              EncoderInputs encoder_inputs) {
  settings.validate(model.vocab_size());
  if (batch_size <= 0) return {};
  if (settings.encoder_no_repeat_ngram_size > 0 && encoder_inputs.size() != static_cast<std::size_t>(batch_size))
    fail("encoder_no_repeat_ngram_size needs the token ids of each of the {} sources, got {}", batch_size,
         encoder_inputs.size());
  return settings.num_beams > 1 ? beam_search(model, batch_size, settings, encoder_inputs)
                                : search_rows(model, batch_size, settings, encoder_inputs);
}

}  // namespace invar
