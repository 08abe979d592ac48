// `invar isometry`: isometry of translation on binary semantic-equivalence spaces (Shankar) — does
// a translation map paraphrases to paraphrases? See eval/isometry/isometry.hpp and docs/isometry.md.
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <span>

#include "core/console.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/isometry/isometry.hpp"
#include "eval/isometry/models.hpp"
#include "eval/isometry/report.hpp"
#include "eval/isometry/segments.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/run_control.hpp"
#include "tools/search_options.hpp"

namespace invar::cli {
namespace {

using isometry::TranslatorSource;

// The study translated with a beam of 5 (§3.2); --beam overrides it.
constexpr int kPaperBeam = 5;
// The name of the one translator whose files are given without NAME=.
constexpr const char* kUnnamedTranslator = "translations";

struct IsometryArguments {
  std::vector<std::string> pairs, translations, detector_scores, names;
  std::vector<std::string> detectors, translators;
  std::optional<std::string> paraphrase_label;
  std::optional<std::size_t> detector_max_length;
  SearchOptions search;
  ModelOptions compute;  // --batch-size, --threads, --device
  std::vector<std::string> columns;
  bool header = false;
  double epsilon = 0.5;
  std::string correlation = "both";
  bool json = false;
  std::string report, per_pair, save_translations;
  std::string output = "-";
  RunControl control;
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

// FILE or NAME=FILE arguments grouped by NAME in order of first appearance; a plain FILE belongs to
// the translator named "" (resolved by the caller).
std::vector<std::pair<std::string, std::vector<std::string>>> files_by_translator(const std::vector<std::string>& given) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& argument : given) {
    const auto equals = argument.find('=');
    const bool named = equals != std::string::npos && equals > 0 && argument.find('/') > equals;
    const auto name = named ? argument.substr(0, equals) : std::string();
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == name; });
    if (group == groups.end()) {
      groups.emplace_back(name, std::vector<std::string>{});
      group = std::prev(groups.end());
    }
    group->second.push_back(named ? argument.substr(equals + 1) : argument);
  }
  return groups;
}

void expect_one_per_data_set(const std::vector<std::string>& given, const std::string& option, std::size_t data_sets) {
  if (given.size() != data_sets)
    fail("{} given {} times but --pairs {} times; give one per data set, in the same order", option, given.size(),
         data_sets);
}

std::string option_for(const char* option, const std::string& translator) {
  return translator.empty() ? option : fmt::format("{} {}=", option, translator);
}

std::vector<TranslatorSource> translator_sources(const IsometryArguments& args, std::size_t data_sets) {
  std::vector<TranslatorSource> sources;
  for (const auto& argument : args.translators) {
    auto [name, model] = isometry::name_and_path(argument);
    sources.push_back({name, model, {}});
  }
  for (auto& [name, files] : files_by_translator(args.translations)) {
    expect_one_per_data_set(files, option_for("--translations", name), data_sets);
    sources.push_back({name.empty() ? kUnnamedTranslator : name, "", std::move(files)});
  }
  if (sources.empty()) fail("isometry needs --translations FILE (one per --pairs) or --translator MODEL");
  std::set<std::string> names;
  for (const auto& source : sources)
    if (!names.insert(source.name).second)
      fail("two translators are named '{}'; name them with --translator NAME=MODEL or --translations NAME=FILE",
           source.name);
  return sources;
}

// The --detector-scores files of every translator, by its name.
std::map<std::string, std::vector<std::string>> score_files(const IsometryArguments& args,
                                                            const std::vector<TranslatorSource>& translators,
                                                            std::size_t data_sets) {
  std::map<std::string, std::vector<std::string>> files;
  for (auto& [name, group] : files_by_translator(args.detector_scores)) {
    expect_one_per_data_set(group, option_for("--detector-scores", name), data_sets);
    if (name.empty() && translators.size() != 1)
      fail("{} translators: name the one each --detector-scores file scores, NAME=FILE", translators.size());
    const auto& translator = name.empty() ? translators.front().name : name;
    if (std::none_of(translators.begin(), translators.end(), [&](const auto& t) { return t.name == translator; }))
      fail("--detector-scores {}=: no translator is named '{}'", name, name);
    files[translator] = std::move(group);
  }
  for (const auto& translator : translators)
    if (!files.contains(translator.name))
      fail("no --detector-scores for the translator '{}' (give --detector-scores {}=FILE per --pairs, or --detector "
           "MODEL)",
           translator.name, translator.name);
  return files;
}

// The --detector names, in order.
std::vector<std::string> detector_names(const IsometryArguments& args) {
  std::vector<std::string> names;
  for (const auto& argument : args.detectors) {
    auto name = isometry::name_and_path(argument).first;
    if (std::find(names.begin(), names.end(), name) != names.end())
      fail("two detectors are named '{}'; name them with --detector NAME=MODEL", name);
    names.push_back(std::move(name));
  }
  return names;
}

// --save-translations: a file when invar translates one data set once, else a folder of
// TRANSLATOR.DATASET.jsonl files.
std::string saved_translations_path(const IsometryArguments& args, std::size_t translated, const std::string& translator,
                                    const std::string& data_set) {
  const auto& path = args.save_translations;
  if (translated == 1 && !std::filesystem::is_directory(path)) return path;
  std::filesystem::create_directories(path);
  return (std::filesystem::path(path) / (translator + "." + data_set + ".jsonl")).string();
}

std::vector<isometry::CorrelationProcedure> correlation_procedures(const std::string& name) {
  using P = isometry::CorrelationProcedure;
  if (name == "pooled") return {P::Pooled};
  if (name == "mode") return {P::Mode};
  return {P::Pooled, P::Mode};
}

void run(const IsometryArguments& args) {
  if (args.pairs.empty()) fail("isometry needs --pairs FILE (sentence pairs in the source language)");
  isometry::validate_epsilon(args.epsilon);
  const auto data_sets = args.pairs.size();
  const auto translators = translator_sources(args, data_sets);
  if (args.detector_scores.empty() && args.detectors.empty())
    fail("isometry needs --detector-scores FILE (one per --pairs) or --detector MODEL");
  if (!args.detector_scores.empty() && !args.detectors.empty()) fail("give --detector-scores or --detector, not both");
  if (!args.columns.empty() && args.columns.size() != 2) fail("--columns takes two columns, FIRST,SECOND");
  isometry::PairColumns columns{.header = args.header};
  if (!args.columns.empty()) {
    columns.first = args.columns[0];
    columns.second = args.columns[1];
  }
  const auto names = data_set_names(args);
  std::vector<isometry::SentencePairs> sources;
  for (const auto& path : args.pairs) sources.push_back(isometry::read_sentence_pairs(path, columns));
  const auto modelled = std::count_if(translators.begin(), translators.end(), [](const auto& t) { return !t.model.empty(); });
  if (!args.save_translations.empty() && modelled == 0)
    fail("--save-translations keeps what --translator produces, and no --translator is given");

  const auto detectors = detector_names(args);
  const isometry::SegmentInputs in{translators, names, sources, detectors};
  auto segments = isometry::plan_segments(in, columns,
                                          detectors.empty() ? score_files(args, translators, sources.size())
                                                            : std::map<std::string, std::vector<std::string>>{});
  const SearchOptions& search = args.search;
  isometry::SegmentModels models({.detectors = args.detectors,
                                  .paraphrase_label = args.paraphrase_label,
                                  .detector_max_length = args.detector_max_length,
                                  .batch_size = args.compute.batch_size,
                                  .backend = [&args] { return open_backend(args.compute); },
                                  .settings =
                                      [&search](const Translator& translator) {
                                        auto settings = search_settings(translator, search);
                                        if (!search.beam && !settings.do_sample) settings.num_beams = kPaperBeam;
                                        return settings;
                                      },
                                  .source_language = search.source_language,
                                  .target_language = search.target_language,
                                  .truncate = search.truncate},
                                 translators);
  std::unique_ptr<RowRun> row_run;
  if (isometry::computed_rows(segments, in) == 0) {
    if (!args.control.shard.empty())
      fail("--shard splits what --translator and --detector compute, and neither is given");
  } else {
    if (!args.control.shard.empty() && args.output == "-") fail("--shard writes a partial result: give --output FILE");
    const bool to_output = args.output != "-" || args.per_pair.empty();
    row_run = isometry::run_segments(row_run_spec(args.control, {.inputs = {"--pairs"},
                                                                 .output = to_output ? args.output : args.per_pair,
                                                                 .chunk = chunk_rows(args.compute),
                                                                 .output_option = to_output ? "--output" : "--per-pair"}),
                                     in, segments, models);
  }
  if (!row_run && std::any_of(segments.begin(), segments.end(), [](const auto& s) { return s.computed(); })) return;
  for (std::size_t t = 0; t < translators.size(); ++t) {
    std::size_t truncated = 0;
    for (const auto& segment : segments) truncated += segment.translator == t ? segment.truncated : 0;
    if (truncated > 0)
      print_line(fmt::format("invar: {} sources truncated to the positions of {} (--truncate)", truncated,
                             translators[t].model));
  }

  std::vector<isometry::IsometryDataSet> data;
  for (auto& segment : segments) {
    const auto& translator = translators[segment.translator];
    const auto& name = names[segment.data_set];
    if (segment.translated && !args.save_translations.empty())
      isometry::write_sentence_pairs(
          saved_translations_path(args, static_cast<std::size_t>(modelled) * data_sets, translator.name, name),
          segment.target);
    data.push_back(isometry::make_isometry_data_set(name, sources[segment.data_set], std::move(segment.target),
                                                    std::move(segment.detected), translator.name));
  }
  isometry::IsometryOptions options;
  options.epsilon = args.epsilon;
  options.procedures = correlation_procedures(args.correlation);
  auto result = isometry::run_isometry(data, options);
  if (!args.per_pair.empty()) isometry::write_isometry_pairs(args.per_pair, data, result);
  if (!args.report.empty()) isometry::write_isometry_html(args.report, data, result, provenance());
  AtomicOutput out(args.output);
  if (args.json) out.stream() << isometry::isometry_json(data, result, provenance()).dump(2) << '\n';
  else out.stream() << isometry::isometry_text_report(data, result);
  out.commit();
  if (row_run) row_run->close();
}

void add_translation_options(CLI::App& app, IsometryArguments& args) {
  app.add_option("--translator", args.translators,
                 "Translate the pairs inside invar with this seq2seq model (a Hugging Face folder or an .invar file), "
                 "MODEL or NAME=MODEL; repeat to compare translators side by side");
  add_search_options(app, args.search);
  app.get_option("--beam")->description("Beam size of --translator; 1 = greedy (default: 5, the paper's, not config.json's)");
  // The names isometry used before it shared the generation options of translate and generate.
  app.add_option("--beam-size", args.search.beam, "Alias of --beam")->group("")->check(CLI::Range(1, 1024));
  app.add_option("--source-language", args.search.source_language, "Alias of --src-lang")->group("");
  app.add_option("--target-language", args.search.target_language, "Alias of --tgt-lang")->group("");
  app.add_option("--save-translations", args.save_translations,
                 "Keep what --translator produced: a FILE when one data set is translated once (TSV, or JSONL when "
                 "it ends in .jsonl), else a folder of TRANSLATOR.DATASET.jsonl files; read them back with "
                 "--translations");
}

void add_detector_options(CLI::App& app, IsometryArguments& args) {
  app.add_option("--detector", args.detectors,
                 "A paraphrase detector computed inside invar: a sequence-classification model on sentence pairs, "
                 "MODEL or NAME=MODEL; repeat for several (the paper uses three). Instead of --detector-scores");
  app.add_option("--paraphrase-label", args.paraphrase_label,
                 "The label of the --detector models that means paraphrase: an id2label name or an index (default: "
                 "the label named 'paraphrase', else LABEL_1 of a LABEL_0/LABEL_1 model)");
  app.add_option("--detector-max-input-tokens,--detector-max-length", args.detector_max_length,
                 "Tokens per pair given to the --detector models, longer pairs truncated longest-first (the study "
                 "used 128; default and upper bound: the model's length; --detector-max-length: the older spelling)")
      ->check(CLI::Range(4, 1 << 20));
}

void setup(CLI::App& root) {
  auto args = std::make_shared<IsometryArguments>();
  auto* app = root.add_subcommand(
      "isometry",
      "Isometry of translation on binary semantic-equivalence spaces (Shankar): does translation map paraphrases "
      "to paraphrases? Paraphrase detectors judge each source pair (s1, s2) and its translation (f(s1), f(s2)); "
      "the mode of their [S_X, S_Y] judgements puts the pair in [1,1] isometric, [0,0] ambiguous, [0,1] type-1 "
      "anisometry, [1,0] type-2 anisometry or Ø (no majority). Reports the categories' frequencies per translator "
      "and data set with their macro-average, the detectors' agreement, and Pearson r between commutative chrF2 "
      "and S_L with a one-tailed t-test. See docs/isometry.md.");
  app->add_option("--pairs", args->pairs,
                  "Source sentence pairs, one pair per line: TSV/CSV columns 1 and 2, or JSONL keys sentence1 and "
                  "sentence2. Repeat for several data sets (the frequencies are macro-averaged over them)");
  app->add_option("--translations", args->translations,
                  "The translations (f(s1), f(s2)), same format, line-aligned with --pairs; one per --pairs, FILE or "
                  "TRANSLATOR=FILE to compare several translators side by side");
  app->add_option("--detector-scores", args->detector_scores,
                  "Precomputed P(paraphrase), one file per --pairs (TRANSLATOR=FILE with several translators), "
                  "line-aligned with it: TSV with a header line, or JSONL objects, with the columns (keys) "
                  "source:NAME and target:NAME for every detector NAME (probabilities on (s1, s2) and on "
                  "(f(s1), f(s2)))");
  add_translation_options(*app, *args);
  add_detector_options(*app, *args);
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
  app->add_option("--correlation", args->correlation,
                  "Which chrF2-vs-S_L correlation the tables show: pooled (the paper's Table 3 and its R code: every "
                  "detector's own S_L, source and target in one r, no-majority pairs kept), mode (the paper's text: "
                  "S_L of the mode, per side, no-majority pairs removed) or both; --json always has both")
      ->check(CLI::IsMember({"pooled", "mode", "both"}))
      ->capture_default_str();
  app->add_flag("--json", args->json, "Print the result as JSON instead of the tables");
  app->add_option("--report", args->report,
                  "Write a self-contained HTML report: tables, category chart, density contours of P(paraphrase), "
                  "chrF2-by-S_L box plots, one example pair per category");
  app->add_option("--per-pair", args->per_pair,
                  "Write one JSON object per input pair (all translators and data sets, in input order): "
                  "probabilities, judgements, mode, category, agreement, chrF2 of both pairs. With --translator or "
                  "--detector and no --output, the finished chunks of pairs are kept beside it until the run ends "
                  "(--resume)");
  app->add_option("-o,--output", args->output,
                  "Write the tables (or --json) to FILE, atomically, instead of standard output; with --translator "
                  "or --detector the finished chunks of pairs are kept beside it (--resume), and with --shard it "
                  "holds the partial result")
      ->capture_default_str();
  add_run_control_options(*app, args->control, "--output (else --per-pair)");
  app->footer(
      "Examples:\n"
      "  invar isometry --pairs de.tsv --translator opus-mt-de-en --detector bert=bert-paws \\\n"
      "                 --detector xlmr=xlmr-paws --detector mpnet=mpnet-paws --detector-max-input-tokens 128 --json\n"
      "  invar isometry --pairs de.tsv --translations de-en.tsv --detector-scores de.scores.tsv \\\n"
      "                 --per-pair pairs.jsonl --report isometry.html\n"
      "  invar isometry --pairs legacy.tsv --pairs ar.tsv \\\n"
      "                 --translations fair=legacy.fair.tsv --translations fair=ar.fair.tsv \\\n"
      "                 --translations std=legacy.std.tsv --translations std=ar.std.tsv \\\n"
      "                 --detector-scores fair=legacy.fair.scores.tsv --detector-scores fair=ar.fair.scores.tsv \\\n"
      "                 --detector-scores std=legacy.std.scores.tsv --detector-scores std=ar.std.scores.tsv\n"
      "de.scores.tsv (one row per pair; P(paraphrase) of each detector on the source and the target pair):\n"
      "  source:bert  target:bert  source:xlmr  target:xlmr  source:mpnet  target:mpnet   (tab-separated)\n"
      "  0.97         0.95         0.91         0.88         0.99          0.93");
  app->callback([args] { run(*args); });
}

INVAR_COMMAND("isometry", setup);

}  // namespace
}  // namespace invar::cli
