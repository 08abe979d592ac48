// Issue 18, items 2, 4 and 7: memory is bounded by what a model file holds, not by what it claims,
// and running out of memory is reported naming the file being read.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <zip.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/io.hpp"
#include "engine/text/tokenizer.hpp"
#include "loaders/model_source.hpp"
#include "loaders/pytorch.hpp"
#include "models/hf_config.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

std::string le32(std::uint32_t value) { return test::le64(value).substr(0, 4); }

// A state dict {"w": _rebuild_tensor_v2(FloatStorage `numel`, offset 0, shape, stride)} as
// torch.save pickles it (protocol 2).
std::string state_dict_pickle(std::int64_t numel, const std::vector<std::int64_t>& shape,
                              const std::vector<std::int64_t>& stride) {
  const auto str = [](const std::string& text) { return "X" + le32(text.size()) + text; };
  const auto integer = [](std::int64_t value) { return "J" + le32(static_cast<std::uint32_t>(value)); };
  const auto ints = [&](const std::vector<std::int64_t>& values) {
    std::string out = "(";
    for (auto value : values) out += integer(value);
    return out + "t";
  };
  return "\x80\x02}(" + str("w") + "ctorch._utils\n_rebuild_tensor_v2\n(" + "(" + str("storage") +
         "ctorch\nFloatStorage\n" + str("0") + str("cpu") + integer(numel) + "tQ" + integer(0) + ints(shape) +
         ints(stride) + "\x89" + "ccollections\nOrderedDict\n)RtRu.";
}

// A pytorch_model.bin of the entries; `deflated` entries are compressed.
std::string make_zip(const std::vector<std::pair<std::string, std::string>>& entries, bool deflated = false) {
  const std::string path = test::temp_dir() + "/pytorch_model.bin";
  int code = 0;
  zip_t* zip = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (!zip) throw std::runtime_error("zip_open failed");
  for (const auto& [name, bytes] : entries) {
    zip_source_t* source = zip_source_buffer(zip, bytes.data(), bytes.size(), 0);
    const zip_int64_t index = zip_file_add(zip, name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) throw std::runtime_error("zip_file_add failed");
    zip_set_file_compression(zip, static_cast<zip_uint64_t>(index), deflated ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  if (zip_close(zip) != 0) throw std::runtime_error("zip_close failed");
  return path;
}

std::string load_error(const std::string& path) {
  TensorSet tensors;
  try {
    read_pytorch_checkpoint(path, tensors);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string parse_error(const std::string& pickle) {
  try {
    parse_state_dict_pickle(reinterpret_cast<const std::byte*>(pickle.data()), pickle.size(), "data.pkl");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string repeat(const std::string& unit, std::size_t count) {
  std::string out;
  out.reserve(unit.size() * count);
  for (std::size_t i = 0; i < count; ++i) out += unit;
  return out;
}

// Limits this (death-test child) process's address space to what it maps now plus `extra` bytes.
void limit_memory_to_current_plus(std::size_t extra) {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  const rlim_t limit = pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) + extra;
  const rlimit value{limit, limit};
  setrlimit(RLIMIT_AS, &value);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressLimitsWork = false;  // ASan reserves terabytes of shadow memory
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressLimitsWork = false;
#else
constexpr bool kAddressLimitsWork = true;
#endif
#else
constexpr bool kAddressLimitsWork = true;
#endif

}  // namespace

// Item 2: one float viewed as [1024, 1024] through stride (0, 0) is refused when read, before
// anything is copied (it used to be copied out at once: 4 GB for [32768, 32768]).
TEST(HardeningMemory, ViewReadingMoreThanItsStorageIsRefused) {
  const std::string path = make_zip({{"archive/data.pkl", state_dict_pickle(1, {1024, 1024}, {0, 0})},
                                     {"archive/data/0", test::bytes_of(std::vector<float>{1.0f})}});
  const std::string message = load_error(path);
  EXPECT_NE(message.find(path + ": tensor 'w' [1024,1024] (offset 0, stride [0,0]) reads more elements than its "
                                "storage '0' holds (1)"),
            std::string::npos)
      << message;
}

// Item 2: a strided view is copied out only when asked for (after the model checked its shape);
// running out of memory then names the file and the tensor.
TEST(HardeningMemoryDeathTest, StridedViewsAreCopiedOutOnlyWhenUsed) {
  if (!kAddressLimitsWork) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  constexpr std::int64_t kSide = 4096;  // a 64 MiB storage, transposed
  std::string storage(kSide * kSide * sizeof(float), '\0');
  for (std::size_t i = 0; i < storage.size(); i += 1021) storage[i] = 1;  // compresses some 500:1
  const std::string path = make_zip({{"archive/data.pkl", state_dict_pickle(kSide * kSide, {kSide, kSide}, {1, kSide})},
                                     {"archive/data/0", storage}},
                                    true);
  storage.clear();
  storage.shrink_to_fit();
  EXPECT_EXIT(
      {
        TensorSet tensors;
        limit_memory_to_current_plus(std::size_t{96} << 20);  // the storage fits, a copy of it does not
        read_pytorch_checkpoint(path, tensors);
        try {
          tensors.get("w", path);
        } catch (const Error& e) {
          std::fputs(e.what(), stderr);
          std::exit(2);
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(2), "pytorch_model\\.bin: out of memory copying out tensor 'w' \\(67108864 bytes\\)");
}

// Item 2: a checkpoint too large to read in the memory left is named.
TEST(HardeningMemoryDeathTest, OutOfMemoryWhileReadingNamesTheFile) {
  if (!kAddressLimitsWork) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string storage(std::size_t{64} << 20, '\0');
  for (std::size_t i = 0; i < storage.size(); i += 1021) storage[i] = 1;
  const std::string path = make_zip(
      {{"archive/data.pkl", state_dict_pickle(16 << 20, {16 << 20}, {1})}, {"archive/data/0", storage}}, true);
  storage.clear();
  storage.shrink_to_fit();
  const std::string dir = std::filesystem::path(path).parent_path().string();
  test::write_file(dir + "/config.json", R"({"model_type": "bert"})");
  EXPECT_EXIT(
      {
        limit_memory_to_current_plus(std::size_t{16} << 20);
        try {
          ModelSource::open(dir);
        } catch (const Error& e) {
          std::fputs(e.what(), stderr);
          std::exit(2);
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(2), "pytorch_model\\.bin: out of memory while reading the checkpoint");
}

// Item 2: a pickle that repeats BINGET grows the unpickler's stack by 24 bytes per 2 bytes read;
// a state dict's stack stays shallow.
TEST(HardeningMemory, UnpicklerStackDepthIsBounded) {
  const std::string message = parse_error(std::string("\x80\x02}q\x00", 5) + repeat(std::string("h\x00", 2), 2'000'000) + ".");
  EXPECT_NE(message.find("data.pkl: byte 131075: the pickle stack grows deeper than 65536 values"), std::string::npos)
      << message;
}

// Item 2: what the unpickler holds is bounded relative to the pickle, whatever opcode is repeated.
TEST(HardeningMemory, UnpicklerMemoryIsBoundedByThePickle) {
  for (const std::string& unit : {std::string("))s", 3),  // SETITEM of two new tuples: the dict grows
                                  std::string("\x94", 1)}) {  // MEMOIZE: the memo grows
    const std::string message = parse_error(std::string("\x80\x02}q\x00", 5) + repeat(unit, 2'000'000) + ".");
    EXPECT_NE(message.find("data.pkl: byte "), std::string::npos) << message;
    EXPECT_NE(message.find("reading the pickle takes more than"), std::string::npos) << message;
  }
}

TEST(HardeningMemory, OversizedPickleIsRefusedBeforeItIsRead) {
  const std::string pickle = std::string("\x80\x02}q\x00", 5) + repeat(std::string("h\x00", 2), 33'554'432) + ".";
  const std::string path = make_zip({{"archive/data.pkl", pickle}}, true);
  const std::string message = load_error(path);
  EXPECT_NE(message.find(path + ": 'archive/data.pkl' of 67108870 bytes is larger than a state dict's pickle can be"),
            std::string::npos)
      << message;
}

// Item 4: one huge id in a small vocab.json is refused naming the file and the token, and a
// token table takes memory for its tokens, not for the ids between them.
TEST(HardeningMemory, VocabularyIdBeyondTheModelIsRefused) {
  const std::string dir = test::model_copy(test::fixture("core/marian"));
  auto vocab = test::load_json(dir + "/vocab.json");
  vocab["▁zzyzx"] = 100'000'000;
  test::write_file(dir + "/vocab.json", vocab.dump());
  std::string message = "(no error)";
  try {
    make_tokenizer(*ModelSource::open(dir));
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(dir + ": vocab.json: the id of '▁zzyzx' is 100000000, beyond the model's vocabulary of "),
            std::string::npos)
      << message;
}

TEST(HardeningMemoryDeathTest, VocabularyTablesAreSizedByTheirTokens) {
  if (!kAddressLimitsWork) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        limit_memory_to_current_plus(std::size_t{256} << 20);
        Vocab vocab;
        vocab.add("a", 0);
        vocab.add("far", 100'000'000);
        std::exit(vocab.size() == 100'000'001 && *vocab.token(100'000'000) == "far" && !vocab.token(5) ? 0 : 3);
      },
      ::testing::ExitedWithCode(0), "");
}

// Item 4: a sinusoidal position table is computed, so only a bound on config.json's
// max_position_embeddings keeps it from taking any memory the file asks for.
TEST(HardeningMemory, ComputedPositionTableIsBounded) {
  const std::string dir = test::bin_only_copy(test::fixture("core/marian"));
  auto config = test::load_json(dir + "/config.json");
  config["max_position_embeddings"] = 1 << 24;
  test::write_file(dir + "/config.json", config.dump());
  const auto result = test::run_cli({"translate", "-m", dir}, "Hallo\n");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find(dir + "/config.json: field 'max_position_embeddings' is 16777216, more than the 65536 "
                                  "positions invar computes a sinusoidal table for"),
            std::string::npos)
      << result.err;
}

// Item 4: config.json's sizes that are some weight's dimension are checked against the weights
// before anything is built from them (label names, weight-name lists, vocabulary tables).
TEST(HardeningMemory, ConfigSizesBeyondEveryWeightAreRefused) {
  for (const auto& [field, value] : std::vector<std::pair<std::string, int>>{
           {"num_labels", 100'000}, {"vocab_size", 100'000}, {"intermediate_size", 100'000}, {"hidden_size", 4096}}) {
    SCOPED_TRACE(field);
    const std::string dir = test::model_copy(test::fixture("core/bert-wordpiece"));
    auto config = test::load_json(dir + "/config.json");
    config[field] = value;
    test::write_file(dir + "/config.json", config.dump());
    std::string message = "(no error)";
    try {
      load_model_config(*ModelSource::open(dir));
    } catch (const Error& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(fmt::format("{}/config.json: field '{}' is {}, larger than any dimension of the model's "
                                       "weights (at most 512)",
                                       dir, field, value)),
              std::string::npos)
        << message;
  }
}

// Item 7: running out of memory while reading an input file names the file and the line (getline
// used to swallow it, and the file seemed to end there).
TEST(HardeningMemoryDeathTest, OutOfMemoryReadingAnInputNamesTheFileAndLine) {
  if (!kAddressLimitsWork) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = test::temp_dir() + "/input.txt";
  test::write_file(path, "short\n" + std::string(std::size_t{48} << 20, 'a') + "\n");
  EXPECT_EXIT(
      {
        limit_memory_to_current_plus(std::size_t{24} << 20);
        try {
          read_lines(path);
        } catch (const Error& e) {
          std::fputs(e.what(), stderr);
          std::exit(2);
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(2), "input\\.txt:2: cannot read the line \\(out of memory, or a read error\\)");
}
