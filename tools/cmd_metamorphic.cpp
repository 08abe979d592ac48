// `invar metamorphic`: metamorphic testing of NLP models (Manino et al., Findings of ACL 2022) —
// single-input relations, pairwise systematicity, pairwise compositionality, three-way
// transitivity, and the relations' diagrams. See eval/metamorphic/ and docs/metamorphic.md.
#include <fmt/ranges.h>

#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/metamorphic/compositionality.hpp"
#include "eval/metamorphic/models.hpp"
#include "eval/metamorphic/relation.hpp"
#include "eval/metamorphic/report.hpp"
#include "eval/metamorphic/rows.hpp"
#include "eval/metamorphic/systematicity.hpp"
#include "eval/metamorphic/transforms.hpp"
#include "eval/metamorphic/transitivity.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/run_control.hpp"

namespace invar::cli {
namespace {

using namespace invar::metamorphic;

struct OutputOptions {
  bool json = false;
  std::string csv, per_source, report;
  std::string output = "-";
};

void add_output_options(CLI::App& app, OutputOptions& out, bool per_source) {
  app.add_flag("--json", out.json, "Print the result as JSON instead of the tables");
  app.add_option("-o,--output", out.output, "Write the result (tables or --json) here, atomically ('-' = standard output)")
      ->capture_default_str();
  app.add_option("--report", out.report, "Write a self-contained HTML report (tables, violation-rate chart, the relation's diagram)");
  if (per_source) {
    app.add_option("--csv", out.csv, "Write the per-transformation counts as CSV");
    app.add_option("--per-source", out.per_source, "Write one JSON object per source (JSONL, input order): its outputs and violations");
  }
}

void write_result(const OutputOptions& out, const std::string& text) {
  AtomicOutput output(out.output);
  output.stream() << text;
  output.commit();
}

struct ModelArguments {
  std::string model;
  std::optional<std::string> label;
  ModelOptions compute;
};

void add_model_arguments(CLI::App& app, ModelArguments& args, const std::string& model_help, const std::string& label_help) {
  app.add_option("-m,--model", args.model, model_help);
  app.add_option("--label", args.label, label_help);
  add_compute_options(app, args.compute);
}

// ---- single / pairwise ----

struct SuiteArguments {
  ModelArguments model;
  std::string sources, column, scores;
  bool header = false;
  std::vector<std::string> transforms, follow_ups;
  std::string property = "order", direction = "increase";
  double delta = 0.1;
  bool embeddings = false;
  std::uint64_t seed = 0;
  std::string wordnet;
  OutputOptions out;
  RunControl control;  // of the model's outputs (eval/metamorphic/rows.hpp)
};

std::vector<std::string> read_source_texts(const std::string& path, const SuiteArguments& args, std::vector<std::size_t>* lines) {
  auto columns = read_text_columns(path, {{"text", args.column, "1", "text"}}, args.header);
  if (lines) *lines = columns.line_numbers;
  return std::move(columns.texts[0]);
}

// The follow-up texts of every --transform and --follow-ups NAME=FILE, in that order.
void add_follow_ups(Suite& suite, const SuiteArguments& args, std::vector<std::vector<std::string>>& texts) {
  std::unique_ptr<Backend> seq2seq_backend;  // paraphrase:MODEL's, on the model options' device
  const TransformTools tools{args.seed, args.wordnet, [&](const std::string& model) {
                               if (!seq2seq_backend) seq2seq_backend = open_backend(args.model.compute);
                               return open_seq2seq(model, *seq2seq_backend, args.model.compute.batch_size);
                             }};
  for (const auto& argument : args.transforms)
    for (const auto& t : parse_transformation(argument, tools)) {
      suite.names.push_back(t.name);
      suite.descriptions.push_back(t.description);
      texts.push_back(follow_up_texts(t, suite.texts));
    }
  for (const auto& argument : args.follow_ups) {
    const auto equals = argument.find('=');
    if (equals == std::string::npos || equals == 0) fail("--follow-ups takes NAME=FILE, got '{}'", argument);
    const auto path = argument.substr(equals + 1);
    auto follow_up = read_source_texts(path, args, nullptr);
    if (follow_up.size() != suite.texts.size())
      fail("{}: {} follow-ups but {} has {} sources; follow-ups must be line-aligned with the sources", path,
           follow_up.size(), suite.path, suite.texts.size());
    suite.names.push_back(argument.substr(0, equals));
    suite.descriptions.push_back("follow-ups from " + path);
    texts.push_back(std::move(follow_up));
  }
}

// The suite's outputs from the model, computed as a row run (--resume, --shard, mpirun). Null when
// this process's part went elsewhere; else the run to close once the output is written.
std::unique_ptr<RowRun> model_suite(const SuiteArguments& args, Property property, ReportSettings& settings,
                                    Suite& suite) {
  if (args.sources.empty()) fail("give --sources FILE with -m MODEL (or --scores FILE)");
  suite.path = args.sources;
  suite.texts = read_source_texts(args.sources, args, &suite.line_numbers);
  std::vector<std::vector<std::string>> follow_texts;
  add_follow_ups(suite, args, follow_texts);
  if (follow_texts.empty()) fail("no transformation to test: give --transform (e.g. neutral) or --follow-ups NAME=FILE");
  std::unique_ptr<Backend> backend;
  std::optional<ModelUnderTest> model;
  Progress progress("metamorphic", suite.texts.size() * (1 + follow_texts.size()));
  const auto open = [&]() -> ModelUnderTest& {
    if (!model) {
      backend = open_backend(args.model.compute);
      model.emplace(args.model.model, *backend,
                    ModelSettings{args.model.label, args.model.compute.batch_size,
                                  [&progress](std::size_t done) { progress.advance(done); }});
    }
    return *model;
  };
  const bool cosine = property == Property::Similarity && args.embeddings;
  auto spec = row_run_spec(args.control, {.inputs = {"--sources"}, .output = args.out.output,
                                          .chunk = chunk_rows(args.model.compute)});
  // The follow-ups come from --transform's lexicons and --follow-ups' files, which no input option
  // names: their texts are fingerprinted.
  for (const auto& texts : follow_texts) spec.content.insert(spec.content.end(), texts.begin(), texts.end());
  auto row_run = run_suite_rows(std::move(spec), {.sources = &suite.texts, .follow_ups = &follow_texts,
                                                  .embeddings = cosine, .model = open},
                                suite.source, suite.follow_ups);
  if (!row_run) return nullptr;
  // The model's labels name the classes in the report; a merge opens the model for them alone.
  const ModelUnderTest& opened = open();
  suite.class_names = opened.class_names();
  settings.push_back({"model", args.model.model});
  if (cosine) settings.push_back({"output", "sentence embeddings (cosine similarity)"});
  else if (opened.regression()) settings.push_back({"score", "the regressor's output"});
  else settings.push_back({"score", fmt::format("P({})", opened.class_names()[opened.score_label()])});
  return row_run;
}

void run_suite_command(const SuiteArguments& args, Arity arity) {
  RelationSettings relation{arity, parse_property(args.property), parse_direction(args.direction), args.delta};
  if (args.embeddings && relation.property != Property::Similarity)
    fail("--embeddings applies to the similarity property only");
  // Before any model runs; a score file's kind of outputs is checked again by run_suite.
  if (relation.property == Property::Similarity) validate_delta(relation.delta, args.embeddings);
  ReportSettings settings{{"relation", suite_title(relation)}};
  Suite suite;
  std::unique_ptr<RowRun> row_run;
  if (!args.scores.empty()) {
    if (!args.model.model.empty() || !args.sources.empty() || !args.transforms.empty() || !args.follow_ups.empty())
      fail("--scores holds every output already; leave out -m, --sources, --transform and --follow-ups");
    if (!args.control.shard.empty()) fail("--shard splits what -m MODEL computes; with --scores nothing is computed");
    suite = read_score_file(args.scores, relation.property);
    settings.push_back({"scores", args.scores});
  } else {
    if (args.model.model.empty()) fail("give -m MODEL with --sources, or --scores FILE");
    if (!args.control.shard.empty() && args.out.output == "-") fail("--shard writes a partial result: give --output FILE");
    row_run = model_suite(args, relation.property, settings, suite);
    if (!row_run) return;
  }
  if (relation.property == Property::Order)
    settings.push_back({"ties", arity == Arity::Pairwise ? "pairs of sources with equal scores are not test cases; equal follow-up scores keep the order"
                                                         : "an equal follow-up score keeps the order"});
  if (relation.property == Property::Order && arity == Arity::Single)
    settings.push_back({"direction", args.direction});
  if (relation.property == Property::Similarity) settings.push_back({"delta", fmt::format("{}", args.delta)});
  if (!args.transforms.empty()) settings.push_back({"seed", std::to_string(args.seed)});
  const auto result = run_suite(suite, relation);
  if (!args.out.csv.empty()) write_suite_csv(args.out.csv, result, provenance());
  if (!args.out.per_source.empty()) write_suite_per_source(args.out.per_source, suite, result);
  if (!args.out.report.empty()) write_suite_html(args.out.report, suite, result, settings, provenance());
  write_result(args.out, args.out.json ? suite_json(suite, result, settings, provenance()).dump(2) + '\n' : suite_text(suite, result, settings));
  if (row_run) row_run->close();
}

void setup_suite(CLI::App& parent, const char* name, Arity arity, const std::string& description) {
  auto args = std::make_shared<SuiteArguments>();
  auto* app = parent.add_subcommand(name, description);
  app->add_option("--sources", args->sources, "Source texts: one per line, or a TSV/CSV/JSONL column (--column)");
  app->add_option("--column", args->column, "Column of --sources and --follow-ups files: number or header name (TSV/CSV), key (JSONL)");
  app->add_flag("--header", args->header, "TSV/CSV text files start with a header line");
  app->add_option("--transform", args->transforms,
                  "Transformation, repeatable: neutral (six neutral sentences, three before and three after the text), "
                  "prefix:TEXT, suffix:TEXT, lexicon:FILE (word <TAB> replacement), noise:RATE (keyboard typos), "
                  "char-insert:RATE, char-delete:RATE, char-shuffle:RATE (random letters inserted, deleted, inner letters "
                  "shuffled), synonym:RATE, antonym:RATE (WordNet), sentence-shuffle, paraphrase:MODEL (a seq2seq model's "
                  "output); random ones seeded with --seed; NAME=... names it");
  app->add_option("--follow-ups", args->follow_ups, "NAME=FILE: follow-up texts made elsewhere, line-aligned with --sources; repeatable");
  add_model_arguments(*app, args->model, "Model under test: a sequence classifier or regressor (an encoder with --embeddings)",
                      "The label whose probability is the score s (id2label name or index; default: positive / entailment, "
                      "else label 1 of a two-label model)");
  app->add_option("--scores", args->scores,
                  "Precomputed outputs instead of a model: TSV/CSV with a header, or JSONL; column source = s(f(x)), every "
                  "other column = s(f(t(x))) of the transformation it names (except text and label); class names for "
                  "equivalence");
  app->add_option("--property", args->property, "equivalence (argmax), similarity (|Δ score| ≤ δ), or order (score order)")
      ->capture_default_str();
  if (arity == Arity::Single)
    app->add_option("--direction", args->direction, "order: increase (s(f(x)) ≤ s(f(t(x)))) or decrease")->capture_default_str();
  app->add_flag("--embeddings", args->embeddings, "similarity: cosine of sentence embeddings ≥ δ instead of |Δ score| ≤ δ");
  app->add_option("--delta", args->delta, "similarity threshold δ")->capture_default_str();
  app->add_option("--seed", args->seed, "Seed of the random transformations (noise, char-*, synonym, antonym, sentence-shuffle)")
      ->capture_default_str();
  app->add_option("--wordnet", args->wordnet, "WordNet 3.0 folder of synonym:RATE and antonym:RATE (default: $WNSEARCHDIR, else /usr/share/wordnet)");
  add_output_options(*app, args->out, true);
  add_run_control_options(*app, args->control);
  app->callback([args, arity] { run_suite_command(*args, arity); });
}

// ---- compositionality ----

struct CompositionalityArguments {
  ModelArguments model;
  std::string contexts, insertions;
  ProbeSettings probe;
  OutputOptions out;
  RunControl control;  // of the model's entailment scores and probe features (eval/metamorphic/rows.hpp)
};

void run_compositionality_command(const CompositionalityArguments& args) {
  if (args.model.model.empty() || args.contexts.empty() || args.insertions.empty())
    fail("compositionality needs -m NLI_MODEL, --contexts FILE and --insertions FILE");
  if (!(args.probe.held_out >= 0 && args.probe.held_out < 1)) fail("--held-out must be in [0, 1), got {}", args.probe.held_out);
  const auto contexts = read_contexts(args.contexts);
  const auto insertions = read_insertions(args.insertions);
  if (!args.control.shard.empty() && args.out.output == "-") fail("--shard writes a partial result: give --output FILE");
  std::unique_ptr<Backend> backend;
  std::optional<ModelUnderTest> opened;
  // Every input runs twice: for its entailment score, then for the probe's hidden states.
  Progress progress("compositionality", 2 * contexts.size() * insertions.size());
  const auto open = [&]() -> ModelUnderTest& {
    if (!opened) {
      backend = open_backend(args.model.compute);
      opened.emplace(args.model.model, *backend,
                     ModelSettings{args.model.label, args.model.compute.batch_size,
                                   [&progress](std::size_t done) { progress.advance(done); }});
      if (opened->regression())
        fail("{}: compositionality needs an NLI classifier, not a regression model", args.model.model);
    }
    return *opened;
  };
  std::vector<ProbeInput> inputs;
  const auto row_run = run_probe_rows(row_run_spec(args.control, {.inputs = {"--contexts", "--insertions"},
                                                                  .output = args.out.output,
                                                                  .chunk = chunk_rows(args.model.compute)}),
                                      contexts, insertions, open, inputs);
  if (!row_run) return;
  // The model's labels and layers name the report's settings; a merge opens the model for them alone.
  ModelUnderTest& model = open();
  const auto result = fit_compositionality(contexts, insertions, inputs, probe_layer(model), args.probe);
  const ReportSettings settings{{"model", args.model.model},
                                {"entailment score", fmt::format("P({})", model.class_names()[model.score_label()])},
                                {"probe", fmt::format("L2 logistic regression (liblinear), C = {}, held-out share {}, seed {}",
                                                      args.probe.C, args.probe.held_out, args.probe.seed)},
                                {"ties", "pairs with equal probe scores are not test cases; equal entailment scores keep the order"}};
  if (!args.out.per_source.empty()) write_compositionality_per_source(args.out.per_source, contexts, insertions, result);
  if (!args.out.report.empty()) write_compositionality_html(args.out.report, contexts, insertions, result, settings, provenance());
  write_result(args.out, args.out.json ? compositionality_json(contexts, insertions, result, settings, provenance()).dump(2) + '\n'
                                       : compositionality_text(contexts, insertions, result, settings));
  row_run->close();
}

void setup_compositionality(CLI::App& parent) {
  auto args = std::make_shared<CompositionalityArguments>();
  auto* app = parent.add_subcommand(
      "compositionality",
      "Pairwise compositionality of an NLI model: for two insertion pairs in the same context, a linear probe's "
      "hypernymy order must match the entailment order (downward contexts) or reverse it (upward)");
  app->add_option("--contexts", args->contexts, "TSV: context with one {} <TAB> upward|downward");
  app->add_option("--insertions", args->insertions, "TSV: x <TAB> y <TAB> hypernym|hyponym|none (x's relation to y)");
  add_model_arguments(*app, args->model, "NLI model: a sequence classifier on (premise, hypothesis) pairs",
                      "The entailment label (default: the label named entailment, else label 1 of a two-label model)");
  app->add_option("--held-out", args->probe.held_out, "Share of inputs kept out of the probe's training to measure its accuracy")
      ->capture_default_str();
  app->add_option("--seed", args->probe.seed, "Seed of the probe's held-out split")->capture_default_str();
  app->add_option("-C,--C", args->probe.C, "Inverse L2 regularisation strength of the probe (--C: the older spelling)")->capture_default_str();
  add_output_options(*app, args->out, false);
  app->add_option("--per-source", args->out.per_source,
                  "Write one JSON object per NLI input (JSONL, context by context): its texts, scores and violations");
  add_run_control_options(*app, args->control);
  app->callback([args] { run_compositionality_command(*args); });
}

// ---- transitivity ----

struct TransitivityArguments {
  std::string model, pair_labels, triplets, words;
  std::vector<std::string> labels;
  std::size_t samples = 1000;
  std::uint64_t seed = 0;
  ModelOptions compute;
  OutputOptions out;
  RunControl control;  // of the pair model's judgements (eval/metamorphic/rows.hpp)
};

PairJudge model_judge(ModelUnderTest& model, const std::vector<std::string>& labels) {
  std::vector<std::size_t> indices;
  for (const auto& label : labels) indices.push_back(find_label(model.class_names(), label, model.path()));
  return [&model, indices](const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<std::string> first, second;
    for (const auto& [a, b] : pairs) {
      first.push_back(a);
      second.push_back(b);
    }
    const auto classes = model.classify(first, second).classes;
    std::vector<std::vector<bool>> out(indices.size());
    for (std::size_t r = 0; r < indices.size(); ++r)
      for (int c : classes) out[r].push_back(static_cast<std::size_t>(c) == indices[r]);
    return out;
  };
}

void run_transitivity_command(const TransitivityArguments& args) {
  if (args.labels.empty()) fail("name the relation with --label (repeatable): a label of the pair model");
  if (args.triplets.empty() == args.words.empty()) fail("give --triplets FILE or --words FILE (to sample triplets), one of them");
  if (args.model.empty() == args.pair_labels.empty()) fail("give -m PAIR_MODEL or --pair-labels FILE, one of them");
  const auto triplets = args.triplets.empty() ? sample_triplets(read_words(args.words), args.samples, args.seed)
                                              : read_triplets(args.triplets);
  ReportSettings settings{{"triplets", args.triplets.empty() ? fmt::format("{} sampled from {} (seed {})", args.samples, args.words, args.seed)
                                                             : args.triplets}};
  std::vector<RelationTransitivity> results;
  std::unique_ptr<RowRun> row_run;
  if (!args.model.empty()) {
    if (!args.control.shard.empty() && args.out.output == "-") fail("--shard writes a partial result: give --output FILE");
    std::unique_ptr<Backend> backend;
    std::optional<ModelUnderTest> model;
    Progress progress("transitivity", 3 * triplets.size());
    const auto judge = [&] {
      backend = open_backend(args.compute);
      model.emplace(args.model, *backend, ModelSettings{args.labels.front(), args.compute.batch_size,
                                                        [&progress](std::size_t done) { progress.advance(done); }});
      if (model->regression() || model->class_names().empty()) fail("{}: transitivity needs a pair classifier", args.model);
      return model_judge(*model, args.labels);
    };
    TripletJudgements judgements;
    row_run = run_triplet_rows(row_run_spec(args.control, {.inputs = {"--triplets", "--words"},
                                                           .output = args.out.output,
                                                           .chunk = chunk_rows(args.compute)}),
                               triplets, args.labels.size(), judge, judgements);
    if (!row_run) return;
    settings.push_back({"model", args.model});
    results = count_transitivity(triplets, args.labels, judgements);
  } else {
    if (!args.control.shard.empty()) fail("--shard splits what -m MODEL computes; with --pair-labels nothing is");
    settings.push_back({"pair labels", args.pair_labels});
    results = run_transitivity(triplets, args.labels, pair_label_file_judge(args.pair_labels, args.labels));
  }
  settings.push_back({"R(a, b)", "the pair model's predicted label (argmax) is R"});
  if (!args.out.per_source.empty()) write_transitivity_per_source(args.out.per_source, triplets, results);
  if (!args.out.report.empty()) write_transitivity_html(args.out.report, triplets, results, settings, provenance());
  write_result(args.out, args.out.json ? transitivity_json(triplets, results, settings, provenance()).dump(2) + '\n'
                                       : transitivity_text(triplets, results, settings));
  if (row_run) row_run->close();
}

void setup_transitivity(CLI::App& parent) {
  auto args = std::make_shared<TransitivityArguments>();
  auto* app = parent.add_subcommand(
      "transitivity", "Three-way transitivity: triplets with R(a, b) ∧ R(b, c) must have R(a, c), for a pair model's relation R");
  app->add_option("--triplets", args->triplets, "TSV: a <TAB> b <TAB> c [<TAB> group]");
  app->add_option("--words", args->words, "TSV: word [<TAB> group]; triplets are sampled within a group");
  app->add_option("--samples", args->samples, "Triplets to sample from --words")->capture_default_str();
  app->add_option("--seed", args->seed, "Seed of the sampling")->capture_default_str();
  app->add_option("-m,--model", args->model, "Pair model: a sequence classifier on (word, word) pairs");
  app->add_option("--pair-labels", args->pair_labels, "Instead of -m: TSV first <TAB> second <TAB> label of every pair needed");
  app->add_option("--label", args->labels, "A relation R: the label that means R(a, b); repeatable (one relation each)");
  add_compute_options(*app, args->compute);
  add_output_options(*app, args->out, false);
  app->add_option("--per-source", args->out.per_source,
                  "Write one JSON object per triplet (JSONL, in order): its words and, per relation, the three judgements");
  add_run_control_options(*app, args->control);
  app->callback([args] { run_transitivity_command(*args); });
}

// ---- diagram ----

struct DiagramArguments {
  std::string name, relation, output = "-";
  bool dot = false;
};

void run_diagram(const DiagramArguments& args) {
  if (args.name.empty() == args.relation.empty())
    fail("name a built-in relation ({}) or give --relation FILE, one of them", fmt::join(builtin_relation_names(), ", "));
  const auto relation = args.relation.empty() ? builtin_relation(args.name) : read_relation(args.relation);
  AtomicOutput out(args.output);
  out.stream() << (args.dot ? relation_dot(relation) : relation_svg(relation) + "\n");
  out.commit();
}

void setup_diagram(CLI::App& parent) {
  auto args = std::make_shared<DiagramArguments>();
  auto* app = parent.add_subcommand("diagram", "Draw a relation in the paper's graphical notation (SVG, or DOT with --dot)");
  app->add_option("name", args->name, "A built-in relation: " + fmt::format("{}", fmt::join(builtin_relation_names(), ", ")));
  app->add_option("--relation", args->relation,
                  "A user-defined relation (JSON): {\"name\", \"nodes\": [{\"id\", \"label\", \"kind\": text|numeric, "
                  "\"source\": bool}], \"arrows\": [{\"from\", \"to\", \"label\"}], \"constraints\": [{\"nodes\": [...], \"label\"}]}");
  app->add_flag("--dot", args->dot, "Write Graphviz DOT instead of SVG");
  app->add_option("-o,--output", args->output, "Output file, written atomically ('-' = standard output)")->capture_default_str();
  app->callback([args] { run_diagram(*args); });
}

void setup(CLI::App& root) {
  auto* app = root.add_subcommand(
      "metamorphic",
      "Metamorphic testing of NLP models (Manino et al. 2022): relate a model's outputs on source inputs to its "
      "outputs on follow-up inputs, without ground truth. See docs/metamorphic.md.");
  app->require_subcommand(1);
  setup_suite(*app, "single", Arity::Single,
              "Single-input relations: each source x against its follow-up t(x) (equivalence, similarity, order)");
  setup_suite(*app, "pairwise", Arity::Pairwise,
              "Pairwise systematicity: every pair of sources satisfying the premise keeps it on the follow-ups "
              "(order in O(n log n), equivalence, similarity)");
  setup_compositionality(*app);
  setup_transitivity(*app);
  setup_diagram(*app);
  app->footer(
      "Examples:\n"
      "  invar metamorphic pairwise -m sentiment-model --sources reviews.txt --transform neutral --report mt.html\n"
      "  invar metamorphic pairwise --scores scores.tsv --per-source per-source.jsonl\n"
      "  invar metamorphic single -m sentiment-model --sources reviews.txt --transform noise:0.05 --property equivalence\n"
      "  invar metamorphic compositionality -m nli-model --contexts contexts.tsv --insertions insertions.tsv\n"
      "  invar metamorphic transitivity -m synonym-model --label synonym --words words.tsv --samples 5000\n"
      "  invar metamorphic diagram pairwise-order -o pairwise.svg");
}

INVAR_COMMAND("metamorphic", setup);

}  // namespace
}  // namespace invar::cli
