// tool_embed_ids: embeds token-id inputs with an encoder model folder (mean pooling of the last
// hidden state, no normalization), prints the embeddings and the steady-state time of each
// repetition as JSON, for comparing vectors and times with another implementation
// (bench/torch_encoder.py, bench/embed_vs_torch.sh).
//   build/bench/tool_embed_ids --model /tmp/xlmr-base --random-inputs 32 --tokens 32 --repeat 3
// The embed() call runs as bench_encoder's rows run it (EncoderModel::embed on the CPU backend);
// each repetition is timed alone, after one untimed warm-up, with process CPU time beside wall time.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <iostream>
#include <random>

#include "bench/cpu_time.hpp"
#include "bench/products.hpp"
#include "backends/cpu/backend.hpp"
#include "core/error.hpp"
#include "engine/encoder.hpp"

int main(int argc, char** argv) {
  using namespace invar;
  CLI::App app{"Embeds token-id inputs (mean pooling) and prints the vectors and the time of each run as JSON"};
  std::string model_dir, inputs_file, dump_inputs, products_name = "packed";
  std::int64_t random_batch = 0, tokens = 32;
  int repeat = 1, threads = 2;
  bool no_vectors = false;
  app.add_option("--model", model_dir, "Model folder or .invar file")->required();
  auto* from_file = app.add_option("--inputs", inputs_file, "JSON file: a list of id lists (all the same length)");
  app.add_option("--random-inputs", random_batch, "This many inputs of random ids (<s>/[CLS] ... </s>/[SEP] not added)")
      ->excludes(from_file);
  app.add_option("--tokens", tokens, "Ids per random input")->capture_default_str();
  app.add_option("--dump-inputs", dump_inputs, "Also write the inputs used, as JSON, to this file");
  app.add_option("--products", products_name, "openblas, packed (f32, the default), int8 or fixed")
      ->capture_default_str();
  app.add_option("--threads", threads, "CPU threads")->capture_default_str();
  app.add_option("--repeat", repeat, "Timed runs after one warm-up (0: the warm-up only, untimed)")
      ->capture_default_str();
  app.add_flag("--no-vectors", no_vectors, "Leave the embeddings out of the JSON");
  CLI11_PARSE(app, argc, argv);
  try {
    const bench::Products products = bench::products_named(products_name);

    const auto load_start = std::chrono::steady_clock::now();
    const auto source = ModelSource::open(model_dir);
    const auto backend = make_cpu_backend(bench::options_for(products, threads));
    EncoderModel model(*source, *backend);
    const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();

    std::vector<std::vector<std::int32_t>> ids;
    if (random_batch > 0) {
      // Ids from 5 up: clear of the special tokens of XLM-R (0..3) and BERT's usual [PAD]/[UNK].
      std::mt19937 rng(3);
      std::uniform_int_distribution<std::int32_t> token(5, static_cast<std::int32_t>(model.spec().vocab) - 1);
      ids.resize(static_cast<std::size_t>(random_batch));
      for (auto& row : ids) {
        row.resize(static_cast<std::size_t>(tokens));
        for (auto& id : row) id = token(rng);
      }
    } else if (!inputs_file.empty()) {
      ids = nlohmann::json::parse(std::ifstream(inputs_file)).get<std::vector<std::vector<std::int32_t>>>();
    } else {
      fail("give --inputs or --random-inputs");
    }
    if (!dump_inputs.empty()) std::ofstream(dump_inputs) << nlohmann::json(ids).dump() << '\n';
    std::vector<Encoding> inputs(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      inputs[i].ids = ids[i];
      inputs[i].type_ids.assign(ids[i].size(), 0);
    }

    const std::vector<Pooling> mean{Pooling::Mean};
    const std::int64_t last = model.spec().layers;
    auto vectors = model.embed(inputs, mean, false, last);  // warm-up
    nlohmann::json runs = nlohmann::json::array();
    for (int r = 0; r < repeat; ++r) {
      const double cpu_start = bench::cpu_seconds();
      const auto start = std::chrono::steady_clock::now();
      vectors = model.embed(inputs, mean, false, last);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      runs.push_back({{"wall_s", wall}, {"cpu_s", bench::cpu_seconds() - cpu_start}});
    }
    nlohmann::json out{{"runs", runs}, {"load_s", load_s}};
    if (!no_vectors) out["embeddings"] = vectors;
    std::cout << out.dump() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "tool_embed_ids: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
