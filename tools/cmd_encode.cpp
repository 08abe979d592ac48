// Encoder commands: `invar embed`, `hidden`, `classify`, `pll` and `similarity` run a BERT,
// RoBERTa, XLM-R or MPNet model (engine/encoder.hpp) over one text (or tab-separated pair) per
// input line and write one JSONL line per input line, in input order. Inputs are batched by
// length; texts longer than the model allows are truncated with one warning (pll scores them whole,
// in overlapping windows).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "core/console.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/json_number.hpp"
#include "core/log.hpp"
#include "core/npy.hpp"
#include "engine/cosine.hpp"
#include "engine/encoder_run.hpp"
#include "engine/text_encoder.hpp"
#include "engine/translator.hpp"
#include "engine/zero_shot.hpp"
#include "run/record.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/run_control.hpp"
#include "tools/text_input.hpp"

namespace invar::cli {
namespace {

struct EncodeOptions {
  ModelOptions model;
  std::size_t max_length = 0;  // 0 = the model's limit
  std::int64_t layer = -1;     // hidden states after this layer; negative counts from the end
  TextInputOptions input;
  RunControl control;
};

void add_encode_options(CLI::App& command, EncodeOptions& options, const TextRoles& roles = kOneText) {
  add_model_options(command, options.model);
  add_text_input_options(command, options.input, roles);
  add_batch_tokens_option(command, options.model);
  add_max_input_tokens_option(command, options.max_length,
                              "Truncate longer inputs to this many tokens, special tokens included (0 = the model's "
                              "limit)");
  add_run_control_options(command, options.control);
}

void add_layer_option(CLI::App& command, EncodeOptions& options) {
  command.add_option("--layer", options.layer,
                     "Hidden states after this layer: 0 = embeddings, N = last; negative counts from the end "
                     "(-1 = last)")
      ->capture_default_str();
}

// The input rows (with `pairs`, both texts of each) and the input line each row starts at. An empty
// text stays an input, so outputs keep their rows.
struct Inputs {
  std::vector<TextInput> rows;
  std::vector<std::size_t> lines;
};

Inputs read_input(const EncodeOptions& options, bool pairs) {
  const auto read = read_input_texts(options.model.input, options.input, pairs ? kTextPairs : kOneText);
  Inputs inputs{.lines = read.line_numbers};
  for (std::size_t i = 0; i < read.line_numbers.size(); ++i)
    inputs.rows.push_back({read.texts[0][i], pairs ? read.texts[1][i] : std::string()});
  return inputs;
}

// `lines`: the input line of each text the run encodes.
EncoderRunOptions encoder_run_options(const EncodeOptions& options, std::vector<std::size_t> lines) {
  return {.max_length = options.max_length,
          .layer = options.layer,
          .input = options.model.input,
          .lines = std::move(lines),
          .batch_size = options.model.batch_size,
          .batch_tokens = options.model.batch_tokens};
}

// One warning says how many of the `total` lines were cut.
void report_truncated(const EncoderRun& run, std::size_t total) {
  if (run.truncated() > 0)
    warn(fmt::format("{} of {} input lines were longer than {} tokens and were truncated",
               run.truncated(), total, run.encoder().max_length()));
}

using ChunkRecords = std::function<std::vector<std::string>(EncoderRun&, std::size_t begin, std::size_t end)>;

// Runs `records` on the chunks of `rows` input rows (run/row_run.hpp: --resume, --shard, MPI)
// and hands back the RowRun when this process writes the output. The model opens (unless the
// command had to open it already: `opened`), and `prepare` runs, with the first chunk this process
// computes.
std::unique_ptr<RowRun> run_rows(const EncodeOptions& options, const std::vector<std::size_t>& lines, std::size_t rows,
                                 std::size_t chunk,
                               const std::function<void(EncoderRun&)>& prepare, const ChunkRecords& records,
                               std::unique_ptr<ModelSource> opened = {}) {
  auto row_run = std::make_unique<RowRun>(row_run_spec(options.control, {.inputs = {"--input"}, .output = options.model.output,
                                                         .rows = rows, .chunk = chunk}));
  std::optional<EncoderRun> run;
  const bool writes = row_run->process([&](std::size_t begin, std::size_t end) {
    if (!run) {
      // Before the backend, as the errors of both come in that order.
      auto source = opened ? std::move(opened) : open_model(options.model);
      run.emplace(std::move(source), open_backend(options.model), encoder_run_options(options, lines));
      prepare(*run);
    }
    return records(*run, begin, end);
  });
  if (run) report_truncated(*run, rows);
  if (!writes) row_run.reset();
  return row_run;
}

// run_rows for commands whose records are their output lines.
void write_rows(const EncodeOptions& options, const std::vector<std::size_t>& lines, std::size_t rows,
                const std::function<void(EncoderRun&)>& prepare, const ChunkRecords& records,
                std::unique_ptr<ModelSource> opened = {}) {
  if (auto run = run_rows(options, lines, rows, chunk_rows(options.model), prepare, records, std::move(opened)))
    run->write_lines();
}

// ---- embed / similarity ----

struct EmbedOptions {
  EncodeOptions encode;
  std::string pooling;  // empty = modules.json's, else mean
  bool normalize = false;
  std::string format = "jsonl";
};

// Sentence embeddings as sentence-transformers computes them: modules.json's pooling and
// Normalize unless --pooling / --normalize say otherwise.
EmbeddingSettings embedding_settings(const EmbedOptions& options, EncoderRun& run) {
  run.encoder().cap_length_for_embeddings();
  EmbeddingSettings settings = run.encoder().default_embedding_settings();
  if (!options.pooling.empty()) settings.modes = {parse_pooling(options.pooling)};
  settings.normalize = settings.normalize || options.normalize;
  settings.layer = run.layer();
  return settings;
}

void add_embedding_options(CLI::App& command, EmbedOptions& options, const TextRoles& roles) {
  add_encode_options(command, options.encode, roles);
  add_layer_option(command, options.encode);
  command.add_option("--pooling", options.pooling,
                     "mean, cls, max or mean_sqrt_len_tokens (default: modules.json's Pooling, else mean)");
  command.add_flag("--normalize", options.normalize,
                   "L2-normalize the embeddings (always on when modules.json has a Normalize module)");
}

std::size_t embedding_width(const EmbedOptions& options) {
  auto source = open_model(options.encode.model);
  EncoderRun run(std::move(source), open_backend(options.encode.model), encoder_run_options(options.encode, {}));
  return run.encoder().embedding_width(embedding_settings(options, run));
}

// Records are the JSON lines, or for npy output each embedding's bytes (written as one matrix at the end).
void run_embed(const EmbedOptions& options) {
  const bool npy = options.format == "npy";
  if (options.format != "jsonl" && !npy) fail("--output-format must be jsonl or npy, got '{}'", options.format);
  const Inputs inputs = read_input(options.encode, false);
  const auto& lines = inputs.rows;
  const auto& line_numbers = inputs.lines;
  const auto& input = options.encode.model.input;
  EmbeddingSettings settings;
  Progress progress("embed", lines.size());
  auto row_run = run_rows(
      options.encode, line_numbers, lines.size(), chunk_rows(options.encode.model),
      [&](EncoderRun& run) { settings = embedding_settings(options, run); },
      [&](EncoderRun& run, std::size_t begin, std::size_t end) {
        const auto embeddings = run.encoder().embed(run.encode(lines, begin, end, false), settings, run.batches([&progress](std::size_t done) { progress.advance(done); }));
        std::vector<std::string> records;
        for (std::size_t i = 0; i < embeddings.size(); ++i) {
          if (!all_finite(embeddings[i])) warn_non_finite(input, line_numbers[begin + i]);
          records.push_back(npy ? run::RecordWriter().put(embeddings[i]).str() : R"({"embedding": )" + json_array_text(embeddings[i]) + "}");
        }
        return records;
      });
  if (!row_run) return;
  if (!npy) return row_run->write_lines();
  std::vector<std::vector<float>> embeddings;
  for (const auto& text : row_run->records()) {
    run::RecordReader record(text, "embed");
    embeddings.push_back(record.get_floats());
    record.finish();
  }
  write_npy(options.encode.model.output, embeddings, embeddings.empty() ? embedding_width(options) : embeddings[0].size());
  row_run->close();
}

// Both texts of every pair are embedded (texts 2i and 2i + 1 of pair i).
void run_similarity(const EmbedOptions& options) {
  const Inputs inputs = read_input(options.encode, true);
  const auto& pairs = inputs.rows;
  const auto& pair_lines = inputs.lines;
  std::vector<TextInput> texts;
  std::vector<std::size_t> text_lines;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    texts.push_back({pairs[i].first, {}});
    texts.push_back({pairs[i].second, {}});
    text_lines.insert(text_lines.end(), 2, pair_lines[i]);
  }
  EmbeddingSettings settings;
  Progress progress("similarity", texts.size());
  write_rows(
      options.encode, text_lines, pairs.size(), [&](EncoderRun& run) { settings = embedding_settings(options, run); },
      [&](EncoderRun& run, std::size_t begin, std::size_t end) {
        const auto embeddings =
            run.encoder().embed(run.encode(texts, 2 * begin, 2 * end, false), settings, run.batches([&progress](std::size_t done) { progress.advance(done); }));
        std::vector<std::string> records;
        for (std::size_t i = 0; i < end - begin; ++i) {
          const double value = cosine_similarity(embeddings[2 * i], embeddings[2 * i + 1]);
          if (!std::isfinite(value)) warn_non_finite(options.encode.model.input, pair_lines[begin + i]);
          records.push_back(fmt::format(R"({{"cosine": {}}})", json_number_text(value)));
        }
        return records;
      });
}

// ---- hidden ----

void run_hidden(const EncodeOptions& options) {
  const Inputs inputs = read_input(options, false);
  const auto& lines = inputs.rows;
  const auto& line_numbers = inputs.lines;
  std::int64_t layer = 0;
  Progress progress("hidden", lines.size());
  write_rows(
      options, line_numbers, lines.size(), [&](EncoderRun& run) { layer = run.layer(); },
      [&](EncoderRun& run, std::size_t begin, std::size_t end) {
        const auto inputs = run.encode(lines, begin, end, false);
        const auto hidden = run.encoder().batched<std::vector<float>>(
            inputs, run.batches([&progress](std::size_t done) { progress.advance(done); }),
            [&](std::span<const Encoding> batch) { return run.model().hidden_states(batch, layer); });
        const std::size_t h = static_cast<std::size_t>(run.model().spec().hidden);
        std::vector<std::string> records;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
          if (!all_finite(hidden[i])) warn_non_finite(options.model.input, line_numbers[begin + i]);
          std::vector<std::string> rows;
          for (std::size_t t = 0; t < inputs[i].ids.size(); ++t)
            rows.push_back(json_array_text(std::span(hidden[i]).subspan(t * h, h)));
          records.push_back(fmt::format(R"({{"tokens": {}, "hidden": [{}]}})", nlohmann::json(inputs[i].tokens).dump(),
                                        fmt::join(rows, ", ")));
        }
        return records;
      });
}

// ---- classify ----

struct ClassifyOptions {
  EncodeOptions encode;
  bool pairs = false;
  ZeroShotSettings zero_shot;  // labels empty: plain classification
};

// One classification's output line.
std::string classification_line(const std::vector<float>& logits, bool regression, bool multi_label,
                                const std::vector<std::string>& labels) {
  if (regression) return fmt::format(R"({{"score": {}}})", json_number_text(logits[0]));
  const auto probs = label_probabilities(logits, multi_label);
  const auto best = best_label(logits);
  return fmt::format(R"({{"logits": {}, "probs": {}, "label": {}}})", json_array_text(logits), json_array_text(probs),
                     best ? nlohmann::json(labels[*best]).dump() : "null");
}

// One --zero-shot output line, as the zero-shot-classification pipeline returns a text's result.
std::string zero_shot_line(const ZeroShotResult& result) {
  return fmt::format(R"({{"labels": {}, "scores": {}}})", nlohmann::json(result.labels).dump(), json_array_text(result.scores));
}

// A classifier's head, as the output lines need it.
struct ClassifierHead {
  bool regression = false, multi_label = false;
  const std::vector<std::string>& labels;
};

// The output lines of texts [begin, end) from their logits, one row per text, or with --zero-shot
// one row per candidate label (the pipeline's result from them).
std::vector<std::string> classify_records(const std::vector<std::vector<float>>& logits, std::size_t begin,
                                          std::size_t end, const ClassifyOptions& options, std::int64_t entailment,
                                          const ClassifierHead& head, const std::vector<std::size_t>& line_numbers) {
  const std::size_t per_line = std::max<std::size_t>(1, options.zero_shot.labels.size());
  std::vector<std::string> records;
  for (std::size_t i = 0; i < end - begin; ++i) {
    const auto first = logits.begin() + static_cast<std::ptrdiff_t>(i * per_line);
    const auto last = first + static_cast<std::ptrdiff_t>(per_line);
    if (!std::all_of(first, last, [](const std::vector<float>& row) { return all_finite(row); }))
      warn_non_finite(options.encode.model.input, line_numbers[begin + i]);
    records.push_back(options.zero_shot.labels.empty()
                          ? classification_line(*first, head.regression, head.multi_label, head.labels)
                          : zero_shot_line(zero_shot_scores({first, last}, options.zero_shot, entailment)));
  }
  return records;
}

// A BART/mBART sequence classifier (Translator::classify): the encoders' output lines, or with
// --zero-shot one line {"labels", "scores"} per text as the zero-shot-classification pipeline gives.
void run_seq2seq_classify(const ClassifyOptions& options, const std::vector<TextInput>& lines,
                          const std::vector<std::size_t>& line_numbers, std::unique_ptr<ModelSource> source) {
  const EncodeOptions& o = options.encode;
  const ZeroShotSettings& zero_shot = options.zero_shot;
  const auto hypotheses = zero_shot.labels.empty() ? std::vector<std::string>{} : zero_shot_hypotheses(zero_shot);
  const std::size_t per_line = hypotheses.empty() ? 1 : hypotheses.size();
  Progress progress("classify", lines.size());
  RowRun row_run(row_run_spec(o.control, {.inputs = {"--input"}, .output = o.model.output, .rows = lines.size(),
                                           .chunk = chunk_rows(o.model)}));
  std::unique_ptr<Backend> backend;
  std::optional<Translator> translator;
  std::int64_t entailment = 0;
  const bool writes = row_run.process([&](std::size_t begin, std::size_t end) {
    if (!translator) {
      backend = open_backend(o.model);
      translator.emplace(*source, *backend);
      if (!hypotheses.empty()) entailment = entailment_id(translator->model().config().label2id, translator->model().config().where);
    }
    std::vector<std::pair<std::string, std::string>> inputs;
    for (std::size_t i = begin; i < end; ++i)
      for (std::size_t k = 0; k < per_line; ++k) inputs.emplace_back(lines[i].first, hypotheses.empty() ? lines[i].second : hypotheses[k]);
    TranslateOptions run;
    run.batch_size = o.model.batch_size;
    run.batch_tokens = o.model.batch_tokens;
    run.where = [&](std::size_t k) {
      return fmt::format("{}:{}", o.model.input == "-" ? "<stdin>" : o.model.input, line_numbers[begin + k / per_line]);
    };
    const auto logits = translator->classify(inputs, options.pairs || !hypotheses.empty(), run);
    const ModelConfig& config = translator->model().config();
    std::vector<std::string> labels;
    for (const auto& [id, label] : config.id2label) labels.push_back(label);
    const auto records = classify_records(
        logits, begin, end, options, entailment,
        {config.problem_type == ProblemType::Regression, config.problem_type == ProblemType::MultiLabelClassification,
         labels},
        line_numbers);
    progress.advance(end - begin);
    return records;
  });
  if (writes) row_run.write_lines();
}

void run_classify(const ClassifyOptions& options) {
  const Inputs inputs = read_input(options.encode, options.pairs);
  const auto& lines = inputs.rows;
  const auto& line_numbers = inputs.lines;
  // Opened once: which kind of classifier it is decides the path, which then runs on it (an .invar
  // file's checksum is verified once per open).
  auto source = open_model(options.encode.model);
  if (load_model_config(*source).is_encoder_decoder)
    return run_seq2seq_classify(options, lines, line_numbers, std::move(source));
  const ZeroShotSettings& zero_shot = options.zero_shot;
  const auto hypotheses = zero_shot.labels.empty() ? std::vector<std::string>{} : zero_shot_hypotheses(zero_shot);
  const std::size_t per_line = hypotheses.empty() ? 1 : hypotheses.size();
  Progress progress("classify", lines.size() * per_line);
  std::int64_t entailment = 0;
  write_rows(
      options.encode, line_numbers, lines.size(),
      [&](EncoderRun& run) {
        run.model().require_classifier();
        const EncoderSpec& spec = run.model().spec();
        if (!hypotheses.empty()) entailment = entailment_id(spec.label2id, spec.config_where);
      },
      [&](EncoderRun& run, std::size_t begin, std::size_t end) {
        const auto inputs = hypotheses.empty() ? run.encode(lines, begin, end, options.pairs)
                                               : run.encode_premises(lines, begin, end, hypotheses);
        const auto logits = run.encoder().logits(inputs, run.batches([&progress](std::size_t done) { progress.advance(done); }));
        const EncoderSpec& spec = run.model().spec();
        return classify_records(logits, begin, end, options, entailment,
                                {spec.regression, spec.multi_label, spec.labels}, line_numbers);
      },
      std::move(source));
}

// ---- pll ----

struct PllOptions {
  EncodeOptions encode;
  bool ppl = false;
};

// One line's PLL output; counts it in `windowed` when it was scored in windows.
double pll_total(const TextEncoder::PseudoLikelihood& result) {
  double total = 0.0;
  for (double v : result.per_token) total += v;
  return total;
}

std::string pll_line(const TextEncoder::PseudoLikelihood& result, bool ppl, std::size_t& windowed) {
  const auto& per_token = result.per_token;
  const double total = pll_total(result);
  std::string line = fmt::format(R"({{"pll": {}, "tokens": {}, "per_token": {})", json_number_text(total),
                                 per_token.size(), json_array_text(per_token));
  if (result.windows > 1) {
    line += fmt::format(R"(, "windows": {})", result.windows);
    ++windowed;
  }
  // Salazar et al.'s pseudo-perplexity: exp(−PLL / N); undefined for a text without tokens.
  if (ppl)
    line += per_token.empty() ? R"(, "ppl": null)"
                              : fmt::format(R"(, "ppl": {})", json_number_text(std::exp(-total / static_cast<double>(per_token.size()))));
  return line + "}";
}

// Lines are scored one at a time (each line's masked copies are its batch): a chunk is 16 lines.
void run_pll(const PllOptions& options) {
  const Inputs inputs = read_input(options.encode, false);
  const auto& lines = inputs.rows;
  const auto& line_numbers = inputs.lines;
  std::optional<std::int32_t> mask;
  std::size_t windowed = 0, max_length = 0;
  Progress progress("pll", lines.size());
  auto row_run = run_rows(
      options.encode, line_numbers, lines.size(), 16,
      [&](EncoderRun& run) {
        run.model().require_mlm();
        mask = run.encoder().tokenizer().mask_id();
        if (!mask) fail("{}: the tokenizer has no mask token", run.encoder().source().path());
        max_length = run.encoder().max_length();
      },
      [&](EncoderRun& run, std::size_t begin, std::size_t end) {
        std::vector<std::string> records;
        for (std::size_t i = begin; i < end; ++i) {
          // Not truncated: a line longer than the model's limit is scored in overlapping windows.
          const Encoding encoding = run.encoder().tokenizer().encode(lines[i].first);
          run.check(encoding, i, true);
          const auto result = run.encoder().pll(encoding, *mask);
          if (!std::isfinite(pll_total(result))) warn_non_finite(options.encode.model.input, line_numbers[i]);
          records.push_back(pll_line(result, options.ppl, windowed));
          progress.advance(1);
        }
        return records;
      });
  if (windowed > 0)
    print_line(fmt::format("invar: note: {} of {} input lines were longer than {} tokens and were scored in overlapping "
                       "windows", windowed, lines.size(), max_length));
  if (row_run) row_run->write_lines();
}

const char* const kInputNote =
    "\n\nInput (--input FILE or standard input, UTF-8): one text per line, or a column of a .tsv, .csv or .jsonl "
    "file (--input-format overrides the extension; --column picks the column or JSONL key, default 1 or \"text\"). "
    "Output: one JSON line per input row, in input order. An empty text is encoded as such (the model sees only "
    "its special tokens).";
const char* const kPairsNote =
    "two tab-separated texts per line, or two columns of a .csv "
    "or .tsv file, or two keys of a .jsonl file (--input-format overrides the extension; --column FIRST,SECOND "
    "picks them, default 1,2 or \"text\",\"text_pair\").";

void setup_embed(CLI::App& root) {
  auto options = std::make_shared<EmbedOptions>();
  auto* cmd = root.add_subcommand("embed", "Sentence embeddings from an encoder: {\"embedding\": [...]} per line");
  cmd->footer(std::string("Pooling and normalization follow the model's sentence-transformers modules.json unless "
                          "--pooling/--normalize are given; without modules.json, mean pooling.") + kInputNote);
  add_embedding_options(*cmd, *options, kOneText);
  cmd->add_option("--output-format", options->format, "jsonl, or npy: one float32 matrix [lines, dim]")
      ->capture_default_str();
  cmd->callback([options] { run_embed(*options); });
}

void setup_similarity(CLI::App& root) {
  auto options = std::make_shared<EmbedOptions>();
  auto* cmd = root.add_subcommand("similarity", "Cosine similarity of the embeddings of tab-separated text pairs");
  cmd->footer(std::string("Embeddings as `invar embed` computes them. Output: {\"cosine\": x} per input row.\n\n"
                          "Input (--input FILE or standard input, UTF-8): ") + kPairsNote);
  add_embedding_options(*cmd, *options, kTextPairs);
  cmd->callback([options] { run_similarity(*options); });
}

void setup_hidden(CLI::App& root) {
  auto options = std::make_shared<EncodeOptions>();
  auto* cmd = root.add_subcommand("hidden", "Token hidden states: {\"tokens\": [...], \"hidden\": [[...], ...]} per line");
  cmd->footer(kInputNote);
  add_encode_options(*cmd, *options);
  add_layer_option(*cmd, *options);
  cmd->callback([options] { run_hidden(*options); });
}

void setup_classify(CLI::App& root) {
  auto options = std::make_shared<ClassifyOptions>();
  auto* cmd = root.add_subcommand("classify", "Sequence classification: {\"logits\", \"probs\", \"label\"} per line");
  cmd->footer(std::string("A regression model (num_labels = 1) writes {\"score\": x}.") + kInputNote +
              "\n\nWith --pairs, the input holds " + kPairsNote);
  add_encode_options(*cmd, options->encode, kTextPairs);
  cmd->add_flag("--pairs", options->pairs, "Classify text pairs (two columns or fields per row)");
  auto* zero_shot = cmd->add_option("--zero-shot", options->zero_shot.labels,
                                    "Zero-shot classification with an NLI classifier (BART/mBART, or an encoder such as a DeBERTa-v3 "
                                    "MNLI model): candidate labels, "
                                    "comma-separated; each line is the premise of one pair per label; writes "
                                    "{\"labels\", \"scores\"} per line, highest score first, as Hugging Face's "
                                    "zero-shot-classification pipeline")
                         ->delimiter(',')
                         ->excludes("--pairs");
  cmd->add_option("--template", options->zero_shot.hypothesis_template,
                  "The hypothesis of each label; {} is replaced by the label")
      ->capture_default_str()
      ->needs(zero_shot);
  cmd->add_flag("--multi-label", options->zero_shot.multi_label,
                "Score each label on its own (softmax of contradiction and entailment) instead of a softmax over "
                "the labels")
      ->needs(zero_shot);
  cmd->callback([options] { run_classify(*options); });
}

void setup_pll(CLI::App& root) {
  auto options = std::make_shared<PllOptions>();
  auto* cmd = root.add_subcommand("pll", "Pseudo-log-likelihood from a masked LM (Salazar et al. 2020)");
  cmd->footer(std::string("Each non-special token is masked in turn; all masked copies of a line run as one batch "
                          "(--batch-size and --batch-tokens do not apply). Output: {\"pll\": x, \"tokens\": n, \"per_token\": [...]} "
                          "(natural log), plus \"ppl\" = exp(-pll/n) with --ppl. Lines are not truncated: one "
                          "longer than the model's limit (or --max-input-tokens) is split into overlapping windows, half a "
                          "window apart, each token scored in the window whose centre is nearest (\"windows\": k "
                          "is added to its line).") + kInputNote);
  add_encode_options(*cmd, options->encode);
  cmd->add_flag("--ppl", options->ppl, "Add the pseudo-perplexity exp(-pll / tokens)");
  cmd->callback([options] { run_pll(*options); });
}

}  // namespace

INVAR_COMMAND("embed", setup_embed);
INVAR_COMMAND("similarity", setup_similarity);
INVAR_COMMAND("hidden", setup_hidden);
INVAR_COMMAND("classify", setup_classify);
INVAR_COMMAND("pll", setup_pll);

}  // namespace invar::cli
