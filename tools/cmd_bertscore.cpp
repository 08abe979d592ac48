// `invar metric bertscore`: BERTScore as bert_score v0.3.13 computes it (eval/metrics/bertscore/bertscore.hpp),
// with its hash, its CLI's summary line and per-line scores aligned with the hypotheses. Segments
// run in chunks of whole matching batches (run/row_run.hpp: --resume, --shard, MPI); the idf
// weights come from every reference in every process, so a segment's score does not depend on
// which process computed it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/json_number.hpp"
#include "core/log.hpp"
#include "core/version.hpp"
#include "eval/metrics/bertscore/bertscore.hpp"
#include "eval/metrics/corpus/common.hpp"
#include "run/record.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/output_form.hpp"
#include "tools/run_control.hpp"
#include "tools/text_input.hpp"

namespace invar::cli {
namespace {

struct BertScoreArguments {
  ModelOptions model;
  TextInputOptions text;  // how hypothesis and reference files are read (the same for each)
  std::vector<std::string> refs;
  std::string source;  // --source: compared with in place of references (self-BERTScore)
  std::string ref_lists;  // JSONL: one array of references per hypothesis, any number each
  std::optional<std::int64_t> layer;
  bool idf = false;
  std::string baseline;
  std::size_t max_length = 0;
  bool sentence = false;
  bool json = false;
  bool csv = false;
  int width = 6;  // -w: decimals of the text output; bert_score prints six
  std::string empty = "error";  // --empty; --empty-as-zero is "reference"
  bool empty_as_zero = false;
  RunControl control;
};

using References = std::vector<std::vector<std::string>>;

// Hypotheses and the line-aligned reference files (or the source file), as segment-major reference lists.
void read_inputs(const BertScoreArguments& args, std::vector<std::string>& hyps,
                 References& refs) {
  const std::string name = args.model.input == "-" ? "standard input" : args.model.input;
  hyps = read_input_texts(args.model.input, args.text, kOneText).texts[0];
  if (hyps.empty()) fail("{}: no hypotheses to score", name);
  if (args.empty == "error" && !args.empty_as_zero) metrics::check_no_empty_hypothesis(hyps, name);
  refs.assign(hyps.size(), {});
  if (!args.ref_lists.empty()) {
    LineReader in(args.ref_lists);
    std::size_t row = 0;
    for (std::string line; in.next(line); ++row) {
      if (row >= hyps.size())
        fail("{}: more reference lists than the {} hypotheses of {}", in.where(), hyps.size(), name);
      const auto list = nlohmann::json::parse(line, nullptr, false);
      if (!list.is_array() || list.empty())
        fail("{}: expected a JSON array of one or more reference strings", in.where());
      for (const auto& ref : list) {
        if (!ref.is_string()) fail("{}: reference {} is not a string", in.where(), refs[row].size() + 1);
        refs[row].push_back(ref.get<std::string>());
      }
    }
    if (row != hyps.size())
      fail("{} has {} reference lists but the hypotheses ({}) have {}; they must be line-aligned", args.ref_lists, row,
           name, hyps.size());
  }
  for (const auto& file : args.source.empty() ? args.refs : std::vector<std::string>{args.source}) {
    auto lines = read_input_texts(file, args.text, kOneText).texts[0];
    if (lines.size() != hyps.size())
      fail("{} has {} lines but the hypotheses ({}) have {}; references and sources must be line-aligned with them", file,
           lines.size(), name, hyps.size());
    for (std::size_t i = 0; i < hyps.size(); ++i) refs[i].push_back(std::move(lines[i]));
  }
}

// bert_score warns when an empty candidate or reference sets scores to 0.
void warn_empty(const std::vector<std::string>& hyps, const References& refs) {
  std::size_t empty_hyps = 0, empty_refs = 0;
  for (const auto& h : hyps) empty_hyps += is_blank(h);
  for (const auto& r : refs)
    for (const auto& text : r) empty_refs += is_blank(text);
  if (empty_hyps > 0)
    warn(fmt::format("{} empty hypotheses score P = R = F = 0 (as bert_score)", empty_hyps));
  if (empty_refs > 0)
    warn(fmt::format("{} empty references score P = R = F = 0 against their hypotheses",
               empty_refs));
}

// bert_score's CLI line: "HASH P: 0.123456 R: 0.123456 F1: 0.123456" (at -w 6, its default).
std::string summary_line(const std::string& hash, const metrics::BertScore& m, int width) {
  return fmt::format("{} P: {:.{}f} R: {:.{}f} F1: {:.{}f}", hash, m.precision, width, m.recall, width, m.f1, width);
}

nlohmann::ordered_json summary_json(const std::string& hash, const metrics::BertScore& m,
                                    const BertScoreArguments& args, std::int64_t layer, std::size_t segments) {
  nlohmann::ordered_json out{{"name", "BERTScore"},   {"P", json_number(m.precision)}, {"R", json_number(m.recall)},
                             {"F", json_number(m.f1)},  {"hash", hash},             {"layer", layer},
                             {"idf", args.idf},        {"segments", segments},
                             {"compared_with", args.source.empty() ? "references" : "source"}};
  if (!args.baseline.empty()) out["baseline"] = args.baseline;
  out["invar_version"] = kVersion;
  out["provenance"] = provenance().json();
  return out;
}

void write_sentences(const std::vector<metrics::BertScore>& scores, const BertScoreArguments& args, AtomicOutput& out) {
  if (args.csv) out.write_line("P,R,F");
  for (const auto& s : scores) {
    if (args.json)
      out.write_line(nlohmann::ordered_json{{"P", json_number(s.precision)}, {"R", json_number(s.recall)}, {"F", json_number(s.f1)}}.dump());
    else if (args.csv)
      out.write_line(fmt::format("{},{},{}", s.precision, s.recall, s.f1));
    else  // bert_score's --seg_level lines
      out.write_line(fmt::format("{:.{}f}\t{:.{}f}\t{:.{}f}", s.precision, args.width, s.recall, args.width, s.f1,
                                 args.width));
  }
}

// Distinct texts of the segments [begin, end), as bert_score embeds them once each.
std::set<std::string_view> distinct_texts(const std::vector<std::string>& hyps, const References& refs,
                                          std::size_t begin, std::size_t end) {
  std::set<std::string_view> texts(hyps.begin() + static_cast<std::ptrdiff_t>(begin),
                                   hyps.begin() + static_cast<std::ptrdiff_t>(end));
  for (std::size_t i = begin; i < end; ++i) texts.insert(refs[i].begin(), refs[i].end());
  return texts;
}

// The model and its scorer, opened by the first chunk this process computes.
class Scoring {
 public:
  Scoring(const BertScoreArguments& args, const ModelSource& source, std::int64_t layer, const References& refs,
          Progress& progress)
      : backend_(open_backend(args.model)),
        encoder_(source, *backend_),
        scorer_(encoder_, {.layer = layer,
                           .idf = args.idf,
                           .batch_size = args.model.batch_size,
                           .max_length = args.max_length,
                           .progress = [&progress](std::size_t done) { progress.advance(done); }}) {
    scorer_.weigh_by(refs);
  }

  // A record per segment of [begin, end): P, R and F exactly, 1 or 0 for whether the hypothesis
  // and each reference were truncated, and the length limit they were truncated to.
  std::vector<std::string> records(const std::vector<std::string>& hyps, const References& refs, std::size_t begin,
                                   std::size_t end) {
    const auto first = static_cast<std::ptrdiff_t>(begin), last = static_cast<std::ptrdiff_t>(end);
    const auto scores =
        scorer_.score({hyps.begin() + first, hyps.begin() + last}, {refs.begin() + first, refs.begin() + last});
    std::vector<std::string> out;
    for (std::size_t i = begin; i < end; ++i) {
      const auto& s = scores[i - begin];
      std::string cut(1, scorer_.truncated(hyps[i]) ? '1' : '0');
      for (const auto& text : refs[i]) cut += scorer_.truncated(text) ? '1' : '0';
      out.push_back(run::RecordWriter()
                        .put(s.precision)
                        .put(s.recall)
                        .put(s.f1)
                        .put(cut)
                        .put(std::uint64_t{scorer_.max_length()})
                        .str());
    }
    return out;
  }

 private:
  std::unique_ptr<Backend> backend_;
  TextEncoder encoder_;
  metrics::BertScorer scorer_;
};

struct Truncation {
  std::set<std::string_view> texts;  // the distinct texts that were truncated
  std::string limit;                 // to this many tokens
};

// The scores of Scoring::records read back, and what they say of truncation.
std::vector<metrics::BertScore> read_records(const std::vector<std::string>& records,
                                             const std::vector<std::string>& hyps, const References& refs,
                                             Truncation& cut) {
  std::vector<metrics::BertScore> scores;
  for (std::size_t i = 0; i < records.size(); ++i) {
    run::RecordReader record(records[i], "BERTScore");
    metrics::BertScore score;
    score.precision = record.get_float();
    score.recall = record.get_float();
    score.f1 = record.get_float();
    const std::string flags = record.get_string();
    cut.limit = std::to_string(record.get_uint());
    record.finish();
    if (flags.size() != 1 + refs[i].size() || flags.find_first_not_of("01") != std::string::npos)
      fail("a BERTScore record holds '{}', not the truncation of {} texts", flags, 1 + refs[i].size());
    scores.push_back(score);
    for (std::size_t k = 0; k < flags.size(); ++k)
      if (flags[k] == '1') cut.texts.insert(k == 0 ? std::string_view(hyps[i]) : std::string_view(refs[i][k - 1]));
  }
  return scores;
}

void write_output(const BertScoreArguments& args, const std::vector<metrics::BertScore>& scores,
                  const std::string& hash, std::int64_t layer) {
  const auto corpus = metrics::mean_score(scores);
  AtomicOutput out(args.model.output);
  if (args.sentence) {
    write_sentences(scores, args, out);
    fmt::print(stderr, "{}\n", summary_line(hash, corpus, args.width));
  } else if (args.json) {
    out.write_line(summary_json(hash, corpus, args, layer, scores.size()).dump(1));
  } else {
    out.write_line(summary_line(hash, corpus, args.width));
  }
  out.commit();
}

void run(const BertScoreArguments& args) {
  if (args.json && args.csv) fail("--json and --csv are exclusive");
  if (args.csv && !args.sentence) fail("--csv writes per-line scores: add --sentence");
  std::vector<std::string> hyps;
  References refs;
  read_inputs(args, hyps, refs);
  const auto source = open_model(args.model);
  const std::int64_t layer = metrics::bertscore_layer(args.model.model, *source, args.layer);
  std::optional<metrics::BertScoreBaseline> baseline;
  if (!args.baseline.empty()) baseline = metrics::read_bertscore_baseline(args.baseline, layer);

  // Chunks of whole matching batches (every segment has as many pairs as reference files), so
  // bert_score's batch padding floors the cosines it floors in one whole run. Reference lists of
  // different lengths put batch boundaries inside segments: then the run is one chunk.
  const bool equal_lists = std::ranges::all_of(refs, [&](const auto& r) { return r.size() == refs.front().size(); });
  const std::size_t chunk = equal_lists ? chunk_rows(args.model) : hyps.size();
  RowRun run(row_run_spec(args.control, {.inputs = {"--input", "--ref", "--ref-lists", "--source", "--baseline"},
              .output = args.model.output, .rows = hyps.size(), .chunk = chunk}));
  std::size_t embedded = 0;  // texts to embed: the distinct ones of each chunk
  for (std::size_t begin = 0; begin < hyps.size(); begin += chunk)
    embedded += distinct_texts(hyps, refs, begin, std::min(hyps.size(), begin + chunk)).size();
  Progress progress("bertscore", embedded);
  std::optional<Scoring> scoring;
  if (!run.process([&](std::size_t begin, std::size_t end) {
        if (!scoring) scoring.emplace(args, *source, layer, refs, progress);
        return scoring->records(hyps, refs, begin, end);
      }))
    return;
  Truncation cut;
  auto scores = read_records(run.records(), hyps, refs, cut);
  if (!cut.texts.empty())
    warn(fmt::format("{} of {} distinct texts were longer than {} tokens and were truncated",
               cut.texts.size(), distinct_texts(hyps, refs, 0, hyps.size()).size(), cut.limit));
  warn_empty(hyps, refs);
  if (baseline)
    for (auto& s : scores) s = metrics::rescale(s, *baseline);
  // JSON writes a score that is not finite as null: each line holding one is named, as every command's JSON does.
  if (args.json)
    for (std::size_t i = 0; i < scores.size(); ++i)
      if (!std::isfinite(scores[i].precision) || !std::isfinite(scores[i].recall) || !std::isfinite(scores[i].f1))
        warn_non_finite(args.model.input, i + 1);
  const std::string hash =
      metrics::bertscore_hash(metrics::bertscore_model_name(args.model.model), layer, args.idf, baseline.has_value());
  write_output(args, scores, hash, layer);
  run.close();
}

void setup_bertscore(CLI::App& metric) {
  auto args = std::make_shared<BertScoreArguments>();
  args->model.batch_size = 64;  // bert_score's default
  auto* app = metric.add_subcommand("bertscore", "BERTScore (Zhang et al. 2020) as bert_score v0.3.13 computes it");
  add_model_options(*app, args->model);
  app->get_option("--input")->description(
      "Hypotheses (candidates): one per line, or a column of a .tsv, .csv or .jsonl file ('-' = standard input)");
  // -i/--hyp names the hypotheses in every metric; --input stays for scripts that use it.
  app->add_option("--hyp", args->model.input, "The same as -i/--input");
  add_text_input_options(*app, args->text, kOneText);
  app->get_option("--batch-size")
      ->description("Sentences per model batch, and pairs per matching batch (bert_score's batch_size: padding in "
                    "a batch can floor negative cosines at 0)");
  auto* refs = app->add_option("-r,--ref", args->refs,
                               "References, row-aligned with the hypotheses, read as they are (--input-format, "
                               "--column) (repeat for several references: P, R and F are each the maximum over them)");
  app->add_option("--source", args->source,
                  "Sources, row-aligned, read as the references are: compare the outputs with their inputs (the "
                  "self- variant of style transfer) instead of references, as the other metrics' --source")
      ->excludes(refs);
  app->add_option("--ref-lists", args->ref_lists,
                  "Instead of -r: JSON Lines, one array of reference strings per hypothesis, of any length "
                  "(bert_score's list of lists: P, R and F each the maximum over the line's references; --idf from "
                  "every reference of every list). Lists of different lengths make the run one chunk");
  app->add_option("--layer", args->layer,
                  "Hidden states after this many layers (0 = embeddings); default: bert_score's layer for the "
                  "model's name (e.g. roberta-large 17), required for other models");
  app->add_flag("--idf", args->idf, "Weight tokens by idf computed from the references");
  app->add_option("--baseline", args->baseline,
                  "Rescale with the LAYER,P,R,F baseline file of bert_score (its row for the layer): "
                  "(x - b) / (1 - b)");
  add_max_input_tokens_option(*app, args->max_length,
                              "Truncate texts to this many tokens, special tokens included (0 = the tokenizer's "
                              "model_max_length, capped by the model's positions)");
  app->add_flag("--sentence,--sentence-level", args->sentence,
                "Per-line P, R, F aligned with the hypotheses (the summary line goes to standard error)");
  app->add_flag("--json", args->json, "JSON summary, or JSON Lines {P, R, F} with --sentence (NaN as null)");
  app->add_option("-w,--width", args->width,
                  "Decimals of the text output's scores (bert_score prints 6; JSON and CSV are exact)")
      ->check(CLI::Range(0, 17))
      ->capture_default_str();
  add_output_form_option(*app, "--csv", args->csv, args->model.output, "With --sentence: CSV with a P,R,F header");
  app->add_option("--empty", args->empty,
                  "An empty hypothesis: error (naming its line) or reference (P = R = F = 0 with a warning, as "
                  "bert_score does)")
      ->check(CLI::IsMember({"error", "reference"}))
      ->capture_default_str();
  app->add_flag("--empty-as-zero", args->empty_as_zero, "The same as --empty reference (the older spelling)");
  add_run_control_options(*app, args->control);
  app->footer(
      "Output: bert_score's summary line, HASH P: .. R: .. F1: .. (corpus means), where HASH is bert_score's "
      "get_hash with the model's folder name, e.g. roberta-large_L17_no-idf_version=0.3.12(hug_trans=4.19.0.dev0); "
      "its version fields name the bert_score and transformers releases whose behaviour invar reproduces. "
      "Texts are stripped; [CLS]/[SEP] take part in the matching with weight 0. An empty hypothesis is an error "
      "unless --empty reference; an empty reference scores 0 against its hypothesis (with a warning), as in "
      "bert_score.");
  app->callback([args] {
    // Exactly one way of giving what the hypotheses are compared with: none or two is a usage error (exit 2).
    const int given = !args->refs.empty() + !args->ref_lists.empty() + !args->source.empty();
    if (given != 1)
      throw CLI::ValidationError("-r/--ref, --ref-lists, --source",
                                 "give the references with -r FILE (repeat for several) or --ref-lists FILE, or the "
                                 "sources with --source FILE: exactly one of them");
    run(*args);
  });
}

INVAR_SUBCOMMAND("metric", "bertscore", setup_bertscore);

}  // namespace
}  // namespace invar::cli
