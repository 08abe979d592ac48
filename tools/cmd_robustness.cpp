// `invar robustness expand|score|ablate`: semantic robustness on template-based test beds
// (La Malfa & Kwiatkowska, AAAI 2022). See eval/robustness/ and docs/robustness.md.
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>
#include <span>

#include "core/console.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/log.hpp"
#include "core/printable.hpp"
#include "eval/robustness/ablation.hpp"
#include "eval/robustness/models.hpp"
#include "eval/robustness/paper_templates.hpp"
#include "eval/robustness/report.hpp"
#include "eval/robustness/rows.hpp"
#include "tools/bundled_data.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/run_control.hpp"

namespace invar::cli {
namespace {

using namespace invar::robustness;

// The phenomenon texts: template files (or the bundled test beds) expanded, and external sets.
struct BedArguments {
  std::vector<std::string> templates, paper_templates, phenomena;
  std::vector<std::string> paper_labels{"negative", "positive"};
  std::string draws = "default";
  bool bundled = false;
  std::size_t max_per_template = 0;
  std::uint64_t seed = 0;
  std::uint64_t max_texts = ExpandOptions{}.max_texts;
  Columns columns;
};

void add_bed_options(CLI::App& app, BedArguments& args) {
  app.add_option("--templates", args.templates,
                 "Template files (docs/robustness.md): slot tables and templates, expanded into the phenomenon sets");
  app.add_flag("--bundled", args.bundled,
               "Use invar's bundled test beds (examples/robustness: shallow negation, mixed sentiment, irony; "
               "labels negative/positive)");
  app.add_option("--paper-templates", args.paper_templates,
                 "Template files in the layout of the authors' generator (the-king-is-naked's "
                 "verify/linguistic_augmentation.py: literal X, Y, replace[...] and label_changing_replacements per "
                 "function; read, never executed; docs/robustness.md)");
  app.add_option("--paper-labels", args.paper_labels, "The labels the Y indices of --paper-templates name, in order")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--slot-draws", args.draws,
                 "A slot used twice in one template: shared (one replacement for both, invar's format), independent "
                 "(each occurrence drawn on its own, as the authors' generator), default (each file as its format: "
                 "shared for --templates, independent for --paper-templates)")
      ->check(CLI::IsMember({"default", "shared", "independent"}))
      ->capture_default_str();
  app.add_option("--max-per-template", args.max_per_template,
                 "Keep a seeded sample of at most this many combinations per template (0 = all)")
      ->capture_default_str();
  app.add_option("--seed", args.seed, "Seed of the --max-per-template sample")->capture_default_str();
  app.add_option("--max-texts", args.max_texts,
                 "Refuse templates that would make more texts than this in all, before expanding them (their memory "
                 "is bounded too, at 2 GB); --max-per-template samples a large template instead")
      ->capture_default_str();
}

void add_column_options(CLI::App& app, BedArguments& args) {
  app.add_option("--text-column", args.columns.text,
                 "Text column of the labelled files: 1-based number or header name (TSV/CSV, default 1), key (JSONL, "
                 "default text)");
  app.add_option("--label-column", args.columns.label, "Label column (default 2 / label)");
  app.add_option("--phenomenon-column", args.columns.phenomenon,
                 "Phenomenon column of --phenomena files (default 3 / phenomenon)");
  app.add_flag("--header", args.columns.header, "TSV/CSV files start with a header line");
}

std::vector<std::string> template_files(const BedArguments& args) {
  std::vector<std::string> files = args.templates;
  if (args.bundled) {
    const std::filesystem::path folder = bundled_path("examples/robustness");
    for (const char* name : {"slots.tsv", "negation.tsv", "mixed.tsv", "irony.tsv"})
      files.push_back(std::filesystem::proximate(folder / name).string());
  }
  return files;
}

std::vector<GeneratedText> generated_texts(const BedArguments& args) {
  std::vector<GeneratedText> texts;
  const auto files = template_files(args);
  const ExpandOptions options{.max_per_template = args.max_per_template,
                              .seed = args.seed,
                              .max_texts = args.max_texts,
                              .draws = parse_draws(args.draws)};
  std::vector<std::string> warnings;
  if (!files.empty()) texts = expand(read_templates(files, warnings), options);
  if (!args.paper_templates.empty()) {
    const auto paper = expand(read_paper_templates(args.paper_templates, args.paper_labels, warnings), options);
    for (const auto& name : phenomena(paper))
      if (std::any_of(texts.begin(), texts.end(), [&](const GeneratedText& t) { return t.phenomenon == name; }))
        fail("phenomenon '{}' is in both --templates and --paper-templates: one name would pool two test beds", name);
    texts.insert(texts.end(), paper.begin(), paper.end());
  }
  for (const auto& warning : warnings) warn(warning);
  for (const auto& path : args.phenomena) {
    auto external = read_phenomenon_set(path, args.columns, texts);
    texts.insert(texts.end(), external.begin(), external.end());
  }
  if (texts.empty() && args.phenomena.empty())
    fail("no phenomenon texts: give --templates FILE..., --bundled, --paper-templates FILE... or --phenomena FILE");
  return texts;
}

// ---- expand ----

struct ExpandArguments {
  BedArguments bed;
  std::vector<std::string> files;
  std::string output = "-";
  std::string format;
};

void write_expansion(const std::vector<GeneratedText>& texts, const std::string& path, bool jsonl) {
  AtomicOutput out(path);
  for (const auto& t : texts) {
    nlohmann::ordered_json replacements = nlohmann::ordered_json::object();
    for (const auto& [slot, value] : t.replacements) replacements[slot] = value;
    if (jsonl) {
      out.write_line(nlohmann::ordered_json{{"text", t.text}, {"label", t.label}, {"phenomenon", t.phenomenon},
                                    {"template", t.template_id}, {"replacements", replacements}}
                         .dump());
    } else {
      out.write_line(t.text + '\t' + t.label + '\t' + t.phenomenon + '\t' + t.template_id + '\t' + replacements.dump());
    }
  }
  out.commit();
}

void run_expand(const ExpandArguments& given) {
  ExpandArguments args = given;
  args.bed.templates.insert(args.bed.templates.end(), given.files.begin(), given.files.end());
  if (template_files(args.bed).empty() && args.bed.paper_templates.empty())
    fail("expand needs template files (positional or --templates), --bundled or --paper-templates");
  std::string format = args.format;
  if (format.empty()) format = table_format_from_path(args.output) == TableFormat::Jsonl ? "jsonl" : "tsv";
  const auto texts = generated_texts(args.bed);
  write_expansion(texts, args.output, format == "jsonl");
  const auto names = phenomena(texts);
  for (const auto& name : names) {
    std::size_t n = 0;
    for (const auto& t : texts) n += t.phenomenon == name;
    print_line(fmt::format("{}: {} texts", printable(name), n));
  }
}

void setup_expand(CLI::App& parent) {
  auto args = std::make_shared<ExpandArguments>();
  auto* app = parent.add_subcommand("expand", "Expand template files into labelled texts (TSV or JSONL)");
  app->add_option("files", args->files, "Template files (as --templates)");
  add_bed_options(*app, args->bed);
  app->add_option("-o,--output", args->output, "Output file, written atomically ('-' = standard output)")
      ->capture_default_str();
  app->add_option("--output-format,--format", args->format,
                  "tsv (text, label, phenomenon, template, replacements as JSON; no header) or jsonl; default from "
                  "the output's extension, else tsv (--format: the older spelling)")
      ->check(CLI::IsMember({"tsv", "jsonl"}));
  app->callback([args] { run_expand(*args); });
}

// ---- score ----

struct ScoreArguments {
  BedArguments bed;
  std::string task;
  std::vector<std::string> models, compare_models, predictions, compare_predictions;
  std::string model_list, compare_model_list;
  std::string name = "A", compare_name = "B";
  std::vector<std::string> populations, population_predictions;  // NAME=LIST, repeatable
  std::vector<std::string> label_map;
  double tau = 0.05;
  std::string chance = "uniform";
  bool json = false;
  std::string csv, latex, report;
  std::string output = "-";
  ModelOptions compute;
  RunControl control;  // of the models' predictions (eval/robustness/rows.hpp)
};

std::vector<std::string> with_list(std::vector<std::string> models, const std::string& list) {
  if (list.empty()) return models;
  LineReader reader(list);
  std::string line;
  while (reader.next(line))
    if (!is_blank(line) && line.front() != '#') models.push_back(line);
  return models;
}

// The scores of a population: its prediction files', then its models' (`predicted`, in order).
std::vector<ModelScore> score_models(const std::vector<std::string>& models, std::span<const ModelPredictions> predicted,
                                     const std::vector<std::string>& predictions, const Bed& bed,
                                     const ScoreArguments& args) {
  const LabelMap map = parse_label_map(args.label_map);
  const auto texts = all_texts(bed);
  std::vector<ModelScore> scores;
  for (const auto& path : predictions)
    scores.push_back(score_model(path, bed, read_predictions(path, {}, texts, map, bed.labels)));
  for (std::size_t m = 0; m < models.size(); ++m) scores.push_back(score_model(models[m], bed, predicted[m].labels));
  return scores;
}

// A population given on the command line: its name, models and prediction files.
struct PopulationArguments {
  std::string name;
  std::vector<std::string> models, predictions;
};

// -m/--models/--predictions (--name), --compare-… (--compare-name), then every --population and
// --population-predictions NAME=LIST in order of first mention, the two joining under one name.
std::vector<PopulationArguments> population_arguments(const ScoreArguments& args) {
  std::vector<PopulationArguments> out;
  auto named = [&](const std::string& name) -> PopulationArguments& {
    for (auto& p : out)
      if (p.name == name) return p;
    return out.emplace_back(PopulationArguments{name, {}, {}});
  };
  auto add = [&](const std::string& name, std::vector<std::string> models, const std::vector<std::string>& predictions) {
    if (models.empty() && predictions.empty()) return;
    auto& p = named(name);
    p.models.insert(p.models.end(), models.begin(), models.end());
    p.predictions.insert(p.predictions.end(), predictions.begin(), predictions.end());
  };
  add(args.name, with_list(args.models, args.model_list), args.predictions);
  add(args.compare_name, with_list(args.compare_models, args.compare_model_list), args.compare_predictions);
  auto split = [](const std::string& option, const std::string& value) {
    const auto eq = value.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
      fail("{} expects NAME=LIST (a population's name and a file listing its {}), got '{}'", option,
           option == "--population" ? "models" : "prediction files", value);
    return std::pair{value.substr(0, eq), value.substr(eq + 1)};
  };
  for (const auto& value : args.populations) {
    const auto [name, list] = split("--population", value);
    const auto models = with_list({}, list);
    if (models.empty()) fail("{}: population '{}' lists no models", list, name);
    add(name, models, {});
  }
  for (const auto& value : args.population_predictions) {
    const auto [name, list] = split("--population-predictions", value);
    const auto files = with_list({}, list);
    if (files.empty()) fail("{}: population '{}' lists no prediction files", list, name);
    add(name, {}, files);
  }
  return out;
}

void run_score(const ScoreArguments& args) {
  if (args.task.empty()) fail("score needs the task's labelled test set: --task FILE");
  if (!(args.tau >= 0)) fail("--tau must be >= 0, got {}", args.tau);
  const Chance chance = parse_chance(args.chance);
  const auto populations_given = population_arguments(args);
  if (populations_given.empty())
    fail("score needs models: -m MODEL (repeatable), --models LIST, --predictions FILE or --population NAME=LIST");
  const Bed bed = make_bed(read_labelled_set(args.task, args.bed.columns), generated_texts(args.bed));
  // Every model of every population runs as one row run (--resume, --shard, mpirun).
  std::vector<std::string> all_models;
  for (const auto& p : populations_given) all_models.insert(all_models.end(), p.models.begin(), p.models.end());
  std::vector<ModelPredictions> predicted;
  std::unique_ptr<RowRun> row_run;
  if (all_models.empty()) {
    if (!args.control.shard.empty()) fail("--shard splits what -m MODEL computes; with --predictions only nothing is");
  } else {
    if (!args.control.shard.empty() && args.output == "-") fail("--shard writes a partial result: give --output FILE");
    const auto texts = all_texts(bed);
    const LabelMap map = parse_label_map(args.label_map);
    std::unique_ptr<Backend> backend;
    row_run = run_prediction_rows(
        // --population's NAME=LIST names no file itself: the models its lists give are fingerprinted.
        row_run_spec(args.control, {.inputs = {"--task", "--templates", "--paper-templates", "--phenomena",
                                               "--predictions", "--models", "--compare-models", "--compare-predictions"},
                                    .content = all_models,
                                    .output = args.output,
                                    .chunk = chunk_rows(args.compute)}),
        {.models = all_models,
         .texts = &texts,
         .map = &map,
         .task_labels = &bed.labels,
         .batch_size = args.compute.batch_size,
         .backend = [&]() -> Backend& {
           if (!backend) backend = open_backend(args.compute);
           return *backend;
         }},
        predicted);
    if (!row_run) return;
    for (std::size_t m = 0; m < all_models.size(); ++m)
      if (predicted[m].truncated > 0)
        warn(fmt::format("{}: {} texts were longer than {} tokens and were truncated", all_models[m],
                   predicted[m].truncated, predicted[m].max_length));
  }
  const Baselines sets = baselines(bed, chance);
  std::vector<Population> populations;
  std::size_t first_model = 0;
  for (const auto& p : populations_given) {
    const std::span<const ModelPredictions> own(predicted.data() + first_model, p.models.size());
    populations.push_back(summarize(p.name, score_models(p.models, own, p.predictions, bed, args), sets, args.tau));
    first_model += p.models.size();
  }
  ScoreResult result = make_score_result(bed, sets, args.tau, std::move(populations));
  result.label_map = fmt::format("{}", fmt::join(args.label_map, ","));
  auto write = [](const std::string& path, const std::string& text) {
    AtomicOutput out(path);
    out.stream() << text;
    out.commit();
  };
  if (!args.csv.empty()) write(args.csv, score_csv(result, provenance()));
  if (!args.latex.empty()) write(args.latex, score_latex(result, provenance()));
  if (!args.report.empty()) write_score_html(args.report, result, provenance());
  write(args.output, args.json ? score_json(result, provenance()).dump(2) + '\n' : score_text(result));
  if (row_run) row_run->close();
}

void setup_score(CLI::App& parent) {
  auto args = std::make_shared<ScoreArguments>();
  auto* app = parent.add_subcommand(
      "score",
      "Accuracy p on the task and p′ on each phenomenon (and template) for one model or a population, the verdicts "
      "of τ-semantic robustness (E[p′] ≥ max(0, p − τ)) and bounded invariance (|E[p′] − p| ≤ τ) on "
      "chance-corrected accuracies per population, model and template, and Welch's t-test between populations");
  app->add_option("--task", args->task, "The task's labelled test set: text and label columns (TSV, CSV or JSONL)");
  add_bed_options(*app, args->bed);
  app->add_option("--phenomena", args->bed.phenomena,
                  "External phenomenon sets: text, label and phenomenon columns (e.g. a challenge set)");
  app->add_option("-m,--model", args->models, "A sequence classifier (folder or .invar); repeat for a population");
  app->add_option("--models", args->model_list, "A file listing the population's models, one per line");
  app->add_option("--predictions", args->predictions,
                  "Precomputed predictions of one model: text and prediction columns (TSV: 1 and 2; JSONL keys text "
                  "and prediction) covering every task and phenomenon text; repeat for a population");
  app->add_option("--compare-model", args->compare_models, "A model of the second population (repeatable)");
  app->add_option("--compare-models", args->compare_model_list, "A file listing the second population's models");
  app->add_option("--compare-predictions", args->compare_predictions, "Precomputed predictions of the second population");
  app->add_option("--name", args->name, "Name of the first population")->capture_default_str();
  app->add_option("--compare-name", args->compare_name, "Name of the second population")->capture_default_str();
  app->add_option("--population", args->populations,
                  "NAME=LIST: a further population, LIST a file of its models one per line (repeatable; the paper "
                  "compares 4 architectures × 2 training regimes)");
  app->add_option("--population-predictions", args->population_predictions,
                  "NAME=LIST: a further population's precomputed predictions, LIST a file of prediction files "
                  "(joins --population NAME=… of the same name)");
  app->add_option("--label-map", args->label_map,
                  "MODEL_LABEL=TASK_LABEL (repeatable): how the models' id2label names (or the predictions' labels) "
                  "become task labels; every model label must be mapped")
      ->delimiter(',');
  app->add_option("--tau", args->tau, "τ of the robustness verdicts")->capture_default_str();
  app->add_option("--chance", args->chance,
                  "What the verdicts read as accuracy 0 (Definition 5): uniform = random guessing among the K labels "
                  "(the paper's), majority = always predicting the set's most frequent label, none = plain accuracy")
      ->check(CLI::IsMember({"uniform", "majority", "none"}))
      ->capture_default_str();
  add_column_options(*app, args->bed);
  add_compute_options(*app, args->compute);
  app->add_flag("--json", args->json, "Print the result as JSON instead of the tables");
  app->add_option("--csv", args->csv, "Write one CSV row per model and set (task, phenomenon, template)");
  app->add_option("--latex", args->latex, "Write a LaTeX table: mean ± std per population, Welch stars");
  app->add_option("--report", args->report, "Write a self-contained HTML report with the accuracy bars");
  app->add_option("-o,--output", args->output, "Write the result (tables or --json) here, atomically ('-' = standard output)")
      ->capture_default_str();
  add_run_control_options(*app, args->control);
  app->callback([args] { run_score(*args); });
}

// ---- ablate ----

struct AblateArguments {
  BedArguments bed;
  std::string model, train, task;
  std::vector<std::string> pooling;
  double C = 1.0;
  double tolerance = 1e-4;
  std::string head = "linear";
  std::size_t head_tokens = AblationOptions{}.head_tokens;
  learn::MlpOptions mlp;
  bool json = false;
  std::string csv, report;
  std::string output = "-";
  ModelOptions compute;
  RunControl control;  // of the layers' features (eval/robustness/ablation.hpp)
};

void run_ablate(const AblateArguments& args) {
  if (args.train.empty() || args.task.empty()) fail("ablate needs --train and --task (labelled text files)");
  const LabelledSet train = read_labelled_set(args.train, args.bed.columns);
  const Bed bed = make_bed(read_labelled_set(args.task, args.bed.columns), generated_texts(args.bed));
  if (!args.control.shard.empty() && args.output == "-") fail("--shard writes a partial result: give --output FILE");
  auto backend = open_backend(args.compute);
  auto source = ModelSource::open(args.model);
  TextEncoder encoder(*source, *backend);
  AblationOptions options;
  for (const auto& name : args.pooling) options.pooling.push_back(parse_pooling(name));
  options.regression.C = args.C;
  options.regression.tolerance = args.tolerance;
  options.head = parse_head(args.head);
  options.head_tokens = args.head_tokens;
  options.mlp = args.mlp;
  options.batch_size = args.compute.batch_size;
  std::vector<PerInput> features;
  const auto row_run = run_layer_rows(
      row_run_spec(args.control, {.inputs = {"--train", "--task", "--templates", "--paper-templates", "--phenomena"},
                                  .output = args.output,
                                  .chunk = chunk_rows(args.compute)}),
      encoder, train, bed, options, features);
  if (!row_run) return;
  const Ablation ablation = ablate(encoder, train, bed, options, features);
  if (!args.csv.empty()) {
    AtomicOutput out(args.csv);
    out.stream() << ablation_csv(ablation, bed.phenomena, provenance());
    out.commit();
  }
  if (!args.report.empty()) write_ablation_html(args.report, ablation, bed.phenomena, provenance());
  AtomicOutput out(args.output);
  out.stream() << (args.json ? ablation_json(ablation, bed.phenomena, provenance()).dump(2) + '\n' : ablation_text(ablation, bed.phenomena));
  out.commit();
  row_run->close();
}

void setup_ablate(CLI::App& parent) {
  auto args = std::make_shared<AblateArguments>();
  auto* app = parent.add_subcommand(
      "ablate",
      "Layer ablation: a head trained on --train over the frozen states of every layer (an L2 logistic-regression "
      "probe on pooled states, or the paper's MLP head on token states) → accuracy per layer on the task and each "
      "phenomenon");
  app->add_option("-m,--model", args->model, "An encoder model (folder or .invar)")->required();
  app->add_option("--train", args->train, "Labelled training texts for the probes");
  app->add_option("--task", args->task, "The task's labelled test set");
  add_bed_options(*app, args->bed);
  app->add_option("--phenomena", args->bed.phenomena, "External phenomenon sets: text, label and phenomenon columns");
  app->add_option("--pooling", args->pooling, "Pooling of the hidden states: mean, cls, max, mean_sqrt_len_tokens "
                                              "(default: the model's modules.json, else mean)")
      ->delimiter(',');
  app->add_option("-C", args->C, "Inverse regularisation strength of the probes")->capture_default_str();
  app->add_option("--tol", args->tolerance, "liblinear stopping tolerance")->capture_default_str();
  app->add_option("--head", args->head,
                  "linear: L2 logistic regression on pooled states; mlp: the paper's head, one ReLU hidden layer on the "
                  "flattened token states (docs/robustness.md)")
      ->check(CLI::IsMember({"linear", "mlp"}))
      ->capture_default_str();
  app->add_option("--head-tokens", args->head_tokens,
                  "MLP head: token positions kept (texts cut to this many tokens, shorter ones padded with zeros)")
      ->capture_default_str();
  app->add_option("--hidden", args->mlp.hidden, "MLP head: hidden units")->capture_default_str();
  app->add_option("--alpha", args->mlp.alpha, "MLP head: L2 strength (scikit-learn's alpha)")->capture_default_str();
  app->add_option("--head-seed", args->mlp.seed, "MLP head: seed of the initial weights")->capture_default_str();
  app->add_option("--max-iter", args->mlp.max_iterations, "MLP head: L-BFGS iterations at most")->capture_default_str();
  add_column_options(*app, args->bed);
  add_compute_options(*app, args->compute);
  app->add_flag("--json", args->json, "Print the result as JSON instead of the table");
  app->add_option("--csv", args->csv, "Write one CSV row per layer and set");
  app->add_option("--report", args->report, "Write a self-contained HTML report with the layer chart");
  app->add_option("-o,--output", args->output, "Write the result (table or --json) here, atomically ('-' = standard output)")
      ->capture_default_str();
  add_run_control_options(*app, args->control);
  app->callback([args] { run_ablate(*args); });
}

void setup(CLI::App& root) {
  auto* app = root.add_subcommand(
      "robustness",
      "Semantic robustness (La Malfa & Kwiatkowska 2022): template-based test beds for linguistic phenomena, "
      "τ-robustness of models and populations, layer ablation");
  app->require_subcommand(1);
  setup_expand(*app);
  setup_score(*app);
  setup_ablate(*app);
  app->footer("See docs/robustness.md for the template format and the paper's protocol.");
}

INVAR_COMMAND("robustness", setup);

}  // namespace
}  // namespace invar::cli
