// `invar info`: what a model folder or .invar file holds, as text or JSON.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "core/error.hpp"
#include "engine/text/tokenizer.hpp"
#include "loaders/invar_file.hpp"
#include "models/generation_config.hpp"
#include "models/hf_config.hpp"
#include "tools/command.hpp"

namespace invar::cli {
namespace {

namespace fs = std::filesystem;

struct InfoArguments {
  std::string model;
  bool json = false;
};

std::uintmax_t size_on_disk(const std::string& path) {
  if (!fs::is_directory(path)) return fs::file_size(path);
  std::uintmax_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(path))
    if (entry.is_regular_file()) total += entry.file_size();
  return total;
}

nlohmann::json describe(const std::string& path) {
  const auto source = ModelSource::open(path);
  // Commands check an .invar file's data as they read it; info checks all of it, both ways.
  source->verify_all();
  const ModelConfig config = load_model_config(*source);
  const bool folder = fs::is_directory(path);

  nlohmann::json info;
  info["path"] = path;
  info["format"] = folder ? "huggingface-folder" : "invar";
  if (!folder) info["format_version"] = kInvarVersion;
  info["model_type"] = config.model_type;
  info["architectures"] = config.architectures;
  info["encoder_decoder"] = config.is_encoder_decoder;
  info["hidden_size"] = config.hidden_size;
  info["encoder_layers"] = config.encoder_layers;
  info["encoder_attention_heads"] = config.encoder_attention_heads;
  if (config.is_encoder_decoder) {
    info["decoder_layers"] = config.decoder_layers;
    info["decoder_attention_heads"] = config.decoder_attention_heads;
  }
  info["vocab_size"] = config.vocab_size;
  if (config.target_vocab_size != config.vocab_size) info["target_vocab_size"] = config.target_vocab_size;

  if (config.is_encoder_decoder) {
    nlohmann::json generation = nlohmann::json::array();
    for (const auto& setting : load_generation_config(*source, config).settings)
      generation.push_back({{"name", setting.name}, {"value", setting.value}, {"from", origin_name(setting.origin)}});
    info["generation"] = generation;
  }

  std::map<std::string, std::int64_t> dtypes;
  std::int64_t parameters = 0;
  for (const auto& name : source->tensor_names()) {
    const TensorInfo tensor = source->tensor_info(name);
    ++dtypes[dtype_name(tensor.dtype)];
    if (is_floating(tensor.dtype) || tensor.dtype == DType::I8) parameters += tensor.numel();
  }
  info["tensors"] = source->tensor_names().size();
  info["dtypes"] = dtypes;
  info["parameters"] = parameters;
  info["file_size"] = size_on_disk(path);
  // verify_all checked an .invar file's data CRC (and block hashes), open its header CRC; a folder has none.
  info["checksum"] = folder ? "none" : "verified";

  try {
    const auto tokenizer = make_tokenizer(*source);
    info["tokenizer"] = {{"algorithm", tokenizer->algorithm()}, {"vocab_size", tokenizer->vocab_size()}};
  } catch (const Error& e) {
    info["tokenizer"] = {{"error", e.what()}};
  }
  if (const auto sentence = load_sentence_transformer_config(*source)) {
    nlohmann::json pooling = nlohmann::json::array();
    for (Pooling mode : sentence->pooling) pooling.push_back(pooling_name(mode));
    info["sentence_transformer"] = {{"pooling", pooling}, {"normalize", sentence->normalize}};
  }
  return info;
}

std::string text(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

void print_text(const nlohmann::json& info) {
  const auto line = [](const std::string& label, const std::string& value) {
    std::cout << fmt::format("{:<26}{}\n", label + ":", value);
  };
  line("path", text(info["path"]));
  line("format", text(info["format"]) + (info.contains("format_version") ? " v" + text(info["format_version"]) : ""));
  line("model type", text(info["model_type"]));
  if (!info["architectures"].empty()) line("architectures", text(info["architectures"]));
  line("hidden size", text(info["hidden_size"]));
  const bool seq2seq = info["encoder_decoder"].get<bool>();
  line(seq2seq ? "encoder layers / heads" : "layers / heads",
       text(info["encoder_layers"]) + " / " + text(info["encoder_attention_heads"]));
  if (seq2seq) line("decoder layers / heads", text(info["decoder_layers"]) + " / " + text(info["decoder_attention_heads"]));
  line("vocab size", text(info["vocab_size"]) +
                         (info.contains("target_vocab_size") ? " (target " + text(info["target_vocab_size"]) + ")" : ""));
  std::string dtypes;
  for (const auto& [dtype, count] : info["dtypes"].items()) dtypes += (dtypes.empty() ? "" : ", ") + dtype + " × " + text(count);
  line("tensors", text(info["tensors"]) + " (" + dtypes + "), " + text(info["parameters"]) + " parameters");
  line("file size", text(info["file_size"]) + " bytes");
  line("checksum", info["checksum"] == "verified" ? "CRC-32 of header and data verified" : "none (a folder has no checksums)");
  const auto& tokenizer = info["tokenizer"];
  line("tokenizer", tokenizer.contains("error") ? "unavailable: " + text(tokenizer["error"])
                                                : text(tokenizer["algorithm"]) + ", " + text(tokenizer["vocab_size"]) + " tokens");
  if (info.contains("generation")) {
    // One line per origin, so what the checkpoint sets stands apart from the defaults.
    std::cout << "generate() settings, by the file each came from:\n";
    for (const char* origin : {"generation_config.json", "config.json", "default"}) {
      std::string settings;
      for (const auto& setting : info["generation"])
        if (setting["from"] == origin)
          settings += (settings.empty() ? "" : ", ") + text(setting["name"]) + " " + setting["value"].dump();
      if (!settings.empty()) line(std::string("  ") + origin, settings);
    }
  }
  if (info.contains("sentence_transformer")) {
    const auto& sentence = info["sentence_transformer"];
    line("sentence-transformers", "pooling " + text(sentence["pooling"]) + (sentence["normalize"].get<bool>() ? ", normalized" : ""));
  }
}

void setup(CLI::App& root) {
  auto args = std::make_shared<InfoArguments>();
  auto* app = root.add_subcommand(
      "info",
      "Describe a model (Hugging Face folder or .invar file): family, layers, heads, hidden and vocabulary "
      "sizes, tensor dtypes and parameter count, size on disk, tokenizer, checksum status. Opening an "
      ".invar file verifies its checksums, so a corrupted file is reported as an error.");
  app->add_option("model,-m,--model", args->model,
                  "Hugging Face model folder or .invar file (positional, or -m as in every other command)")
      ->required();
  app->add_flag("--json", args->json, "Print one JSON object instead of the table");
  app->callback([args] {
    const nlohmann::json info = describe(args->model);
    if (args->json) std::cout << info.dump(2) << '\n';
    else print_text(info);
  });
}

INVAR_COMMAND("info", setup);

}  // namespace
}  // namespace invar::cli
