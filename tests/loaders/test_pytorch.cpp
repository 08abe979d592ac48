#include <gtest/gtest.h>
#include <zip.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "core/error.hpp"
#include "loaders/model_source.hpp"
#include "loaders/pytorch.hpp"
#include "loaders/safetensors.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

// Writes the pickle opcodes torch.save emits (protocol 2), for hand-made checkpoints.
class Pickle {
 public:
  Pickle& op(char opcode) { return raw(std::string(1, opcode)); }
  Pickle& raw(const std::string& bytes) {
    bytes_ += bytes;
    return *this;
  }
  Pickle& proto() { return raw("\x80\x02"); }
  Pickle& str(const std::string& text) { return op('X').raw(le32(text.size())).raw(text); }
  Pickle& global(const std::string& module, const std::string& name) { return op('c').raw(module + "\n" + name + "\n"); }
  Pickle& integer(std::int64_t value) { return op('J').raw(le32(static_cast<std::uint32_t>(value))); }
  Pickle& ints(const std::vector<std::int64_t>& values) {
    op('(');
    for (auto value : values) integer(value);
    return op('t');
  }
  // _rebuild_tensor_v2(('storage', torch.<storage>, key, 'cpu', numel), offset, size, stride, False, OrderedDict())
  Pickle& tensor(const std::string& storage, const std::string& key, std::int64_t numel, std::int64_t offset,
                 const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& stride) {
    global("torch._utils", "_rebuild_tensor_v2").op('(');
    op('(').str("storage").global("torch", storage).str(key).str("cpu").integer(numel).op('t').op('Q');
    integer(offset).ints(shape).ints(stride).op('\x89');
    global("collections", "OrderedDict").op(')').op('R');
    return op('t').op('R');
  }
  const std::string& bytes() const { return bytes_; }

  static std::string le32(std::uint32_t value) { return test::le64(value).substr(0, 4); }

 private:
  std::string bytes_;
};

struct Entry {
  std::string name;
  std::string bytes;
};

// A zip archive of the entries, stored uncompressed as torch.save writes them unless told otherwise.
std::string make_zip(const std::vector<Entry>& entries, zip_int32_t compression = ZIP_CM_STORE) {
  const std::string path = test::temp_dir() + "/pytorch_model.bin";
  int code = 0;
  zip_t* zip = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (!zip) throw std::runtime_error("zip_open failed");
  for (const auto& entry : entries) {
    zip_source_t* source = zip_source_buffer(zip, entry.bytes.data(), entry.bytes.size(), 0);
    const zip_int64_t index = zip_file_add(zip, entry.name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) throw std::runtime_error("zip_file_add failed");
    zip_set_file_compression(zip, static_cast<zip_uint64_t>(index), compression, 0);
  }
  if (zip_close(zip) != 0) throw std::runtime_error("zip_close failed");
  return path;
}

// The pickle of a state dict holding one entry "w" = `tensor`.
std::string state_dict_of(const std::function<void(Pickle&)>& tensor) {
  Pickle pickle;
  pickle.proto().op('}').op('(').str("w");
  tensor(pickle);
  pickle.op('u').op('.');
  return pickle.bytes();
}

// ... with "w" a view of the FloatStorage "0" of `numel` elements.
std::string make_checkpoint_pickle(std::int64_t numel, const std::vector<std::int64_t>& shape,
                                   const std::vector<std::int64_t>& stride) {
  return state_dict_of([&](Pickle& p) { p.tensor("FloatStorage", "0", numel, 0, shape, stride); });
}

// A checkpoint holding one state dict entry "w" = `tensor` and the given storages.
std::string make_checkpoint(const std::function<void(Pickle&)>& tensor, const std::vector<Entry>& storages) {
  std::vector<Entry> entries{{"archive/data.pkl", state_dict_of(tensor)}, {"archive/version", "3\n"}};
  for (const auto& storage : storages) entries.push_back({"archive/data/" + storage.name, storage.bytes});
  return make_zip(entries);
}

const std::string kSixFloats = test::bytes_of(std::vector<float>{0, 1, 2, 3, 4, 5});

std::string load_error(const std::string& path) {
  TensorSet tensors;
  try {
    read_pytorch_checkpoint(path, tensors);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// The error is one line, names the file and says what is wrong.
void expect_error(const std::string& path, const std::string& expected) {
  const std::string message = load_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace

TEST(PyTorch, EveryFixtureMatchesItsSafetensorsBitForBit) {
  // save_pretrained leaves sinusoidal position tables and tied decoders out of pytorch_model.bin
  // (they are buffers it does not persist, or weights tied to the embeddings); model.safetensors
  // was written from the whole module and holds them.
  const std::map<std::string, std::set<std::string>> only_in_safetensors{
      {"core/marian", {"model.decoder.embed_positions.weight", "model.encoder.embed_positions.weight"}},
      {"core/xlmr-mlm", {"lm_head.decoder.bias", "lm_head.decoder.weight"}},
      {"seq2seq/m2m100", {"model.decoder.embed_positions.weights", "model.encoder.embed_positions.weights"}},
  };
  const std::vector<std::string> folders{"core/bert-pair-cls", "core/bert-wordpiece", "core/marian",
                                         "core/xlmr",          "core/xlmr-mlm",       "core/xlmr-pair-cls",
                                         "core/xlmr-regression", "seq2seq/bart",    "seq2seq/m2m100",
                                         "seq2seq/mbart",      "seq2seq/pegasus",     "seq2seq/t5",
                                         "core/distilbert",    "core/distilbert-sst2", "core/electra",
                                         "core/electra-pair-cls", "core/deberta-v3",  "core/deberta-v3-nli"};
  for (const auto& folder : folders) {
    SCOPED_TRACE(folder);
    TensorSet pytorch, safetensors;
    read_pytorch_checkpoint(test::fixture(folder + "/pytorch_model.bin"), pytorch);
    read_safetensors(test::fixture(folder + "/model.safetensors"), safetensors);
    ASSERT_GT(pytorch.size(), 30u);
    std::set<std::string> missing;
    for (const auto& name : safetensors.names()) {
      if (!pytorch.has(name)) {
        missing.insert(name);
        continue;
      }
      const TensorData& a = pytorch.get(name, folder);
      const TensorData& b = safetensors.get(name, folder);
      EXPECT_EQ(a.dtype, b.dtype) << name;
      EXPECT_EQ(a.shape, b.shape) << name;
      ASSERT_EQ(a.nbytes, b.nbytes) << name;
      EXPECT_EQ(std::memcmp(a.data, b.data, a.nbytes), 0) << name;
    }
    EXPECT_EQ(pytorch.size() + missing.size(), safetensors.size());
    const auto expected = only_in_safetensors.find(folder);
    EXPECT_EQ(missing, expected == only_in_safetensors.end() ? std::set<std::string>{} : expected->second);
  }
}

TEST(PyTorch, FolderWithOnlyPytorchModelBinOpens) {
  const std::string dir = test::temp_dir();
  const std::string fixture = test::fixture("core/bert-wordpiece");
  for (const auto& entry : std::filesystem::directory_iterator(fixture))
    if (entry.path().filename() != "model.safetensors")
      std::filesystem::copy(entry.path(), std::filesystem::path(dir) / entry.path().filename(), std::filesystem::copy_options::recursive);
  const auto source = ModelSource::open(dir);
  EXPECT_EQ(source->tensor_names().size(), 40u);
  EXPECT_EQ(source->tensor("embeddings.position_ids").dtype, DType::I64);
  EXPECT_EQ(source->tensor("embeddings.word_embeddings.weight").shape, (std::vector<std::int64_t>{171, 32}));
}

TEST(PyTorch, ShardedCheckpointsAreReadThroughTheIndex) {
  const auto shard = [](const std::string& name, float value) {
    Pickle pickle;
    pickle.proto().op('}').op('(').str(name).tensor("FloatStorage", "0", 1, 0, {1}, {1}).op('u').op('.');
    return make_zip({{"archive/data.pkl", pickle.bytes()}, {"archive/data/0", test::bytes_of(std::vector<float>{value})}});
  };
  const std::string dir = test::make_model_folder(
      {{"pytorch_model-00001-of-00002.bin", test::read_file(shard("a", 1.5f))},
       {"pytorch_model-00002-of-00002.bin", test::read_file(shard("b", -2.0f))},
       {"pytorch_model.bin.index.json",
        R"({"weight_map": {"a": "pytorch_model-00001-of-00002.bin", "b": "pytorch_model-00002-of-00002.bin"}})"}});
  const auto source = ModelSource::open(dir);
  EXPECT_EQ(to_f32(source->tensor("a")), std::vector<float>{1.5f});
  EXPECT_EQ(to_f32(source->tensor("b")), std::vector<float>{-2.0f});
}

TEST(PyTorch, ViewsWithOffsetsAndStridesAreMaterialised) {
  // w = storage[1:5] viewed as 2x2, then a transposed 2x3 view of all six values.
  Pickle pickle;
  pickle.proto().op('}').op('(');
  pickle.str("offset").tensor("FloatStorage", "0", 6, 1, {2, 2}, {2, 1});
  pickle.str("transposed").tensor("FloatStorage", "0", 6, 0, {2, 3}, {1, 2});
  pickle.str("broadcast").tensor("FloatStorage", "0", 6, 4, {3}, {0});
  pickle.op('u').op('.');
  const std::string path = make_zip({{"archive/data.pkl", pickle.bytes()}, {"archive/data/0", kSixFloats}});
  TensorSet tensors;
  read_pytorch_checkpoint(path, tensors);
  EXPECT_EQ(to_f32(tensors.get("offset", path)), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(to_f32(tensors.get("transposed", path)), (std::vector<float>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(to_f32(tensors.get("broadcast", path)), (std::vector<float>{4, 4, 4}));
}

TEST(PyTorch, DeflatedEntriesAreReadAndCorruptedOnesRejected) {
  Pickle pickle;
  pickle.proto().op('}').op('(').str("w").tensor("FloatStorage", "0", 6, 0, {6}, {1}).op('u').op('.');
  const std::vector<Entry> entries{{"archive/data.pkl", pickle.bytes()}, {"archive/data/0", kSixFloats}};
  TensorSet tensors;
  const std::string deflated = make_zip(entries, ZIP_CM_DEFLATE);
  read_pytorch_checkpoint(deflated, tensors);
  EXPECT_EQ(to_f32(tensors.get("w", deflated)), (std::vector<float>{0, 1, 2, 3, 4, 5}));

  // One bit of the stored storage flipped: the zip entry's CRC-32 no longer matches.
  const std::string stored = make_zip(entries);
  std::string bytes = test::read_file(stored);
  const auto at = bytes.find(kSixFloats);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 5] ^= 1;
  test::write_file(stored, bytes);
  expect_error(stored, "cannot read zip entry 'archive/data/0'");
}

TEST(PyTorch, OrderedDictWithMetadataAndEveryStorageDtype) {
  // state_dict() returns an OrderedDict carrying _metadata, pickled through REDUCE and BUILD.
  Pickle pickle;
  pickle.proto().global("collections", "OrderedDict").op(')').op('R').raw(std::string("q\x00", 2)).op('(');
  pickle.str("half").tensor("HalfStorage", "h", 2, 0, {2}, {1});
  pickle.str("brain").tensor("BFloat16Storage", "b", 1, 0, {}, {});
  pickle.str("int").tensor("IntStorage", "i", 1, 0, {1}, {1});
  pickle.str("long").tensor("LongStorage", "l", 1, 0, {1, 1}, {1, 1});
  // BUILD's state: {"_metadata": OrderedDict({"": {"version": 1}})}.
  pickle.op('u').op('}').str("_metadata").global("collections", "OrderedDict").op(')').op('R');
  pickle.str("").op('}').str("version").integer(1).op('s').op('s').op('s').op('b').op('.');
  const std::string path = make_zip({{"archive/data.pkl", pickle.bytes()},
                                     {"archive/byteorder", "little"},
                                     {"archive/data/h", test::bytes_of(std::vector<std::uint16_t>{0x3C00, 0xC000})},
                                     {"archive/data/b", test::bytes_of(std::vector<std::uint16_t>{0x4049})},
                                     {"archive/data/i", test::bytes_of(std::vector<std::int32_t>{-7})},
                                     {"archive/data/l", test::bytes_of(std::vector<std::int64_t>{1} )}});
  TensorSet tensors;
  read_pytorch_checkpoint(path, tensors);
  EXPECT_EQ(tensors.size(), 4u);
  EXPECT_EQ(to_f32(tensors.get("half", path)), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(tensors.get("brain", path).shape, std::vector<std::int64_t>{});
  EXPECT_EQ(to_f32(tensors.get("brain", path)), std::vector<float>{3.140625f});
  EXPECT_EQ(tensors.get("int", path).dtype, DType::I32);
  EXPECT_EQ(tensors.get("long", path).dtype, DType::I64);
  EXPECT_EQ(tensors.get("long", path).shape, (std::vector<std::int64_t>{1, 1}));
}

TEST(PyTorch, DisallowedGlobalIsNamed) {
  Pickle pickle;
  pickle.proto().global("os", "system").str("echo hacked").op('\x85').op('R').op('.');
  const std::string path = make_zip({{"archive/data.pkl", pickle.bytes()}});
  expect_error(path, "global 'os.system' is not allowed");
  const std::string builtins = make_checkpoint(
      [](Pickle& p) { p.global("builtins", "eval").str("1").op('\x85').op('R'); }, {});
  expect_error(builtins, "global 'builtins.eval' is not allowed");
}

TEST(PyTorch, ArchiveWithoutDataPklFails) {
  expect_error(make_zip({{"archive/data/0", kSixFloats}}), "no '<name>/data.pkl'");
}

TEST(PyTorch, NotAZipArchiveFails) {
  const std::string path = test::temp_dir() + "/pytorch_model.bin";
  test::write_file(path, "\x80\x02}q\x00.");
  expect_error(path, "not a zip archive (PyTorch checkpoints before torch 1.6 are not supported");
  test::write_file(path, "<html>404</html>");
  expect_error(path, "not a PyTorch checkpoint (neither a zip archive nor a pickle)");
}

// Issue 18, item 3: an interrupted download or a damaged central directory is named as such.
TEST(PyTorch, TruncatedOrCorruptArchiveSaysSo) {
  const std::string whole = test::read_file(test::fixture("core/bert-wordpiece/pytorch_model.bin"));
  const std::string path = test::temp_dir() + "/pytorch_model.bin";
  for (const std::size_t size : {whole.size() / 2, whole.size() - 10, std::size_t{100}}) {
    test::write_file(path, whole.substr(0, size));
    expect_error(path, "truncated or corrupt zip archive");
    EXPECT_NE(load_error(path).find("re-download"), std::string::npos);
  }
  std::string corrupt = whole;
  const auto central = corrupt.rfind(std::string("PK\x01\x02", 4));
  ASSERT_NE(central, std::string::npos);
  corrupt.replace(central + 46, 8, "XXXXXXXX");  // the last entry's name in the central directory
  test::write_file(path, corrupt);
  expect_error(path, "truncated or corrupt zip archive");
}

TEST(PyTorch, StorageKeyEscapingTheArchiveFails) {
  const auto tensor = [](const std::string& key) {
    return [key](Pickle& p) { p.tensor("FloatStorage", key, 6, 0, {6}, {1}); };
  };
  expect_error(make_checkpoint(tensor("../../data.pkl"), {{"0", kSixFloats}}), "points outside the model");
  expect_error(make_checkpoint(tensor("/etc/passwd"), {{"0", kSixFloats}}), "is not a relative path");
  expect_error(make_checkpoint(tensor("sub/0"), {{"sub/0", kSixFloats}}), "is not a plain entry name");
}

TEST(PyTorch, StorageSizeDisagreementsFail) {
  // The pickle says 8 floats, the entry holds 6.
  expect_error(make_checkpoint([](Pickle& p) { p.tensor("FloatStorage", "0", 8, 0, {8}, {1}); }, {{"0", kSixFloats}}),
               "holds 24 bytes but the pickle declares 8 F32 elements (32 bytes)");
  // The tensor needs more elements than its storage holds.
  expect_error(make_checkpoint([](Pickle& p) { p.tensor("FloatStorage", "0", 6, 2, {2, 3}, {3, 1}); },
                               {{"0", kSixFloats}}),
               "reaches past its storage '0' of 6 elements");
  expect_error(make_checkpoint([](Pickle& p) { p.tensor("FloatStorage", "0", 6, 0, {4}, {2}); }, {{"0", kSixFloats}}),
               "reaches past its storage");
  expect_error(make_checkpoint([](Pickle& p) { p.tensor("FloatStorage", "7", 6, 0, {6}, {1}); }, {{"0", kSixFloats}}),
               "storage entry 'archive/data/7' is missing");
  expect_error(make_checkpoint([](Pickle& p) { p.tensor("FloatStorage", "0", 6, 0, {2, 3}, {1}); }, {{"0", kSixFloats}}),
               "tensor size has 2 dimensions but its stride 1");
}

TEST(PyTorch, TruncatedOrMalformedPickleFails) {
  Pickle pickle;
  pickle.proto().op('}').op('(').str("w").tensor("FloatStorage", "0", 6, 0, {6}, {1}).op('u').op('.');
  for (std::size_t cut : {std::size_t{1}, std::size_t{5}, pickle.bytes().size() / 2, pickle.bytes().size() - 1}) {
    const std::string path =
        make_zip({{"archive/data.pkl", pickle.bytes().substr(0, cut)}, {"archive/data/0", kSixFloats}});
    const std::string message = load_error(path);
    EXPECT_NE(message.find("truncated pickle"), std::string::npos) << cut << ": " << message;
  }
  // A value that is not a tensor, an unknown opcode, and a memo entry never stored.
  expect_error(make_checkpoint([](Pickle& p) { p.integer(3); }, {}), "state dict entry 'w' is an int, not a tensor");
  expect_error(make_zip({{"archive/data.pkl", "\x80\x02]."}}), "pickle opcode 0x5d");
  expect_error(make_zip({{"archive/data.pkl", "\x80\x02h\x05."}}), "memo entry 5 was never stored");
  expect_error(make_zip({{"archive/data.pkl", "\x80\x02K\x01."}}), "not a state dict");
  const std::vector<std::int64_t> ones(65, 1);
  expect_error(make_checkpoint([&](Pickle& p) { p.tensor("FloatStorage", "0", 6, 0, ones, ones); }, {{"0", kSixFloats}}),
               "tensor size has 65 dimensions, more than 64");
}

// Issue 18, item 2: memory is bounded by what the file holds, not by what it claims.
namespace {

std::string pickle_error(const std::string& pickle) {
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

// 64 MiB of a storage that deflates some 500:1, so that a small file holds it.
std::string sparse_storage() {
  std::string storage(std::size_t{64} << 20, '\0');
  for (std::size_t i = 0; i < storage.size(); i += 1021) storage[i] = 1;
  return storage;
}

const std::string kEmptyDictMemoized("\x80\x02}q\x00", 5);

}  // namespace

// One float viewed as [1024, 1024] through stride (0, 0) is refused before anything is copied (it
// used to be copied out at once: 4 GB for [32768, 32768]).
TEST(PyTorch, ViewReadingMoreThanItsStorageIsRefused) {
  const std::string path = make_checkpoint([](Pickle& p) { p.tensor("FloatStorage", "0", 1, 0, {1024, 1024}, {0, 0}); },
                                           {{"0", test::bytes_of(std::vector<float>{1.0f})}});
  expect_error(path, "tensor 'w' [1024,1024] (offset 0, stride [0,0]) reads more elements than its storage '0' holds (1)");
}

// A strided view is copied out only when asked for (after the model checked its shape); running
// out of memory then names the file and the tensor.
TEST(PyTorchDeathTest, StridedViewsAreCopiedOutOnlyWhenUsed) {
  if (test::under_address_sanitizer()) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  constexpr std::int64_t kSide = 4096;  // the storage, transposed
  const std::string path =
      make_zip({{"archive/data.pkl", make_checkpoint_pickle(kSide * kSide, {kSide, kSide}, {1, kSide})},
                {"archive/data/0", sparse_storage()}},
               ZIP_CM_DEFLATE);
  EXPECT_EXIT(test::exit_reporting_error([&] {
                TensorSet tensors;
                test::limit_address_space(std::size_t{96} << 20);  // the storage fits, a copy of it does not
                read_pytorch_checkpoint(path, tensors);
                tensors.get("w", path);
              }),
              ::testing::ExitedWithCode(2), "pytorch_model\\.bin: out of memory copying out tensor 'w' \\(67108864 bytes\\)");
}

TEST(PyTorchDeathTest, OutOfMemoryWhileReadingNamesTheFile) {
  if (test::under_address_sanitizer()) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = make_zip(
      {{"archive/data.pkl", make_checkpoint_pickle(16 << 20, {16 << 20}, {1})}, {"archive/data/0", sparse_storage()}},
      ZIP_CM_DEFLATE);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  test::write_file(dir + "/config.json", R"({"model_type": "bert"})");
  EXPECT_EXIT(test::exit_reporting_error([&] {
                test::limit_address_space(std::size_t{16} << 20);
                ModelSource::open(dir);
              }),
              ::testing::ExitedWithCode(2), "pytorch_model\\.bin: out of memory while reading the checkpoint");
}

// A pickle that repeats BINGET grows the unpickler's stack by 24 bytes per 2 bytes read; a state
// dict's stack stays shallow.
TEST(PyTorch, UnpicklerStackDepthIsBounded) {
  const std::string message = pickle_error(kEmptyDictMemoized + repeat(std::string("h\x00", 2), 2'000'000) + ".");
  EXPECT_NE(message.find("data.pkl: byte 131075: the pickle stack grows deeper than 65536 values"), std::string::npos)
      << message;
}

// What the unpickler holds is bounded relative to the pickle, whatever opcode is repeated.
TEST(PyTorch, UnpicklerMemoryIsBoundedByThePickle) {
  for (const std::string& unit : {std::string("))s"),  // SETITEM of two new tuples: the dict grows
                                  std::string("\x94")}) {  // MEMOIZE: the memo grows
    const std::string message = pickle_error(kEmptyDictMemoized + repeat(unit, 2'000'000) + ".");
    EXPECT_NE(message.find("data.pkl: byte "), std::string::npos) << message;
    EXPECT_NE(message.find("reading the pickle takes more than"), std::string::npos) << message;
  }
}

TEST(PyTorch, OversizedPickleIsRefusedBeforeItIsRead) {
  const std::string pickle = kEmptyDictMemoized + repeat(std::string("h\x00", 2), 33'554'432) + ".";
  expect_error(make_zip({{"archive/data.pkl", pickle}}, ZIP_CM_DEFLATE),
               "'archive/data.pkl' of 67108870 bytes is larger than a state dict's pickle can be");
}
