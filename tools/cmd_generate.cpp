// `invar generate`, `invar translate` and `invar score`: encoder-decoder models (Marian, BART,
// mBART, Pegasus, M2M100/NLLB, FSMT, T5) on text, one output line per input line. Search settings
// default to the model's config.json, as Hugging Face's generate() reads them.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/json_number.hpp"
#include "core/log.hpp"
#include "core/printable.hpp"
#include "engine/translator.hpp"
#include "loaders/model_source.hpp"
#include "run/record.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/run_control.hpp"
#include "tools/search_options.hpp"
#include "tools/text_input.hpp"

namespace invar::cli {
namespace {

struct Arguments {
  ModelOptions model;
  TextInputOptions input;
  SearchOptions search;
  RunControl control;
  std::string vocab_map;  // --vocab-map: a target-vocabulary shortlist (engine/vocabulary_map.hpp)
};

// Source and target of each row: two TSV/CSV columns, or JSONL keys "source" and "target".
const TextRoles kSourceTarget{{"source", "target"}, {"source", "target"}};

struct Session {
  std::unique_ptr<ModelSource> source;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Translator> translator;
  std::unique_ptr<VocabularyMap> vocab_map;
};

Session open_session(const Arguments& args) {
  Session session;
  session.source = open_model(args.model);
  session.backend = open_backend(args.model);
  session.translator = std::make_unique<Translator>(*session.source, *session.backend);
  session.translator->set_languages(args.search.source_language, args.search.target_language);
  if (!args.vocab_map.empty()) session.vocab_map = std::make_unique<VocabularyMap>(args.vocab_map, session.translator->tokenizer());
  return session;
}

// Options for the rows from `first` on (a chunk of the input).
TranslateOptions translate_options(const ModelOptions& model, const TextColumns& table, Progress& progress,
                                   std::size_t first) {
  TranslateOptions options;
  options.batch_size = model.batch_size;
  options.batch_tokens = model.batch_tokens;
  options.where = [&table, first](std::size_t row) { return table.where(first + row); };
  options.progress = [&progress, first](std::size_t done) { progress.set(first + done); };
  return options;
}

void warn_truncated(std::size_t truncated, std::size_t total, std::int64_t positions) {
  if (truncated > 0)
    warn(fmt::format("{} of {} sources were longer than the model's {} positions and were truncated",
               truncated, total, positions));
}


// The output line of one input's hypotheses.
std::string generation_line(const std::vector<Translation>& hyps, bool best_text_only) {
  if (best_text_only) return hyps.empty() ? std::string() : one_line(hyps.front().text);
  nlohmann::json line = {{"hyps", nlohmann::json::array()}};
  for (const auto& hyp : hyps) line["hyps"].push_back({{"text", hyp.text}, {"ids", hyp.ids}, {"score", hyp.score}});
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

RowRunSpec row_run_spec(const Arguments& args, std::size_t rows) {
  return row_run_spec(args.control, {.inputs = {"--input", "--vocab-map"}, .output = args.model.output,
          .rows = rows, .chunk = chunk_rows(args.model)});
}

// The model is opened for the first chunk this run computes (none when resuming a finished run or
// merging partial results). A row's record is its output line, whether --truncate cut its source
// and the length it was cut to, so that the process that writes the output counts every cut
// source, whichever process translated it.
void run_generate(const Arguments& args, bool best_text_only) {
  const TextColumns table = read_input_texts(args.model.input, args.input, kOneText);
  const auto& texts = table.texts[0];
  RowRun run(row_run_spec(args, texts.size()));
  std::optional<Session> session;
  SearchSettings settings;
  Progress progress(best_text_only ? "translate" : "generate", texts.size());
  const bool writes = run.process([&](std::size_t begin, std::size_t end) {
    if (!session) {
      session = open_session(args);
      settings = search_settings(*session->translator, args.search);
    }
    auto options = translate_options(args.model, table, progress, begin);
    std::vector<bool> cut(end - begin);
    if (args.search.truncate) options.truncated = [&cut](std::size_t i) { cut.at(i) = true; };
    options.vocab_map = session->vocab_map.get();
    const auto results = session->translator->generate({texts.begin() + begin, texts.begin() + end}, settings, options);
    std::vector<std::string> records;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& hyps = results[i];
      if (std::any_of(hyps.begin(), hyps.end(), [](const auto& h) { return !std::isfinite(h.score); }))
        warn_non_finite(table.path, table.line_numbers[begin + i]);
      records.push_back(run::RecordWriter()
                            .put(generation_line(hyps, best_text_only))
                            .put(static_cast<bool>(cut[i]))
                            .put(std::int64_t{session->translator->max_source_length()})
                            .str());
    }
    return records;
  });
  if (!writes) return;
  std::vector<std::string> lines;
  std::size_t truncated = 0;
  std::int64_t limit = 0;
  for (const auto& text : run.records()) {
    run::RecordReader record(text, best_text_only ? "translate" : "generate");
    lines.push_back(record.get_string());
    const bool was_cut = record.get_bool();
    const std::int64_t length = record.get_int();
    record.finish();
    if (was_cut) {
      ++truncated;
      limit = length;
    }
  }
  warn_truncated(truncated, texts.size(), limit);
  AtomicOutput out(args.model.output);
  for (const auto& line : lines) out.write_line(line);
  out.commit();
  run.close();
}

void run_score(const Arguments& args) {
  const TextColumns table = read_input_texts(args.model.input, args.input, kSourceTarget);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = 0; i < table.line_numbers.size(); ++i) pairs.emplace_back(table.texts[0][i], table.texts[1][i]);
  RowRun run(row_run_spec(args, pairs.size()));
  std::optional<Session> session;
  Progress progress("score", pairs.size());
  const bool writes = run.process([&](std::size_t begin, std::size_t end) {
    if (!session) session = open_session(args);
    const auto scores = session->translator->score({pairs.begin() + begin, pairs.begin() + end},
                                                   translate_options(args.model, table, progress, begin));
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      if (!std::isfinite(scores[i].logprob)) warn_non_finite(table.path, table.line_numbers[begin + i]);
      lines.push_back(nlohmann::json{{"logprob", json_number(scores[i].logprob)}, {"tokens", scores[i].tokens}}.dump());
    }
    return lines;
  });
  if (writes) run.write_lines();
}

// generate and translate: the same options, JSON hypotheses or the best text.
void add_generation_command(CLI::App& root, const std::string& name, const std::string& description,
                            bool best_text_only) {
  auto args = std::make_shared<Arguments>();
  auto* app = root.add_subcommand(name, description);
  add_model_options(*app, args->model);
  add_batch_tokens_option(*app, args->model);
  add_text_input_options(*app, args->input, kOneText);
  add_search_options(*app, args->search);
  add_sampling_options(*app, args->search);
  app->add_option("--vocab-map", args->vocab_map,
                  "Target-vocabulary shortlist, CTranslate2's vocabulary map: lines '<source n-gram> TAB <target "
                  "tokens>' (an empty n-gram: always candidates); each batch may only produce the candidates of its "
                  "sources' n-grams, and the LM head runs over those rows only")
      ->check(CLI::ExistingFile);
  add_run_control_options(*app, args->control);
  app->callback([args, best_text_only] { run_generate(*args, best_text_only); });
}

void setup_generate(CLI::App& root) {
  add_generation_command(
      root, "generate",
      "Generate with an encoder-decoder model (Marian, BART, mBART, Pegasus, M2M100/NLLB, FSMT, T5): one JSON "
      "line per input line, {\"hyps\": [{\"text\", \"ids\", \"score\"}, ...]} best first; an empty input line gives "
      "{\"hyps\": []}. Sources longer than the model's positions are an error naming the line.",
      false);
}

void setup_translate(CLI::App& root) {
  add_generation_command(
      root, "translate",
      "Translate (or summarise, paraphrase) with an encoder-decoder model: the best hypothesis's text per input "
      "line (line breaks in it become spaces), an empty line for an empty one; a source longer than the model's "
      "positions is an error naming the line. Same options as generate.",
      true);
}

void setup_score(CLI::App& root) {
  auto args = std::make_shared<Arguments>();
  auto* app = root.add_subcommand(
      "score",
      "Forced decoding: log-probability of each target given its source, as the model would generate it (forced "
      "language token given, text, EOS). Input: source<TAB>target lines (or CSV, or JSONL with \"source\" and "
      "\"target\"); output: {\"logprob\": x, \"tokens\": n} per line.");
  add_model_options(*app, args->model);
  add_batch_tokens_option(*app, args->model);
  add_text_input_options(*app, args->input, kSourceTarget);
  add_language_options(*app, args->search);
  add_run_control_options(*app, args->control);
  app->callback([args] { run_score(*args); });
}

INVAR_COMMAND("generate", setup_generate);
INVAR_COMMAND("translate", setup_translate);
INVAR_COMMAND("score", setup_score);

}  // namespace
}  // namespace invar::cli
