// `invar tokenize`: a model's tokenizer (tokenizer.json, or transformers 4.19's slow tokenizers)
// applied line by line.
#include <memory>

#include "core/error.hpp"
#include "core/io.hpp"
#include "engine/text/tokenizer.hpp"
#include "loaders/model_source.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"

namespace invar::cli {
namespace {

struct TokenizeArguments {
  std::string model;
  bool pair = false;
  std::size_t max_length = 0;
  std::string input = "-", output = "-";
  std::string tokenizer = "auto";
};

void run(const TokenizeArguments& args) {
  const auto source = ModelSource::open(args.model);
  source->set_tokenizer_choice(tokenizer_choice(args.tokenizer));
  const auto tokenizer = make_tokenizer(*source);
  LineReader reader(args.input);
  AtomicOutput output(args.output);
  std::string line;
  while (reader.next(line)) {
    Encoding encoding;
    if (args.pair) {
      const auto tab = line.find('\t');
      if (tab == std::string::npos) fail("{}: --pair needs two texts separated by a tab; the line has no tab", reader.where());
      if (line.find('\t', tab + 1) != std::string::npos)
        fail("{}: --pair needs two texts separated by one tab; the line has more", reader.where());
      encoding = tokenizer->encode_pair(std::string_view(line).substr(0, tab), std::string_view(line).substr(tab + 1),
                                        args.max_length);
    } else {
      encoding = tokenizer->encode(line, args.max_length);
    }
    output.write_line(
        nlohmann::json{{"ids", encoding.ids}, {"tokens", encoding.tokens}, {"type_ids", encoding.type_ids}}.dump());
  }
  output.commit();
}

void setup(CLI::App& root) {
  auto args = std::make_shared<TokenizeArguments>();
  auto* app = root.add_subcommand(
      "tokenize",
      "Tokenize text as the model's Hugging Face tokenizer does (tokenizer.json as the fast tokenizer reads it, or "
      "transformers 4.19's slow tokenizer: --tokenizer), special tokens "
      "included: one JSON object {\"ids\", \"tokens\", \"type_ids\"} per input line, in order.");
  app->add_option("-m,--model", args->model, "Hugging Face model folder or .invar file")->required();
  add_tokenizer_option(*app, args->tokenizer);
  app->add_flag("--pair", args->pair, "Each line is a text pair, the two texts separated by a tab");
  app->add_option("--max-length", args->max_length,
                  "Truncate to at most N ids, special tokens included (longest_first for pairs); 0 = no limit")
      ->capture_default_str();
  app->add_option("--input", args->input, "UTF-8 text, one text (or pair) per line; - = standard input")
      ->capture_default_str();
  app->add_option("--output", args->output, "JSONL output, written whole or not at all; - = standard output")
      ->capture_default_str();
  app->callback([args] { run(*args); });
}

INVAR_COMMAND("tokenize", setup);

}  // namespace
}  // namespace invar::cli
