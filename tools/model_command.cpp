#include "tools/model_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "backends/registry.hpp"
#include "core/log.hpp"
#include "tools/command.hpp"

namespace invar::cli {

void add_model_options(CLI::App& command, ModelOptions& options) {
  command.add_option("-m,--model", options.model, "Model: a Hugging Face folder or an .invar file")->required();
  command.add_option("-i,--input", options.input, "Input file ('-' = standard input)")->capture_default_str();
  command.add_option("-o,--output", options.output, "Output file, written atomically ('-' = standard output)")
      ->capture_default_str();
  add_compute_options(command, options);
  add_tokenizer_option(command, options.tokenizer);
}

void add_tokenizer_option(CLI::App& command, std::string& choice) {
  command
      .add_option("--tokenizer", choice,
                  "Tokenizer files: auto reads tokenizer.json where the folder has one (the fast tokenizer, which "
                  "AutoTokenizer loads by default) and the slow files (vocab.txt, spiece.model, ...) otherwise; json "
                  "only tokenizer.json; slow only the slow files (models/README.md says where the two differ)")
      ->check(CLI::IsMember({"auto", "json", "slow"}))
      ->capture_default_str();
}

TokenizerChoice tokenizer_choice(const std::string& name) {
  if (name == "json") return TokenizerChoice::Json;
  if (name == "slow") return TokenizerChoice::Slow;
  return TokenizerChoice::Auto;
}

void add_max_input_tokens_option(CLI::App& command, std::size_t& tokens, const std::string& help) {
  command.add_option("--max-input-tokens,--max-length", tokens, help + " (--max-length: the older spelling)")
      ->capture_default_str();
}

void add_batch_tokens_option(CLI::App& command, ModelOptions& options) {
  command
      .add_option("--batch-tokens", options.batch_tokens,
                  "Cap each batch at this many padded tokens (longest input in the batch × its inputs; 0 = no cap): "
                  "after sorting by length, batches of short inputs grow to --batch-size and batches of long ones "
                  "shrink; an input longer than the cap runs alone")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
}

void add_compute_options(CLI::App& command, ModelOptions& options) {
  command.add_option("--batch-size", options.batch_size, "Texts per batch")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  command.add_option("--threads", options.threads, "Threads (0 = every core)")
      ->capture_default_str()
      ->check(CLI::Range(0, kMaxThreads));
  std::string devices;
  for (const auto& name : backend_names()) devices += (devices.empty() ? "" : ", ") + name;
  command.add_option("--device", options.device, "Compute device: " + devices)->capture_default_str();
  command
      .add_option("--weights", options.weights,
                  "Weight storage: f32; f16 to store weight matrices and embeddings in half precision on the "
                  "device (half their memory; arithmetic stays f32; opencl devices only); int8 to quantize the "
                  "linear layers' weights per output channel and run them in int8 with their inputs quantized "
                  "per row (cpu only; a quarter of their memory; docs/performance.md has its accuracy)")
      ->check(CLI::IsMember({weight_type_name(WeightType::F32), weight_type_name(WeightType::F16),
                             weight_type_name(WeightType::Int8)}))
      ->capture_default_str();
  command
      .add_option("--linear", options.linear,
                  "What runs the linear layers' f32 products on the cpu: onednn (oneDNN's matmul on weights packed "
                  "into its layout once, at load) or openblas (OpenBLAS's sgemm on the weights as stored, as for "
                  "the other products: no packed copy); int8 weights always run on oneDNN "
                  "(docs/performance.md)")
      ->check(CLI::IsMember({linear_kernel_name(LinearKernel::OneDnn), linear_kernel_name(LinearKernel::OpenBlas)}))
      ->capture_default_str();
  command.add_flag("--deterministic", options.deterministic,
                   "Bit-identical results for every --threads and --batch-size: a text's outputs do not depend on "
                   "the other texts in its batch; the CPU sums each matrix-product element and each row in one "
                   "fixed order, for every product, instead of running them on oneDNN and OpenBLAS (--linear is "
                   "then unused; faster at batch 1, slower on large batches: docs/performance.md)");
  command.add_flag("--allow-non-finite", options.allow_non_finite,
                   "Load a model whose weights hold NaN or infinity, with a warning naming each such weight, "
                   "instead of refusing it (its outputs are then null where they are not finite)");
}

std::unique_ptr<ModelSource> open_model(const ModelOptions& options) {
  auto source = ModelSource::open(options.model);
  if (options.allow_non_finite) source->set_non_finite(NonFinite::Warn);
  source->set_tokenizer_choice(tokenizer_choice(options.tokenizer));
  return source;
}

std::unique_ptr<Backend> open_backend(const ModelOptions& options) {
  WeightType weights = WeightType::F32;
  for (const WeightType type : {WeightType::F16, WeightType::Int8}) {
    if (options.weights == weight_type_name(type)) weights = type;
  }
  const LinearKernel linear =
      options.linear == linear_kernel_name(LinearKernel::OpenBlas) ? LinearKernel::OpenBlas : LinearKernel::OneDnn;
  return make_backend(options.device, {.threads = thread_count(options.threads),
                                       .deterministic = options.deterministic,
                                       .weights = weights,
                                       .linear = linear});
}

void warn_non_finite(const std::string& input, std::size_t line) {
  warn(fmt::format("{}:{}: the output holds non-finite values (NaN or infinity), written as null",
             input == "-" ? "<stdin>" : input, line));
}

}  // namespace invar::cli
