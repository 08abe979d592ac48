// Tokenizer load time and throughput (tokens per second, one thread), tokenizer.json against the
// slow files, for a WordPiece model (bert-base-uncased: vocab.txt) and a SentencePiece one
// (flan-t5-base: spiece.model), on the real Hub files of tests/fixtures/tokenizer-json. The texts
// are every text and pair of both folders' goldens (news and MT sentences, NLI pairs, hard Unicode
// cases). docs/performance.md (Tokenizers) records a run.
//   build/bench/bench_tokenizer   (from the source root)
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/text/tokenizer.hpp"
#include "loaders/model_source.hpp"

namespace {

using namespace invar;
namespace fs = std::filesystem;

const char* const kModels[] = {"bert-base-uncased", "flan-t5-base"};
const char* const kChoices[] = {"tokenizer.json", "slow"};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read " + path.string() + " (run from the source root)");
  return bytes.str();
}

// A copy of the fixture folder with a stand-in weights file, so that ModelSource::open takes it.
const std::string& folder(std::size_t model) {
  static std::string folders[2];
  if (folders[model].empty()) {
    const fs::path from = fs::path("tests/fixtures/tokenizer-json") / kModels[model];
    const fs::path to = fs::temp_directory_path() / (std::string("invar-bench-tokenizer-") + kModels[model]);
    fs::create_directories(to);
    for (const auto& entry : fs::directory_iterator(from))
      fs::copy_file(entry.path(), to / entry.path().filename(), fs::copy_options::overwrite_existing);
    const std::string header = R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
    std::string padded = header + std::string((8 - header.size() % 8) % 8, ' ');
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((padded.size() >> (8 * i)) & 0xFF);
    std::ofstream(to / "model.safetensors", std::ios::binary) << bytes << padded << std::string(4, '\0');
    folders[model] = to.string();
  }
  return folders[model];
}

std::unique_ptr<ModelSource> open_source(const benchmark::State& state) {
  auto source = ModelSource::open(folder(static_cast<std::size_t>(state.range(0))));
  source->set_tokenizer_choice(state.range(1) == 0 ? TokenizerChoice::Json : TokenizerChoice::Slow);
  return source;
}

const std::vector<std::string>& texts() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> out;
    for (const char* model : kModels) {
      const auto golden = nlohmann::json::parse(read(fs::path("tests/fixtures/tokenizer-json") / model / "golden.json"));
      for (const auto& c : golden["cases"]) out.push_back(c["text"].get<std::string>());
      for (const auto& p : golden["pairs"]) {
        out.push_back(p["text"].get<std::string>());
        out.push_back(p["text_pair"].get<std::string>());
      }
    }
    return out;
  }();
  return all;
}

void label(benchmark::State& state) {
  state.SetLabel(std::string(kModels[state.range(0)]) + " " + kChoices[state.range(1)]);
}

void BM_TokenizerLoad(benchmark::State& state) {
  const auto source = open_source(state);
  for (auto _ : state) benchmark::DoNotOptimize(make_tokenizer(*source));
  label(state);
}

void BM_TokenizerEncode(benchmark::State& state) {
  const auto source = open_source(state);
  const auto tokenizer = make_tokenizer(*source);
  std::size_t tokens = 0;
  for (const auto& text : texts()) tokens += tokenizer->encode(text).ids.size();
  for (auto _ : state)
    for (const auto& text : texts()) benchmark::DoNotOptimize(tokenizer->encode(text));
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["texts"] = static_cast<double>(texts().size());
  state.counters["tokens"] = static_cast<double>(tokens);
  label(state);
}

void both(benchmark::internal::Benchmark* bench) {
  for (int model = 0; model < 2; ++model)
    for (int choice = 0; choice < 2; ++choice) bench->Args({model, choice});
}

BENCHMARK(BM_TokenizerLoad)->Apply(both)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TokenizerEncode)->Apply(both)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
