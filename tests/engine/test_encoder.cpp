// The encoder engine against the Hugging Face goldens of tests/fixtures/core (README there):
// hidden states of every layer, pooling, pooler, classification, regression and MLM
// pseudo-log-likelihood, ≤ 1e-4 absolute.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "engine/attention.hpp"
#include "engine/encoder.hpp"
#include "engine/text/tokenizer.hpp"
#include "backends/cpu/backend.hpp"
#include "models/hf_config.hpp"
#include "support/test_support.hpp"

using namespace invar;
using nlohmann::json;

namespace {

constexpr double kTolerance = 1e-4;

// A fixture model on the CPU backend, with its tokenizer.
struct Fixture {
  std::unique_ptr<ModelSource> source;
  std::unique_ptr<Tokenizer> tokenizer;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<EncoderModel> model;
  json golden;

  explicit Fixture(const std::string& name, int threads = 1, bool deterministic = false,
                   LinearKernel linear = LinearKernel::OneDnn) {
    source = ModelSource::open(test::fixture(name));
    tokenizer = make_tokenizer(*source);
    backend = make_cpu_backend({.threads = threads, .deterministic = deterministic, .linear = linear});
    model = std::make_unique<EncoderModel>(*source, *backend);
    golden = test::load_json(test::fixture(name + "/golden.json"));
  }

  Encoding encode(const json& c) const {
    return c.contains("text_pair") ? tokenizer->encode_pair(c["text"].get<std::string>(), c["text_pair"].get<std::string>())
                                   : tokenizer->encode(c["text"].get<std::string>());
  }
};

std::vector<float> flatten(const json& value) {
  std::vector<float> out;
  if (value.is_array()) {
    for (const auto& v : value) {
      const auto inner = flatten(v);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  } else {
    out.push_back(value.get<float>());
  }
  return out;
}

::testing::AssertionResult all_near(const std::vector<float>& actual, const std::vector<float>& expected,
                                    double tolerance = kTolerance) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << actual.size() << " values, expected " << expected.size();
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (!(std::fabs(actual[i] - expected[i]) <= tolerance))
      return ::testing::AssertionFailure() << "value " << i << ": " << actual[i] << ", expected " << expected[i];
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult all_near(const std::vector<float>& actual, const json& expected, double tolerance = kTolerance) {
  return all_near(actual, flatten(expected), tolerance);
}

std::vector<Encoding> encode_all(const Fixture& f, const json& cases) {
  std::vector<Encoding> out;
  for (const auto& c : cases) out.push_back(f.encode(c));
  return out;
}

// A padded golden sequence's rows at the input's real positions, flattened.
std::vector<float> unpadded(const json& rows, const Encoding& input) {
  std::vector<float> out;
  for (std::size_t t = 0; t < input.ids.size(); ++t) {
    const auto row = flatten(rows[t]);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

// A padded batch of the golden's texts.
std::vector<Encoding> padded_batch_inputs(const Fixture& f) {
  std::vector<Encoding> inputs;
  for (const auto& text : f.golden["padded_batch"]["texts"]) inputs.push_back(f.tokenizer->encode(text.get<std::string>()));
  return inputs;
}

// The pooling and Normalize of the folder's sentence-transformers modules.json.
struct SentencePooling {
  std::vector<Pooling> modes;
  bool normalize;
};

SentencePooling sentence_pooling(const Fixture& f) {
  const auto st = load_sentence_transformer_config(*f.source);
  if (!st) return {{Pooling::Mean}, false};
  return {st->pooling, st->normalize};
}

const std::vector<Pooling> kMean{Pooling::Mean};

// What every base-model golden case holds: ids, every layer (embeddings first), the last layer
// alone, mean pooling. (Tokens, type ids and padding: tests/text/test_tokenizers.cpp.)
void expect_layers_match(const Fixture& f, const json& c) {
  const std::vector<Encoding> one{f.encode(c)};
  ASSERT_EQ(one[0].ids, c["input_ids"].get<std::vector<std::int32_t>>());
  const auto layers = f.model->all_hidden_states(one);
  const std::int64_t last = f.model->spec().layers;
  ASSERT_EQ(layers.size(), c["hidden_states"].size());
  for (std::size_t l = 0; l < layers.size(); ++l) EXPECT_TRUE(all_near(layers[l][0], c["hidden_states"][l])) << "layer " << l;
  EXPECT_TRUE(all_near(f.model->hidden_states(one, last)[0], c["last_hidden_state"]));
  EXPECT_TRUE(all_near(f.model->hidden_states(one, 1)[0], c["hidden_states"][1]));
  EXPECT_TRUE(all_near(f.model->embed(one, kMean, false, last)[0], c["mean_pooled"]));
}

std::string fixture_name(const ::testing::TestParamInfo<std::string>& info) { return test::param_name(info.param); }

}  // namespace

// Base models (no head): every layer of hidden states (embeddings first), BERT's and MPNet's
// pooler, mean pooling, and the sentence-transformers embedding modules.json describes.
class EncoderBase : public ::testing::TestWithParam<std::string> {};

TEST_P(EncoderBase, EveryLayerPoolerAndSentenceEmbeddingsMatchGolden) {
  Fixture f(GetParam());
  const bool pooler = f.golden["cases"][0].contains("pooler_output");
  EXPECT_EQ(f.model->has_pooler(), pooler);
  const SentencePooling st = sentence_pooling(f);
  EXPECT_EQ(st.normalize, f.golden["cases"][0].contains("mean_pooled_normalized"));
  for (const auto& c : f.golden["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    expect_layers_match(f, c);
    const std::vector<Encoding> one{f.encode(c)};
    if (pooler) {
      EXPECT_TRUE(all_near(f.model->pooler_output(one)[0], c["pooler_output"]));
    }
    if (st.normalize) {
      EXPECT_TRUE(all_near(f.model->embed(one, st.modes, true, f.model->spec().layers)[0], c["mean_pooled_normalized"]));
    }
  }
}

// --linear openblas: the linear layers on OpenBLAS's sgemm over the weights as stored (no packed
// copies) give every layer as Hugging Face does, within the same tolerance as oneDNN's.
TEST_P(EncoderBase, LinearLayersOnOpenBlasMatchGolden) {
  Fixture f(GetParam(), 2, false, LinearKernel::OpenBlas);
  for (const auto& c : f.golden["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    expect_layers_match(f, c);
  }
}

// Texts of different lengths in one batch: the golden's padded run at the real positions, and
// each text's own run. RoBERTa positions count non-pad tokens, MPNet's relative bias and DeBERTa's
// relative positions span 0..L-1 of the padded length, so padding must change none of them.
TEST_P(EncoderBase, PaddedBatchEqualsGoldenAndSingleRuns) {
  Fixture f(GetParam());
  const json& batch = f.golden["padded_batch"];
  const auto inputs = padded_batch_inputs(f);
  const std::int64_t last = f.model->spec().layers;
  const auto hidden = f.model->hidden_states(inputs, last);
  const auto pooled = f.model->embed(inputs, kMean, false, last);
  for (std::size_t b = 0; b < inputs.size(); ++b) {
    EXPECT_TRUE(all_near(hidden[b], unpadded(batch["last_hidden_state"][b], inputs[b]))) << "text " << b;
    EXPECT_TRUE(all_near(pooled[b], batch["mean_pooled"][b]));
    const std::vector<Encoding> one{inputs[b]};
    EXPECT_TRUE(all_near(f.model->hidden_states(one, last)[0], hidden[b], 1e-5));
  }
  if (batch.contains("mean_pooled_normalized")) {
    const auto normalized = f.model->embed(inputs, sentence_pooling(f).modes, true, last);
    for (std::size_t b = 0; b < inputs.size(); ++b) EXPECT_TRUE(all_near(normalized[b], batch["mean_pooled_normalized"][b]));
  }
  if (batch.contains("pooler_output")) {
    const auto pooler = f.model->pooler_output(inputs);
    for (std::size_t b = 0; b < inputs.size(); ++b) EXPECT_TRUE(all_near(pooler[b], batch["pooler_output"][b]));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EncoderBase,
                         ::testing::Values("core/bert-wordpiece", "core/mpnet", "core/xlmr", "core/distilbert",
                                           "core/electra", "core/albert", "core/deberta-v3"),
                         fixture_name);

// Sequence classifiers (of sentence pairs, or of single texts: distilbert-sst2): logits and
// softmax probs of each input alone and of all in one batch, and the golden's padded batch where
// it has one.
class EncoderClassifier : public ::testing::TestWithParam<std::string> {};

TEST_P(EncoderClassifier, LogitsAndProbsMatchGolden) {
  Fixture f(GetParam());
  ASSERT_TRUE(f.model->has_classifier());
  EXPECT_EQ(f.model->spec().labels.size(), f.golden["cases"][0]["logits"][0].size());
  const auto inputs = encode_all(f, f.golden["cases"]);
  const auto batched = f.model->logits(inputs);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const json& c = f.golden["cases"][i];
    SCOPED_TRACE(c["text"].get<std::string>() + " / " + c.value("text_pair", std::string()));
    EXPECT_EQ(inputs[i].ids, c["input_ids"].get<std::vector<std::int32_t>>());
    const std::vector<Encoding> one{inputs[i]};
    const auto alone = f.model->logits(one)[0];
    EXPECT_TRUE(all_near(alone, c["logits"]));
    EXPECT_TRUE(all_near(batched[i], c["logits"]));
    EXPECT_TRUE(all_near(label_probabilities(alone, false), c["probs"]));
  }
  if (!f.golden.contains("padded_batch")) return;
  const json& batch = f.golden["padded_batch"];
  std::vector<Encoding> pairs;
  if (batch.contains("texts")) pairs = padded_batch_inputs(f);
  else
    for (const auto& p : batch["pairs"])
      pairs.push_back(f.tokenizer->encode_pair(p[0].get<std::string>(), p[1].get<std::string>()));
  const auto logits = f.model->logits(pairs);
  for (std::size_t b = 0; b < pairs.size(); ++b) {
    EXPECT_TRUE(all_near(logits[b], batch["logits"][b])) << "pair " << b;
    EXPECT_TRUE(all_near(label_probabilities(logits[b], false), batch["probs"][b])) << "pair " << b;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EncoderClassifier,
                         ::testing::Values("core/bert-pair-cls", "core/mbert-pair-cls", "core/xlmr-pair-cls",
                                           "core/distilbert-sst2", "core/electra-pair-cls", "core/albert-pair-cls",
                                           "core/deberta-v3-nli"),
                         fixture_name);

// DeBERTa-v2's make_log_bucket_position, hand-computed for position_buckets 16 and
// max_relative_positions 64 (core/deberta-v3's setting): offsets up to 8 kept, larger ones
// 8 + ceil(ln(|δ|/8) / ln(63/8) · 7) with their sign, rows clamped to 0..31 around the span 16.
TEST(EncoderDeberta, RelativePositionsFollowHuggingFace) {
  const std::int64_t len = 101;
  const auto index = disentangled_positions(len, 16, 16, 64);
  ASSERT_EQ(index.size(), static_cast<std::size_t>(len * len));
  const auto at = [&](std::int64_t i, std::int64_t j) { return index[static_cast<std::size_t>(i * len + j)]; };
  EXPECT_EQ(at(0, 0), 16);
  EXPECT_EQ(at(5, 0), 21);
  EXPECT_EQ(at(0, 8), 8);
  EXPECT_EQ(at(9, 0), 25);    // 8 + ceil(0.40)
  EXPECT_EQ(at(20, 0), 28);   // 8 + ceil(3.11)
  EXPECT_EQ(at(0, 20), 4);
  EXPECT_EQ(at(63, 0), 31);   // 8 + 7
  EXPECT_EQ(at(100, 0), 31);  // 8 + 9, clamped
  EXPECT_EQ(at(0, 100), 0);
  // Without buckets the offsets are only clamped.
  EXPECT_EQ(disentangled_positions(3, 1, 0, 64), (std::vector<std::int32_t>{1, 0, 0, 1, 1, 0, 1, 1, 1}));
}

TEST(EncoderBert, PairClassifierLabelsComeFromTheConfig) {
  for (const char* name : {"core/bert-pair-cls", "core/mbert-pair-cls"})
    EXPECT_EQ(Fixture(name).model->spec().labels, (std::vector<std::string>{"not_paraphrase", "paraphrase"})) << name;
}

TEST(EncoderXlmr, Regression) {
  Fixture regression("core/xlmr-regression");
  EXPECT_TRUE(regression.model->spec().regression);
  const auto texts = encode_all(regression, regression.golden["cases"]);
  const auto scores = regression.model->logits(texts);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    ASSERT_EQ(scores[i].size(), 1u);
    EXPECT_NEAR(scores[i][0], regression.golden["cases"][i]["score"].get<double>(), kTolerance);
  }
}

// Masked-LM heads (RoBERTa's dense + gelu + LayerNorm + tied decoder + bias, BERT's the same under
// cls.predictions) through pseudo-log-likelihood, masking with the tokenizer's mask token.
class EncoderMaskedLm : public ::testing::TestWithParam<std::string> {};

TEST_P(EncoderMaskedLm, PseudoLogLikelihoodPerToken) {
  Fixture f(GetParam());
  ASSERT_TRUE(f.model->has_mlm());
  const auto mask = f.tokenizer->mask_id();
  ASSERT_TRUE(mask.has_value());
  for (const auto& c : f.golden["cases"]) {
    SCOPED_TRACE(c["text"].get<std::string>());
    const auto per_token = f.model->pll(f.encode(c), *mask);
    const auto expected = c["pll_per_token"].get<std::vector<double>>();
    ASSERT_EQ(per_token.size(), expected.size());
    double total = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_NEAR(per_token[i], expected[i], kTolerance) << "token " << i;
      total += per_token[i];
    }
    EXPECT_NEAR(total, c["pll"].get<double>(), kTolerance * static_cast<double>(expected.size()));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EncoderMaskedLm, ::testing::Values("core/bert-mlm", "core/xlmr-mlm"), fixture_name);

TEST(EncoderXlmr, PseudoLogLikelihoodInPassesEqualsOneBatch) {
  Fixture f("core/xlmr-mlm");
  const Encoding input = f.encode(f.golden["cases"][8]);
  const auto whole = f.model->pll(input, *f.tokenizer->mask_id());
  for (std::int64_t budget : {1, 50000}) {
    const auto passes = f.model->pll(input, *f.tokenizer->mask_id(), budget);
    ASSERT_EQ(passes.size(), whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) EXPECT_NEAR(passes[i], whole[i], 1e-5) << "budget " << budget;
  }
}

TEST(EncoderThreads, OneAndTwoThreadsAgreeWithin1e6) {
  Fixture one("core/xlmr-mlm", 1), two("core/xlmr-mlm", 2);
  const auto inputs = encode_all(one, one.golden["cases"]);
  const auto a = one.model->hidden_states(inputs, 2), b = two.model->hidden_states(inputs, 2);
  for (std::size_t i = 0; i < inputs.size(); ++i) EXPECT_TRUE(all_near(a[i], b[i], 1e-6));
  const auto pa = one.model->pll(inputs[0], *one.tokenizer->mask_id());
  const auto pb = two.model->pll(inputs[0], *two.tokenizer->mask_id());
  EXPECT_TRUE(all_near(std::vector<float>(pa.begin(), pa.end()), std::vector<float>(pb.begin(), pb.end()), 1e-6));
}

TEST(EncoderThreads, DeterministicMatchesGoldenWithTheSameBitsForAnyThreadCount) {
  Fixture base("core/xlmr", 2, true);
  for (const auto& c : base.golden["cases"]) expect_layers_match(base, c);
  Fixture one("core/xlmr-mlm", 1, true);
  const auto inputs = encode_all(one, one.golden["cases"]);
  const auto a = one.model->hidden_states(inputs, 2);
  const auto pa = one.model->pll(inputs[0], *one.tokenizer->mask_id());
  for (int threads : {2, 3}) {
    Fixture many("core/xlmr-mlm", threads, true);
    EXPECT_EQ(many.model->hidden_states(inputs, 2), a) << threads << " threads";
    EXPECT_EQ(many.model->pll(inputs[0], *many.tokenizer->mask_id()), pa) << threads << " threads";
  }
}

TEST(EncoderErrors, MissingHeadsAndBadInputsFailClearly) {
  Fixture bert("core/bert-wordpiece");
  const std::vector<Encoding> one{bert.tokenizer->encode("hello")};
  EXPECT_FALSE(bert.model->has_classifier());
  try {
    bert.model->logits(one);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no sequence-classification head"), std::string::npos) << e.what();
  }
  try {
    bert.model->pll(one[0], 4);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no masked-LM head"), std::string::npos) << e.what();
  }
  Encoding too_long = one[0];
  too_long.ids.assign(513, 5);
  too_long.type_ids.assign(513, 0);
  EXPECT_THROW(bert.model->hidden_states(std::vector<Encoding>{too_long}, 2), Error);
  Encoding bad_id = one[0];
  bad_id.ids[1] = 171;
  EXPECT_THROW(bert.model->hidden_states(std::vector<Encoding>{bad_id}, 2), Error);
  Encoding bad_type = one[0];
  bad_type.type_ids[1] = 2;
  EXPECT_THROW(bert.model->hidden_states(std::vector<Encoding>{bad_type}, 2), Error);
  EXPECT_THROW(bert.model->hidden_states(one, 3), Error);
  EXPECT_THROW(bert.model->hidden_states(std::vector<Encoding>{Encoding{}}, 2), Error);
}

TEST(EncoderErrors, EncoderDecoderConfigIsRejected) {
  try {
    Fixture marian("core/marian");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not an encoder-only model"), std::string::npos) << e.what();
  }
}
