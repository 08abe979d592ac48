// `invar convert`: a Hugging Face model folder (or an .invar file) into one self-contained .invar file
// (docs/model-format.md).
#include <memory>

#include "core/error.hpp"
#include "core/io.hpp"
#include "engine/int8_weights.hpp"
#include "loaders/invar_file.hpp"
#include "tools/command.hpp"

namespace invar::cli {
namespace {

struct ConvertArguments {
  std::string model, output, dtype;
};

void run(const ConvertArguments& args) {
  std::optional<DType> dtype;
  const bool int8 = args.dtype == "int8";
  if (args.dtype == "f32") dtype = DType::F32;
  else if (args.dtype == "f16") dtype = DType::F16;
  else if (args.dtype == "bf16") dtype = DType::BF16;
  else if (!args.dtype.empty() && !int8) fail("--dtype must be f32, f16, bf16 or int8, got '{}'", args.dtype);
  if (args.output == "-") fail("--output must name a file; an .invar file is binary");
  const auto source = ModelSource::open(args.model);
  const std::set<std::string> int8_tensors = int8 ? int8_weight_names(*source) : std::set<std::string>{};
  AtomicOutput output(args.output);
  write_invar_file(*source, output.stream(), dtype, int8_tensors);
  output.commit();
}

void setup(CLI::App& root) {
  auto args = std::make_shared<ConvertArguments>();
  auto* app = root.add_subcommand(
      "convert",
      "Pack a Hugging Face model folder (config.json, tokenizer and sentence-transformers files, weights from "
      "model.safetensors or pytorch_model.bin, sharded or not) into one memory-mappable .invar file with "
      "CRC-32 checksums. Every invar command accepts the .invar file wherever it takes a model folder.");
  app->add_option("model,-m,--model", args->model,
                  "Hugging Face model folder (or an .invar file to re-encode); positional, or -m as in every other command")
      ->required();
  app->add_option("-o,--output", args->output, "The .invar file to write (written whole or not at all)")->required();
  app->add_option("--dtype", args->dtype,
                  "Store floating tensors as f32, f16 or bf16 (rounded to nearest, ties to even; int8 tensors "
                  "are dequantized first), or int8: the linear-layer matrices that --weights int8 quantizes "
                  "are stored quantized (per output channel, with f32 scales; about a quarter of their f32 "
                  "size), every other tensor as stored. Integer tensors are kept. Default: as stored");
  app->callback([args] { run(*args); });
}

INVAR_COMMAND("convert", setup);

}  // namespace
}  // namespace invar::cli
