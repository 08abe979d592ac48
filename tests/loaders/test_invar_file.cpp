#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <set>

#include "core/error.hpp"
#include "core/quantize.hpp"
#include "engine/int8_weights.hpp"
#include "engine/text/tokenizer.hpp"
#include "loaders/invar_file.hpp"
#include "loaders/model_source.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

const std::vector<std::string> kFixtures{"core/bert-pair-cls", "core/bert-wordpiece", "core/marian",
                                         "core/xlmr",          "core/xlmr-mlm",       "core/xlmr-pair-cls",
                                         "core/xlmr-regression", "seq2seq/bart",    "seq2seq/m2m100",
                                         "seq2seq/mbart",      "seq2seq/pegasus",     "seq2seq/t5",
                                         "core/distilbert",    "core/distilbert-sst2", "core/electra",
                                         "core/electra-pair-cls", "core/albert",      "core/albert-pair-cls",
                                         "core/deberta-v3",    "core/deberta-v3-nli"};

std::string convert(const std::string& folder, std::optional<DType> dtype = std::nullopt) {
  const std::string path = test::temp_dir() + "/model.invar";
  std::ofstream out(path, std::ios::binary);
  write_invar_file(*ModelSource::open(folder), out, dtype);
  out.close();
  return path;
}

// The error opening the file and reading every tensor and file in it (a file with block hashes has
// its data checked as it is read), or "(no error)".
std::string open_error(const std::string& path) {
  try {
    const auto source = ModelSource::open(path);
    for (const auto& name : source->tensor_names()) source->tensor(name);
    for (const auto& name : source->file_names()) source->read_file(name);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_error(const std::string& path, const std::string& expected) {
  const std::string message = open_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

// An independent oracle for rounding to binary16 / bfloat16: the nearest of all finite values of
// the format (found by bisection over their bit patterns, which order positive values), ties to the
// even pattern; beyond the largest finite value, infinity from half an ulp above it.
std::uint16_t nearest_bits(float value, DType dtype) {
  const std::uint16_t max_finite = dtype == DType::F16 ? 0x7BFF : 0x7F7F;
  const std::uint16_t infinity = dtype == DType::F16 ? 0x7C00 : 0x7F80;
  const auto decode = [&](std::uint16_t bits) {
    TensorData t{dtype, {1}, reinterpret_cast<const std::byte*>(&bits), 2};
    return static_cast<double>(to_f32(t)[0]);
  };
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const double magnitude = std::fabs(static_cast<double>(value));
  const double top = decode(max_finite), ulp = top - decode(max_finite - 1);
  if (magnitude >= top + ulp / 2) return sign | infinity;
  std::uint16_t lo = 0, hi = max_finite;  // decode(lo) <= magnitude < decode(hi) once narrowed
  if (magnitude >= top) return sign | max_finite;
  while (hi - lo > 1) {
    const auto mid = static_cast<std::uint16_t>((lo + hi) / 2);
    (decode(mid) <= magnitude ? lo : hi) = mid;
  }
  const double below = magnitude - decode(lo), above = decode(hi) - magnitude;
  const std::uint16_t pick = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
  return sign | pick;
}

}  // namespace

TEST(InvarFile, EveryFixtureRoundTripsBitForBit) {
  for (const auto& name : kFixtures) {
    SCOPED_TRACE(name);
    const auto folder = ModelSource::open(test::fixture(name));
    const auto packed = ModelSource::open(convert(test::fixture(name)));
    EXPECT_EQ(packed->config_json(), folder->config_json());
    ASSERT_EQ(packed->file_names(), folder->file_names());
    EXPECT_TRUE(packed->has_file("config.json"));
    for (const auto& file : folder->file_names()) EXPECT_EQ(packed->read_file(file), folder->read_file(file)) << file;
    ASSERT_EQ(packed->tensor_names(), folder->tensor_names());
    for (const auto& tensor : folder->tensor_names()) {
      const TensorData a = folder->tensor(tensor), b = packed->tensor(tensor);
      EXPECT_EQ(b.dtype, a.dtype) << tensor;
      EXPECT_EQ(b.shape, a.shape) << tensor;
      ASSERT_EQ(b.nbytes, a.nbytes) << tensor;
      EXPECT_EQ(std::memcmp(a.data, b.data, a.nbytes), 0) << tensor;
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data) % 64, 0u) << tensor;
    }
  }
}

TEST(InvarFile, SentenceTransformerModulesAndTokenizerWorkFromTheFile) {
  const std::string folder = test::fixture("core/bert-wordpiece");
  const auto packed = ModelSource::open(convert(folder));
  EXPECT_TRUE(packed->has_file("modules.json"));
  EXPECT_TRUE(packed->has_file("1_Pooling/config.json"));
  EXPECT_FALSE(packed->has_file("model.safetensors"));
  const auto golden = test::load_json(folder + "/golden.json");
  const auto from_file = make_tokenizer(*packed);
  const auto from_folder = make_tokenizer(*ModelSource::open(folder));
  const std::string text = "The quick brown fox jumps over the lazy dog.";
  EXPECT_EQ(from_file->encode(text).ids, from_folder->encode(text).ids);
}

TEST(InvarFile, ConvertCommandWritesAFileEveryCommandCanOpen) {
  const std::string out = test::temp_dir() + "/m.invar";
  const auto result = test::run_cli({"convert", test::fixture("seq2seq/t5"), "-o", out});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto packed = ModelSource::open(out);
  EXPECT_EQ(packed->tensor_names(), ModelSource::open(test::fixture("seq2seq/t5"))->tensor_names());

  const auto bad = test::run_cli({"convert", test::fixture("seq2seq/t5"), "-o", out, "--dtype", "f8"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--dtype must be f32, f16, bf16 or int8"), std::string::npos) << bad.err;
  const auto missing = test::run_cli({"convert", "/no/such/model", "-o", out});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/no/such/model: no such model folder or file"), std::string::npos) << missing.err;
}

TEST(InvarFile, HalfAndBfloat16AreRoundedToNearestEven) {
  // Edge cases (exact ties, subnormals, overflow, signed zero, infinities) and random values over
  // many magnitudes.
  std::vector<float> values{0.0f, -0.0f, 1.0f, 1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11),
                            1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8), 65504.0f, 65519.99f,
                            65520.0f, -70000.0f, std::ldexp(1.0f, -24), std::ldexp(1.0f, -25),
                            std::ldexp(3.0f, -26), std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26), 3.0e38f,
                            3.4e38f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-30, 20);
  for (int i = 0; i < 2000; ++i) values.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  values.push_back(std::numeric_limits<float>::quiet_NaN());
  const std::vector<std::int64_t> ids{3, 1, 4};
  const std::string folder = test::make_model_folder(
      {{"model.safetensors",
        test::make_safetensors({{"w", "F32", {static_cast<std::int64_t>(values.size())}, test::bytes_of(values)},
                                {"ids", "I64", {3}, test::bytes_of(ids)}})}});

  for (DType dtype : {DType::F16, DType::BF16}) {
    SCOPED_TRACE(dtype_name(dtype));
    const auto packed = ModelSource::open(convert(folder, dtype));
    const TensorData w = packed->tensor("w");
    ASSERT_EQ(w.dtype, dtype);
    ASSERT_EQ(w.nbytes, values.size() * 2);
    std::vector<std::uint16_t> bits(values.size());
    std::memcpy(bits.data(), w.data, w.nbytes);
    for (std::size_t i = 0; i + 1 < values.size(); ++i)
      EXPECT_EQ(bits[i], nearest_bits(values[i], dtype)) << values[i];
    EXPECT_TRUE(std::isnan(to_f32(w).back()));
    const TensorData kept = packed->tensor("ids");
    EXPECT_EQ(kept.dtype, DType::I64);
    EXPECT_EQ(std::memcmp(kept.data, ids.data(), 24), 0);
  }
}

TEST(InvarFile, FixtureInHalfPrecisionThroughTheCli) {
  const std::string folder = test::fixture("core/bert-wordpiece");
  const auto source = ModelSource::open(folder);
  for (const auto& [flag, dtype] : {std::pair{"f16", DType::F16}, std::pair{"bf16", DType::BF16}}) {
    const std::string out = test::temp_dir() + "/m.invar";
    const auto result = test::run_cli({"convert", folder, "-o", out, "--dtype", flag});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto packed = ModelSource::open(out);
    for (const auto& name : source->tensor_names()) {
      const TensorData original = source->tensor(name), rounded = packed->tensor(name);
      if (original.dtype != DType::F32) {
        EXPECT_EQ(rounded.dtype, original.dtype) << name;
        continue;
      }
      ASSERT_EQ(rounded.dtype, dtype) << name;
      const auto values = to_f32(original);
      std::vector<std::uint16_t> bits(values.size());
      ASSERT_EQ(rounded.nbytes, bits.size() * 2);
      std::memcpy(bits.data(), rounded.data, rounded.nbytes);
      for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(bits[i], nearest_bits(values[i], dtype)) << name << i;
    }
  }
}

namespace {

void put(std::string& bytes, std::size_t at, std::uint64_t value, int width) {
  for (int i = 0; i < width; ++i) bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xFF);
}
std::uint32_t crc(const std::string& bytes) {
  return static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
}

// An .invar file written from docs/model-format.md, independently of the writer: preamble, header,
// padding to 64, data, with correct checksums unless the caller breaks them afterwards.
std::string make_invar(const std::string& header, const std::string& data, std::uint32_t version = 1) {
  const std::uint64_t data_offset = (64 + header.size() + 63) / 64 * 64;
  std::string file(64, '\0');
  file.replace(0, 8, "INVARMDL");
  put(file, 8, version, 4);
  put(file, 16, 64, 8);
  put(file, 24, header.size(), 8);
  put(file, 32, data_offset, 8);
  put(file, 40, data.size(), 8);
  put(file, 48, crc(header), 4);
  put(file, 52, crc(data), 4);
  put(file, 56, crc(file.substr(0, 56)), 4);
  file += header;
  file.resize(data_offset, '\0');
  file += data;
  const std::string path = test::temp_dir() + "/model.invar";
  test::write_file(path, file);
  return path;
}

const std::string kConfig = R"({"model_type": "bert"})";

// Data: config.json at 0, six floats at 64.
std::string data_with_config() {
  std::string data = kConfig;
  data.resize(64, '\0');
  return data + test::bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6});
}
std::string header_with(const std::string& tensor) {
  return R"({"files": [{"name": "config.json", "offset": 0, "size": )" + std::to_string(kConfig.size()) +
         R"(}], "tensors": [)" + tensor + "]}";
}

}  // namespace

TEST(InvarFile, HandWrittenFileFollowsTheDocumentedLayout) {
  const auto source = ModelSource::open(
      make_invar(header_with(R"({"name": "w", "dtype": "F32", "shape": [2, 3], "offset": 64, "size": 24})"),
                 data_with_config()));
  EXPECT_EQ(source->config_json()["model_type"], "bert");
  EXPECT_EQ(to_f32(source->tensor("w")), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(InvarFile, CorruptedFilesGiveClearErrors) {
  const std::string good = test::read_file(convert(test::fixture("core/xlmr")));
  const auto variant = [](std::string bytes) {
    const std::string path = test::temp_dir() + "/model.invar";
    test::write_file(path, bytes);
    return path;
  };
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  expect_error(variant(bad_magic), "bad magic");
  expect_error(variant(good.substr(0, 40)), "truncated .invar file");
  expect_error(variant(good.substr(0, 100)), "truncated .invar header");
  expect_error(variant(good.substr(0, good.size() - 1)), "truncated or padded");
  expect_error(variant(good + "x"), "truncated or padded");
  std::string flipped_data = good;
  flipped_data[good.size() - 5] ^= 1;
  expect_error(variant(flipped_data), "data checksum mismatch");
  std::string flipped_header = good;
  flipped_header[70] ^= 1;
  expect_error(variant(flipped_header), "header checksum mismatch");
  std::string flipped_preamble = good;
  flipped_preamble[24] ^= 1;
  expect_error(variant(flipped_preamble), "preamble checksum mismatch");
}

namespace {

std::uint64_t get_le(const std::string& bytes, std::size_t at, int size) {
  std::uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

// A converted file's data offset and header.
std::pair<std::size_t, nlohmann::json> layout_of(const std::string& file) {
  return {get_le(file, 32, 8), nlohmann::json::parse(file.substr(64, get_le(file, 24, 8)))};
}

}  // namespace

// The writer hashes every block of the data (XXH3, kInvarBlockBytes each); a reader checks the
// blocks of a tensor, a file or a table's rows when it first reads them instead of the whole data
// CRC on open, and verify_all (invar info) checks every block and the CRC.
TEST(InvarFile, BlocksAreCheckedWhenFirstRead) {
  constexpr std::int64_t kRows = 3000, kCols = 64;  // 768,000 bytes: three blocks of 256 KiB
  std::vector<float> table(static_cast<std::size_t>(kRows * kCols));
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i % 977) / 977.0f;
  const auto folder = test::make_model_folder({{"model.safetensors",
      test::make_safetensors({{"table", "F32", {kRows, kCols}, test::bytes_of(table)},
                              {"a", "F32", {6}, test::bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6})}})}});
  const std::string good = test::read_file(convert(folder));
  const auto [data_offset, header] = layout_of(good);
  ASSERT_EQ(header["blocks"]["size"], kInvarBlockBytes);
  ASSERT_EQ(header["blocks"]["xxh3"].get<std::string>().size(), 16u * 3);
  std::size_t table_offset = 0;
  for (const auto& tensor : header["tensors"])
    if (tensor["name"] == "table") table_offset = tensor["offset"].get<std::size_t>();
  constexpr std::int32_t kBroken = 2500;  // in the third block
  std::string flipped = good;
  flipped[data_offset + table_offset + kBroken * kCols * 4 + 8] ^= 1;
  const std::string path = test::temp_dir() + "/flipped.invar";
  test::write_file(path, flipped);

  const auto source = ModelSource::open(path);  // nothing of the table read yet
  EXPECT_EQ(to_f32(source->tensor("a")), (std::vector<float>{1, 2, 3, 4, 5, 6}));  // in block 0
  const TensorData rows = source->table("table");
  const std::vector<std::int32_t> early{0, 1, 700};
  EXPECT_EQ(test::error_of([&] { source->check_rows("table", rows, early); }), "(no error)");
  const std::vector<std::int32_t> late{kBroken};
  const std::string message = test::error_of([&] { source->check_rows("table", rows, late); });
  EXPECT_NE(message.find(path + ": data checksum mismatch in tensor 'table' (block 2, "), std::string::npos) << message;
  EXPECT_NE(test::error_of([&] { source->tensor("table"); }).find("data checksum mismatch in tensor 'table'"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { ModelSource::open(path)->verify_all(); }).find("data checksum mismatch"), std::string::npos);
  EXPECT_EQ(test::error_of([&] { ModelSource::open(convert(folder))->verify_all(); }), "(no error)");

  // The hashes are the header's to give right: a count or a digit that does not fit is refused.
  const std::string header_text = header.dump();
  auto spoiled = header;
  spoiled["blocks"]["xxh3"] = header["blocks"]["xxh3"].get<std::string>().substr(16);
  const std::string data = good.substr(data_offset);
  expect_error(make_invar(spoiled.dump(), data),
               fmt::format("32 hex digits of block hashes, but the {} bytes of data need 48", data.size()));
  spoiled["blocks"]["xxh3"] = "g" + header["blocks"]["xxh3"].get<std::string>().substr(1);
  expect_error(make_invar(spoiled.dump(), data), "block hash 0 is not 16 hex digits");
  spoiled["blocks"] = {{"size", 100}, {"xxh3", ""}};
  expect_error(make_invar(spoiled.dump(), data), "block size 100 is not a multiple of 64");
  EXPECT_EQ(open_error(make_invar(header_text, data)), "(no error)");
}

TEST(InvarFile, LargeDataIsCheckedInTwoHalvesAsOneCrc) {
  // 72 MiB of data: past the size from which the reader splits the CRC across two threads.
  constexpr std::size_t kFloats = std::size_t{18} << 20;
  std::string data = kConfig;
  data.resize(64, '\0');
  std::vector<float> values(kFloats);
  for (std::size_t i = 0; i < kFloats; ++i) values[i] = static_cast<float>(i % 1000);
  data += test::bytes_of(values);
  const std::string header = header_with(R"({"name": "w", "dtype": "F32", "shape": [)" + std::to_string(kFloats) +
                                         R"(], "offset": 64, "size": )" + std::to_string(kFloats * 4) + "}");
  const std::string path = make_invar(header, data);
  EXPECT_EQ(open_error(path), "(no error)");
  const std::string good = test::read_file(path);
  const std::size_t data_offset = good.size() - data.size();
  for (const std::size_t at : {std::size_t{100}, data.size() / 2 - 1, data.size() / 2 + 1, data.size() - 1}) {
    std::string flipped = good;
    flipped[data_offset + at] ^= 1;
    const std::string flipped_path = test::temp_dir() + "/flipped.invar";
    test::write_file(flipped_path, flipped);
    expect_error(flipped_path, "data checksum mismatch");
  }
}

TEST(InvarFile, InconsistentHeadersAreRejected) {
  const std::string data = data_with_config();
  const auto header = [](const std::string& tensor) { return header_with(tensor); };
  expect_error(make_invar(header(R"({"name": "w", "dtype": "F32", "shape": [6], "offset": 128, "size": 24})"), data),
               "tensor 'w': [128, +24) runs past the end of the data (88 bytes)");
  expect_error(make_invar(header(R"({"name": "w", "dtype": "F32", "shape": [6], "offset": 68, "size": 20})"), data),
               "offset 68 is not 64-byte aligned");
  expect_error(make_invar(header(R"({"name": "w", "dtype": "F32", "shape": [2, 3], "offset": 64, "size": 16})"), data),
               "F32 [2,3] needs 24 bytes but 16 are stored");
  expect_error(make_invar(header(R"({"name": "w", "dtype": "F8", "shape": [6], "offset": 64, "size": 24})"), data),
               "dtype \"F8\" is not");
  expect_error(make_invar(header(R"({"name": "w", "dtype": "F32", "shape": [4], "offset": 0, "size": 16})"), data),
               "overlap");
  expect_error(make_invar(header(R"({"name": "w", "dtype": "F32", "shape": [-6], "offset": 64, "size": 24})"), data),
               "'shape' must hold non-negative integers");
  expect_error(make_invar(header(R"({"name": "w", "dtype": "F32", "shape": [6], "size": 24})"), data),
               "tensor 'w' has no 'offset'");
  expect_error(make_invar(R"({"files": [{"name": "../config.json", "offset": 0, "size": 4}], "tensors": []})", data),
               "points outside the model");
  expect_error(make_invar(R"({"files": [], "tensors": []})", data), "no config.json inside");
  expect_error(make_invar(R"({"files": []})", data), "no 'tensors' list");
  expect_error(make_invar("[1, 2", data), "not valid JSON");
  expect_error(make_invar(header_with(""), data, 2), "format version 2; this invar reads version 1");
}

// --- "finite": the writer's non-finite check, recorded -------------------------------------------

namespace {

// Data: config.json at 0, [1, 2, NaN, 4, 5, 6] at 64.
std::string data_with_nan() {
  std::string data = kConfig;
  data.resize(64, '\0');
  return data + test::bytes_of(std::vector<float>{1, 2, std::numeric_limits<float>::quiet_NaN(), 4, 5, 6});
}
const std::string kTensorW = R"({"name": "w", "dtype": "F32", "shape": [2, 3], "offset": 64, "size": 24)";

std::string check_finite_error(const std::string& path) {
  const auto source = ModelSource::open(path);
  try {
    source->check_finite("w", source->tensor("w"));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(InvarFile, FiniteMarksOnlyTheTensorsTheWriterFoundFinite) {
  // Unmarked (a file of an older writer): the reader scans the tensor and refuses it.
  EXPECT_NE(check_finite_error(make_invar(header_with(kTensorW + "}"), data_with_nan())).find("weight 'w' holds 1 "),
            std::string::npos);
  // The writer marks a finite tensor, and not one holding NaN, which its reader then still refuses.
  const std::string again = test::temp_dir() + "/again.invar";
  const auto marked = [&](const std::string& path) {
    std::ofstream out(again, std::ios::binary);
    write_invar_file(*ModelSource::open(path), out, std::nullopt);
    out.close();
    return test::read_file(again).find(R"("finite":true)") != std::string::npos;
  };
  EXPECT_TRUE(marked(make_invar(header_with(kTensorW + "}"), data_with_config())));
  EXPECT_FALSE(marked(make_invar(header_with(kTensorW + "}"), data_with_nan())));
  EXPECT_NE(check_finite_error(again).find("weight 'w' holds 1 "), std::string::npos);
  // A finite value rounded to F16 beyond its range becomes infinity: not marked either.
  std::string big = kConfig;
  big.resize(64, '\0');
  big += test::bytes_of(std::vector<float>{1, 2, 1e6f, 4, 5, 6});
  const std::string path = make_invar(header_with(kTensorW + "}"), big);
  const std::string half = test::temp_dir() + "/half.invar";
  std::ofstream out(half, std::ios::binary);
  write_invar_file(*ModelSource::open(path), out, DType::F16);
  out.close();
  EXPECT_EQ(test::read_file(half).find(R"("finite":true)"), std::string::npos);
  // A marked tensor is not scanned again: the data CRC vouches for the bytes the writer checked.
  EXPECT_EQ(check_finite_error(make_invar(header_with(kTensorW + R"(, "finite": true})"), data_with_nan())),
            "(no error)");
  expect_error(make_invar(header_with(kTensorW + R"(, "finite": 1})"), data_with_config()),
               "tensor 'w': 'finite' must be true or false");
}

// --- int8 tensors (invar convert --dtype int8) ---------------------------------------------------

namespace {

// Data: config.json at 0, an I8 [2, 3] matrix at 64, its two F32 scales at 128.
std::string int8_data(std::vector<float> scales = {0.5f, 2.0f}) {
  std::string data = kConfig;
  data.resize(64, '\0');
  data += test::bytes_of(std::vector<std::int8_t>{1, -2, 3, 127, -127, 0});
  data.resize(128, '\0');
  return data + test::bytes_of(scales);
}
std::string int8_tensor(const std::string& scales, const std::string& dtype = "I8", const std::string& shape = "[2, 3]",
                        int size = 6) {
  return header_with(R"({"name": "w", "dtype": ")" + dtype + R"(", "shape": )" + shape +
                     R"(, "offset": 64, "size": )" + std::to_string(size) + scales + "}");
}
const std::string kScales = R"(, "scales": {"dtype": "F32", "shape": [2], "offset": 128, "size": 8})";

std::string converted_by_cli(const std::string& model, const std::string& name, const std::vector<std::string>& dtype) {
  const std::string out = test::temp_dir() + "/" + name + ".invar";
  std::vector<std::string> args{"convert", model, "-o", out};
  args.insert(args.end(), dtype.begin(), dtype.end());
  const auto result = test::run_cli(args);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return out;
}

std::vector<float> scales_of(const TensorData& tensor) {
  return {tensor.scales, tensor.scales + tensor.shape.at(0)};
}

}  // namespace

TEST(InvarFile, Int8MatrixFollowsTheDocumentedLayout) {
  const auto source = ModelSource::open(make_invar(int8_tensor(kScales), int8_data()));
  const TensorData w = source->tensor("w");
  EXPECT_EQ(w.dtype, DType::I8);
  EXPECT_EQ(scales_of(w), (std::vector<float>{0.5f, 2.0f}));
  EXPECT_EQ(to_f32(w), (std::vector<float>{0.5f, -1.0f, 1.5f, 254.0f, -254.0f, 0.0f}));
}

TEST(InvarFile, CorruptInt8TensorsAreRejectedNamingTheTensor) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::string data = int8_data();
  expect_error(make_invar(int8_tensor(kScales), int8_data({0.5f, nan})),
               "tensor 'w' scales: the scale of row 1 is nan, not a finite number >= 0");
  expect_error(make_invar(int8_tensor(kScales), int8_data({inf, 1.0f})),
               "tensor 'w' scales: the scale of row 0 is inf, not a finite number >= 0");
  expect_error(make_invar(int8_tensor(kScales), int8_data({0.5f, -2.0f})),
               "tensor 'w' scales: the scale of row 1 is -2, not a finite number >= 0");
  expect_error(make_invar(int8_tensor(R"(, "scales": {"dtype": "F32", "shape": [3], "offset": 128, "size": 8})"), data),
               "tensor 'w' scales: shape [3] is not [2], one per row");
  expect_error(make_invar(int8_tensor(R"(, "scales": {"dtype": "F32", "shape": [2, 1], "offset": 128, "size": 8})"),
                          data),
               "tensor 'w' scales: shape [2,1] is not [2], one per row");
  expect_error(make_invar(int8_tensor(R"(, "scales": {"dtype": "F16", "shape": [2], "offset": 128, "size": 4})"), data),
               "tensor 'w' scales: dtype \"F16\" is not F32");
  expect_error(make_invar(int8_tensor(R"(, "scales": {"dtype": "F32", "shape": [2], "offset": 128, "size": 4})"), data),
               "tensor 'w' scales: F32 [2] needs 8 bytes but 4 are stored");
  expect_error(make_invar(int8_tensor(R"(, "scales": {"dtype": "F32", "shape": [2], "offset": 192, "size": 8})"), data),
               "tensor 'w' scales: [192, +8) runs past the end of the data");
  expect_error(make_invar(int8_tensor(R"(, "scales": {"dtype": "F32", "shape": [2], "offset": 64, "size": 8})"), data),
               "overlap");
  expect_error(make_invar(int8_tensor(R"(, "scales": [1, 2])"), data), "tensor 'w' scales has no 'dtype'");
  expect_error(make_invar(int8_tensor(""), data), "tensor 'w' has no 'scales'");
  expect_error(make_invar(int8_tensor(kScales, "I8", "[6]"), data),
               "tensor 'w': an I8 tensor must be a matrix, not 1-dimensional");
  expect_error(make_invar(int8_tensor(kScales, "F32", "[6]", 24), data_with_config() + std::string(40, '\0')),
               "tensor 'w': only an I8 tensor has 'scales', not a F32 one");
}

TEST(InvarFile, SafetensorsCannotHoldInt8WithoutScales) {
  const std::vector<std::int8_t> q{1, 2, 3, 4};
  const std::string folder =
      test::make_model_folder({{"model.safetensors", test::make_safetensors({{"w", "I8", {2, 2}, test::bytes_of(q)}})}});
  const std::string message = open_error(folder);
  EXPECT_NE(message.find("tensor 'w' has dtype 'I8'"), std::string::npos) << message;
}

// --dtype int8 stores exactly the matrices the runtime quantizes, with the q and scales of
// core/quantize.hpp (the routine --weights int8 packs); everything else is kept.
TEST(InvarFile, Int8ConvertQuantizesTheLinearLayersOnly) {
  const std::string folder = test::fixture("core/bert-wordpiece");
  const auto original = ModelSource::open(folder);
  const auto packed = ModelSource::open(converted_by_cli(folder, "int8", {"--dtype", "int8"}));
  std::size_t quantized = 0;
  for (const auto& name : original->tensor_names()) {
    SCOPED_TRACE(name);
    const TensorData before = original->tensor(name), after = packed->tensor(name);
    const bool linear = name.find("embeddings") == std::string::npos && before.shape.size() == 2;
    if (!linear) {
      ASSERT_EQ(after.dtype, before.dtype);
      EXPECT_EQ(std::memcmp(after.data, before.data, before.nbytes), 0);
      continue;
    }
    ++quantized;
    ASSERT_EQ(after.dtype, DType::I8);
    const auto rows = before.shape[0], cols = before.shape[1];
    std::vector<std::int8_t> q(static_cast<std::size_t>(rows * cols));
    std::vector<float> scales(static_cast<std::size_t>(rows));
    quantize_rows_int8(to_f32(before).data(), rows, cols, q.data(), scales.data());
    EXPECT_EQ(std::memcmp(after.data, q.data(), q.size()), 0);
    EXPECT_EQ(scales_of(after), scales);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(after.scales) % 64, 0u);
  }
  EXPECT_EQ(quantized, 13u);  // 2 layers × (q, k, v, o, in, out) and the pooler

  const auto info = test::run_cli({"info", packed->path()});
  EXPECT_NE(info.out.find("I8 × 13"), std::string::npos) << info.out;
}

// A tied embedding is also the LM head: a table as well as a matrix, so it stays f32, and the
// runtime quantizes its matrix use at load as it does for the f32 folder.
TEST(InvarFile, Int8ConvertKeepsATiedEmbeddingF32) {
  const std::string folder = test::bin_only_copy(test::fixture("core/xlmr-mlm"));  // the .bin ties the MLM decoder
  const auto source = ModelSource::open(folder);
  ASSERT_FALSE(source->has_tensor("lm_head.decoder.weight"));
  const std::set<std::string> int8 = int8_weight_names(*source);
  EXPECT_FALSE(int8.empty());
  EXPECT_EQ(int8.count("roberta.embeddings.word_embeddings.weight"), 0u);
  const auto packed = ModelSource::open(converted_by_cli(folder, "int8", {"--dtype", "int8"}));
  EXPECT_EQ(packed->tensor("roberta.embeddings.word_embeddings.weight").dtype, DType::F32);
  EXPECT_EQ(packed->tensor("lm_head.dense.weight").dtype, DType::I8);
}

// An int8 file converted again: --dtype int8 (or none) keeps its I8 tensors and scales bit for bit;
// f32, f16 and bf16 dequantize them (scale · q, then rounded to the dtype).
TEST(InvarFile, Int8FilesConvertAgain) {
  const std::string int8_file = converted_by_cli(test::fixture("seq2seq/bart"), "int8", {"--dtype", "int8"});
  const auto int8 = ModelSource::open(int8_file);
  for (const auto& flags : {std::vector<std::string>{"--dtype", "int8"}, std::vector<std::string>{}}) {
    const auto again = ModelSource::open(converted_by_cli(int8_file, "again", flags));
    ASSERT_EQ(again->tensor_names(), int8->tensor_names());
    for (const auto& name : int8->tensor_names()) {
      SCOPED_TRACE(name);
      const TensorData a = int8->tensor(name), b = again->tensor(name);
      ASSERT_EQ(b.dtype, a.dtype);
      ASSERT_EQ(b.nbytes, a.nbytes);
      EXPECT_EQ(std::memcmp(a.data, b.data, a.nbytes), 0);
      if (a.dtype == DType::I8) {
        EXPECT_EQ(scales_of(b), scales_of(a));
      }
    }
  }
  for (const auto& [flag, dtype] : {std::pair{"f32", DType::F32}, std::pair{"f16", DType::F16}, std::pair{"bf16", DType::BF16}}) {
    SCOPED_TRACE(flag);
    const auto floats = ModelSource::open(converted_by_cli(int8_file, flag, {"--dtype", flag}));
    std::size_t dequantized = 0;
    for (const auto& name : int8->tensor_names()) {
      const TensorData a = int8->tensor(name), b = floats->tensor(name);
      if (a.dtype != DType::I8) continue;
      ++dequantized;
      ASSERT_EQ(b.dtype, dtype) << name;
      std::vector<float> expected = to_f32(a);
      for (float& v : expected)
        v = dtype == DType::F16 ? f16_bits_to_f32(f32_to_f16_bits(v))
            : dtype == DType::BF16 ? bf16_bits_to_f32(f32_to_bf16_bits(v)) : v;
      EXPECT_EQ(to_f32(b), expected) << name;
    }
    EXPECT_GT(dequantized, 0u);
  }
}
