// tool_int8_quality: where int8 changes what the random opus-mt-base-sized Marian generates.
// Each scheme quantizes a subset of the linear layers (by component) with a given activation
// quantization, simulated in f32 ("fake quantization": the values are rounded to the int8 grid and
// multiplied in f32, which differs from oneDNN's exact int32 sums by f32 rounding only), and is
// compared with packed f32 on the same sources: beam-5 and greedy best ids, near-ties, and the
// teacher-forced logits. The row "library" is the real --weights int8 backend.
//   build/bench/tool_int8_quality --sources 64
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <regex>
#include <set>

#include "bench/forwarding_backend.hpp"
#include "bench/products.hpp"
#include "bench/random_marian.hpp"
#include "engine/seq2seq.hpp"
#include "backends/cpu/backend.hpp"

namespace invar {
namespace {

// How a quantized matrix's inputs are rounded: per row symmetric (s8) or asymmetric (u8 with a zero
// point), per tensor symmetric, or not at all.
enum class ActScheme { RowSym, RowAsym, TensorSym, None };

// The matrices of the Marian stack in the order Seq2SeqModel loads them (engine/seq2seq.cpp).
std::string matrix_label(int index) {
  static const char* enc[] = {"self_qkv", "self_out", "ffn_in", "ffn_out"};
  static const char* dec[] = {"self_qkv", "self_out", "cross_q", "cross_kv", "cross_out", "ffn_in", "ffn_out"};
  if (index < 24) return "enc." + std::to_string(index / 4) + "." + enc[index % 4];
  if (index < 66) return "dec." + std::to_string((index - 24) / 7) + "." + dec[(index - 24) % 7];
  return "lm_head";
}

// Round half away from zero onto a grid of step `scale`, as backends/cpu/packed_matmul.cpp does.
float on_grid(float v, float scale, float zero, float lo, float hi) {
  const float q = std::clamp(std::trunc(v / scale + zero + (v / scale + zero < 0 ? -0.5f : 0.5f)), lo, hi);
  return (q - zero) * scale;
}

void fake_quantize_sym(float* v, std::int64_t count) {
  float peak = 0.0f;
  for (std::int64_t i = 0; i < count; ++i) peak = std::max(peak, std::fabs(v[i]));
  const float scale = peak > 0.0f ? peak / 127.0f : 1.0f;
  for (std::int64_t i = 0; i < count; ++i) v[i] = on_grid(v[i], scale, 0.0f, -127.0f, 127.0f);
}

// u8 with a zero point: [min, max] (widened to hold 0) onto 0..255.
void fake_quantize_asym(float* v, std::int64_t count) {
  float lo = 0.0f, hi = 0.0f;
  for (std::int64_t i = 0; i < count; ++i) lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
  const float scale = hi > lo ? (hi - lo) / 255.0f : 1.0f;
  const float zero = std::round(-lo / scale);
  for (std::int64_t i = 0; i < count; ++i) v[i] = on_grid(v[i], scale, zero, 0.0f, 255.0f);
}

// v rounded to `bits` significant bits (bf16: 8, f16: 11), range ignored.
void round_mantissa(float* v, std::int64_t count, int bits) {
  for (std::int64_t i = 0; i < count; ++i) {
    int e = 0;
    const float f = std::frexp(v[i], &e);
    v[i] = std::ldexp(std::round(std::ldexp(f, bits)), e - bits);
  }
}

struct Scheme {
  std::string name;
  std::function<bool(const std::string&)> quantized;  // by matrix_label
  ActScheme act = ActScheme::RowSym;
  int mantissa = 0;            // > 0: weights and inputs rounded to that many bits instead of int8
  bool weights_f32 = false;    // inputs quantized only
};

float* host(const Tensor& t) { return reinterpret_cast<float*>(static_cast<std::byte*>(t.handle) + t.offset); }

// Packed f32 with the scheme's matrices fake-quantized at load and their inputs per call.
class FakeInt8Backend final : public bench::ForwardingBackend {
 public:
  explicit FakeInt8Backend(Scheme scheme)
      : ForwardingBackend(make_cpu_backend(bench::options_for(bench::Products::Packed, 1))), scheme_(std::move(scheme)) {}
  std::unique_ptr<WeightStore> make_weight_store() override { return std::make_unique<Store>(*this); }

 protected:
  void do_linear(const Tensor& x, const Tensor& w, const Tensor& bias, Activation act, const Tensor& y) override {
    const bool inputs_kept = scheme_.act == ActScheme::None && scheme_.mantissa == 0;
    if (!quantized_.count(w.handle) || inputs_kept) return inner_->linear(x, w, bias, act, y);
    const std::int64_t k = x.dim(x.shape.rank - 1), rows = x.numel() / k;
    buffer_.assign(host(x), host(x) + x.numel());
    if (scheme_.mantissa > 0) {
      round_mantissa(buffer_.data(), x.numel(), scheme_.mantissa);
    } else if (scheme_.act == ActScheme::TensorSym) {
      fake_quantize_sym(buffer_.data(), x.numel());
    } else {
      for (std::int64_t r = 0; r < rows; ++r) {
        if (scheme_.act == ActScheme::RowSym) fake_quantize_sym(buffer_.data() + r * k, k);
        else fake_quantize_asym(buffer_.data() + r * k, k);
      }
    }
    Tensor copy = x;
    copy.handle = buffer_.data();
    copy.offset = 0;
    inner_->linear(copy, w, bias, act, y);
  }

 private:
  class Store final : public WeightStore {
   public:
    explicit Store(FakeInt8Backend& owner) : owner_(owner), inner_(owner.inner_->make_weight_store()) {}
    Tensor add(const TensorData& src, WeightUse use) override {
      if (use != WeightUse::Matrix) return inner_->add(src, use);
      return add(to_f32(src), weight_shape(src), use);
    }
    Tensor add(const std::vector<float>& values, Shape shape, WeightUse use) override {
      if (use != WeightUse::Matrix) return inner_->add(values, shape, use);
      const bool quantized = owner_.scheme_.quantized(matrix_label(matrices_++));
      std::vector<float> w = values;
      const Scheme& scheme = owner_.scheme_;
      if (quantized && scheme.mantissa > 0) round_mantissa(w.data(), shape.numel(), scheme.mantissa);
      for (std::int64_t j = 0; quantized && scheme.mantissa == 0 && !scheme.weights_f32 && j < shape[0]; ++j)
        fake_quantize_sym(w.data() + j * shape[1], shape[1]);
      Tensor t = inner_->add(w, shape, use);
      if (quantized) owner_.quantized_.insert(t.handle);
      return t;
    }
    std::size_t bytes() const override { return inner_->bytes(); }

   private:
    FakeInt8Backend& owner_;
    std::unique_ptr<WeightStore> inner_;
    int matrices_ = 0;
  };

  Scheme scheme_;
  std::set<const void*> quantized_;
  std::vector<float> buffer_;
};

struct Reference {
  Seq2SeqModel* model = nullptr;  // f32, to score other hypotheses
  std::vector<std::vector<Hypothesis>> beam, greedy;  // beam: the two best per source
  std::vector<TokenIds> targets;                      // the beam's best, teacher-forced
  std::vector<float> logits;
};

// Beam width and length of the comparison: 5 and 32 on the random Marian, 4 and 24 on fixtures.
int g_beams = 5, g_max_length = 32;

SearchSettings search(const Seq2SeqModel& model, int beams) {
  SearchSettings settings = model.default_settings();
  settings.num_beams = beams;
  settings.num_return_sequences = beams > 1 ? 2 : 1;
  settings.max_length = g_max_length;
  return settings;
}

void compare(const std::string& name, Seq2SeqModel& model, const std::vector<TokenIds>& sources,
             const Reference& ref, double tie) {
  const auto beam = model.generate(sources, search(model, g_beams));
  const auto greedy = model.generate(sources, search(model, 1));
  int beam_same = 0, greedy_same = 0, ties = 0;
  std::vector<double> gaps, loss;
  for (std::size_t s = 0; s < sources.size(); ++s) {
    greedy_same += greedy[s].front().ids == ref.greedy[s].front().ids;
    if (beam[s].front().ids == ref.beam[s].front().ids) {
      ++beam_same;
      continue;
    }
    const double gap = ref.beam[s][0].score - ref.beam[s][1].score;
    gaps.push_back(gap);
    ties += gap < tie;
    // f32's log-probability per token of its own best and of this one's best.
    std::vector<TokenIds> pair;
    for (const auto* h : {&ref.beam[s].front(), &beam[s].front()}) pair.emplace_back(h->ids.begin() + 1, h->ids.end());
    const auto scores = ref.model->score({sources[s], sources[s]}, pair);
    loss.push_back(scores[0] / pair[0].size() - scores[1] / pair[1].size());
  }
  const auto logits = model.decoder_logits(sources, ref.targets);
  std::size_t longest = 0;
  for (const auto& t : ref.targets) longest = std::max(longest, t.size());
  const std::size_t steps = longest, vocab = logits.size() / steps / sources.size();
  double peak = 0.0, worst = 0.0, sum_error = 0.0, sum_abs = 0.0;
  int positions = 0, argmax_same = 0;
  for (std::size_t s = 0; s < sources.size(); ++s) {
    for (std::size_t t = 0; t < ref.targets[s].size(); ++t) {
      const float* want = ref.logits.data() + (s * steps + t) * vocab;
      const float* got = logits.data() + (s * steps + t) * vocab;
      for (std::size_t v = 0; v < vocab; ++v) {
        peak = std::max(peak, static_cast<double>(std::fabs(want[v])));
        worst = std::max(worst, static_cast<double>(std::fabs(got[v] - want[v])));
        sum_error += std::fabs(got[v] - want[v]);
        sum_abs += std::fabs(want[v]);
      }
      ++positions;
      argmax_same += std::max_element(want, want + vocab) - want == std::max_element(got, got + vocab) - got;
    }
  }
  std::sort(gaps.begin(), gaps.end());
  const double n = static_cast<double>(sources.size());
  std::sort(loss.begin(), loss.end());
  std::cout << name << "\tbeam" << g_beams << " " << beam_same << "/" << sources.size() << " (" << 100.0 * beam_same / n
            << " %)\tnon-tie " << 100.0 * (beam_same + ties) / n << " %\tgreedy " << greedy_same
            << "\targmax " << 100.0 * argmax_same / positions << " %\tmax_err/peak " << worst / peak
            << "\tmean_err/mean " << sum_error / sum_abs << "\tgaps";
  for (double g : gaps) std::cout << ' ' << g;
  std::cout << "\tf32 logprob/token lost";
  for (double l : loss) std::cout << ' ' << l;
  std::cout << std::endl;
}

// The random model with the last decoder layer's output norm scaled by `factor`, which scales the
// logits: a random model's next-token distribution is nearly flat, a trained model's is not.
class SharpenedSource final : public ModelSource {
 public:
  SharpenedSource(const ModelSource& inner, float factor) : inner_(inner), factor_(factor) {
    for (const auto& name : inner.tensor_names()) {
      if (!name.ends_with("decoder.layers.5.final_layer_norm.weight")) continue;
      const TensorData data = inner.tensor(name);
      scaled_name_ = name;
      scaled_ = to_f32(data);
      for (float& v : scaled_) v *= factor;
      shape_ = data.shape;
    }
    if (scaled_name_.empty()) fail("no final_layer_norm of the last decoder layer");
  }
  const std::string& path() const override { return inner_.path(); }
  const nlohmann::json& config_json() const override { return inner_.config_json(); }
  bool has_file(const std::string& n) const override { return inner_.has_file(n); }
  std::string read_file(const std::string& n) const override { return inner_.read_file(n); }
  std::vector<std::string> file_names() const override { return inner_.file_names(); }
  std::vector<std::string> tensor_names() const override { return inner_.tensor_names(); }
  bool has_tensor(const std::string& n) const override { return inner_.has_tensor(n); }
  TensorData tensor(const std::string& n) const override {
    if (n != scaled_name_) return inner_.tensor(n);
    return {DType::F32, shape_, reinterpret_cast<const std::byte*>(scaled_.data()), scaled_.size() * sizeof(float)};
  }

 private:
  const ModelSource& inner_;
  float factor_;
  std::string scaled_name_;
  std::vector<float> scaled_;
  std::vector<std::int64_t> shape_;
};

std::vector<Scheme> schemes() {
  auto all = [](const std::string&) { return true; };
  auto has = [](std::string part) { return [part](const std::string& l) { return l.find(part) != std::string::npos; }; };
  auto but = [](std::function<bool(const std::string&)> f) { return [f](const std::string& l) { return !f(l); }; };
  return {
      {"all (row sym)", all},
      {"none", [](const std::string&) { return false; }},
      {"only lm_head", has("lm_head")},
      {"all but lm_head", but(has("lm_head"))},
      {"only encoder", has("enc.")},
      {"only decoder (no lm_head)", has("dec.")},
      {"only self-attn qkv+out", has("self_")},
      {"only cross-attn", has("cross_")},
      {"only ffn", has("ffn_")},
      {"only ffn_out", has("ffn_out")},
      {"all, act row asym u8", all, ActScheme::RowAsym},
      {"all, act tensor sym", all, ActScheme::TensorSym},
      {"all but lm_head, act row asym", but(has("lm_head")), ActScheme::RowAsym},
      {"only ffn_in", has("ffn_in")},
      {"only ffn_out, act row asym", has("ffn_out"), ActScheme::RowAsym},
      {"all, weights only", all, ActScheme::None},
      {"all, inputs only", all, ActScheme::RowSym, 0, true},
      {"all, bf16-like 8 bits", all, ActScheme::RowSym, 8},
      {"all, 10 bits", all, ActScheme::RowSym, 10},
      {"all, f16-like 11 bits", all, ActScheme::RowSym, 11},
      {"all, 14 bits", all, ActScheme::RowSym, 14},
  };
}

}  // namespace
}  // namespace invar

int main(int argc, char** argv) {
  using namespace invar;
  CLI::App app{"int8 against packed f32 on a random opus-mt-base-sized Marian, by component and scheme"};
  int sources = 64;
  double tie = 1e-3;
  std::string only;
  float sharpen = 1.0f;
  app.add_option("--sharpen", sharpen, "Factor on the logits (the last decoder norm's weight): peakier distributions")
      ->capture_default_str();
  app.add_option("--sources", sources, "Random sources (20 tokens each)")->capture_default_str();
  app.add_option("--tie", tie, "Score gap of f32's two best beams below which a difference is a tie")
      ->capture_default_str();
  app.add_option("--only", only, "Run only the schemes whose name matches this regular expression");
  std::string folder;
  app.add_option("--model", folder, "A seq2seq model folder with a golden.json (a fixture): its cases' sources, "
                                    "4 beams, max length 24, the library's int8 only");
  CLI11_PARSE(app, argc, argv);
  bench::RandomMarian random;
  std::unique_ptr<ModelSource> owned;
  if (!folder.empty()) owned = ModelSource::open(folder);
  const SharpenedSource sharpened(random, sharpen);
  const ModelSource& source = owned ? *owned : static_cast<const ModelSource&>(sharpened);
  auto input = bench::random_marian_sources(sources);
  if (owned) {
    input.clear();
    const auto golden = nlohmann::json::parse(owned->read_file("golden.json"));
    for (const auto& c : golden.at("cases")) input.push_back(c.at("input_ids").get<TokenIds>());
    g_beams = 4, g_max_length = 24, only = "^library";
  }
  Reference ref;
  auto f32_backend = make_cpu_backend(bench::options_for(bench::Products::Packed, 1));
  Seq2SeqModel model(source, *f32_backend);
  ref.model = &model;
  {
    ref.beam = model.generate(input, search(model, g_beams));
    ref.greedy = model.generate(input, search(model, 1));
    for (const auto& hyps : ref.beam) ref.targets.push_back(hyps.front().ids);
    ref.logits = model.decoder_logits(input, ref.targets);
    std::vector<double> gaps;
    for (const auto& hyps : ref.beam) gaps.push_back(hyps[0].score - hyps[1].score);
    std::sort(gaps.begin(), gaps.end());
    std::cout << "f32 gaps between the two best beams: min " << gaps.front() << " median " << gaps[gaps.size() / 2]
              << " below 1e-3: " << std::count_if(gaps.begin(), gaps.end(), [](double g) { return g < 1e-3; })
              << " below 1e-2: " << std::count_if(gaps.begin(), gaps.end(), [](double g) { return g < 1e-2; })
              << std::endl;
  }
  const std::regex wanted(only.empty() ? "." : only);
  if (std::regex_search("library int8", wanted)) {
    auto backend = make_cpu_backend(bench::options_for(bench::Products::Int8, 1));
    Seq2SeqModel model(source, *backend);
    compare("library int8", model, input, ref, tie);
  }
  for (const auto& scheme : schemes()) {
    if (!std::regex_search(scheme.name, wanted)) continue;
    FakeInt8Backend backend(scheme);
    Seq2SeqModel model(source, backend);
    compare(scheme.name, model, input, ref, tie);
  }
  return 0;
}
