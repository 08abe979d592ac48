// Encoder-decoders whose two stacks are sized differently, as Hugging Face allows: the BART family
// (Marian, BART, mBART, Pegasus, M2M100, FSMT) sizes heads, FFN width and layer count per stack
// (encoder_* / decoder_* fields), T5 its layer counts (num_layers / num_decoder_layers), FSMT and
// Marian their vocabularies per side. There are no Hugging Face goldens for such models, so each
// test rewrites a fixture into an asymmetric model and checks an identity that holds only when each
// stack runs with its own sizes; each says what a size shared between the stacks would do to it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "engine/seq2seq.hpp"
#include "backends/cpu/backend.hpp"
#include "loaders/model_source.hpp"
#include "loaders/safetensors.hpp"
#include "models/hf_config.hpp"
#include "models/seq2seq_spec.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

using nlohmann::json;

struct Weight {
  std::vector<std::int64_t> shape;
  std::vector<float> values;
  std::int64_t row_length() const { return static_cast<std::int64_t>(values.size()) / shape[0]; }
  void fill_rows(std::int64_t begin, std::int64_t end, float value) {
    std::fill(values.begin() + begin * row_length(), values.begin() + end * row_length(), value);
  }
  void scale(float factor) {
    for (float& v : values) v *= factor;
  }
};

// A fixture's config.json and F32 weights, edited by canonical name (the family's own weight table
// in models/seq2seq_spec says where each is stored) and saved as a new model folder.
class EditableModel {
 public:
  explicit EditableModel(const std::string& folder)
      : folder_(test::fixture(folder)), config_(test::load_json(folder_ + "/config.json")) {
    const std::string bytes = test::read_file(folder_ + "/model.safetensors");
    const auto header =
        parse_safetensors_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), folder_);
    for (const auto& entry : header.tensors) {
      Weight& weight = tensors_[entry.name];
      weight.shape = entry.shape;
      weight.values.resize((entry.end - entry.begin) / sizeof(float));
      std::memcpy(weight.values.data(), bytes.data() + header.data_start + entry.begin, entry.end - entry.begin);
    }
  }

  json& config() { return config_; }
  Seq2SeqSpec spec() const { return seq2seq_spec(parse_model_config(config_, folder_)); }

  bool has(const std::string& canonical) const { return stored(canonical).has_value(); }
  Weight& at(const std::string& canonical) {
    const auto name = stored(canonical);
    if (!name) throw std::runtime_error("no weight " + canonical);
    return tensors_.at(*name);
  }
  // Leaves out every weight of layer `layer` of `stack` ("enc" or "dec").
  void drop_layer(const std::string& stack, std::int64_t layer) {
    const std::string prefix = stack + ".layers." + std::to_string(layer) + ".";
    for (const auto& name : names())
      if (name.canonical.rfind(prefix, 0) == 0)
        for (const auto& stored_name : name.stored) tensors_.erase(stored_name);
  }
  std::string save() const {
    const std::string dir = test::model_copy(folder_);
    test::write_file(dir + "/config.json", config_.dump());
    std::vector<test::RawTensor> raw;
    for (const auto& [name, weight] : tensors_) raw.push_back({name, "F32", weight.shape, test::bytes_of(weight.values)});
    test::write_file(dir + "/model.safetensors", test::make_safetensors(raw));
    return dir;
  }

 private:
  std::vector<WeightName> names() const {
    const ModelConfig config = parse_model_config(config_, folder_);
    return seq2seq_weight_names(seq2seq_spec(config), config);
  }
  std::optional<std::string> stored(const std::string& canonical) const {
    for (const auto& name : names())
      if (name.canonical == canonical)
        for (const auto& stored_name : name.stored)
          if (tensors_.count(stored_name)) return stored_name;
    return std::nullopt;
  }

  std::string folder_;
  json config_;
  std::map<std::string, Weight> tensors_;
};

struct Outputs {
  std::vector<float> encoder, logits;
};

// Encoder states and teacher-forced logits of the fixture's golden cases, batched (so padding is
// masked on both sides).
Outputs run(const std::string& dir, const std::string& fixture_folder) {
  const json golden = test::load_json(test::fixture(fixture_folder + "/golden.json"));
  std::vector<TokenIds> sources, decoder_inputs;
  for (const auto& c : golden["cases"]) {
    sources.push_back(c["input_ids"].get<TokenIds>());
    decoder_inputs.push_back(c["decoder_input_ids"].get<TokenIds>());
  }
  const auto source = ModelSource::open(dir);
  const auto backend = make_cpu_backend({.threads = 1});
  Seq2SeqModel model(*source, *backend);
  return {model.encode(sources), model.decoder_logits(sources, decoder_inputs)};
}

// The largest difference, relative to max(1, the largest |expected|).
double difference(const std::vector<float>& actual, const std::vector<float>& expected) {
  if (actual.size() != expected.size()) return INFINITY;
  double scale = 1.0, largest = 0.0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    scale = std::max(scale, std::fabs(static_cast<double>(expected[i])));
    largest = std::max(largest, std::fabs(static_cast<double>(actual[i]) - static_cast<double>(expected[i])));
  }
  return largest / scale;
}

constexpr double kTolerance = 1e-4;

bool is_t5(EditableModel& model) { return model.spec().family == ModelFamily::T5; }

// The config field of one stack's size, as the family names it.
std::string field(EditableModel& model, const std::string& stack, const std::string& size) {
  const bool decoder = stack == "dec";
  if (is_t5(model)) {
    if (size == "layers") return decoder ? "num_decoder_layers" : "num_layers";
    return size == "heads" ? "num_heads" : "d_ff";
  }
  const std::string side = decoder ? "decoder_" : "encoder_";
  return side + (size == "layers" ? "layers" : size == "heads" ? "attention_heads" : "ffn_dim");
}

std::vector<std::string> attentions(const std::string& stack) {
  if (stack == "dec") return {"self_attn", "cross_attn"};
  return {"self_attn"};
}

std::string layer_name(const std::string& stack, std::int64_t layer, const std::string& part) {
  return stack + ".layers." + std::to_string(layer) + "." + part;
}

// Applies `edit` to "<part>.weight" and, where the family has biases, "<part>.bias".
template <typename Edit>
void each_parameter(EditableModel& model, const std::string& part, Edit edit) {
  edit(model.at(part + ".weight"));
  if (model.has(part + ".bias")) edit(model.at(part + ".bias"));
}

class AsymmetricStacks : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  const std::string& folder() const { return std::get<0>(GetParam()); }
  const std::string& stack() const { return std::get<1>(GetParam()); }
};

// Heads: in stack S, zero the second half of every head's query and value dimensions, then read the
// same weights as 2H heads of half the width, queries scaled by 1/√2 to keep head_dim^-0.5 · q·k. Head
// 2h sees exactly the scores of head h and its value half; head 2h+1 sees zero scores (uniform
// softmax) over zero values. So model B (S with 2H heads) computes what model A (H heads) does. If S
// ran with the other stack's H heads, B's scores would be 1/√2 too small (checked below to matter);
// if the other stack ran with S's 2H heads, its untouched attention would change. (A spec with one
// head_dim for both stacks refused B outright.) T5Config has one num_heads for both stacks: this
// runs on the other families.
class AsymmetricHeads : public AsymmetricStacks {};

TEST_P(AsymmetricHeads, HeadsSplitInTwoInOneStackOnly) {
  EditableModel a(folder());
  const StackSizes sizes = stack() == "dec" ? a.spec().decoder : a.spec().encoder;
  const std::int64_t dh = sizes.head_dim;
  ASSERT_EQ(dh % 2, 0);
  for (std::int64_t layer = 0; layer < sizes.layers; ++layer)
    for (const auto& attention : attentions(stack())) {
      const std::string name = layer_name(stack(), layer, attention);
      for (const char* part : {".q", ".v"})
        each_parameter(a, name + part, [&](Weight& w) {
          for (std::int64_t h = 0; h < sizes.heads; ++h) w.fill_rows(h * dh + dh / 2, (h + 1) * dh, 0.0f);
        });
      // Sharper attention than the fixture's near-uniform one, so that a wrong scale shows.
      each_parameter(a, name + ".q", [](Weight& w) { w.scale(4.0f); });
    }
  const std::string dir_a = a.save();

  EditableModel b = a;
  for (std::int64_t layer = 0; layer < sizes.layers; ++layer)
    for (const auto& attention : attentions(stack()))
      each_parameter(b, layer_name(stack(), layer, attention) + ".q",
                     [](Weight& w) { w.scale(1.0f / std::sqrt(2.0f)); });
  const std::string dir_b_shared = b.save();  // B's weights with H heads: what a shared head count would run
  b.config()[field(b, stack(), "heads")] = 2 * sizes.heads;
  const std::string dir_b = b.save();

  const Outputs expected = run(dir_a, folder()), actual = run(dir_b, folder());
  EXPECT_LE(difference(actual.encoder, expected.encoder), kTolerance);
  EXPECT_LE(difference(actual.logits, expected.logits), kTolerance);
  EXPECT_GT(difference(run(dir_b_shared, folder()).logits, expected.logits), 100 * kTolerance)
      << "the identity would not notice a wrong head count";
}

// FFN width: widening stack S's FFN with units whose output weights are zero is the same function
// (the new units compute something, fc2 drops it). Hugging Face's T5 has one d_ff, widened in both.
// A width shared between the stacks fails to load (the other stack's weights have the old width).
TEST_P(AsymmetricStacks, FfnWidenedInOneStackOnly) {
  EditableModel model(folder());
  const Outputs expected = run(test::model_copy(test::fixture(folder())), folder());
  const bool t5 = is_t5(model);
  const Seq2SeqSpec original = model.spec();
  constexpr std::int64_t kExtra = 8;
  for (const std::string side : {"enc", "dec"}) {
    if (!t5 && side != stack()) continue;
    const StackSizes& sizes = side == "dec" ? original.decoder : original.encoder;
    for (std::int64_t layer = 0; layer < sizes.layers; ++layer) {
      for (const char* part : {"ffn.in", "ffn.gate"}) {
        const std::string name = layer_name(side, layer, part);
        if (!model.has(name + ".weight")) continue;
        each_parameter(model, name, [&](Weight& w) {
          // New units copy the first ones' inputs, so they are active (not zero by construction).
          const std::vector<float> first(w.values.begin(), w.values.begin() + kExtra * w.row_length());
          w.values.insert(w.values.end(), first.begin(), first.end());
          w.shape[0] += kExtra;
        });
      }
      Weight& out = model.at(layer_name(side, layer, "ffn.out.weight"));
      std::vector<float> wider;
      for (std::int64_t row = 0; row < out.shape[0]; ++row) {
        const auto begin = out.values.begin() + row * sizes.ffn;
        wider.insert(wider.end(), begin, begin + sizes.ffn);
        wider.insert(wider.end(), kExtra, 0.0f);
      }
      out.values = wider;
      out.shape[1] += kExtra;
    }
    model.config()[field(model, side, "ffn")] = sizes.ffn + kExtra;
  }
  const Outputs actual = run(model.save(), folder());
  EXPECT_LE(difference(actual.encoder, expected.encoder), kTolerance);
  EXPECT_LE(difference(actual.logits, expected.logits), kTolerance);
}

// Makes the last layer of `stack` compute the identity: every sublayer adds zero. Pre-norm, x + 0 is
// exact. Post-norm, each sublayer's norm then applies to x: the norms of the layer become (1, 0),
// except its last, which takes over the previous layer's last norm (which becomes (1, 0)); a layer
// norm of a normalised row is that row up to its epsilon (relative 1e-6 for rows of unit variance).
void make_last_layer_identity(EditableModel& model, const std::string& stack, std::int64_t layers) {
  const std::int64_t last = layers - 1;
  for (const auto& attention : attentions(stack))
    each_parameter(model, layer_name(stack, last, attention + ".o"), [](Weight& w) { w.scale(0.0f); });
  each_parameter(model, layer_name(stack, last, "ffn.out"), [](Weight& w) { w.scale(0.0f); });
  if (model.spec().pre_norm) return;
  const auto unit = [](Weight& w, float value) { std::fill(w.values.begin(), w.values.end(), value); };
  unit(model.at(layer_name(stack, last, "self_attn_norm.weight")), 1.0f);
  unit(model.at(layer_name(stack, last, "self_attn_norm.bias")), 0.0f);
  if (stack == "dec") {
    unit(model.at(layer_name(stack, last, "cross_attn_norm.weight")), 1.0f);
    unit(model.at(layer_name(stack, last, "cross_attn_norm.bias")), 0.0f);
  }
  for (const char* part : {".weight", ".bias"}) {
    Weight& previous = model.at(layer_name(stack, last - 1, std::string("ffn_norm") + part));
    model.at(layer_name(stack, last, std::string("ffn_norm") + part)) = previous;
    unit(previous, part == std::string(".weight") ? 1.0f : 0.0f);
  }
}

// Layers: stack S with its last layer left out (one layer fewer than the other stack) equals the
// original whose last layer of S computes the identity. If S ran with the other stack's layer count
// it would miss that layer's weights; if the other stack ran with S's, it would lose a real layer.
TEST_P(AsymmetricStacks, OneLayerFewerInOneStackOnly) {
  EditableModel truncated(folder());
  const std::int64_t layers = (stack() == "dec" ? truncated.spec().decoder : truncated.spec().encoder).layers;
  ASSERT_GE(layers, 2);
  EditableModel identity = truncated;
  make_last_layer_identity(identity, stack(), layers);
  truncated.drop_layer(stack(), layers - 1);
  truncated.config()[field(truncated, stack(), "layers")] = layers - 1;
  if (is_t5(truncated) && stack() == "enc") truncated.config()["num_decoder_layers"] = layers;

  const Outputs expected = run(identity.save(), folder()), actual = run(truncated.save(), folder());
  EXPECT_LE(difference(actual.encoder, expected.encoder), kTolerance);
  EXPECT_LE(difference(actual.logits, expected.logits), kTolerance);
}

std::string name_of(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
  return test::param_name(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AsymmetricStacks,
                         ::testing::Combine(::testing::ValuesIn(test::model_folders(true)),
                                            ::testing::Values("enc", "dec")),
                         name_of);

std::vector<std::string> folders_with_heads_per_stack() {
  std::vector<std::string> folders;
  for (const auto& folder : test::model_folders(true))
    if (test::load_json(test::fixture(folder + "/config.json")).contains("decoder_attention_heads"))
      folders.push_back(folder);
  return folders;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AsymmetricHeads,
                         ::testing::Combine(::testing::ValuesIn(folders_with_heads_per_stack()),
                                            ::testing::Values("enc", "dec")),
                         name_of);

}  // namespace
}  // namespace invar
