// Half-precision weight storage on the OpenCL backend (BackendOptions::weights = F16) against the
// CPU backend fed the same weights rounded to half: the rounding is the only approximation, so
// what remains is float32 summation order, as between the f32 backends (test_opencl_backend.cpp,
// test_opencl_encoder.cpp, test_opencl_seq2seq.cpp), and the same tolerances hold.
// Built without OpenCL (cmake -DINVAR_OPENCL=OFF), this file holds no tests.
#ifdef INVAR_WITH_OPENCL
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "engine/encoder.hpp"
#include "engine/seq2seq.hpp"
#include "backends/backend.hpp"
#include "backends/registry.hpp"
#include "support/model_files.hpp"
#include "support/opencl_support.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

constexpr double kOpTolerance = 1e-4;
constexpr double kModelTolerance = 1e-3;

std::vector<float> random_values(std::int64_t n, unsigned seed) { return test::random_floats(n, seed, 2.0f); }

std::vector<std::uint16_t> half_bits(const std::vector<float>& values) {
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = f32_to_f16_bits(values[i]);
  return bits;
}

TensorData half_data(const std::vector<std::uint16_t>& bits, std::vector<std::int64_t> shape) {
  TensorData data;
  data.dtype = DType::F16;
  data.shape = std::move(shape);
  data.data = reinterpret_cast<const std::byte*>(bits.data());
  data.nbytes = bits.size() * sizeof(std::uint16_t);
  return data;
}

// `values` rounded to the nearest half, as the F16 store rounds them.
std::vector<float> rounded(const std::vector<float>& values) {
  const auto bits = half_bits(values);
  return to_f32(half_data(bits, {static_cast<std::int64_t>(bits.size())}));
}

double worst_difference(const std::vector<float>& expected, const std::vector<float>& actual) {
  EXPECT_EQ(expected.size(), actual.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < expected.size() && i < actual.size(); ++i)
    worst = std::max(worst, std::abs(double(expected[i]) - actual[i]) / (1.0 + std::abs(expected[i])));
  return worst;
}

class OpenClF16Test : public test::OpenClTest {
 protected:
  void SetUp() override {
    test::OpenClTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    cpu_ = make_backend("cpu", {.threads = 1});
    gpu_ = make_backend("opencl", {.threads = 1, .weights = WeightType::F16});
    cpu_store_ = cpu_->make_weight_store();
    gpu_store_ = gpu_->make_weight_store();
    cpu_arena_ = cpu_->make_arena();
    gpu_arena_ = gpu_->make_arena();
  }

  // The same F32 activation on both backends.
  std::pair<Tensor, Tensor> activation(const std::vector<float>& values, Shape shape) {
    const Tensor cpu = cpu_arena_->alloc(DType::F32, shape), gpu = gpu_arena_->alloc(DType::F32, shape);
    cpu_->upload(values.data(), cpu);
    gpu_->upload(values.data(), gpu);
    return {cpu, gpu};
  }

  // y = act(x · wᵀ + bias) with w F16 on OpenCL and w rounded to half, F32, on the CPU.
  void expect_linear_matches(std::int64_t m, std::int64_t k, std::int64_t n, Activation act) {
    const auto w = random_values(n * k, 1), x = random_values(m * k, 2), bias = random_values(n, 3);
    const Tensor gpu_w = gpu_store_->add(w, {n, k}, WeightUse::Matrix);
    ASSERT_EQ(gpu_w.dtype, DType::F16);
    const Tensor cpu_w = cpu_store_->add(rounded(w), {n, k}, WeightUse::Any);
    const auto [cpu_bias, gpu_bias] = activation(bias, {n});
    const auto [cpu_x, gpu_x] = activation(x, {m, k});
    const auto [cpu_y, gpu_y] = activation(std::vector<float>(static_cast<std::size_t>(m * n), 7.0f), {m, n});
    cpu_->linear(cpu_x, cpu_w, cpu_bias, act, cpu_y);
    gpu_->linear(gpu_x, gpu_w, gpu_bias, act, gpu_y);
    EXPECT_LE(worst_difference(cpu_->download_f32(cpu_y), gpu_->download_f32(gpu_y)), kOpTolerance)
        << m << "×" << k << " · (" << n << "×" << k << ")ᵀ";
  }

  std::unique_ptr<Backend> cpu_, gpu_;
  std::unique_ptr<WeightStore> cpu_store_, gpu_store_;
  std::unique_ptr<Arena> cpu_arena_, gpu_arena_;
};

TEST_F(OpenClF16Test, StoresMatricesInHalfAndEverythingElseInF32) {
  const auto values = random_values(6, 4);
  const Tensor matrix = gpu_store_->add(values, {3, 2}, WeightUse::Matrix);
  EXPECT_EQ(matrix.dtype, DType::F16);
  EXPECT_EQ(gpu_store_->bytes(), 12u);
  const Tensor vector = gpu_store_->add(values, {6}, WeightUse::Any);
  EXPECT_EQ(vector.dtype, DType::F32);
  EXPECT_EQ(gpu_->download_f32(vector), values);
  EXPECT_EQ(gpu_store_->bytes(), 12u + 24u);

  // F16 sources are stored as they are (bit for bit), F32 and BF16 ones rounded.
  const std::vector<std::uint16_t> bits = {0x3E00, 0xC000, 0x7BFF, 0x0001};  // 1.5, −2, 65504, a subnormal
  const Tensor stored = gpu_store_->add(half_data(bits, {2, 2}), WeightUse::Matrix);
  std::vector<std::uint16_t> back(4);
  gpu_->download(stored, back.data());
  EXPECT_EQ(back, bits);
  back.resize(values.size());
  gpu_->download(matrix, back.data());
  EXPECT_EQ(back, half_bits(values));

  // A value half precision cannot hold fails, naming it; the f32 default store keeps matrices F32.
  EXPECT_THROW(
      {
        try {
          gpu_store_->add(std::vector<float>{1.0f, 70000.0f}, {1, 2}, WeightUse::Matrix);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("70000"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
  auto f32_store = make_backend("opencl", {.threads = 1})->make_weight_store();
  EXPECT_EQ(f32_store->add(values, {3, 2}, WeightUse::Matrix).dtype, DType::F32);
  EXPECT_EQ(f32_store->bytes(), 24u);
}

TEST_F(OpenClF16Test, LinearWithHalfWeightsMatchesTheCpuOnRoundedWeights) {
  expect_linear_matches(5, 33, 17, Activation::None);
  expect_linear_matches(1, 64, 130, Activation::GeluErf);
  expect_linear_matches(3, 1, 9, Activation::Relu);
  // More weight elements than the widening scratch holds (4 Mi floats): blocks of rows.
  expect_linear_matches(2, 3, (std::int64_t{4} << 20) / 3 + 5, Activation::None);
}

TEST_F(OpenClF16Test, GatherRowsFromAHalfTableMatchesTheCpu) {
  const std::int64_t rows = 37, cols = 70;
  const auto table = random_values(rows * cols, 5);
  const Tensor gpu_table = gpu_store_->add(table, {rows, cols}, WeightUse::Table);
  ASSERT_EQ(gpu_table.dtype, DType::F16);
  const Tensor cpu_table = cpu_store_->add(rounded(table), {rows, cols}, WeightUse::Any);
  const std::vector<std::int32_t> ids = {0, 36, 5, 5, 12};
  const Tensor cpu_ids = cpu_arena_->alloc(DType::I32, {5}), gpu_ids = gpu_arena_->alloc(DType::I32, {5});
  cpu_->upload(ids.data(), cpu_ids);
  gpu_->upload(ids.data(), gpu_ids);
  const auto [cpu_out, gpu_out] = activation(random_values(5 * cols, 6), {5, cols});
  for (const bool accumulate : {false, true}) {
    cpu_->gather_rows(cpu_table, cpu_ids, 2.5f, accumulate, cpu_out);
    gpu_->gather_rows(gpu_table, gpu_ids, 2.5f, accumulate, gpu_out);
    // One rounding per product and sum on both sides: bit-identical.
    EXPECT_EQ(cpu_->download_f32(cpu_out), gpu_->download_f32(gpu_out)) << "accumulate " << accumulate;
  }
}

TEST_F(OpenClF16Test, HalfOperandsAreRejectedWhereTheyAreNotAllowed) {
  const Tensor w = gpu_store_->add(random_values(6, 7), {3, 2}, WeightUse::Matrix);
  const auto [cpu_x, gpu_x] = activation(random_values(4, 8), {2, 2});
  const auto [cpu_y, gpu_y] = activation(random_values(6, 9), {2, 3});
  EXPECT_THROW(gpu_->gemm(false, true, 1.0f, gpu_x, w, 0.0f, gpu_y), Error);  // only linear and gather_rows
  EXPECT_THROW(gpu_->layer_norm(gpu_y, {}, w.reshaped({6}), w.reshaped({6}), 1e-5f, gpu_y), Error);
  // The CPU backend takes no F16 weights, and refuses to store them.
  const Tensor cpu_half = cpu_arena_->alloc(DType::F16, {3, 2});
  try {
    cpu_->linear(cpu_x, cpu_half, {}, Activation::None, cpu_y);
    ADD_FAILURE() << "the CPU backend took an F16 weight";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("w must be F32, not F16"), std::string::npos) << e.what();
  }
  const Tensor cpu_ids = cpu_arena_->alloc(DType::I32, {2});
  EXPECT_THROW(cpu_->gather_rows(cpu_half, cpu_ids, 1.0f, false, cpu_y.reshaped({3, 2}).rows(0, 2)), Error);
  try {
    make_backend("cpu", {.threads = 1, .weights = WeightType::F16});
    ADD_FAILURE() << "the CPU backend accepted f16 weights";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cpu device stores weights in f32 or int8"), std::string::npos) << e.what();
  }
}

// A copy of a fixture folder with each tensor as `rewrite` makes it from its name and data.
template <typename Rewrite>
std::string rewritten_copy(const std::string& folder, Rewrite rewrite) {
  const auto source = ModelSource::open(folder);
  const std::string dir = test::temp_dir();
  for (const std::string& name : source->file_names()) test::write_file(dir + "/" + name, source->read_file(name));
  std::vector<test::RawTensor> tensors;
  for (const std::string& name : source->tensor_names()) tensors.push_back(rewrite(name, source->tensor(name)));
  test::write_file(dir + "/model.safetensors", test::make_safetensors(tensors));
  return dir;
}

test::RawTensor as_stored(const std::string& name, const TensorData& data) {
  return {name, dtype_name(data.dtype), data.shape, std::string(reinterpret_cast<const char*>(data.data), data.nbytes)};
}

// A copy of a fixture folder whose weight matrices (floating, rank 2, not a bias: what the models
// store as WeightUse::Matrix) are F16, so the CPU backend computes with exactly the values an F16
// store holds.
std::string half_rounded_copy(const std::string& folder) {
  return rewritten_copy(folder, [](const std::string& name, const TensorData& data) {
    const bool matrix = is_floating(data.dtype) && data.shape.size() == 2 && name.find("bias") == std::string::npos;
    if (!matrix) return as_stored(name, data);
    return test::RawTensor{name, "F16", data.shape, test::bytes_of(half_bits(to_f32(data)))};
  });
}

std::vector<TokenIds> ids_of(const nlohmann::json& cases, const char* field) {
  std::vector<TokenIds> ids;
  for (const auto& c : cases) ids.push_back(c.at(field).get<TokenIds>());
  return ids;
}

// Weights in half take half the bytes, less what stays F32 (biases, norms: a few percent here).
void expect_about_half(std::size_t f16_bytes, std::size_t f32_bytes) {
  EXPECT_GT(f16_bytes, f32_bytes / 2);
  EXPECT_LT(f16_bytes, f32_bytes * 55 / 100) << f16_bytes << " of " << f32_bytes << " bytes";
}

TEST_F(OpenClF16Test, EncoderMatchesTheCpuOnRoundedWeights) {
  const std::string folder = test::fixture("core/xlmr");
  const auto golden = test::load_json(folder + "/golden.json");
  const auto source = ModelSource::open(folder), rounded_source = ModelSource::open(half_rounded_copy(folder));
  auto f32_gpu = make_backend("opencl", {.threads = 1});
  EncoderModel on_cpu(*rounded_source, *cpu_), on_gpu(*source, *gpu_), on_f32_gpu(*source, *f32_gpu);
  expect_about_half(on_gpu.weight_bytes(), on_f32_gpu.weight_bytes());

  std::vector<Encoding> inputs;
  for (const TokenIds& ids : ids_of(golden.at("cases"), "input_ids")) inputs.push_back({.ids = ids});
  const auto cpu_layers = on_cpu.all_hidden_states(inputs), gpu_layers = on_gpu.all_hidden_states(inputs);
  ASSERT_EQ(cpu_layers.size(), gpu_layers.size());
  for (std::size_t layer = 0; layer < cpu_layers.size(); ++layer) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_LE(worst_difference(cpu_layers[layer][i], gpu_layers[layer][i]), kModelTolerance)
          << "layer " << layer << ", input " << i;
    }
  }
}

TEST_F(OpenClF16Test, Seq2SeqMatchesTheCpuOnRoundedWeights) {
  const std::string folder = test::fixture("core/marian");
  const auto golden = test::load_json(folder + "/golden.json");
  const auto source = ModelSource::open(folder), rounded_source = ModelSource::open(half_rounded_copy(folder));
  auto f32_gpu = make_backend("opencl", {.threads = 1});
  Seq2SeqModel on_cpu(*rounded_source, *cpu_), on_gpu(*source, *gpu_), on_f32_gpu(*source, *f32_gpu);
  expect_about_half(on_gpu.weight_bytes(), on_f32_gpu.weight_bytes());

  const std::vector<TokenIds> sources = ids_of(golden.at("cases"), "input_ids");
  const std::vector<TokenIds> targets = ids_of(golden.at("cases"), "decoder_input_ids");
  // One source at a time: no padding, so every value compared is specified.
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::vector<TokenIds> one_source{sources[i]}, one_target{targets[i]};
    EXPECT_LE(worst_difference(on_cpu.encode(one_source), on_gpu.encode(one_source)), kModelTolerance)
        << "encoder states of source " << i;
    EXPECT_LE(worst_difference(on_cpu.decoder_logits(one_source, one_target),
                               on_gpu.decoder_logits(one_source, one_target)),
              kModelTolerance)
        << "decoder logits of source " << i;
  }

  SearchSettings beam = on_cpu.default_settings();
  beam.num_beams = 4;
  beam.num_return_sequences = 2;
  beam.max_length = 24;
  const auto cpu_hypotheses = on_cpu.generate(sources, beam), gpu_hypotheses = on_gpu.generate(sources, beam);
  ASSERT_EQ(cpu_hypotheses.size(), gpu_hypotheses.size());
  for (std::size_t s = 0; s < cpu_hypotheses.size(); ++s) {
    ASSERT_EQ(cpu_hypotheses[s].size(), gpu_hypotheses[s].size());
    for (std::size_t h = 0; h < cpu_hypotheses[s].size(); ++h) {
      EXPECT_EQ(cpu_hypotheses[s][h].ids, gpu_hypotheses[s][h].ids) << "source " << s << ", hypothesis " << h;
      EXPECT_NEAR(cpu_hypotheses[s][h].score, gpu_hypotheses[s][h].score, kModelTolerance);
    }
  }
}

TEST_F(OpenClF16Test, AWeightBeyondHalfRangeFailsNamingIt) {
  const std::string weight = "model.encoder.layers.0.fc1.weight";
  const auto too_large = [&](const std::string& name, const TensorData& data) {
    if (name != weight) return as_stored(name, data);
    std::vector<float> values = to_f32(data);
    values[3] = -1e5f;
    return test::RawTensor{name, "F32", data.shape, test::bytes_of(values)};
  };
  const std::string folder = rewritten_copy(test::fixture("core/marian"), too_large);
  const auto source = ModelSource::open(folder);
  try {
    Seq2SeqModel model(*source, *gpu_);
    ADD_FAILURE() << "a weight of -1e5 was stored in half precision";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'" + weight + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("-100000 is beyond half precision's range"), std::string::npos) << message;
  }
  auto f32_gpu = make_backend("opencl", {.threads = 1});
  EXPECT_NO_THROW(Seq2SeqModel(*source, *f32_gpu));
}

TEST_F(OpenClF16Test, TheCliTakesWeightsF16OnOpenClOnlyAndInt8OnCpuOnly) {
  const std::string folder = test::fixture("core/marian");
  const auto golden = test::load_json(folder + "/golden.json");
  std::string input;
  for (const auto& c : golden.at("cases")) input += c.at("text").get<std::string>() + "\n";
  const std::vector<std::string> translate = {"translate", "--beam", "2", "--max-length", "24", "--threads", "1"};
  auto with = [&](std::vector<std::string> extra, const std::string& model) {
    std::vector<std::string> args = translate;
    args.insert(args.end(), {"-m", model});
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_cli(args, input);
  };
  const test::CliResult f16 = with({"--device", "opencl", "--weights", "f16"}, folder);
  const test::CliResult cpu = with({}, half_rounded_copy(folder));
  ASSERT_EQ(f16.exit_code, 0) << f16.err;
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_EQ(f16.out, cpu.out);
  EXPECT_FALSE(f16.out.empty());

  const test::CliResult refused = with({"--weights", "f16"}, folder);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("the cpu device stores weights in f32 or int8"), std::string::npos) << refused.err;
  const test::CliResult int8 = with({"--device", "opencl", "--weights", "int8"}, folder);
  EXPECT_EQ(int8.exit_code, 1);
  EXPECT_NE(int8.err.find("int8 weights need the cpu device"), std::string::npos) << int8.err;
  const test::CliResult unknown = with({"--device", "opencl", "--weights", "f8"}, folder);
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("f8 not in {f32,f16,int8}"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace invar

#endif  // INVAR_WITH_OPENCL
