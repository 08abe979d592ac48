// `invar lip`: the Language Invariant Property benchmark (Bianchi et al.) — does a transformation
// (translation, paraphrase, style transfer) keep a property of the text? See eval/lip/lip.hpp.
#include <filesystem>
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/lip/lip.hpp"
#include "eval/lip/report.hpp"
#include "eval/lip/transform.hpp"
#include "tools/bundled_data.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"

namespace invar::cli {
namespace {

struct LipArguments {
  std::string train, train_target, original, transformed;
  bool example = false;
  std::string classifier = "tf";
  ColumnSelection columns;
  std::string transformed_column;
  std::string analyzer = "char";
  std::vector<int> ngram_range{2, 6};
  std::string min_df = "0.001", max_df = "0.6";
  bool sublinear_tf = true;
  double C = 1.0;
  std::string class_weight = "balanced";
  double tolerance = 1e-4;
  double held_out = 0.2;
  std::size_t runs = 1;
  std::uint64_t seed = 0;
  bool json = false;
  std::string report, predictions;
  std::string encoder;  // -m: the SE classifier's sentence encoder
  std::string transform, source_language, target_language, save_transformed;
  ModelOptions compute;  // --device, --threads, --batch-size for the models above
};

lip::FeaturizerFactory tf_featurizer(const LipArguments& args) {
  learn::TfidfOptions options = lip::lip_tfidf_options();
  if (args.analyzer == "char_wb") options.analyzer = learn::NgramAnalyzer::CharWb;
  else if (args.analyzer != "char") fail("--analyzer must be char or char_wb, got '{}'", args.analyzer);
  if (args.ngram_range.size() != 2) fail("--ngram-range takes two numbers, MIN,MAX");
  options.ngram_min = args.ngram_range[0];
  options.ngram_max = args.ngram_range[1];
  options.sublinear_tf = args.sublinear_tf;
  options.min_df = learn::DocumentFrequencyBound::parse(args.min_df);
  options.max_df = learn::DocumentFrequencyBound::parse(args.max_df);
  options.validate();
  return [options] { return std::make_unique<lip::TfidfFeaturizer>(options); };
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
  if (args.train.empty() || args.original.empty() || (args.transformed.empty() && args.transform.empty()))
    fail("lip needs --train, --original and --transformed or --transform (or --example)");

  lip::LipOptions options;
  options.runs = args.runs;
  options.seed = args.seed;
  options.held_out = args.held_out;
  options.regression.C = args.C;
  options.regression.tolerance = args.tolerance;
  if (args.class_weight == "balanced") options.regression.class_weight = learn::ClassWeighting::Balanced;
  else if (args.class_weight == "none") options.regression.class_weight = learn::ClassWeighting::None;
  else fail("--class-weight must be balanced or none, got '{}'", args.class_weight);
  // Models live until the end of the run: featurizers and the translator point into them.
  std::vector<std::unique_ptr<ModelSource>> sources;
  std::unique_ptr<Backend> backend;
  if (!args.encoder.empty() || !args.transform.empty()) backend = open_backend(args.compute);
  auto open_model = [&](const std::string& path) -> const ModelSource& {
    sources.push_back(ModelSource::open(path));
    return *sources.back();
  };
  std::unique_ptr<TextEncoder> encoder;
  std::shared_ptr<lip::SentenceEmbeddings> embeddings;
  if (args.classifier == "tf") {
    if (!args.encoder.empty()) fail("-m/--model is the SE classifier's encoder; use it with --classifier se");
    options.featurizer = tf_featurizer(args);
  } else if (args.classifier == "se") {
    if (args.encoder.empty()) fail("--classifier se needs a sentence encoder: -m MODEL");
    encoder = std::make_unique<TextEncoder>(open_model(args.encoder), *backend);
    embeddings = std::make_shared<lip::SentenceEmbeddings>(*encoder, BatchOptions{args.compute.batch_size, {}});
    options.featurizer = [embeddings] { return std::make_unique<lip::EmbeddingFeaturizer>(embeddings); };
  } else {
    fail("--classifier must be tf or se, got '{}'", args.classifier);
  }

  auto train = read_labelled_texts(args.train, args.columns);
  std::optional<LabelledTexts> train_target;
  if (!args.train_target.empty()) train_target = read_labelled_texts(args.train_target, args.columns);
  auto original = read_labelled_texts(args.original, args.columns);
  ColumnSelection transformed_columns = args.columns;
  if (!args.transformed_column.empty()) transformed_columns.text = args.transformed_column;
  LabelledTexts transformed;
  if (args.transform.empty()) {
    transformed = read_texts(args.transformed, transformed_columns);
  } else {
    Progress progress("transform", original.texts.size());
    transformed = lip::transform_texts(open_model(args.transform), *backend, original,
                                       {.source_language = args.source_language,
                                        .target_language = args.target_language,
                                        .batch_size = args.compute.batch_size,
                                        .save_path = args.save_transformed,
                                        .progress = [&progress](std::size_t done) { progress.set(done); }});
  }
  auto data = lip::make_lip_data(std::move(train), std::move(train_target), std::move(original), std::move(transformed));

  auto result = lip::run_lip(data, options);
  if (embeddings && embeddings->truncated() > 0)
    fmt::print(stderr, "invar: warning: {} texts were longer than {} tokens and were truncated for the sentence encoder\n",
               embeddings->truncated(), encoder->max_length());
  if (!args.predictions.empty()) lip::write_lip_predictions(args.predictions, data, result);
  if (!args.report.empty()) lip::write_lip_html(args.report, data, result);
  if (args.json) std::cout << lip::lip_json(data, result).dump(2) << '\n';
  else std::cout << lip::lip_text_report(data, result);
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
                  "its config.json's search settings");
  app->add_option("--src-lang", args->source_language, "Source language code for --transform (mBART, M2M100)");
  app->add_option("--tgt-lang", args->target_language, "Target language code for --transform");
  app->add_option("--save-transformed", args->save_transformed,
                  "Write the texts --transform produced, one per line of A");
  add_compute_options(*app, args->compute);
  app->add_option("--text-column", args->columns.text,
                  "Text column: 1-based number or header name (TSV/CSV, default 1), key (JSONL, default text)");
  app->add_option("--label-column", args->columns.label,
                  "Label column: number or header name (default 2), key (JSONL, default label)");
  app->add_option("--transformed-column", args->transformed_column, "Text column of --transformed (default: --text-column)");
  app->add_flag("--header", args->columns.header, "TSV/CSV files start with a header line");
  app->add_option("--analyzer", args->analyzer, "TF-IDF analyzer: char or char_wb")->capture_default_str();
  app->add_option("--ngram-range", args->ngram_range, "TF-IDF n-gram range MIN,MAX")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  app->add_option("--min-df", args->min_df, "Minimum document frequency: a count (2) or a share (0.001)")
      ->capture_default_str();
  app->add_option("--max-df", args->max_df, "Maximum document frequency: a count or a share")->capture_default_str();
  app->add_option("--sublinear-tf", args->sublinear_tf, "tf = 1 + ln(count)")->capture_default_str();
  app->add_option("-C", args->C, "Inverse regularisation strength of the logistic regression")->capture_default_str();
  app->add_option("--class-weight", args->class_weight, "balanced (n / (K * count)) or none")->capture_default_str();
  app->add_option("--tol", args->tolerance, "liblinear stopping tolerance")->capture_default_str();
  app->add_option("--held-out", args->held_out,
                  "Share of each class of the training data held out to score the classifier (0 = none)")
      ->capture_default_str();
  app->add_option("--runs", args->runs, "Repeat with seeds S, S+1, ... (other held-out splits); report mean ± std")
      ->capture_default_str();
  app->add_option("--seed", args->seed, "First seed")->capture_default_str();
  app->add_flag("--json", args->json, "Print the result as JSON instead of the table");
  app->add_option("--report", args->report, "Write a self-contained HTML report with the distribution chart");
  app->add_option("--predictions", args->predictions,
                  "Write per-text predictions as JSONL, one line per original text");
  app->callback([args] { run(*args); });
}

INVAR_COMMAND("lip", setup);

}  // namespace
}  // namespace invar::cli
