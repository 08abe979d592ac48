// `invar isometry`: isometry of translation on binary semantic-equivalence spaces (Shankar) — does
// a translation map paraphrases to paraphrases? See eval/isometry/isometry.hpp and docs/isometry.md.
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "eval/isometry/isometry.hpp"
#include "eval/isometry/models.hpp"
#include "eval/isometry/report.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"

namespace invar::cli {
namespace {

struct IsometryArguments {
  std::vector<std::string> pairs, translations, detector_scores, names;
  std::vector<std::string> detectors;
  std::string translator;
  std::optional<std::string> paraphrase_label;
  isometry::ModelTranslatorOptions translation;
  ModelOptions compute;  // --batch-size, --threads, --device
  std::vector<std::string> columns;
  bool header = false;
  double epsilon = 0.5;
  bool json = false;
  std::string report, per_pair;
};

// One name per data set: --name, else the file's stem, else (when stems collide) its path.
std::vector<std::string> data_set_names(const IsometryArguments& args) {
  if (!args.names.empty()) {
    if (args.names.size() != args.pairs.size())
      fail("--name given {} times but --pairs {} times; name every data set or none", args.names.size(), args.pairs.size());
    return args.names;
  }
  std::vector<std::string> names;
  for (const auto& path : args.pairs) names.push_back(std::filesystem::path(path).stem().string());
  if (std::set<std::string>(names.begin(), names.end()).size() != names.size()) return args.pairs;
  return names;
}

void expect_one_per_data_set(const std::vector<std::string>& given, const char* option, std::size_t data_sets) {
  if (given.size() != data_sets)
    fail("{} given {} times but --pairs {} times; give one per data set, in the same order", option, given.size(),
         data_sets);
}

// Exactly one of the file option and the model option, the file once per data set.
void expect_files_or_model(const std::vector<std::string>& files, const char* file_option, bool model,
                           const char* model_option, std::size_t data_sets) {
  if (files.empty() && !model) fail("isometry needs {} FILE (one per --pairs) or {} MODEL", file_option, model_option);
  if (!files.empty() && model) fail("give {} or {}, not both", file_option, model_option);
  if (!files.empty()) expect_one_per_data_set(files, file_option, data_sets);
}

std::vector<isometry::ParaphraseDetector> open_detectors(const IsometryArguments& args, Backend& backend) {
  std::vector<isometry::ParaphraseDetector> detectors;
  std::set<std::string> names;
  for (const auto& argument : args.detectors) {
    auto [name, model] = isometry::detector_name_and_model(argument);
    if (!names.insert(name).second) fail("two detectors are named '{}'; name them with --detector NAME=MODEL", name);
    detectors.push_back(isometry::model_paraphrase_detector(
        model, backend, {.name = name, .paraphrase_label = args.paraphrase_label, .batch_size = args.compute.batch_size}));
  }
  return detectors;
}

void run(const IsometryArguments& args) {
  if (args.pairs.empty()) fail("isometry needs --pairs FILE (sentence pairs in the source language)");
  isometry::validate_epsilon(args.epsilon);
  const auto data_sets = args.pairs.size();
  expect_files_or_model(args.translations, "--translations", !args.translator.empty(), "--translator", data_sets);
  expect_files_or_model(args.detector_scores, "--detector-scores", !args.detectors.empty(), "--detector", data_sets);
  if (!args.columns.empty() && args.columns.size() != 2) fail("--columns takes two columns, FIRST,SECOND");
  isometry::PairColumns columns{.header = args.header};
  if (!args.columns.empty()) {
    columns.first = args.columns[0];
    columns.second = args.columns[1];
  }
  const auto names = data_set_names(args);
  std::vector<isometry::SentencePairs> sources;
  for (const auto& path : args.pairs) sources.push_back(isometry::read_sentence_pairs(path, columns));

  std::unique_ptr<Backend> backend;
  if (!args.translator.empty() || !args.detectors.empty()) backend = open_backend(args.compute);
  isometry::TextTranslator translator;
  if (!args.translator.empty()) {
    auto options = args.translation;
    options.batch_size = args.compute.batch_size;
    translator = isometry::model_translator(args.translator, *backend, options);
  }
  const auto detectors = args.detectors.empty() ? std::vector<isometry::ParaphraseDetector>{} : open_detectors(args, *backend);

  std::vector<isometry::IsometryDataSet> data;
  for (std::size_t s = 0; s < data_sets; ++s) {
    auto target = translator ? isometry::translate_pairs(sources[s], translator, args.translator)
                             : isometry::read_sentence_pairs(args.translations[s], columns);
    auto scores = detectors.empty() ? isometry::read_detector_scores(args.detector_scores[s])
                                    : isometry::detect_paraphrases(sources[s], target, detectors);
    data.push_back(isometry::make_isometry_data_set(names[s], std::move(sources[s]), std::move(target), std::move(scores)));
  }

  isometry::IsometryOptions options;
  options.epsilon = args.epsilon;
  auto result = isometry::run_isometry(data, options);
  if (!args.per_pair.empty()) isometry::write_isometry_pairs(args.per_pair, data, result);
  if (!args.report.empty()) isometry::write_isometry_html(args.report, data, result);
  if (args.json) std::cout << isometry::isometry_json(data, result).dump(2) << '\n';
  else std::cout << isometry::isometry_text_report(data, result);
}

void setup(CLI::App& root) {
  auto args = std::make_shared<IsometryArguments>();
  auto* app = root.add_subcommand(
      "isometry",
      "Isometry of translation on binary semantic-equivalence spaces (Shankar): does translation map paraphrases "
      "to paraphrases? Paraphrase detectors judge each source pair (s1, s2) and its translation (f(s1), f(s2)); "
      "the mode of their [S_X, S_Y] judgements puts the pair in [1,1] isometric, [0,0] ambiguous, [0,1] type-1 "
      "anisometry, [1,0] type-2 anisometry or Ø (no majority). Reports the categories' frequencies per data set "
      "and their macro-average, the detectors' agreement, and Pearson r between commutative chrF2 and S_L with "
      "a one-tailed t-test. See docs/isometry.md.");
  app->add_option("--pairs", args->pairs,
                  "Source sentence pairs, one pair per line: TSV/CSV columns 1 and 2, or JSONL keys sentence1 and "
                  "sentence2. Repeat for several data sets (the frequencies are macro-averaged over them)");
  app->add_option("--translations", args->translations,
                  "The translations (f(s1), f(s2)), same format, line-aligned with --pairs; one per --pairs");
  app->add_option("--detector-scores", args->detector_scores,
                  "Precomputed P(paraphrase), one file per --pairs, line-aligned with it: TSV with a header line, "
                  "or JSONL objects, with the columns (keys) source:NAME and target:NAME for every detector NAME "
                  "(probabilities on (s1, s2) and on (f(s1), f(s2)))");
  app->add_option("--translator", args->translator,
                  "Translate the pairs inside invar with this seq2seq model (a Hugging Face folder or an .invar file) "
                  "instead of reading --translations");
  app->add_option("--beam-size", args->translation.beam_size, "Beam size of --translator (the paper's 5)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app->add_option("--max-length", args->translation.max_length,
                  "Longest translation in tokens (default: the model's generation config)")
      ->check(CLI::Range(1, 1 << 16));
  app->add_option("--source-language", args->translation.source_language,
                  "Source language code of a multilingual --translator (mBART, M2M100, NLLB)");
  app->add_option("--target-language", args->translation.target_language,
                  "Target language code of a multilingual --translator");
  app->add_option("--detector", args->detectors,
                  "A paraphrase detector computed inside invar: a sequence-classification model on sentence pairs, "
                  "MODEL or NAME=MODEL; repeat for several (the paper uses three). Instead of --detector-scores");
  app->add_option("--paraphrase-label", args->paraphrase_label,
                  "The label of the --detector models that means paraphrase: an id2label name or an index (default: "
                  "the label named 'paraphrase', else LABEL_1 of a LABEL_0/LABEL_1 model)");
  add_compute_options(*app, args->compute);
  app->add_option("--name", args->names, "Name of each data set, in --pairs order (default: the file names)");
  app->add_option("--columns", args->columns,
                  "The two sentence columns of --pairs and --translations: numbers or header names (TSV/CSV), keys "
                  "(JSONL)")
      ->delimiter(',')
      ->expected(2);
  app->add_flag("--header", args->header, "TSV/CSV pair files start with a header line");
  app->add_option("--epsilon", args->epsilon, "Threshold: S_L = 1 iff P(paraphrase) >= epsilon; in (0, 1)")
      ->capture_default_str();
  app->add_flag("--json", args->json, "Print the result as JSON instead of the tables");
  app->add_option("--report", args->report,
                  "Write a self-contained HTML report: category chart, tables, P(paraphrase) and chrF2 target-vs-source "
                  "scatter plots");
  app->add_option("--per-pair", args->per_pair,
                  "Write one JSON object per input pair (all data sets, in input order): probabilities, judgements, "
                  "mode, category, agreement, chrF2 of both pairs");
  app->footer(
      "Examples:\n"
      "  invar isometry --pairs de.tsv --translator opus-mt-de-en --detector bert=bert-paws \\\n"
      "                 --detector xlmr=xlmr-paws --detector mpnet=mpnet-paws --json\n"
      "  invar isometry --pairs de.tsv --translations de-en.tsv --detector-scores de.scores.tsv \\\n"
      "                 --per-pair pairs.jsonl --report isometry.html\n"
      "de.scores.tsv (one row per pair; P(paraphrase) of each detector on the source and the target pair):\n"
      "  source:bert  target:bert  source:xlmr  target:xlmr  source:mpnet  target:mpnet   (tab-separated)\n"
      "  0.97         0.95         0.91         0.88         0.99          0.93");
  app->callback([args] { run(*args); });
}

INVAR_COMMAND("isometry", setup);

}  // namespace
}  // namespace invar::cli
