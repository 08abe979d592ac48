// `invar metric meteor|wmd|wvcos`: the lexical-semantic metrics Briakou et al. (2021) compare for
// style transfer. METEOR is NLTK's (3.8 by default, 3.6.2 by name); WMD and the cosine of mean word
// vectors read fastText vectors. Sentence scores are line-aligned with the hypotheses; the corpus
// score is their mean. Segments run in chunks (run/row_run.hpp: --resume, --shard, MPI); every
// process reads the whole inputs, WordNet and the vectors.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/json_number.hpp"
#include "eval/metrics/corpus/common.hpp"
#include "eval/metrics/lexical/meteor.hpp"
#include "eval/metrics/vectors/wmd.hpp"
#include "core/version.hpp"
#include "tools/command.hpp"
#include "run/record.hpp"
#include "tools/model_command.hpp"
#include "tools/run_control.hpp"

namespace invar::cli {
namespace {

struct PairArguments {
  std::string hyp = "-";  // as sacrebleu: standard input when no file is named
  std::vector<std::string> refs;
  std::string source;
  std::string output = "-";
  bool sentence = false;
  bool json = false;
  int width = 4;
  int threads = 0;
  std::string empty = "error";
  RunControl control;
};

struct Inputs {
  std::vector<std::string> hyps;
  std::vector<std::vector<std::string>> refs;  // per segment
  std::string compared_with;                   // "references" or "source"
};

// Lines of a file; a blank hypothesis is an error unless --empty reference.
std::vector<std::string> read_hypotheses(const std::string& path, const std::string& empty) {
  auto out = read_lines(path);
  if (out.empty()) fail("{}: no lines to score", path);
  if (empty == "error") metrics::check_no_empty_hypothesis(out, path);
  return out;
}

Inputs read_inputs(const PairArguments& args, bool several_references) {
  if (args.refs.empty() == args.source.empty()) fail("give --ref FILE or --source FILE (one of them)");
  if (!several_references && args.refs.size() > 1)
    fail("this metric compares two texts: give one --ref FILE (or --source FILE)");
  Inputs in{.hyps = read_hypotheses(args.hyp, args.empty), .compared_with = args.source.empty() ? "references" : "source"};
  in.refs.resize(in.hyps.size());
  for (const auto& file : args.source.empty() ? args.refs : std::vector<std::string>{args.source}) {
    auto lines = read_lines(file);
    if (lines.size() != in.hyps.size())
      fail("{} has {} lines but {} has {}; hypotheses and references must be line-aligned", file, lines.size(),
           args.hyp, in.hyps.size());
    for (std::size_t i = 0; i < lines.size(); ++i) in.refs[i].push_back(std::move(lines[i]));
  }
  return in;
}

struct Described {
  std::string name;       // METEOR, WMD, WVCOS
  std::string signature;  // the settings in one line
  nlohmann::ordered_json settings;
};

std::string text_number(double x, int width) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}f}", x, width);
}

// Sentence scores line by line, or the corpus mean over the defined (finite) ones.
void write_scores(const PairArguments& args, const Described& metric, const Inputs& in,
                  const std::vector<double>& scores) {
  AtomicOutput out(args.output);
  if (args.sentence) {
    for (std::size_t i = 0; i < scores.size(); ++i)
      out.write_line(args.json ? nlohmann::ordered_json{{"line", i + 1}, {"score", json_number(scores[i])}}.dump()
                               : text_number(scores[i], args.width));
    out.commit();
    return;
  }
  double sum = 0;
  std::size_t defined = 0;
  for (double s : scores)
    if (std::isfinite(s)) sum += s, ++defined;
  const double mean = defined ? sum / static_cast<double>(defined) : std::nan("");
  const std::size_t undefined = scores.size() - defined;
  if (args.json) {
    nlohmann::ordered_json j{{"name", metric.name},
                             {"score", json_number(mean)},
                             {"segments", scores.size()},
                             {"undefined_segments", undefined},
                             {"compared_with", in.compared_with},
                             {"signature", metric.signature},
                             {"settings", metric.settings},
                             {"invar_version", kVersion},
                             {"provenance", provenance().json()}};
    out.write_line(j.dump(1));
  } else {
    std::string note = fmt::format("mean of {} segment{}", defined, defined == 1 ? "" : "s");
    if (undefined) note += fmt::format("; {} left out: no in-vocabulary word on a side", undefined);
    out.write_line(fmt::format("{} = {} ({}) {}", metric.name, text_number(mean, args.width), note, metric.signature));
  }
  out.commit();
}

// Segments per chunk of a run, scored on --threads threads.
constexpr std::size_t kChunk = 256;

// score(i) of every segment, in chunks run as run/row_run.hpp does (--resume, --shard, MPI), then
// the output, written by the process that writes it. An error names the hypothesis file and line.
void run_scores(const PairArguments& args, const char* label, const Described& metric, const Inputs& in,
                const std::function<double(std::size_t)>& score) {
  RowRun run(row_run_spec(args.control, {.inputs = {"--hyp", "--ref", "--source"},
              .output = args.output, .rows = in.hyps.size(), .chunk = kChunk}));
  Progress progress(label, in.hyps.size());
  const bool writes = run.process([&](std::size_t begin, std::size_t end) {
    std::vector<std::string> records(end - begin);
    metrics::parallel_for(end - begin, args.threads, [&](std::size_t k) {
      try {
        records[k] = run::RecordWriter().put(score(begin + k)).str();
      } catch (const Error& e) {
        fail("{}:{}: {}", args.hyp, begin + k + 1, e.what());
      }
    });
    progress.advance(end - begin);
    return records;
  });
  if (!writes) return;
  std::vector<double> scores;
  for (const auto& text : run.records()) {
    run::RecordReader record(text, metric.name);
    scores.push_back(record.get_double());
    record.finish();
  }
  write_scores(args, metric, in, scores);
  run.close();
}

void add_pair_options(CLI::App* app, PairArguments& args, bool several_references) {
  app->add_option("-i,--hyp", args.hyp, "Hypotheses, one segment per line ('-' = standard input)")
      ->capture_default_str();
  app->add_option("-r,--ref", args.refs,
                  several_references ? "References, line-aligned (repeat for several; the best one counts)"
                                     : "References, line-aligned with the hypotheses");
  app->add_option("--source", args.source,
                  "Sources, line-aligned: compare the outputs with their inputs (the self- variant of style "
                  "transfer) instead of references");
  app->add_flag("--sentence,--sentence-level", args.sentence, "One score per line, aligned with the hypotheses");
  app->add_flag("--json", args.json,
                "JSON: the corpus score with its settings; with --sentence, JSON Lines {line, score} (unrounded; "
                "null where undefined)");
  app->add_option("-w,--width", args.width, "Decimals of printed scores")->capture_default_str();
  app->add_option("--threads", args.threads, "Threads scoring segments (0 = all cores); results do not depend on it")
      ->capture_default_str();
  app->add_option("--empty", args.empty,
                  "An empty hypothesis: error (naming its line) or reference (the reference implementation's value: "
                  "NLTK's METEOR 0, WMD inf, the cosine undefined; inf and undefined are left out of the mean)")
      ->check(CLI::IsMember({"error", "reference"}))
      ->capture_default_str();
  app->add_option("-o,--output", args.output, "Write here instead of standard output (complete or not at all)");
  add_run_control_options(*app, args.control);
}

void check_common(const PairArguments& args) {
  if (args.width < 0 || args.width > 17) fail("--width must be between 0 and 17, got {}", args.width);
  if (args.threads < 0) fail("--threads must be >= 0 (0 = all cores), got {}", args.threads);
}

void setup_meteor(CLI::App& parent) {
  auto args = std::make_shared<PairArguments>();
  auto version = std::make_shared<std::string>("3.8");
  auto wordnet_dir = std::make_shared<std::string>(metrics::WordNet::default_directory());
  auto* app = parent.add_subcommand("meteor", "METEOR as NLTK's meteor_score computes it (exact, Porter-stem and "
                                              "WordNet-synonym matching; NLTK 3.8, or 3.6.2 by name)");
  add_pair_options(app, *args, true);
  app->add_option("--nltk", *version,
                  "NLTK behaviour: 3.8 (pre-tokenised input; the synonym stage looks up stems) or 3.6.2 (the "
                  "string API Briakou et al.'s script used; stem matches can match again as synonyms)")
      ->capture_default_str();
  app->add_option("--wordnet", *wordnet_dir, "WordNet 3.0 database folder (Debian package wordnet-base)")
      ->capture_default_str();
  app->footer("Tokens are str.split() of each line, lowercased (Python's rules). With the default --width 4 the "
              "printed scores equal Python's round(score, 4), as the paper's script reports them.");
  app->callback([=] {
    check_common(*args);
    metrics::MeteorOptions options;
    if (*version == "3.6.2")
      options.version = metrics::MeteorVersion::Nltk362;
    else if (*version != "3.8")
      fail("--nltk must be 3.8 or 3.6.2, got '{}'", *version);
    const auto in = read_inputs(*args, true);
    const metrics::WordNet wordnet(*wordnet_dir);
    const metrics::Meteor meteor(wordnet, options);
    const nlohmann::ordered_json settings{{"nltk", *version},      {"alpha", options.alpha},
                                          {"beta", options.beta},  {"gamma", options.gamma},
                                          {"stemmer", "porter (NLTK_EXTENSIONS)"}, {"wordnet", *wordnet_dir}};
    run_scores(*args, "meteor", {"METEOR", meteor.signature(), settings}, in,
               [&](std::size_t i) { return meteor.score(in.hyps[i], in.refs[i]); });
  });
}

std::string vectors_signature(const metrics::WordVectors& v) {
  return fmt::format("vectors:{}|dim:{}|words:{}|tokenize:lower-split|oov:drop",
                     std::filesystem::path(v.path()).filename().string(), v.dimension(), v.size());
}

nlohmann::ordered_json vectors_settings(const metrics::WordVectors& v) {
  return {{"vectors", v.path()}, {"dimension", v.dimension()}, {"words", v.size()}, {"oov", "dropped"}};
}

void setup_word_vector_metrics(CLI::App& parent) {
  auto args = std::make_shared<PairArguments>();
  auto vectors_path = std::make_shared<std::string>();
  auto unit = std::make_shared<bool>(false);
  auto* wmd = parent.add_subcommand(
      "wmd", "Word Mover's Distance (Kusner et al. 2015), exact: earth mover's distance between normalised bags of "
             "words, solved by LEMON's network simplex");
  add_pair_options(wmd, *args, false);
  wmd->add_option("--vectors", *vectors_path, "fastText word vectors: .vec text or .bin model")->required();
  wmd->add_flag("--unit-vectors", *unit,
                "Scale every word vector to unit length first (gensim >= 4's default, norm=True)");
  wmd->footer("The distance is exact (not gensim's: no pyemd quantisation, and 0 rather than infinity for distinct "
              "words with identical vectors). A line with no in-vocabulary word scores inf and is left out of the "
              "mean.");
  wmd->callback([=] {
    check_common(*args);
    const auto in = read_inputs(*args, false);
    const auto vectors = metrics::WordVectors::load(*vectors_path);
    auto settings = vectors_settings(vectors);
    settings["unit_vectors"] = *unit;
    settings["solver"] = "exact (LEMON network simplex)";
    run_scores(*args, "wmd",
               {"WMD", vectors_signature(vectors) + (*unit ? "|norm:unit" : "|norm:raw") + "|solver:exact", settings},
               in, [&](std::size_t i) {
                 return metrics::word_movers_distance(vectors, in.hyps[i], in.refs[i].front(), *unit);
               });
  });

  auto cos_args = std::make_shared<PairArguments>();
  auto cos_vectors = std::make_shared<std::string>();
  auto* wvcos = parent.add_subcommand("wvcos", "Cosine similarity of the mean word vectors of two texts");
  add_pair_options(wvcos, *cos_args, false);
  wvcos->add_option("--vectors", *cos_vectors, "fastText word vectors: .vec text or .bin model")->required();
  wvcos->footer("Every in-vocabulary token counts in the mean (repeats too). A line with no in-vocabulary word "
                "scores nan and is left out of the mean.");
  wvcos->callback([=] {
    check_common(*cos_args);
    const auto in = read_inputs(*cos_args, false);
    const auto vectors = metrics::WordVectors::load(*cos_vectors);
    run_scores(*cos_args, "wvcos", {"WVCOS", vectors_signature(vectors) + "|mean:tokens", vectors_settings(vectors)},
               in, [&](std::size_t i) {
                 return metrics::mean_vector_cosine(vectors, in.hyps[i], in.refs[i].front()).value_or(std::nan(""));
               });
  });
}

INVAR_SUBCOMMAND("metric", "meteor", setup_meteor);
INVAR_SUBCOMMAND("metric", "wmd, wvcos", setup_word_vector_metrics);

}  // namespace
}  // namespace invar::cli
