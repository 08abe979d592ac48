// `invar tokenize`: a model's tokenizer (tokenizer.json, or transformers 4.19's slow tokenizers)
// applied line by line.
#include <memory>

#include "core/error.hpp"
#include "core/io.hpp"
#include "engine/text/tokenizer.hpp"
#include "loaders/model_source.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/text_input.hpp"

namespace invar::cli {
namespace {

struct TokenizeArguments {
  std::string model;
  bool pairs = false;
  std::size_t max_length = 0;
  std::string input = "-", output = "-";
  std::string tokenizer = "auto";
  TextInputOptions text;
};

void run(const TokenizeArguments& args) {
  const auto source = ModelSource::open(args.model);
  source->set_tokenizer_choice(tokenizer_choice(args.tokenizer));
  const auto tokenizer = make_tokenizer(*source);
  const auto texts = read_input_texts(args.input, args.text, args.pairs ? kTextPairs : kOneText);
  AtomicOutput output(args.output);
  for (std::size_t i = 0; i < texts.line_numbers.size(); ++i) {
    const Encoding encoding = args.pairs ? tokenizer->encode_pair(texts.texts[0][i], texts.texts[1][i], args.max_length)
                                         : tokenizer->encode(texts.texts[0][i], args.max_length);
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
      "included: one JSON object {\"ids\", \"tokens\", \"type_ids\"} per input row, in order.");
  app->add_option("-m,--model", args->model, "Hugging Face model folder or .invar file")->required();
  add_tokenizer_option(*app, args->tokenizer);
  app->add_flag("--pairs,--pair", args->pairs,
                "Each row is a text pair: two tab-separated texts per line, two CSV/TSV columns or two JSONL keys "
                "(--pair: the older spelling)");
  add_max_input_tokens_option(*app, args->max_length,
                              "Truncate to at most N ids, special tokens included (longest_first for pairs); 0 = no "
                              "limit");
  app->add_option("-i,--input", args->input,
                  "UTF-8 text, one text (or pair) per line, or a .tsv, .csv or .jsonl file; - = standard input")
      ->capture_default_str();
  app->add_option("-o,--output", args->output, "JSONL output, written whole or not at all; - = standard output")
      ->capture_default_str();
  add_text_input_options(*app, args->text, kTextPairs);
  app->callback([args] { run(*args); });
}

INVAR_COMMAND("tokenize", setup);

}  // namespace
}  // namespace invar::cli
