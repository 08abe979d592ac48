// The search against synthetic models: Hugging Face 4.19's beam scorer decisions worked by hand,
// the logits processors and warpers on small rows, and batched search equal to one source at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "core/error.hpp"
#include "engine/decode/beam_search.hpp"
#include "engine/decode/generation.hpp"
#include "engine/decode/logits_processors.hpp"

namespace invar {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A decoder whose next-token logits are a function of (source, prefix); it tracks its rows the way a
// real model tracks its caches, so wrong reordering shows up as wrong outputs.
class TableModel : public StepModel {
 public:
  using Table = std::function<std::vector<float>(int source, const std::vector<std::int32_t>& prefix)>;
  TableModel(std::int64_t vocab, int batch, int per_source, Table table) : vocab_(vocab), table_(std::move(table)) {
    for (int s = 0; s < batch; ++s)
      for (int r = 0; r < per_source; ++r) rows_.push_back({s, {}});
  }
  std::int64_t vocab_size() const override { return vocab_; }
  void step(std::span<const std::int32_t> tokens, std::vector<float>& logits) override {
    ++steps;
    EXPECT_EQ(tokens.size(), rows_.size());
    logits.clear();
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      rows_[r].prefix.push_back(tokens[r]);
      auto row = table_(rows_[r].source, rows_[r].prefix);
      logits.insert(logits.end(), row.begin(), row.end());
    }
  }
  void select_rows(std::span<const std::int32_t> rows) override {
    std::vector<Row> next;
    for (std::int32_t r : rows) next.push_back(rows_.at(static_cast<std::size_t>(r)));
    rows_ = std::move(next);
  }
  int threads() const override { return search_threads; }
  int steps = 0;
  int search_threads = 1;

 private:
  struct Row {
    int source;
    std::vector<std::int32_t> prefix;
  };
  std::int64_t vocab_;
  Table table_;
  std::vector<Row> rows_;
};

std::vector<float> log_probs(std::vector<double> probabilities) {
  std::vector<float> out;
  for (double p : probabilities) out.push_back(static_cast<float>(std::log(p)));
  return out;
}

// Next-token distribution depending on the last token only; token 0 is EOS, 3 the start token.
std::vector<float> last_token_table(int, const std::vector<std::int32_t>& prefix) {
  switch (prefix.back()) {
    case 3: return log_probs({0.1, 0.6, 0.3, 1e-9});
    case 1: return log_probs({0.7, 0.1, 0.1, 0.1});
    default: return log_probs({0.25, 0.375, 0.375, 1e-9});
  }
}

SearchSettings beam_settings() {
  SearchSettings settings;
  settings.num_beams = 2;
  settings.num_return_sequences = 2;
  settings.max_length = 6;
  settings.decoder_start_token_id = 3;
  settings.eos_token_id = 0;
  settings.pad_token_id = 3;
  return settings;
}

TEST(BeamSearch, FollowsHuggingFaceScorerDecisions) {
  // Step 1: candidates 1 (.6), 2 (.3), EOS (.1) at rank 2 >= num_beams: ignored, not a hypothesis.
  // Step 2: EOS after [3 1] (rank 0) -> hypothesis [3 1 0], ln(.42)/2; beams [3 2 1], [3 2 2] tie
  //         at ln(.1125) (equal scores: lower token first); EOS after [3 2] at rank 3: ignored.
  // Step 3: EOS after [3 2 1] (rank 0) -> hypothesis ln(.07875)/3; two hypotheses and the best live
  //         candidate is that EOS itself, so worst >= best/cur_len: done after 3 steps.
  TableModel model(4, 1, 2, last_token_table);
  const auto result = generate(model, 1, beam_settings());
  EXPECT_EQ(model.steps, 3);
  ASSERT_EQ(result.size(), 1u);
  ASSERT_EQ(result[0].size(), 2u);
  EXPECT_EQ(result[0][0].ids, (std::vector<std::int32_t>{3, 1, 0}));
  EXPECT_NEAR(result[0][0].score, std::log(0.6 * 0.7) / 2, 1e-6);
  EXPECT_EQ(result[0][1].ids, (std::vector<std::int32_t>{3, 2, 1, 0}));
  EXPECT_NEAR(result[0][1].score, std::log(0.3 * 0.375 * 0.7) / 3, 1e-6);
}

TEST(BeamSearch, LengthPenaltyUsesLengthBeforeEos) {
  // length_penalty 2: [3 1 0] scores ln(.42)/2^2; [3 2 1 0] ln(.07875)/3^2.
  auto settings = beam_settings();
  settings.length_penalty = 2.0;
  TableModel model(4, 1, 2, last_token_table);
  const auto result = generate(model, 1, settings);
  ASSERT_EQ(result[0].size(), 2u);
  EXPECT_NEAR(result[0][0].score, std::log(0.42) / 4, 1e-6);
  EXPECT_EQ(result[0][0].ids, (std::vector<std::int32_t>{3, 1, 0}));
}

TEST(BeamSearch, OpenBeamsAtMaxLengthKeepNoEos) {
  // max_length 3: after step 2 the open beams [3 2 1], [3 2 2] (ln(.1125)/3 each) join the single
  // hypothesis [3 1 0]; [3 2 2] only equals the worst kept, so it does not get in.
  auto settings = beam_settings();
  settings.max_length = 3;
  settings.num_return_sequences = 2;
  TableModel model(4, 1, 2, last_token_table);
  const auto result = generate(model, 1, settings);
  EXPECT_EQ(model.steps, 2);
  EXPECT_EQ(result[0][0].ids, (std::vector<std::int32_t>{3, 1, 0}));
  EXPECT_EQ(result[0][1].ids, (std::vector<std::int32_t>{3, 2, 1}));
  EXPECT_NEAR(result[0][1].score, std::log(0.3 * 0.375) / 3, 1e-6);
}

TEST(BeamSearch, ForcedEosAndMinLength) {
  // min_length 3 bans EOS at cur_len 1 and 2; forced EOS at cur_len max_length-1 = 3 ends every beam.
  auto settings = beam_settings();
  settings.min_length = 3;
  settings.max_length = 4;
  settings.forced_eos_token_id = 0;
  TableModel model(4, 1, 2, last_token_table);
  const auto result = generate(model, 1, settings);
  for (const auto& hypothesis : result[0]) {
    EXPECT_EQ(hypothesis.ids.size(), 4u);
    EXPECT_EQ(hypothesis.ids.back(), 0);
  }
  // Beams [3 2 1], [3 2 2] (.3*.375 each) beat [3 1 x] (.06); forced EOS scores 0. Of the equal
  // hypotheses the later added comes first (HF's stable sort + pop).
  EXPECT_EQ(result[0][0].ids, (std::vector<std::int32_t>{3, 2, 2, 0}));
  EXPECT_EQ(result[0][1].ids, (std::vector<std::int32_t>{3, 2, 1, 0}));
  EXPECT_NEAR(result[0][0].score, std::log(0.3 * 0.375) / 3, 1e-6);
}

// The one-pass top-k (which skips chunks of a row that cannot reach the list) against a stable sort
// of every (beam, token) score: ties between and within chunks, -inf bans, rows normalised already
// (identity terms), a NaN logit, and rows shorter than a chunk.
TEST(BeamSearch, TopCandidatesEqualAFullStableSort) {
  std::mt19937 rng(11);
  for (const std::int64_t vocab : {5, 300, 1000}) {
    for (int trial = 0; trial < 20; ++trial) {
      const std::size_t beams = 1 + static_cast<std::size_t>(trial % 4);
      std::vector<float> rows(beams * static_cast<std::size_t>(vocab));
      // Few distinct values, so many scores tie.
      std::uniform_int_distribution<int> level(-40, 8);
      for (float& x : rows) x = 0.25f * static_cast<float>(level(rng));
      for (std::size_t i = static_cast<std::size_t>(trial); i < rows.size(); i += 7) rows[i] = -kInf;
      if (trial == 5) rows[rows.size() / 2] = std::numeric_limits<float>::quiet_NaN();
      std::vector<LogSoftmaxTerms> terms(beams);
      std::vector<float> beam_scores(beams);
      for (std::size_t b = 0; b < beams; ++b) {
        const std::span<const float> row(rows.data() + b * static_cast<std::size_t>(vocab), static_cast<std::size_t>(vocab));
        if (b % 2 == 0) terms[b] = log_softmax_terms(row);  // else: the row as it is (the NaN in beam 1)
        beam_scores[b] = b == 0 ? 0.0f : -0.5f * static_cast<float>(b);
      }
      std::vector<BeamCandidate> all;
      for (std::size_t b = 0; b < beams; ++b)
        for (std::int64_t t = 0; t < vocab; ++t) {
          const float score = terms[b](rows[b * static_cast<std::size_t>(vocab) + static_cast<std::size_t>(t)]) + beam_scores[b];
          if (!std::isnan(score)) all.push_back({score, static_cast<std::int32_t>(t), static_cast<std::int32_t>(b)});
        }
      std::stable_sort(all.begin(), all.end(), [](const BeamCandidate& x, const BeamCandidate& y) { return x.score > y.score; });
      all.resize(std::min(all.size(), 2 * beams));
      std::vector<BeamCandidate> best;
      top_candidates(rows, vocab, terms, beam_scores, best);
      ASSERT_EQ(best.size(), all.size()) << "vocab " << vocab << " trial " << trial;
      for (std::size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(best[i].score, all[i].score) << "vocab " << vocab << " trial " << trial << " rank " << i;
        EXPECT_EQ(best[i].token, all[i].token) << "vocab " << vocab << " trial " << trial << " rank " << i;
        EXPECT_EQ(best[i].beam, all[i].beam) << "vocab " << vocab << " trial " << trial << " rank " << i;
      }
    }
  }
}

TEST(BeamHypotheses, KeepsBestAndTracksWorst) {
  BeamHypotheses hypotheses(2, 1.0, false);
  const std::vector<std::int32_t> two{5, 6}, three{5, 6, 7};
  const std::int32_t eos = 0;
  hypotheses.add(two, -1.0, &eos);    // -0.5
  hypotheses.add(three, -3.0, &eos);  // -1.0
  // Worst is -1.0: a live beam at -2.9/3 could still beat it.
  EXPECT_FALSE(hypotheses.is_done(-2.9, 3));
  EXPECT_TRUE(hypotheses.is_done(-3.0, 3));
  hypotheses.add(three, -3.3, &eos);  // -1.1 < worst: rejected
  EXPECT_EQ(hypotheses.size(), 2u);
  hypotheses.add(three, -0.3, nullptr);  // -0.1 replaces -1.0
  const auto best = hypotheses.best(2);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_DOUBLE_EQ(best[0].score, -0.1);
  EXPECT_EQ(best[0].ids, three);           // no EOS: added without one
  EXPECT_EQ(best[1].ids, (std::vector<std::int32_t>{5, 6, 0}));
  EXPECT_TRUE(hypotheses.is_done(-0.5 * 3, 3));  // worst now -0.5
}

TEST(BeamHypotheses, EarlyStoppingIsDoneWhenFull) {
  BeamHypotheses hypotheses(2, 1.0, true);
  const std::vector<std::int32_t> prefix{1, 2};
  hypotheses.add(prefix, -5.0, nullptr);
  EXPECT_FALSE(hypotheses.is_done(0.0, 2));
  hypotheses.add(prefix, -6.0, nullptr);
  EXPECT_TRUE(hypotheses.is_done(0.0, 2));
}

TEST(BeamHypotheses, EqualScoresDropTheFirstAdded) {
  BeamHypotheses hypotheses(1, 1.0, false);
  hypotheses.add(std::vector<std::int32_t>{1}, -1.0, nullptr);
  hypotheses.add(std::vector<std::int32_t>{2}, -0.5, nullptr);
  hypotheses.add(std::vector<std::int32_t>{3}, -0.5, nullptr);  // not better than worst -0.5: rejected
  EXPECT_EQ(hypotheses.best(1)[0].ids, (std::vector<std::int32_t>{2}));
}

// A table where every (source, prefix) gives different, irregular logits.
std::vector<float> hashed_table(int source, const std::vector<std::int32_t>& prefix) {
  std::uint64_t h = 1469598103934665603ull ^ static_cast<std::uint64_t>(source);
  for (std::int32_t t : prefix) h = (h ^ static_cast<std::uint64_t>(t)) * 1099511628211ull;
  std::vector<float> row(12);
  for (std::size_t i = 0; i < row.size(); ++i) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    row[i] = static_cast<float>((h >> 40) % 1000) / 150.0f;
  }
  row[0] += 1.5f;  // EOS fairly likely, so hypotheses end at different lengths
  return row;
}

void expect_batched_equals_single(const SearchSettings& settings, int batch) {
  const int per_source = rows_per_source(settings);
  TableModel batched(12, batch, per_source, hashed_table);
  const auto together = generate(batched, batch, settings);
  for (int s = 0; s < batch; ++s) {
    TableModel single(12, 1, per_source,
                      [s](int, const std::vector<std::int32_t>& prefix) { return hashed_table(s, prefix); });
    const auto alone = generate(single, 1, settings);
    ASSERT_EQ(alone[0].size(), together[static_cast<std::size_t>(s)].size());
    for (std::size_t k = 0; k < alone[0].size(); ++k) {
      EXPECT_EQ(alone[0][k].ids, together[static_cast<std::size_t>(s)][k].ids) << "source " << s << " hyp " << k;
      EXPECT_FLOAT_EQ(alone[0][k].score, together[static_cast<std::size_t>(s)][k].score);
    }
  }
}

TEST(Generate, BatchedEqualsOneSourceAtATime) {
  SearchSettings settings;
  settings.max_length = 15;
  settings.decoder_start_token_id = 11;
  settings.eos_token_id = 0;
  expect_batched_equals_single(settings, 5);  // greedy
  settings.num_beams = 3;
  settings.num_return_sequences = 3;
  settings.no_repeat_ngram_size = 2;
  expect_batched_equals_single(settings, 5);
  settings.early_stopping = true;
  settings.length_penalty = 0.6;
  expect_batched_equals_single(settings, 5);
}

// The search's per-row work runs on the model's threads (for_each_row): every row on its own, so
// ids and scores are bit-identical for any count, on the ban-only path and on the copying one.
TEST(Generate, SearchThreadsChangeNothing) {
  SearchSettings greedy;
  greedy.max_length = 15;
  greedy.decoder_start_token_id = 11;
  greedy.eos_token_id = 0;
  SearchSettings beams = greedy;
  beams.num_beams = 3;
  beams.num_return_sequences = 3;
  beams.no_repeat_ngram_size = 2;
  SearchSettings penalised = beams;
  penalised.repetition_penalty = 1.3;  // processors that do more than ban: the copying path
  SearchSettings penalised_greedy = greedy;
  penalised_greedy.repetition_penalty = 1.3;
  for (const SearchSettings& settings : {greedy, beams, penalised, penalised_greedy}) {
    const int per_source = rows_per_source(settings);
    TableModel one(12, 9, per_source, hashed_table), four(12, 9, per_source, hashed_table);
    four.search_threads = 4;
    const auto expected = generate(one, 9, settings), threaded = generate(four, 9, settings);
    ASSERT_EQ(threaded.size(), expected.size());
    for (std::size_t s = 0; s < expected.size(); ++s) {
      ASSERT_EQ(threaded[s].size(), expected[s].size());
      for (std::size_t k = 0; k < expected[s].size(); ++k) {
        EXPECT_EQ(threaded[s][k].ids, expected[s][k].ids) << "source " << s << " hyp " << k;
        EXPECT_EQ(threaded[s][k].score, expected[s][k].score);
      }
    }
  }
}

// A model that prefers candidates (as one on an OpenCL backend): step_top_k from its table rows by
// a plain stable sort, the terms by the search's own log_softmax_terms.
class TopKModel : public TableModel {
 public:
  using TableModel::TableModel;
  bool prefers_top_k() const override { return true; }
  void step_top_k(std::span<const std::int32_t> tokens, std::int64_t k, std::int32_t exclude, TopLogits& top) override {
    ++top_k_steps;
    std::vector<float> logits;
    step(tokens, logits);
    const std::size_t vocab = static_cast<std::size_t>(vocab_size()), rows = logits.size() / vocab;
    top = {k, {}, {}, {}};
    for (std::size_t r = 0; r < rows; ++r) {
      const std::span<float> row(logits.data() + r * vocab, vocab);
      if (exclude >= 0) row[static_cast<std::size_t>(exclude)] = -kInf;
      const LogSoftmaxTerms terms = log_softmax_terms(row);
      top.terms.insert(top.terms.end(), {terms.max, terms.log_sum});
      std::vector<std::int32_t> order(vocab);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return row[a] > row[b]; });
      for (std::int64_t j = 0; j < k; ++j) {
        top.ids.push_back(order[static_cast<std::size_t>(j)]);
        top.values.push_back(row[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])]);
      }
    }
  }
  int top_k_steps = 0;
};

// Reading candidates instead of whole rows changes no id and no score bit, with every ban processor
// (their bans skipped among the candidates), beam search's masked token, and forced EOS (a step
// that needs the whole row, within a run that reads candidates otherwise); a repetition penalty
// reads whole rows throughout.
TEST(Generate, CandidatesInsteadOfRowsChangeNothing) {
  SearchSettings greedy;
  greedy.max_length = 15;
  greedy.decoder_start_token_id = 11;
  greedy.eos_token_id = 0;
  greedy.min_length = 5;
  greedy.no_repeat_ngram_size = 2;
  greedy.bad_words_ids = {{4}, {3, 9}};
  SearchSettings beams = greedy;
  beams.num_beams = 3;
  beams.num_return_sequences = 3;
  beams.beam_masked_token_id = 7;
  beams.forced_eos_token_id = 0;
  SearchSettings penalised = beams;
  penalised.repetition_penalty = 1.3;
  for (const SearchSettings& settings : {greedy, beams, penalised}) {
    const int per_source = rows_per_source(settings);
    TableModel rows(12, 9, per_source, hashed_table);
    TopKModel candidates(12, 9, per_source, hashed_table);
    const auto expected = generate(rows, 9, settings), actual = generate(candidates, 9, settings);
    if (settings.repetition_penalty == 1.0) {
      EXPECT_GT(candidates.top_k_steps, candidates.steps / 2) << "most steps read candidates";
    } else {
      EXPECT_EQ(candidates.top_k_steps, 0);
    }
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t s = 0; s < expected.size(); ++s) {
      ASSERT_EQ(actual[s].size(), expected[s].size());
      for (std::size_t k = 0; k < expected[s].size(); ++k) {
        EXPECT_EQ(actual[s][k].ids, expected[s][k].ids) << "source " << s << " hyp " << k;
        EXPECT_EQ(actual[s][k].score, expected[s][k].score) << "source " << s << " hyp " << k;
      }
    }
  }
}

TEST(Generate, GreedyStopsRowsAtEosAndScoresThem) {
  SearchSettings settings = beam_settings();
  settings.num_beams = 1;
  settings.num_return_sequences = 1;
  TableModel model(4, 1, 1, last_token_table);
  const auto result = generate(model, 1, settings);
  EXPECT_EQ(result[0][0].ids, (std::vector<std::int32_t>{3, 1, 0}));
  EXPECT_NEAR(result[0][0].score, std::log(0.42) / 2, 1e-6);
}

TEST(Generate, SamplingIsReproducibleForASeed) {
  SearchSettings settings;
  settings.max_length = 12;
  settings.decoder_start_token_id = 11;
  settings.eos_token_id = 0;
  settings.do_sample = true;
  settings.num_return_sequences = 4;
  settings.top_k = 0;
  settings.seed = 7;
  auto run = [&](const SearchSettings& s) {
    TableModel model(12, 2, rows_per_source(s), hashed_table);
    return generate(model, 2, s);
  };
  const auto first = run(settings), second = run(settings);
  std::set<std::vector<std::int32_t>> distinct;
  for (std::size_t s = 0; s < 2; ++s)
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(first[s][k].ids, second[s][k].ids);
      distinct.insert(first[s][k].ids);
    }
  EXPECT_GT(distinct.size(), 2u);  // sampling, not argmax
  settings.seed = 8;
  const auto other = run(settings);
  bool differs = false;
  for (std::size_t s = 0; s < 2; ++s)
    for (std::size_t k = 0; k < 4; ++k) differs |= other[s][k].ids != first[s][k].ids;
  EXPECT_TRUE(differs);
  // top_k 1 leaves only the argmax: sampling becomes greedy.
  settings.top_k = 1;
  settings.num_return_sequences = 1;
  SearchSettings greedy = settings;
  greedy.do_sample = false;
  EXPECT_EQ(run(settings)[1][0].ids, run(greedy)[1][0].ids);
}

TEST(LogSoftmax, TermsGiveTheInPlaceValuesBitForBit) {
  const std::vector<float> logits{1.5f, -2.25f, 7.0f, -kInf, 0.1f, 3.3f};
  std::vector<float> in_place = logits;
  log_softmax(in_place);
  const LogSoftmaxTerms terms = log_softmax_terms(logits);
  for (std::size_t i = 0; i < logits.size(); ++i) EXPECT_EQ(terms(logits[i]), in_place[i]) << i;
  EXPECT_NE(terms.log_sum, 0.0f);
  // A row of -inf has nothing to normalise: it stays as it is.
  const std::vector<float> banned(3, -kInf);
  EXPECT_EQ(log_softmax_terms(banned)(-kInf), -kInf);
  EXPECT_EQ(log_softmax_terms(banned).max, 0.0f);
}

// A vocabulary-sized row (several blocks of the vectorised exp, a partial last one): the log of
// Σ exp(x - max) as a double reference computes it, -inf entries adding nothing, a NaN spreading.
TEST(LogSoftmax, TermsAgreeWithADoubleSumOnAVocabularySizedRow) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  std::vector<float> row(58101);
  for (float& x : row) x = normal(rng);
  for (std::size_t i = 0; i < row.size(); i += 97) row[i] = -kInf;
  const float max = *std::max_element(row.begin(), row.end());
  double sum = 0.0;
  for (float x : row) sum += std::exp(static_cast<double>(x) - max);
  const LogSoftmaxTerms terms = log_softmax_terms(row);
  EXPECT_EQ(terms.max, max);
  EXPECT_NEAR(terms.log_sum, std::log(sum), 2e-6 * std::log(sum));
  // Whatever the order of the row's entries, within a float's rounding of the sum.
  std::vector<float> shuffled = row;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  EXPECT_NEAR(log_softmax_terms(shuffled).log_sum, terms.log_sum, 2e-6 * terms.log_sum);
  row[row.size() - 3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(log_softmax_terms(row).log_sum));
}

TEST(LogitsProcessors, OnlyBanWithoutPenaltyOrForcedToken) {
  SearchSettings settings;
  settings.max_length = 10;
  settings.no_repeat_ngram_size = 2;
  settings.min_length = 5;
  EXPECT_TRUE(processors_only_ban(1, settings));
  settings.forced_bos_token_id = 3;
  EXPECT_FALSE(processors_only_ban(1, settings));
  EXPECT_TRUE(processors_only_ban(2, settings));
  settings.forced_eos_token_id = 2;
  EXPECT_FALSE(processors_only_ban(9, settings));
  settings.repetition_penalty = 1.2;
  EXPECT_FALSE(processors_only_ban(2, settings));
}

TEST(LogitsProcessors, NoRepeatNgramBansCompletions) {
  SearchSettings settings;
  settings.no_repeat_ngram_size = 2;
  std::vector<float> scores(6, 0.0f);
  const std::vector<std::int32_t> prefix{5, 1, 2, 1, 3, 1};
  apply_logits_processors(scores, prefix, settings);  // bigrams starting with 1: (1 2), (1 3)
  EXPECT_EQ(scores, (std::vector<float>{0, 0, -kInf, -kInf, 0, 0}));
  settings.no_repeat_ngram_size = 3;
  std::vector<float> row(6, 0.0f);
  apply_logits_processors(row, std::vector<std::int32_t>{1, 2, 4, 1, 2}, settings);  // (1 2 4)
  EXPECT_EQ(row, (std::vector<float>{0, 0, 0, 0, -kInf, 0}));
}

TEST(LogitsProcessors, RepetitionPenaltyDividesPositiveAndMultipliesNegativeScoresOnce) {
  SearchSettings settings;
  settings.repetition_penalty = 2.0;
  settings.no_repeat_ngram_size = 2;
  std::vector<float> scores{3.0f, -1.5f, 0.0f, 4.0f, -kInf};
  // Token 1 appears twice and is penalised once; the bigram (1 3) then bans 3; 4 is not in the prefix.
  apply_logits_processors(scores, std::vector<std::int32_t>{0, 1, 3, 2, 1}, settings);
  EXPECT_EQ(scores, (std::vector<float>{1.5f, -3.0f, 0.0f, -kInf, -kInf}));
  // Below 1 the penalty rewards repetition: 3 / 0.5 and -1.5 * 0.5.
  settings.repetition_penalty = 0.5;
  settings.no_repeat_ngram_size = 0;
  std::vector<float> reward{3.0f, -1.5f};
  apply_logits_processors(reward, std::vector<std::int32_t>{0, 1}, settings);
  EXPECT_EQ(reward, (std::vector<float>{6.0f, -0.75f}));
}

TEST(LogitsProcessors, EncoderNoRepeatNgramBansCompletionsOfSourceNgrams) {
  SearchSettings settings;
  settings.encoder_no_repeat_ngram_size = 2;
  const std::vector<std::int32_t> source{4, 1, 2, 1, 5};
  std::vector<float> scores(6, 0.0f);
  apply_logits_processors(scores, std::vector<std::int32_t>{0, 1}, settings, source);  // (1 2), (1 5)
  EXPECT_EQ(scores, (std::vector<float>{0, 0, -kInf, 0, 0, -kInf}));
  // Size 1 bans every source token; the prefix's own repeats are not its concern.
  settings.encoder_no_repeat_ngram_size = 1;
  std::vector<float> row(6, 0.0f);
  apply_logits_processors(row, std::vector<std::int32_t>{0, 3, 3}, settings, source);
  EXPECT_EQ(row, (std::vector<float>{0, -kInf, -kInf, 0, -kInf, -kInf}));
  // Too short a prefix for the n-gram: nothing is banned.
  settings.encoder_no_repeat_ngram_size = 3;
  std::vector<float> early(6, 0.0f);
  apply_logits_processors(early, std::vector<std::int32_t>{1}, settings, source);
  EXPECT_EQ(early, std::vector<float>(6, 0.0f));
}

TEST(LogitsProcessors, BadWordsMinLengthForcedTokens) {
  SearchSettings settings;
  settings.eos_token_id = 0;
  settings.bad_words_ids = {{4}, {1, 2, 3}, {0}};  // [eos] alone is ignored, as HF does
  std::vector<float> scores(5, 1.0f);
  apply_logits_processors(scores, std::vector<std::int32_t>{9, 1, 2}, settings);
  EXPECT_EQ(scores, (std::vector<float>{1, 1, 1, -kInf, -kInf}));
  settings.min_length = 3;
  std::vector<float> short_row(5, 1.0f);
  apply_logits_processors(short_row, std::vector<std::int32_t>{9, 7}, settings);
  EXPECT_EQ(short_row[0], -kInf);
  settings.forced_bos_token_id = 2;
  std::vector<float> first(5, 1.0f);
  apply_logits_processors(first, std::vector<std::int32_t>{9}, settings);
  EXPECT_EQ(first, (std::vector<float>{-kInf, -kInf, 0, -kInf, -kInf}));
  settings.forced_eos_token_id = 0;
  settings.max_length = 5;
  std::vector<float> last(5, 1.0f);
  apply_logits_processors(last, std::vector<std::int32_t>{9, 1, 1, 1}, settings);
  EXPECT_EQ(last, (std::vector<float>{0, -kInf, -kInf, -kInf, -kInf}));
}

TEST(SamplingWarpers, TopKKeepsTiesAndTopPKeepsTheTokenThatCrosses) {
  SearchSettings settings;
  settings.top_k = 2;
  std::vector<float> scores{1.0f, 3.0f, 2.0f, 2.0f, 0.0f};
  apply_sampling_warpers(scores, settings);
  EXPECT_EQ(scores, (std::vector<float>{-kInf, 3, 2, 2, -kInf}));
  // probabilities .5 .3 .15 .05: cumulative .5 .8 .95 1; top_p .7 keeps .5 and .3 (the one crossing).
  settings.top_k = 0;
  settings.top_p = 0.7;
  std::vector<float> row = log_probs({0.15, 0.5, 0.05, 0.3});
  apply_sampling_warpers(row, settings);
  EXPECT_EQ(row[0], -kInf);
  EXPECT_EQ(row[2], -kInf);
  EXPECT_TRUE(std::isfinite(row[1]) && std::isfinite(row[3]));
  settings.top_p = 0.45;  // the most likely token alone exceeds .45 but is always kept
  std::vector<float> single = log_probs({0.15, 0.5, 0.05, 0.3});
  apply_sampling_warpers(single, settings);
  EXPECT_TRUE(std::isfinite(single[1]));
  EXPECT_EQ(single[3], -kInf);
  settings.top_p = 1.0;
  settings.temperature = 2.0;
  std::vector<float> hot{2.0f, -4.0f};
  apply_sampling_warpers(hot, settings);
  EXPECT_EQ(hot, (std::vector<float>{1.0f, -2.0f}));
}

TEST(SearchSettings, RejectsInvalidCombinations) {
  SearchSettings settings;
  settings.num_return_sequences = 2;
  EXPECT_THROW(settings.validate(10), Error);  // greedy returns one
  settings.num_beams = 2;
  settings.num_return_sequences = 3;
  EXPECT_THROW(settings.validate(10), Error);
  settings.num_return_sequences = 1;
  settings.forced_bos_token_id = 10;
  EXPECT_THROW(settings.validate(10), Error);
  settings.forced_bos_token_id.reset();
  settings.do_sample = true;
  EXPECT_THROW(settings.validate(10), Error);  // beam sampling
  settings.num_beams = 1;
  settings.top_p = 0.0;
  EXPECT_THROW(settings.validate(10), Error);
  settings.top_p = 0.9;
  EXPECT_NO_THROW(settings.validate(10));
  settings.repetition_penalty = 0.0;
  EXPECT_THROW(settings.validate(10), Error);
}

}  // namespace
}  // namespace invar
