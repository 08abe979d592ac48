// The seeds that are not plain fixture files (tests/fuzz/run.sh runs this), one folder per target:
// - invar_file: every fixture model folder converted to an .invar file as `invar convert` writes
//   it, as the target reads its input: the header JSON (without its block hashes), a NUL byte, and
//   the data section up to the end of the last auxiliary file (the target pads the data with
//   zeros, where the tensors lie), and one with its matrices stored as int8;
// - vocabulary: the vocabulary files of fuzz_support.hpp's list, each after its index byte;
// - tables: the TSV fixtures as JSONL (there are no JSONL fixtures), after fuzz_tables' JSONL byte;
// - word_vectors: the .vec fixture after byte 0, and a small fastText .bin model trained here after
//   byte 1 (there are no .bin fixtures: a trained model is the only valid one);
// - run_files: a partial result of two shards and a progress file cut off in its last chunk, as
//   run/run_file.hpp writes them (with their checksums).
//   invar_fuzz_seeds OUT_DIR
#include <fasttext/fasttext.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/io.hpp"
#include "fuzz_support.hpp"
#include "loaders/invar_file.hpp"
#include "loaders/model_source.hpp"
#include "run/run_file.hpp"

namespace fs = std::filesystem;

namespace {

std::uint64_t le64(const std::string& bytes, std::size_t at) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return value;
}

// A model folder, not one of the tokenizer fixtures, which hold a config.json but no weights.
bool has_weights(const fs::path& folder) {
  for (const char* file : {"model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
                           "pytorch_model.bin.index.json"})
    if (fs::exists(folder / file)) return true;
  return false;
}

// With `int8`, every floating matrix is stored as I8 with its scales (what `invar convert --dtype
// int8` does to the model's linear-layer matrices), so that the fuzzer reaches the scales' checks.
void write_invar_seed(const fs::path& folder, const fs::path& out, bool int8 = false) {
  const auto source = invar::ModelSource::open(folder.string());
  std::set<std::string> matrices;
  for (const auto& name : source->tensor_names()) {
    const invar::TensorInfo info = source->tensor_info(name);
    if (int8 && invar::is_floating(info.dtype) && info.shape.size() == 2) matrices.insert(name);
  }
  std::ostringstream file;
  invar::write_invar_file(*source, file, std::nullopt, matrices);
  const std::string bytes = file.str();
  // The preamble's header size and data offset (docs/model-format.md).
  const std::uint64_t header_size = le64(bytes, 24), data_offset = le64(bytes, 32);
  const std::string header = bytes.substr(invar::kInvarPreambleBytes, header_size);
  std::uint64_t files_end = 0;
  auto json = nlohmann::json::parse(header);
  for (const auto& entry : json["files"])
    files_end = std::max(files_end, entry["offset"].get<std::uint64_t>() + entry["size"].get<std::uint64_t>());
  // The block hashes are of the writer's data, which fuzz_invar_file cuts and pads: without them the
  // file's data CRC (which the target computes) is checked instead, and mutations reach every other
  // check of the header rather than failing on the block count.
  json.erase("blocks");
  std::ofstream(out, std::ios::binary) << json.dump() << '\0' << bytes.substr(data_offset, files_end);
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_vocabulary_seeds(const fs::path& out) {
  for (std::size_t i = 0; i < invar::fuzz::kVocabularyFiles.size(); ++i) {
    const auto& [folder, file] = invar::fuzz::kVocabularyFiles[i];
    std::ofstream(out / std::to_string(i), std::ios::binary)
        << static_cast<char>(i) << read(fs::path(INVAR_FIXTURES_DIR) / folder / file);
  }
}

// Column 1 as "text", column 2 (if any) as "label".
void write_jsonl_seed(const fs::path& tsv, const fs::path& out) {
  std::ofstream seed(out, std::ios::binary);
  seed << '\x02';  // fuzz_tables: .jsonl, no header
  for (const auto& row : invar::read_table(tsv.string(), {}).rows) {
    nlohmann::json line{{"text", row.at(0)}};
    if (row.size() > 1) line["label"] = row[1];
    seed << line.dump() << '\n';
  }
}

void write_word_vector_seeds(const fs::path& out) {
  std::ofstream(out / "vec", std::ios::binary) << '\0' << read(fs::path(INVAR_FIXTURES_DIR) / "stmetrics/wordvecs.vec");
  const auto corpus = out / "corpus.txt";
  std::ofstream(corpus) << "the cat sat on the mat\nthe dog sat on the rug\na cat and a dog\n";
  fasttext::Args args;
  args.input = corpus.string();
  args.dim = 4;
  args.epoch = 1;
  args.minCount = 1;
  args.thread = 1;
  args.bucket = 50;
  args.verbose = 0;
  args.model = fasttext::model_name::sg;
  args.loss = fasttext::loss_name::softmax;
  fasttext::FastText model;
  model.train(args);
  const auto bin = out / "model.bin";
  model.saveModel(bin.string());
  std::ofstream(out / "bin", std::ios::binary) << '\1' << read(bin);
  fs::remove(bin);
  fs::remove(corpus);
}

void write_run_file_seeds(const fs::path& out) {
  namespace run = invar::run;
  run::RunHeader header{.kind = "partial", .fingerprint = "0123456789abcdef0123456789abcdef", .rows = 7, .chunk = 2,
                        .shard = 1, .shards = 2, .command = {"metric", "bleu", "--hyp", "h.txt", "--ref", "r.txt"}};
  std::string partial = run::header_line(header);
  for (std::size_t index = 2; index < 4; ++index)
    partial += run::chunk_block(header.fingerprint, index, index == 3 ? std::vector<std::string>{"6\t0x1p+0"}
                                                                        : std::vector<std::string>{"a\tb", ""});
  std::ofstream(out / "partial", std::ios::binary) << partial;
  header.kind = "progress";
  header.shard = 0;
  header.shards = 1;
  std::string progress = run::header_line(header);
  for (std::size_t index = 0; index < 3; ++index)
    progress += run::chunk_block(header.fingerprint, index, {"x" + std::to_string(index), "y"});
  progress += run::chunk_block(header.fingerprint, 3, {"last"}).substr(0, 25);
  std::ofstream(out / "progress", std::ios::binary) << progress;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: invar_fuzz_seeds OUT_DIR\n");
    return 2;
  }
  const fs::path out = argv[1];
  for (const char* target : {"invar_file", "vocabulary", "tables", "word_vectors", "run_files"}) fs::create_directories(out / target);
  try {
    for (const auto& group : fs::directory_iterator(INVAR_FIXTURES_DIR)) {
      if (!group.is_directory()) continue;
      const std::string prefix = group.path().filename().string() + "_";
      for (const auto& folder : fs::directory_iterator(group.path()))
        if (fs::exists(folder.path() / "config.json") && has_weights(folder.path()))
          write_invar_seed(folder.path(), out / "invar_file" / (prefix + folder.path().filename().string()));
      for (const auto& file : fs::recursive_directory_iterator(group.path()))
        if (file.path().extension() == ".tsv")
          write_jsonl_seed(file.path(), out / "tables" / (prefix + file.path().stem().string() + ".jsonl"));
    }
    write_invar_seed(fs::path(INVAR_FIXTURES_DIR) / "core" / "bert-wordpiece", out / "invar_file" / "int8_bert-wordpiece",
                     true);
    write_vocabulary_seeds(out / "vocabulary");
    write_word_vector_seeds(out / "word_vectors");
    write_run_file_seeds(out / "run_files");
  } catch (const invar::Error& e) {
    std::fprintf(stderr, "invar_fuzz_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
