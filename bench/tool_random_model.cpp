// tool_random_model: writes a random-weight model of a real size as a Hugging Face folder, for
// benchmarks and memory measurements. Never commit its output.
//   build/bench/tool_random_model --preset xlmr-base --out /tmp/xlmr-base
//   build/bench/tool_random_model --preset opus-mt-base --out /tmp/opus-mt-base
#include <CLI/CLI.hpp>

#include <iostream>

#include "bench/random_marian.hpp"
#include "bench/random_model.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Writes a random-weight model (config.json, model.safetensors, tokenizer files borrowed from a "
               "tests/fixtures/core model) of a real size"};
  std::string preset = "xlmr-base", out, fixtures = "tests/fixtures/core";
  std::uint32_t seed = 1;
  app.add_option("--preset", preset, "xlmr-base, multilingual-minilm-l12, all-minilm-l6 (encoders) or opus-mt-base (Marian)")->capture_default_str();
  app.add_option("--out", out, "Folder to write (created)")->required();
  app.add_option("--fixtures", fixtures, "tests/fixtures/core of the source tree")->capture_default_str();
  app.add_option("--seed", seed, "Random seed")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    if (preset == "opus-mt-base")
      invar::bench::write_random_marian(out, fixtures, seed);
    else
      invar::bench::write_random_model(invar::bench::random_model_preset(preset), out, fixtures, seed);
  } catch (const std::exception& e) {
    std::cerr << "tool_random_model: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
