// --deterministic is batch-invariant (BackendOptions::deterministic, docs/performance.md): a text's
// outputs are bit-identical alone and inside batches of other sizes, at other positions, padded to
// other lengths — embeddings, hidden states and classifier logits of the encoders; encoder states,
// teacher-forced logits, forced-decoding scores and beam-search scores of the seq2seq models — on
// the CPU backend (at 1 and 3 threads) and on OpenCL (PoCL in CI).
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/backend.hpp"
#include "backends/registry.hpp"
#include "engine/seq2seq.hpp"
#include "engine/text/tokenizer.hpp"
#include "engine/text_encoder.hpp"
#include "loaders/model_source.hpp"
#include "support/opencl_support.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

// Texts of different lengths, so that a batch pads most of them.
const std::vector<std::string> kTexts = {
    "The cat sat on the mat.",
    "A longer sentence, with two clauses, that pads the others.",
    "Short.",
    "Two words",
    "The quick brown fox jumps over the lazy dog while the dog sleeps.",
};

// The batches text `i` is put in: alone first, then with the others before it, after it and around
// it, in batches of 2 to all texts.
std::vector<std::pair<std::vector<std::size_t>, std::size_t>> batches_of(std::size_t i, std::size_t count) {
  std::vector<std::pair<std::vector<std::size_t>, std::size_t>> batches{{{i}, 0}};
  std::vector<std::size_t> others;
  for (std::size_t j = 0; j < count; ++j)
    if (j != i) others.push_back(j);
  for (std::size_t size = 1; size <= others.size(); ++size) {
    std::vector<std::size_t> rest(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(size));
    std::vector<std::size_t> first{i}, last = rest, middle = rest;
    first.insert(first.end(), rest.begin(), rest.end());
    last.push_back(i);
    middle.insert(middle.begin() + static_cast<std::ptrdiff_t>(size / 2), i);
    batches.push_back({first, 0});
    batches.push_back({last, size});
    batches.push_back({middle, size / 2});
  }
  return batches;
}

::testing::AssertionResult same_bits(const std::vector<float>& actual, const std::vector<float>& expected) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << actual.size() << " values, " << expected.size() << " alone";
  for (std::size_t k = 0; k < actual.size(); ++k) {
    if (std::memcmp(&actual[k], &expected[k], sizeof(float)) != 0)
      return ::testing::AssertionFailure() << "value " << k << ": " << actual[k] << " in the batch, " << expected[k]
                                           << " alone (difference " << actual[k] - expected[k] << ")";
  }
  return ::testing::AssertionSuccess();
}

std::string describe(const std::vector<std::size_t>& batch) {
  std::string text = "batch";
  for (std::size_t j : batch) {
    text += ' ';
    text += std::to_string(j);
  }
  return text;
}

// outputs(batch) gives each input of `batch` its outputs; input i's must be the same bits in every
// batch of batches_of(i) as alone.
void expect_same_in_every_batch(const std::string& folder, std::size_t count,
                                const std::function<PerInput(const std::vector<std::size_t>&)>& outputs) {
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<float> alone;
    for (const auto& [batch, position] : batches_of(i, count)) {
      SCOPED_TRACE(folder + ", input " + std::to_string(i) + " in " + describe(batch));
      const PerInput got = outputs(batch);
      if (batch.size() == 1) {
        alone = got[0];
        ASSERT_FALSE(alone.empty());
        continue;
      }
      EXPECT_TRUE(same_bits(got[position], alone));
    }
  }
}

std::unique_ptr<Backend> deterministic_backend(const std::string& device, int threads) {
  if (device == "cpu") return make_cpu_backend({.threads = threads, .deterministic = true});
  return make_backend(device, {.threads = threads, .deterministic = true});
}

// ---- encoders ----

void expect_encoder_invariant(const std::string& folder, Backend& backend) {
  auto source = ModelSource::open(test::fixture(folder));
  TextEncoder encoder(*source, backend);
  std::vector<TextInput> texts;
  for (const auto& text : kTexts) texts.push_back({text, ""});
  std::size_t truncated = 0;
  const std::vector<Encoding> inputs = encoder.encode(texts, false, truncated);
  EncoderModel& model = encoder.model();
  const EmbeddingSettings settings = encoder.default_embedding_settings();

  // Every output the model gives for the inputs of `batch`, per input: the embedding, the last
  // layer's hidden states and (where the model has one) the classifier's logits, concatenated.
  const auto outputs = [&](const std::vector<std::size_t>& batch) {
    std::vector<Encoding> chosen;
    for (std::size_t j : batch) chosen.push_back(inputs[j]);
    PerInput all = model.embed(chosen, settings.modes, settings.normalize, settings.layer);
    const PerInput states = model.hidden_states(chosen, model.spec().layers);
    for (std::size_t k = 0; k < chosen.size(); ++k) all[k].insert(all[k].end(), states[k].begin(), states[k].end());
    if (model.has_classifier()) {
      const PerInput logits = model.logits(chosen);
      for (std::size_t k = 0; k < chosen.size(); ++k) all[k].insert(all[k].end(), logits[k].begin(), logits[k].end());
    }
    return all;
  };

  expect_same_in_every_batch(folder, inputs.size(), outputs);
}

class EncoderBatchInvariance : public ::testing::TestWithParam<const char*> {};

TEST_P(EncoderBatchInvariance, Cpu) {
  for (const int threads : {1, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const auto backend = deterministic_backend("cpu", threads);
    expect_encoder_invariant(GetParam(), *backend);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EncoderBatchInvariance,
                         ::testing::Values("core/bert-wordpiece", "core/mpnet", "core/xlmr", "core/bert-pair-cls"),
                         [](const auto& info) { return test::param_name(info.param); });

// ---- seq2seq ----

void expect_seq2seq_invariant(const std::string& folder, Backend& backend) {
  auto source = ModelSource::open(test::fixture(folder));
  Seq2SeqModel model(*source, backend);
  const auto tokenizer = make_tokenizer(*source);
  std::vector<TokenIds> sources;
  for (const auto& text : kTexts) sources.push_back(tokenizer->encode(text).ids);
  SearchSettings beam = model.default_settings();
  beam.num_beams = 3;
  beam.num_return_sequences = 2;
  beam.max_length = 8;
  // Targets of different lengths for the teacher-forced passes: each source's own first tokens.
  std::vector<TokenIds> targets;
  for (std::size_t i = 0; i < sources.size(); ++i)
    targets.emplace_back(sources[i].begin(), sources[i].begin() + static_cast<std::ptrdiff_t>(1 + i % sources[i].size()));

  const auto outputs = [&](const std::vector<std::size_t>& batch) {
    std::vector<TokenIds> s, decoder_inputs, t;
    for (std::size_t j : batch) {
      s.push_back(sources[j]);
      t.push_back(targets[j]);
      TokenIds input{beam.decoder_start_token_id};
      input.insert(input.end(), targets[j].begin(), targets[j].end());
      decoder_inputs.push_back(input);
    }
    const std::size_t count = batch.size();
    PerInput all(count);
    // Row-major [B, T, ...] outputs padded to the batch's longest: each input keeps its own rows.
    const auto split = [&](const std::vector<float>& values, const std::vector<TokenIds>& lengths) {
      std::size_t longest = 0;
      for (const auto& ids : lengths) longest = std::max(longest, ids.size());
      const std::size_t row = values.size() / count / longest;
      for (std::size_t k = 0; k < count; ++k) {
        const auto begin = values.begin() + static_cast<std::ptrdiff_t>(k * longest * row);
        all[k].insert(all[k].end(), begin, begin + static_cast<std::ptrdiff_t>(lengths[k].size() * row));
      }
    };
    split(model.encode(s), s);
    split(model.decoder_logits(s, decoder_inputs), decoder_inputs);
    const std::vector<double> scores = model.score(s, t);
    const auto hypotheses = model.generate(s, beam);
    for (std::size_t k = 0; k < count; ++k) {
      all[k].push_back(static_cast<float>(scores[k]));
      for (const Hypothesis& h : hypotheses[k]) {
        all[k].push_back(h.score);
        for (std::int32_t id : h.ids) all[k].push_back(static_cast<float>(id));
      }
    }
    return all;
  };

  expect_same_in_every_batch(folder, sources.size(), outputs);
}

class Seq2SeqBatchInvariance : public ::testing::TestWithParam<const char*> {};

TEST_P(Seq2SeqBatchInvariance, Cpu) {
  for (const int threads : {1, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const auto backend = deterministic_backend("cpu", threads);
    expect_seq2seq_invariant(GetParam(), *backend);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Seq2SeqBatchInvariance, ::testing::Values("core/marian", "seq2seq/t5"),
                         [](const auto& info) { return test::param_name(info.param); });

#ifdef INVAR_WITH_OPENCL
class OpenClBatchInvariance : public test::OpenClTest {};

TEST_F(OpenClBatchInvariance, Encoders) {
  const auto backend = deterministic_backend("opencl", 1);
  for (const char* folder : {"core/bert-wordpiece", "core/xlmr", "core/bert-pair-cls"})
    expect_encoder_invariant(folder, *backend);
}

TEST_F(OpenClBatchInvariance, Seq2Seq) {
  const auto backend = deterministic_backend("opencl", 1);
  for (const char* folder : {"core/marian", "seq2seq/t5"}) expect_seq2seq_invariant(folder, *backend);
}
#endif

}  // namespace
}  // namespace invar
