#pragma once
// What every command that runs a model shares: the model, input and output files, batching,
// threads and the compute device (progress bars: run/progress.hpp).
#include <CLI/CLI.hpp>

#include <cstddef>
#include <memory>
#include <string>

#include "backends/backend.hpp"
#include "loaders/model_source.hpp"
#include "run/progress.hpp"

namespace invar::cli {

struct ModelOptions {
  std::string model;         // a Hugging Face folder or an .invar file
  std::string input = "-";   // "-" = standard input
  std::string output = "-";  // "-" = standard output; a file is written atomically
  std::size_t batch_size = 32;
  std::size_t batch_tokens = 0;  // 0 = batches cut by batch_size only
  int threads = 0;           // 0 = every core
  std::string device = "cpu";
  bool deterministic = false;  // see BackendOptions::deterministic
  std::string weights = "f32";  // "f32" or "f16" (BackendOptions::weights)
  std::string linear = "onednn";  // "onednn" or "openblas" (BackendOptions::linear)
  bool allow_non_finite = false;  // warn about NaN/infinite weights instead of refusing the model
  std::string tokenizer = "auto";  // --tokenizer: which tokenizer files a folder is read with
};

// Adds -m/--model (required), -i/--input, -o/--output and the compute options.
void add_model_options(CLI::App& command, ModelOptions& options);
// Adds --batch-size, --threads, --device, --weights, --linear and --deterministic (for commands that name
// their models otherwise).
void add_compute_options(CLI::App& command, ModelOptions& options);

// Adds --tokenizer auto|json|slow into `choice` (add_model_options adds it for ModelOptions).
void add_tokenizer_option(CLI::App& command, std::string& choice);
// The TokenizerChoice --tokenizer names.
TokenizerChoice tokenizer_choice(const std::string& name);

// Adds --max-input-tokens (and its older spelling --max-length): each input text truncated to this many
// tokens, special tokens included. The name says "input" because --max-length in generate and
// translate is the output's length, as in Hugging Face's generate().
void add_max_input_tokens_option(CLI::App& command, std::size_t& tokens, const std::string& help);

// Adds --batch-tokens, for the commands whose batches are length-sorted (engine/decode/batching.hpp).
void add_batch_tokens_option(CLI::App& command, ModelOptions& options);

// Rows per chunk of --resume, --shard and MPI runs (run/row_run.hpp): eight batches, so that
// length-sorted batching still has rows to sort.
inline std::size_t chunk_rows(const ModelOptions& options) { return 8 * options.batch_size; }

// One stderr line for an output row that holds NaN or infinity (written as null), naming the input
// line it came from ("-" = standard input).
void warn_non_finite(const std::string& input, std::size_t line);

// The model --model names, refusing NaN or infinite weights unless --allow-non-finite.
std::unique_ptr<ModelSource> open_model(const ModelOptions& options);

// The backend --device names, with --threads resolved and --weights.
std::unique_ptr<Backend> open_backend(const ModelOptions& options);

using run::Progress;

}  // namespace invar::cli
