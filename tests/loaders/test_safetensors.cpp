#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "loaders/model_source.hpp"
#include "loaders/safetensors.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;
using test::make_model_folder;
using test::make_safetensors;
using test::make_safetensors_raw;

namespace {

// The error message ModelSource::open gives for a folder whose model.safetensors is `bytes`.
std::string open_error(const std::string& bytes) {
  const std::string dir = make_model_folder({{"model.safetensors", bytes}});
  try {
    ModelSource::open(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kFloats = test::bytes_of(std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});

}  // namespace

TEST(Safetensors, FixtureTensorsAreViewsOfTheFileBytes) {
  const std::string path = test::fixture("core/bert-wordpiece");
  const auto source = ModelSource::open(path);
  const std::string file = test::read_file(path + "/model.safetensors");
  std::uint64_t header_size = 0;
  std::memcpy(&header_size, file.data(), 8);
  const auto header = nlohmann::json::parse(file.substr(8, header_size));

  std::size_t checked = 0;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    ASSERT_TRUE(source->has_tensor(name)) << name;
    const TensorData tensor = source->tensor(name);
    EXPECT_EQ(dtype_name(tensor.dtype), entry["dtype"].get<std::string>()) << name;
    EXPECT_EQ(tensor.shape, entry["shape"].get<std::vector<std::int64_t>>()) << name;
    const std::size_t begin = entry["data_offsets"][0], end = entry["data_offsets"][1];
    ASSERT_EQ(tensor.nbytes, end - begin) << name;
    EXPECT_EQ(std::memcmp(tensor.data, file.data() + 8 + header_size + begin, tensor.nbytes), 0) << name;
    // A view, not a copy: asking again gives the same bytes at the same address.
    EXPECT_EQ(source->tensor(name).data, tensor.data) << name;
    ++checked;
  }
  EXPECT_EQ(checked, source->tensor_names().size());
  EXPECT_EQ(checked, 40u);
  const TensorData embeddings = source->tensor("embeddings.word_embeddings.weight");
  EXPECT_EQ(embeddings.shape, (std::vector<std::int64_t>{171, 32}));
  EXPECT_EQ(embeddings.numel(), 171 * 32);
  EXPECT_EQ(source->tensor("embeddings.position_ids").dtype, DType::I64);
  EXPECT_FALSE(source->has_tensor("no.such.weight"));
  EXPECT_THROW(source->tensor("no.such.weight"), Error);
}

TEST(Safetensors, HalfAndBfloat16ConvertExactly) {
  // binary16: 1, -2, the smallest subnormal 2^-24, the largest finite 65504, +inf, -0.
  const std::vector<std::uint16_t> halves{0x3C00, 0xC000, 0x0001, 0x7BFF, 0x7C00, 0x8000, 0x0200};
  // bfloat16: 1, 3.140625, -2^-133 (subnormal), 1.5 * 2^127.
  const std::vector<std::uint16_t> brains{0x3F80, 0x4049, 0x8001, 0x7F40};
  const auto dir = make_model_folder({{"model.safetensors",
                                       make_safetensors({{"h", "F16", {7}, test::bytes_of(halves)},
                                                         {"b", "BF16", {2, 2}, test::bytes_of(brains)}})}});
  const auto source = ModelSource::open(dir);
  const auto h = to_f32(source->tensor("h"));
  ASSERT_EQ(h.size(), 7u);
  EXPECT_EQ(h[0], 1.0f);
  EXPECT_EQ(h[1], -2.0f);
  EXPECT_EQ(h[2], std::ldexp(1.0f, -24));
  EXPECT_EQ(h[3], 65504.0f);
  EXPECT_TRUE(std::isinf(h[4]) && h[4] > 0);
  EXPECT_TRUE(h[5] == 0.0f && std::signbit(h[5]));
  EXPECT_EQ(h[6], std::ldexp(1.0f, -15));  // subnormal 0x200 = 2^-1 * 2^-14
  const auto b = to_f32(source->tensor("b"));
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0], 1.0f);
  EXPECT_EQ(b[1], 3.140625f);
  EXPECT_EQ(b[2], -std::ldexp(1.0f, -133));
  EXPECT_EQ(b[3], std::ldexp(1.5f, 127));
}

TEST(Safetensors, IntegerTensorsLoadButDoNotConvertToFloat) {
  const auto dir = make_model_folder(
      {{"model.safetensors", make_safetensors({{"ids", "I64", {3}, test::bytes_of(std::vector<std::int64_t>{5, -1, 9})},
                                               {"small", "I32", {1}, test::bytes_of(std::vector<std::int32_t>{7})}})}});
  const auto source = ModelSource::open(dir);
  const TensorData ids = source->tensor("ids");
  ASSERT_EQ(ids.nbytes, 24u);
  std::int64_t second = 0;
  std::memcpy(&second, ids.data + 8, 8);
  EXPECT_EQ(second, -1);
  EXPECT_THROW(to_f32(ids), Error);
}

TEST(Safetensors, MisalignedDataIsCopiedToAlignedMemory) {
  // A header of odd length puts the F32 data at an odd address in the mapping.
  const auto dir = make_model_folder({{"model.safetensors", make_safetensors({{"w", "F32", {2, 3}, kFloats}}, 1)}});
  const auto source = ModelSource::open(dir);
  const TensorData w = source->tensor("w");
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.data) % alignof(float), 0u);
  EXPECT_EQ(to_f32(w), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Safetensors, ShardedCheckpointLoadsEveryShard) {
  const std::string index = R"({"metadata": {}, "weight_map": {"a": "model-00001-of-00002.safetensors",
                                                                "b": "model-00002-of-00002.safetensors"}})";
  const auto dir = make_model_folder(
      {{"model.safetensors.index.json", index},
       {"model-00001-of-00002.safetensors", make_safetensors({{"a", "F32", {6}, kFloats}})},
       {"model-00002-of-00002.safetensors", make_safetensors({{"b", "F32", {3, 2}, kFloats}})}});
  const auto source = ModelSource::open(dir);
  EXPECT_EQ(source->tensor_names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(to_f32(source->tensor("b")), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Safetensors, ShardNamesCannotLeaveTheFolder) {
  const auto dir = make_model_folder(
      {{"model.safetensors.index.json", R"({"weight_map": {"a": "../elsewhere.safetensors"}})"}});
  try {
    ModelSource::open(dir);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'../elsewhere.safetensors' points outside the model"), std::string::npos)
        << e.what();
  }
}

TEST(Safetensors, TheSameTensorInTwoShardsIsAnError) {
  const std::string index = R"({"weight_map": {"a": "one.safetensors", "b": "two.safetensors"}})";
  const auto dir = make_model_folder({{"model.safetensors.index.json", index},
                                      {"one.safetensors", make_safetensors({{"a", "F32", {6}, kFloats}})},
                                      {"two.safetensors", make_safetensors({{"a", "F32", {6}, kFloats}})}});
  EXPECT_THROW(ModelSource::open(dir), Error);
}

TEST(SafetensorsErrors, TruncatedHeader) {
  EXPECT_NE(open_error(std::string("\x10\x00\x00", 3)).find("model.safetensors: truncated safetensors file: 3 bytes"),
            std::string::npos);
  const std::string whole = make_safetensors({{"w", "F32", {6}, kFloats}});
  // The length says 8 + N bytes of header; cut the file inside the header.
  EXPECT_NE(open_error(whole.substr(0, 20)).find("truncated safetensors header: it declares"), std::string::npos)
      << open_error(whole.substr(0, 20));
}

TEST(SafetensorsErrors, OffsetsPastEndOfFile) {
  const std::string bytes =
      make_safetensors_raw(R"({"w": {"dtype": "F32", "shape": [6], "data_offsets": [0, 24]}})", kFloats.substr(0, 20));
  EXPECT_NE(open_error(bytes).find("tensor 'w': data_offsets [0, 24] run past the end of the file (20 data bytes)"),
            std::string::npos)
      << open_error(bytes);
}

TEST(SafetensorsErrors, OverlappingTensors) {
  const std::string bytes = make_safetensors_raw(
      R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
          "b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}})",
      kFloats);
  EXPECT_NE(open_error(bytes).find("tensors 'a' [0, 16] and 'b' [8, 16] overlap"), std::string::npos)
      << open_error(bytes);
}

TEST(SafetensorsErrors, DtypeShapeSizeMismatch) {
  const std::string bytes =
      make_safetensors_raw(R"({"w": {"dtype": "F16", "shape": [2, 3], "data_offsets": [0, 24]}})", kFloats);
  EXPECT_NE(open_error(bytes).find("tensor 'w': F16 [2,3] needs 12 bytes but data_offsets [0, 24] hold 24"),
            std::string::npos)
      << open_error(bytes);
}

TEST(SafetensorsErrors, OtherMalformedHeaders) {
  const auto expect = [](const std::string& header, const std::string& message) {
    const std::string error = open_error(make_safetensors_raw(header, kFloats));
    EXPECT_NE(error.find(message), std::string::npos) << header << " -> " << error;
  };
  expect("{not json", "safetensors header is not valid JSON");
  expect("[1, 2]", "safetensors header is not a JSON object");
  expect(R"({"w": {"dtype": "F64", "shape": [3], "data_offsets": [0, 24]}})", "tensor 'w' has dtype 'F64'");
  expect(R"({"w": {"dtype": "F32", "shape": [-6], "data_offsets": [0, 24]}})", "'shape' must hold non-negative");
  expect(R"({"w": {"dtype": "F32", "shape": [6], "data_offsets": [24, 0]}})", "run backwards");
  expect(R"({"w": {"dtype": "F32", "shape": [6]}})", "tensor 'w' has no 'data_offsets'");
  expect(R"({"w": {"dtype": "F32", "shape": [4611686018427387904, 4], "data_offsets": [0, 24]}})",
         "impossibly large");
  expect(R"({"__metadata__": {"format": 1}})", "'__metadata__' entry 'format' is not a string");
  expect(R"({"w": {"dtype": "F32", "shape": [[[[6]]]], "data_offsets": [0, 24]}})", "nests deeper");
}

TEST(SafetensorsErrors, HeaderParserChecksRawBuffers) {
  // The parser behind the fuzzer works on any buffer: an 8-byte length larger than the rest.
  const std::string bytes = test::le64(~std::uint64_t{0});
  EXPECT_THROW(parse_safetensors_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), "buffer"),
               Error);
  const std::string good = make_safetensors({{"w", "F32", {6}, kFloats}});
  const auto header = parse_safetensors_header(reinterpret_cast<const std::byte*>(good.data()), good.size(), "buffer");
  ASSERT_EQ(header.tensors.size(), 1u);
  EXPECT_EQ(header.tensors[0].end, 24u);
  EXPECT_EQ(header.data_start + 24, good.size());
}

TEST(ModelFolder, AuxiliaryFilesByRelativePath) {
  const auto source = ModelSource::open(test::fixture("core/bert-wordpiece"));
  EXPECT_TRUE(source->has_file("1_Pooling/config.json"));
  EXPECT_TRUE(source->has_file("vocab.txt"));
  EXPECT_FALSE(source->has_file("missing.txt"));
  EXPECT_FALSE(source->has_file("model.safetensors"));  // weights are tensors, not files
  EXPECT_EQ(source->read_file("sentence_bert_config.json"),
            test::read_file(test::fixture("core/bert-wordpiece/sentence_bert_config.json")));
  const auto files = source->file_names();
  for (const char* expected : {"1_Pooling/config.json", "config.json", "modules.json", "vocab.txt"})
    EXPECT_NE(std::find(files.begin(), files.end(), expected), files.end()) << expected;
  for (const char* weights : {"model.safetensors", "pytorch_model.bin"})
    EXPECT_EQ(std::find(files.begin(), files.end(), weights), files.end()) << weights;
  EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
  EXPECT_EQ(source->config_json()["hidden_size"], 32);
}

TEST(ModelFolder, PathsEscapingTheFolderAreRejected) {
  const auto source = ModelSource::open(test::fixture("core/bert-wordpiece"));
  for (const char* name : {"../marian/config.json", "/etc/passwd", "1_Pooling/../../xlmr/config.json", ""})
    EXPECT_THROW(source->read_file(name), Error) << name;
  EXPECT_THROW(source->has_file("../bert-pair-cls/vocab.txt"), Error);
}

TEST(ModelFolder, MissingConfigOrWeights) {
  const std::string empty = test::temp_dir();
  try {
    ModelSource::open(empty);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no config.json (not a Hugging Face model folder)"), std::string::npos);
  }
  try {
    ModelSource::open(make_model_folder({}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no weights"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ModelSource::open(empty + "/does-not-exist"), Error);
  EXPECT_THROW(ModelSource::open(make_model_folder({{"model.safetensors", "x"}}, "{broken")), Error);
}

// A zero-element tensor read from a checkpoint has no bytes: converting it gives no values (found
// by fuzz_pytorch_checkpoint, where UBSan caught memcpy from a null pointer).
TEST(ToF32, EmptyTensorWithoutBytesGivesNoValues) {
  const TensorData empty{.dtype = DType::F32, .shape = {0, 4}, .data = nullptr, .nbytes = 0};
  EXPECT_TRUE(to_f32(empty).empty());
  const TensorData half{.dtype = DType::F16, .shape = {0}, .data = nullptr, .nbytes = 0};
  EXPECT_TRUE(to_f32(half).empty());
}
