// tool_generate_ids: generates from token-id sources with a model folder, prints the best
// hypothesis's ids and the steady-state time of each repetition as JSON, for comparing ids and
// times with another implementation (bench/torch_marian.py, bench/generate_vs_torch.sh).
//   build/bench/tool_generate_ids --model /tmp/opus-mt-base --random-sources 16 --beams 5
//       --max-length 64 --min-length 64 --repeat 3
// The generate() call runs as bench_generate's BM_Generate runs it (Seq2SeqModel::generate on the
// CPU backend, the same sources); each repetition is timed alone, after one untimed warm-up, with
// process CPU time beside wall time.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <iostream>

#include "bench/cpu_time.hpp"
#include "bench/products.hpp"
#include "bench/random_marian.hpp"
#include "backends/cpu/backend.hpp"
#include "engine/seq2seq.hpp"

int main(int argc, char** argv) {
  using namespace invar;
  CLI::App app{"Generates from token-id sources and prints the best ids and the time of each run as JSON"};
  std::string model_dir, sources_file, dump_sources, products_name = "packed";
  std::int64_t random_batch = 0;
  int beams = 1, max_length = 64, min_length = -1, repeat = 1, threads = 2;
  app.add_option("--model", model_dir, "Model folder or .invar file")->required();
  auto* from_file = app.add_option("--sources", sources_file, "JSON file: a list of source id lists");
  app.add_option("--random-sources", random_batch, "Use bench/random_marian.hpp's sources for this batch size")
      ->excludes(from_file);
  app.add_option("--dump-sources", dump_sources, "Also write the sources used, as JSON, to this file");
  app.add_option("--beams", beams, "num_beams (1: greedy)")->capture_default_str();
  app.add_option("--max-length", max_length, "max_length, decoder start counted")->capture_default_str();
  app.add_option("--min-length", min_length, "min_length (default: the model's)");
  app.add_option("--products", products_name, "openblas, packed (f32, the default), int8 or fixed")
      ->capture_default_str();
  app.add_option("--threads", threads, "CPU threads")->capture_default_str();
  app.add_option("--repeat", repeat, "Timed runs after one warm-up (0: the warm-up only, untimed)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const bench::Products products = bench::products_named(products_name);
    std::vector<TokenIds> sources;
    if (random_batch > 0)
      sources = bench::random_marian_sources(random_batch);
    else if (!sources_file.empty())
      sources = nlohmann::json::parse(std::ifstream(sources_file)).get<std::vector<TokenIds>>();
    else
      fail("give --sources or --random-sources");
    if (!dump_sources.empty()) std::ofstream(dump_sources) << nlohmann::json(sources).dump() << '\n';

    const auto load_start = std::chrono::steady_clock::now();
    const auto source = ModelSource::open(model_dir);
    const auto backend = make_cpu_backend(bench::options_for(products, threads));
    Seq2SeqModel model(*source, *backend);
    const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();

    SearchSettings settings = model.default_settings();
    settings.num_beams = beams;
    settings.max_length = max_length;
    if (min_length >= 0) settings.min_length = min_length;
    auto hyps = model.generate(sources, settings);  // warm-up
    nlohmann::json runs = nlohmann::json::array();
    for (int r = 0; r < repeat; ++r) {
      const double cpu_start = bench::cpu_seconds();
      const auto start = std::chrono::steady_clock::now();
      hyps = model.generate(sources, settings);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      runs.push_back({{"wall_s", wall}, {"cpu_s", bench::cpu_seconds() - cpu_start}});
    }
    nlohmann::json ids = nlohmann::json::array(), scores = nlohmann::json::array();
    for (const auto& h : hyps) {
      ids.push_back(h.front().ids);
      scores.push_back(h.front().score);
    }
    std::cout << nlohmann::json{{"ids", ids}, {"scores", scores}, {"runs", runs}, {"load_s", load_s}}.dump() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "tool_generate_ids: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
