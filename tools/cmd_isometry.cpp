// `invar isometry`: isometry of translation on binary semantic-equivalence spaces (Shankar) — does
// a translation map paraphrases to paraphrases? See eval/isometry/isometry.hpp and docs/isometry.md.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "eval/isometry/isometry.hpp"
#include "eval/isometry/models.hpp"
#include "eval/isometry/report.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/row_run.hpp"
#include "tools/search_options.hpp"

namespace invar::cli {
namespace {

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
  RunControl control;
  const CLI::App* command = nullptr;
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

// Where each translator's pairs come from: its model, or one file per data set.
struct TranslatorSource {
  std::string name;
  std::string model;               // empty: `files`
  std::vector<std::string> files;  // one per data set, in --pairs order
};

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

// Progress bars for the models' runs: the models report to whichever bar is current.
struct ProgressSlot {
  std::unique_ptr<Progress> bar;
  void start(std::string label, std::size_t total) {
    bar.reset();
    bar = std::make_unique<Progress>(std::move(label), total);
  }
};

std::vector<isometry::ParaphraseDetector> open_detectors(const IsometryArguments& args, Backend& backend,
                                                         ProgressSlot& progress) {
  std::vector<isometry::ParaphraseDetector> detectors;
  std::set<std::string> names;
  for (const auto& argument : args.detectors) {
    auto [name, model] = isometry::name_and_path(argument);
    if (!names.insert(name).second) fail("two detectors are named '{}'; name them with --detector NAME=MODEL", name);
    detectors.push_back(isometry::model_paraphrase_detector(
        model, backend,
        {.name = name,
         .paraphrase_label = args.paraphrase_label,
         .max_length = args.detector_max_length,
         .batch_size = args.compute.batch_size,
         .progress = [&progress](std::size_t done) { progress.bar->advance(done); }}));
  }
  return detectors;
}

isometry::TextTranslator open_translator(const IsometryArguments& args, const std::string& model, Backend& backend,
                                         ProgressSlot& progress, std::size_t& truncated) {
  const SearchOptions& search = args.search;
  return isometry::model_translator(
      model, backend,
      {.settings =
           [&search](const Translator& translator) {
             auto settings = search_settings(translator, search);
             if (!search.beam && !settings.do_sample) settings.num_beams = kPaperBeam;
             return settings;
           },
       .source_language = search.source_language,
       .target_language = search.target_language,
       .batch_size = args.compute.batch_size,
       .truncate = search.truncate,
       .truncated = [&truncated](std::size_t) { ++truncated; },
       .progress = [&progress](std::size_t done) { progress.bar->set(done); }});
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

// The models of one translator and data set: its --translator (unset: translations read from a
// file) and the --detector models (empty: scores read from a file).
struct PairModels {
  const isometry::TextTranslator& translator;
  const std::string& translator_model;
  const std::vector<isometry::ParaphraseDetector>& detectors;
};

isometry::SentencePairs slice(const isometry::SentencePairs& pairs, std::size_t begin, std::size_t end) {
  isometry::SentencePairs out;
  out.path = pairs.path;
  out.first.assign(pairs.first.begin() + begin, pairs.first.begin() + end);
  out.second.assign(pairs.second.begin() + begin, pairs.second.begin() + end);
  out.line_numbers.assign(pairs.line_numbers.begin() + begin, pairs.line_numbers.begin() + end);
  return out;
}

// One pair's record: its translation and the detectors' probabilities on both sides, as computed.
std::string pair_record(const PairModels& models, const isometry::SentencePairs& target,
                        const isometry::DetectorScores& scores, std::size_t i) {
  nlohmann::json record = nlohmann::json::object();
  if (models.translator) record["translation"] = {target.first[i], target.second[i]};
  for (std::size_t d = 0; d < scores.detectors.size(); ++d) {
    record["source"].push_back(scores.source[d][i]);
    record["target"].push_back(scores.target[d][i]);
  }
  return record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The records of pair_record read back into `target` and `detected`.
void read_pair_records(const std::vector<std::string>& records, const PairModels& models,
                       const isometry::SentencePairs& source, isometry::SentencePairs& target,
                       isometry::DetectorScores& detected) {
  if (models.translator) target = {.path = models.translator_model, .line_numbers = source.line_numbers};
  if (!models.detectors.empty()) {
    detected = {.path = "(computed)"};
    for (const auto& detector : models.detectors) detected.detectors.push_back(detector.name);
    detected.source.resize(models.detectors.size());
    detected.target.resize(models.detectors.size());
  }
  for (const auto& text : records) {
    const auto record = nlohmann::json::parse(text);
    if (models.translator) {
      target.first.push_back(record.at("translation").at(0).get<std::string>());
      target.second.push_back(record.at("translation").at(1).get<std::string>());
    }
    for (std::size_t d = 0; d < models.detectors.size(); ++d) {
      detected.source[d].push_back(record.at("source").at(d).get<double>());
      detected.target[d].push_back(record.at("target").at(d).get<double>());
    }
  }
}

// Translations and detector probabilities of one data set, chunk by chunk (tools/row_run.hpp): with
// --per-pair FILE the finished chunks are kept beside it (FILE.invar-progress.PART), so --resume
// continues an interrupted run. The returned run is closed once every output is written.
std::unique_ptr<RowRun> run_pair_models(const IsometryArguments& args, const PairModels& models,
                                        const isometry::SentencePairs& source, const std::string& part,
                                        const std::string& label, isometry::SentencePairs& target,
                                        isometry::DetectorScores& detected, ProgressSlot& progress) {
  auto rows = std::make_unique<RowRun>(RowRunSpec{
      .command = args.command, .control = &args.control, .inputs = {"--pairs"},
      .output = args.per_pair.empty() ? "-" : args.per_pair, .rows = source.size(), .chunk = chunk_rows(args.compute),
      .output_option = "--per-pair", .part = part, .splits = false});
  const isometry::SentencePairs given_target = target;
  rows->process([&](std::size_t begin, std::size_t end) {
    const auto pairs = slice(source, begin, end);
    isometry::SentencePairs translated;
    if (models.translator) {
      progress.start("translate " + label, 2 * pairs.size());
      translated = isometry::translate_pairs(pairs, models.translator, models.translator_model);
    } else {
      translated = slice(given_target, begin, end);
    }
    isometry::DetectorScores scores;
    if (!models.detectors.empty()) {
      progress.start("detect " + label, 2 * pairs.size() * models.detectors.size());
      scores = isometry::detect_paraphrases(pairs, translated, models.detectors);
    }
    progress.bar.reset();
    std::vector<std::string> records;
    for (std::size_t i = 0; i < pairs.size(); ++i) records.push_back(pair_record(models, translated, scores, i));
    return records;
  });
  read_pair_records(rows->records(), models, source, target, detected);
  return rows;
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
  const auto scores = args.detectors.empty() ? score_files(args, translators, data_sets)
                                             : std::map<std::string, std::vector<std::string>>{};
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
  std::unique_ptr<Backend> backend;
  if (modelled > 0 || !args.detectors.empty()) backend = open_backend(args.compute);
  ProgressSlot progress;
  const auto detectors =
      args.detectors.empty() ? std::vector<isometry::ParaphraseDetector>{} : open_detectors(args, *backend, progress);

  std::vector<isometry::IsometryDataSet> data;
  std::vector<std::unique_ptr<RowRun>> model_runs;
  for (std::size_t t = 0; t < translators.size(); ++t) {
    const auto& source = translators[t];
    std::size_t truncated = 0;
    isometry::TextTranslator translator;
    if (!source.model.empty()) translator = open_translator(args, source.model, *backend, progress, truncated);
    const PairModels models{translator, source.model, detectors};
    for (std::size_t s = 0; s < data_sets; ++s) {
      isometry::SentencePairs target;
      if (!translator) target = isometry::read_sentence_pairs(source.files[s], columns);
      isometry::DetectorScores detected;
      if (detectors.empty()) detected = isometry::read_detector_scores(scores.at(source.name)[s]);
      if (translator || !detectors.empty())
        model_runs.push_back(run_pair_models(args, models, sources[s], fmt::format("t{}.d{}", t, s),
                                             source.name + ":" + names[s], target, detected, progress));
      if (translator && !args.save_translations.empty())
        isometry::write_sentence_pairs(
            saved_translations_path(args, static_cast<std::size_t>(modelled) * data_sets, source.name, names[s]),
            target);
      data.push_back(isometry::make_isometry_data_set(names[s], sources[s], std::move(target), std::move(detected),
                                                      source.name));
    }
    if (truncated > 0)
      std::cerr << fmt::format("invar: {} sources truncated to the positions of {} (--truncate)\n", truncated,
                               source.model);
  }

  isometry::IsometryOptions options;
  options.epsilon = args.epsilon;
  options.procedures = correlation_procedures(args.correlation);
  auto result = isometry::run_isometry(data, options);
  if (!args.per_pair.empty()) isometry::write_isometry_pairs(args.per_pair, data, result);
  if (!args.report.empty()) isometry::write_isometry_html(args.report, data, result);
  if (args.json) std::cout << isometry::isometry_json(data, result).dump(2) << '\n';
  else std::cout << isometry::isometry_text_report(data, result);
  for (auto& run : model_runs) run->close();
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
  app.add_option("--detector-max-length", args.detector_max_length,
                 "Tokens per pair given to the --detector models, longer pairs truncated longest-first (the study "
                 "used 128; default and upper bound: the model's length)")
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
                  "--detector, the finished chunks of pairs are kept beside it until the run ends (--resume)");
  add_resume_option(*app, args->control, "--per-pair");
  args->command = app;
  app->footer(
      "Examples:\n"
      "  invar isometry --pairs de.tsv --translator opus-mt-de-en --detector bert=bert-paws \\\n"
      "                 --detector xlmr=xlmr-paws --detector mpnet=mpnet-paws --detector-max-length 128 --json\n"
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
