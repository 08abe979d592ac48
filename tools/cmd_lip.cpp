// `invar lip`: the Language Invariant Property benchmark (Bianchi et al.) — does a transformation
// (translation, paraphrase, style transfer) keep a property of the text? See eval/lip/lip.hpp.
#include <filesystem>
#include <iostream>
#include <memory>
#include <unordered_set>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/log.hpp"
#include "engine/translator.hpp"
#include "eval/lip/classifier_preset.hpp"
#include "eval/lip/datasets.hpp"
#include "eval/lip/lip.hpp"
#include "eval/lip/models.hpp"
#include "eval/lip/report.hpp"
#include "eval/lip/rows.hpp"
#include "tools/bundled_data.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/run_control.hpp"
#include "tools/search_options.hpp"

namespace invar::cli {
namespace {

struct LipArguments {
  std::string train, train_target, original, transformed;
  bool example = false;
  lip::LipDatasetRequest dataset;
  std::string empty = "error";
  bool source_only = false;
  std::string classifier = "tf";
  ColumnSelection columns{.blank_texts = true};  // empty texts: --empty decides
  std::string transformed_column;
  std::string preset = lip::kDefaultClassifierPreset;
  // Unset: the preset's value.
  std::optional<std::string> analyzer, min_df, max_df, class_weight, solver;
  std::vector<int> ngram_range;
  std::optional<bool> sublinear_tf;
  std::optional<double> C, tolerance, held_out;
  std::vector<double> c_grid;
  std::optional<std::size_t> folds;
  std::size_t runs = 1;
  std::uint64_t seed = 0;
  bool json = false;
  std::string report, predictions;
  std::string encoder;  // -m: the SE classifier's sentence encoder
  std::string transform, save_transformed;
  SearchOptions search;  // --transform's generation settings
  ModelOptions compute;  // --device, --threads, --batch-size for the models above
  std::string output = "-";
  RunControl control;  // of the per-row work (eval/lip/rows.hpp)
};

lip::FeaturizerFactory tf_featurizer(const LipArguments& args, learn::TfidfOptions options) {
  if (args.analyzer == "char_wb") options.analyzer = learn::NgramAnalyzer::CharWb;
  else if (args.analyzer && *args.analyzer != "char") fail("--analyzer must be char or char_wb, got '{}'", *args.analyzer);
  if (!args.ngram_range.empty()) {
    if (args.ngram_range.size() != 2) fail("--ngram-range takes two numbers, MIN,MAX");
    options.ngram_min = args.ngram_range[0];
    options.ngram_max = args.ngram_range[1];
  }
  if (args.sublinear_tf) options.sublinear_tf = *args.sublinear_tf;
  if (args.min_df) options.min_df = learn::DocumentFrequencyBound::parse(*args.min_df);
  if (args.max_df) options.max_df = learn::DocumentFrequencyBound::parse(*args.max_df);
  options.validate();
  return [options] { return std::make_unique<lip::TfidfFeaturizer>(options); };
}

// The preset, with the options given on the command line over it.
lip::ClassifierPreset classifier_settings(const LipArguments& args) {
  lip::ClassifierPreset preset = lip::classifier_preset(args.preset);
  auto& regression = preset.regression;
  if (args.solver == "lbfgs") regression.solver = learn::LogisticSolver::Lbfgs;
  else if (args.solver == "liblinear") regression.solver = learn::LogisticSolver::Liblinear;
  else if (args.solver) fail("--solver must be lbfgs or liblinear, got '{}'", *args.solver);
  if (args.class_weight == "balanced") regression.class_weight = learn::ClassWeighting::Balanced;
  else if (args.class_weight == "none") regression.class_weight = learn::ClassWeighting::None;
  else if (args.class_weight) fail("--class-weight must be balanced or none, got '{}'", *args.class_weight);
  if (args.tolerance) regression.tolerance = *args.tolerance;
  if (args.C && !args.c_grid.empty()) fail("-C fixes C and --c-grid searches it: give one of them");
  if (args.C) {
    regression.C = *args.C;
    preset.c_grid.clear();
  }
  if (!args.c_grid.empty()) preset.c_grid = args.c_grid;
  for (double C : preset.c_grid)
    if (!(C > 0)) fail("--c-grid: C must be positive, got {}", C);
  if (args.held_out) {
    preset.check = lip::ClassifierCheck::HeldOut;
    preset.held_out = *args.held_out;
  }
  if (args.folds) preset.folds = *args.folds;
  return preset;
}

// The texts of a run; B is unset when --transform produces it.
struct LipTexts {
  LabelledTexts train, original;
  std::optional<LabelledTexts> train_target, transformed;
};

LipTexts read_lip_texts(const LipArguments& args, std::optional<lip::LipDatasetFiles>& dataset) {
  LipTexts texts;
  if (dataset) {
    texts.train = std::move(dataset->train);
    texts.train_target = std::move(dataset->train_target);
    texts.original = std::move(dataset->original);
  } else {
    texts.train = read_labelled_texts(args.train, args.columns);
    if (!args.train_target.empty()) texts.train_target = read_labelled_texts(args.train_target, args.columns);
    texts.original = read_labelled_texts(args.original, args.columns);
  }
  ColumnSelection transformed_columns = args.columns;
  if (!args.transformed_column.empty()) transformed_columns.text = args.transformed_column;
  if (args.source_only) return texts;
  if (!args.transformed.empty()) texts.transformed = read_texts(args.transformed, transformed_columns);
  else if (args.transform.empty()) texts.transformed = std::move(*dataset->transformed);
  return texts;
}

// The texts the SE classifier reads that are known before the rows run, each once, in order of
// first appearance; blank ones are left out or refused by --empty error|skip, not embedded (--empty nan
// has made its NA texts "nan" by now and keeps whitespace-only ones, as pandas does).
std::vector<std::string> texts_to_embed(const LipTexts& texts, lip::EmptyTexts empty) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  auto add = [&](const LabelledTexts* file) {
    if (!file) return;
    for (const auto& text : file->texts)
      if ((empty == lip::EmptyTexts::Nan || !is_blank(text)) && seen.insert(text).second) out.push_back(text);
  };
  add(&texts.train);
  add(texts.train_target ? &*texts.train_target : nullptr);
  add(&texts.original);
  add(texts.transformed ? &*texts.transformed : nullptr);
  return out;
}

// --transform's generation settings.
lip::TransformOptions transform_options(const LipArguments& args) {
  const SearchOptions& search = args.search;
  return {.source_language = search.source_language,
          .target_language = search.target_language,
          .settings = [search](const Translator& translator) { return search_settings(translator, search); },
          .truncate = search.truncate,
          .batch_size = args.compute.batch_size,
          .save_path = args.save_transformed};
}

// B from --transform's outputs, saved when asked (so the run can be repeated or inspected with
// --transformed).
LabelledTexts transformed_texts(const LipArguments& args, const std::vector<lip::TransformedText>& outputs) {
  const auto result = lip::join_transformed(args.transform, outputs, transform_options(args));
  if (result.truncated > 0)
    warn(fmt::format("{} of {} texts of A were longer than the model's {} positions and were "
               "truncated for --transform", result.truncated, outputs.size(), result.max_source_length));
  return result.texts;
}

void run(const LipArguments& given) {
  LipArguments args = given;
  if (args.example) {
    if (!args.train.empty() || !args.original.empty() || !args.transformed.empty())
      fail("--example brings its own data; leave out --train, --original and --transformed");
    if (!args.transform.empty()) fail("--example brings its own transformed texts; leave out --transform");
    auto folder = std::filesystem::proximate(bundled_path("examples/lip")).string();
    args.train = folder + "/train.tsv";
    args.original = folder + "/original.tsv";
    args.transformed = folder + "/transformed.tsv";
  }
  if (!args.transform.empty() && !args.transformed.empty())
    fail("--transform produces the transformed texts; leave out --transformed");
  if (args.source_only) {
    if (!args.transform.empty() || !args.transformed.empty() || !args.train_target.empty() ||
        !args.dataset.target_language.empty() || args.example)
      fail("--source-only scores the classifier on A alone: leave out --transformed, --transform, --train-target, "
           "--target-language and --example");
    if (!args.report.empty()) fail("--report draws p(B) beside p(A): a --source-only run has no B");
    if (args.runs > 1) fail("--source-only reports one run");
  }
  std::optional<lip::LipDatasetFiles> dataset;
  if (!args.dataset.name.empty()) {
    if (args.example || !args.train.empty() || !args.original.empty() || !args.train_target.empty())
      fail("--dataset reads --train, --train-target and --original from its folder; leave them out");
    if (args.dataset.folder.empty()) fail("--dataset {} needs --data-dir FOLDER", args.dataset.name);
    dataset = lip::read_lip_dataset(args.dataset);
    if (!dataset->transformed && args.transformed.empty() && args.transform.empty() && !args.source_only)
      fail("{}/transformed/{}.csv does not exist: give the transformed texts with --transformed or --transform",
           args.dataset.folder, args.dataset.source_language);
  } else if (args.train.empty() || args.original.empty() ||
             (args.transformed.empty() && args.transform.empty() && !args.source_only)) {
    fail("lip needs --train, --original and --transformed or --transform (or --example, or --dataset)");
  }
  lip::EmptyTexts empty = lip::EmptyTexts::Error;
  if (args.empty == "skip") empty = lip::EmptyTexts::Skip;
  else if (args.empty == "nan") empty = lip::EmptyTexts::Nan;
  else if (args.empty != "error") fail("--empty must be error, skip or nan, got '{}'", args.empty);

  lip::LipOptions options;
  options.runs = args.runs;
  options.seed = args.seed;
  options.classifier = classifier_settings(args);
  // The backend and models live until the end of the run: the featurizers point into them.
  std::unique_ptr<Backend> backend;
  auto backend_on_demand = [&]() -> Backend& {
    if (!backend) backend = open_backend(args.compute);
    return *backend;
  };
  std::unique_ptr<ModelSource> encoder_model;
  std::unique_ptr<TextEncoder> encoder;
  std::shared_ptr<lip::SentenceEmbeddings> embeddings;
  if (args.classifier == "tf") {
    if (!args.encoder.empty()) fail("-m/--model is the SE classifier's encoder; use it with --classifier se");
    options.featurizer = tf_featurizer(args, options.classifier.tfidf);
  } else if (args.classifier == "se") {
    if (args.encoder.empty()) fail("--classifier se needs a sentence encoder: -m MODEL");
    encoder_model = ModelSource::open(args.encoder);
    encoder = std::make_unique<TextEncoder>(*encoder_model, backend_on_demand());
    embeddings = std::make_shared<lip::SentenceEmbeddings>(*encoder, BatchOptions{args.compute.batch_size, {}});
    options.featurizer = [embeddings] { return std::make_unique<lip::EmbeddingFeaturizer>(embeddings); };
  } else {
    fail("--classifier must be tf or se, got '{}'", args.classifier);
  }

  auto texts = read_lip_texts(args, dataset);
  if (empty == lip::EmptyTexts::Nan)  // before B is produced or anything embedded: they see "nan" as the tool's models do
    for (auto* file : {&texts.train, texts.train_target ? &*texts.train_target : nullptr, &texts.original,
                       texts.transformed ? &*texts.transformed : nullptr})
      if (file) lip::read_na_as_nan(*file);
  const lip::LipRowWork work{.original = &texts.original, .transform_model = args.transform,
                        .transform = transform_options(args), .backend = backend_on_demand,
                        .embeddings = embeddings.get(), .to_embed = embeddings ? texts_to_embed(texts, empty) : std::vector<std::string>{}};
  const auto rows = lip::run_lip_rows(row_run_spec(args.control, {.inputs = {"--train", "--train-target", "--original", "--transformed", "--data-dir"},
                                  .output = args.output, .chunk = chunk_rows(args.compute)}),
                                 work);
  if (!rows.writes) return;
  if (!texts.transformed && !args.source_only) texts.transformed = transformed_texts(args, rows.transformed);
  auto data = lip::make_lip_data(std::move(texts.train), std::move(texts.train_target), std::move(texts.original),
                                 std::move(texts.transformed), empty);

  std::unique_ptr<Progress> progress;
  options.progress = [&progress](std::size_t done, std::size_t total) {
    if (!progress) progress = std::make_unique<Progress>("classifier fits", total);
    progress->set(done);
  };
  auto result = lip::run_lip(data, options);
  progress.reset();
  if (embeddings && embeddings->truncated() > 0)
    warn(fmt::format("{} texts were longer than {} tokens and were truncated for the sentence encoder",
               embeddings->truncated(), encoder->max_length()));
  if (!args.predictions.empty()) lip::write_lip_predictions(args.predictions, data, result);
  if (!args.report.empty()) lip::write_lip_html(args.report, data, result, provenance());
  AtomicOutput out(args.output);
  if (args.json) out.stream() << lip::lip_json(data, result, provenance()).dump(2) << '\n';
  else out.stream() << lip::lip_text_report(data, result);
  out.commit();
  if (rows.run) rows.run->close();
}

void setup(CLI::App& root) {
  auto args = std::make_shared<LipArguments>();
  auto* app = root.add_subcommand(
      "lip",
      "Language Invariant Property benchmark (Bianchi et al.): does a transformation keep a property of "
      "the text? Trains a property classifier, compares the distributions p̂(A) (truth), p(A) and p(B) "
      "(predictions on originals and transformed texts) with KL and chi-squared, and reads the result.");
  app->add_option("--train", args->train, "Training data for the property classifier: text and label columns");
  app->add_option("--train-target", args->train_target,
                  "Training data in the target language, for the classifier applied to B when the "
                  "transformation crosses languages (same label set as --train)");
  app->add_option("--original", args->original, "The originals A: text and ground-truth label columns");
  app->add_option("--transformed", args->transformed, "The transformed texts B, line-aligned with A");
  app->add_option("--dataset", args->dataset.name,
                  "Read one of the LIP tool's data sets from --data-dir with its preprocessing: trustpilot "
                  "(--property gender|age_cat), hateval (HS 1/0 -> Hate/Not Hate, @user, hashtags removed), affect "
                  "(--property emotion|sentiment, @user); files FOLDER/{train,test}/LANGUAGE.csv, B from "
                  "--transformed, --transform or FOLDER/transformed/LANGUAGE.csv");
  app->add_option("--data-dir", args->dataset.folder, "The --dataset folder");
  app->add_option("--language", args->dataset.source_language, "The --dataset language of A (file name)")
      ->capture_default_str();
  app->add_option("--target-language", args->dataset.target_language,
                  "The --dataset language of B: its classifier is trained on train/LANGUAGE.csv (default: one "
                  "common classifier for A and B)");
  app->add_option("--property", args->dataset.property, "The --dataset property (a column for trustpilot)");
  app->add_option("--empty", args->empty,
                  "Empty texts: error (stop at the first, naming it), skip (leave them out, counting them; an "
                  "empty A or B drops the pair) or nan (as the LIP tool reads them with pandas: an empty cell or a "
                  "pandas NA marker becomes the text 'nan')")
      ->capture_default_str();
  app->add_flag("--source-only", args->source_only,
                "No transformed texts: train the classifier and score it on A against A's labels only (KL_O_PO, "
                "significance_source, distribution_O/PO: the paper's Table 1 source rows)");
  app->add_flag("--example", args->example,
                "Run on the bundled example (examples/lip: product reviews and a paraphraser that tones "
                "down complaints)");
  app->add_option("--classifier", args->classifier,
                  "Property classifier: tf (TF-IDF char n-grams + LR) or se (sentence embeddings of -m + LR)")
      ->capture_default_str();
  app->add_option("-m,--model", args->encoder,
                  "Sentence encoder for --classifier se (a sentence-transformers or encoder folder, or .invar): "
                  "pooling and normalization from its modules.json");
  app->add_option("--transform", args->transform,
                  "Produce B inside invar: a seq2seq model (folder or .invar) translates or paraphrases A with "
                  "its config.json's search settings, overridden by the options below");
  add_search_options(*app, args->search);
  app->add_option("--save-transformed", args->save_transformed,
                  "Write the texts --transform produced, one per line of A");
  add_compute_options(*app, args->compute);
  app->add_option("--text-column", args->columns.text,
                  "Text column: 1-based number or header name (TSV/CSV, default 1), key (JSONL, default text)");
  app->add_option("--label-column", args->columns.label,
                  "Label column: number or header name (default 2), key (JSONL, default label)");
  app->add_option("--transformed-column", args->transformed_column, "Text column of --transformed (default: --text-column)");
  app->add_flag("--header", args->columns.header, "TSV/CSV files start with a header line");
  app->add_option("--preset", args->preset,
                  "Classifier setting: lip-tool (the LIP tool's: TF-IDF max_df 0.8, sklearn's saga objective solved "
                  "to its optimum, C from {5, 2, 1, 0.5, 0.1} by 5-fold cross-validation, checked by that "
                  "cross-validation, trained on all the training data) or invar (max_df 0.6, liblinear, C 1, "
                  "checked on a 20 % held-out split). The options below override single settings")
      ->capture_default_str();
  app->add_option("--analyzer", args->analyzer, "TF-IDF analyzer: char or char_wb (both presets: char)");
  app->add_option("--ngram-range", args->ngram_range, "TF-IDF n-gram range MIN,MAX (presets: 2,6)")
      ->delimiter(',')
      ->expected(2);
  app->add_option("--min-df", args->min_df, "Minimum document frequency: a count (2) or a share (presets: 0.001)");
  app->add_option("--max-df", args->max_df, "Maximum document frequency: a count or a share (lip-tool 0.8, invar 0.6)");
  app->add_option("--sublinear-tf", args->sublinear_tf, "tf = 1 + ln(count) (presets: true)");
  app->add_option("--solver", args->solver,
                  "lbfgs (sklearn's lbfgs/saga problem: intercept not penalised, multinomial) or liblinear "
                  "(one-vs-rest, intercept penalised)");
  app->add_option("-C", args->C, "Fix the inverse regularisation strength (no grid search)");
  app->add_option("--c-grid", args->c_grid, "Search C among these values by cross-validated micro-F1, e.g. 5,2,1")
      ->delimiter(',');
  app->add_option("--folds", args->folds, "Cross-validation folds for the check and the grid search (presets: 5)");
  app->add_option("--class-weight", args->class_weight, "balanced (n / (K * count)) or none (presets: balanced)");
  app->add_option("--tol", args->tolerance,
                  "Stopping tolerance: liblinear's eps, or the L-BFGS gradient norm (lip-tool 1e-9, invar 1e-4)");
  app->add_option("--held-out", args->held_out,
                  "Check the classifier on this share of each class held out of training (the invar preset: 0.2; "
                  "0 = no check) instead of cross-validation");
  app->add_option("--runs", args->runs,
                  "With a held-out check: repeat with seeds S, S+1, ... (other splits); report mean ± std")
      ->capture_default_str();
  app->add_option("--seed", args->seed, "First seed")->capture_default_str();
  app->add_flag("--json", args->json, "Print the result as JSON instead of the table");
  app->add_option("--report", args->report, "Write a self-contained HTML report with the distribution chart");
  app->add_option("--predictions", args->predictions,
                  "Write per-text predictions as JSONL, one line per original text");
  app->add_option("-o,--output", args->output,
                  "Write the table (or --json) to FILE, atomically, instead of standard output; with --shard, the "
                  "partial result")
      ->capture_default_str();
  add_run_control_options(*app, args->control);
  app->callback([args] { run(*args); });
}

INVAR_COMMAND("lip", setup);

}  // namespace
}  // namespace invar::cli
