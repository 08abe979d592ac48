// `invar st-eval`: Briakou et al.'s (2021) style-transfer evaluation in one run
// (eval/style_transfer/): every metric on every system output, and with human judgements the
// metrics' segment-level correlations, correct system pairs and cross-metric correlations per group.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "core/console.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/style_transfer/report.hpp"
#include "eval/style_transfer/rows.hpp"
#include "core/version.hpp"
#include "tools/command.hpp"
#include "tools/model_command.hpp"
#include "tools/output_form.hpp"
#include "tools/run_control.hpp"

namespace invar::cli {
namespace {

struct StEvalArguments {
  std::vector<std::string> tables;  // [GROUP=]FILE in the paper's layout
  std::string inputs;
  std::vector<std::string> systems, judgements, refs;  // NAME=FILE, NAME=FILE, FILE
  std::string group;
  style_transfer::ModelSettings models;
  std::string wordnet, nltk = "3.8";
  ModelOptions compute;
  bool empty_as_zero = false;
  std::string system_scores = "corpus";
  bool json = false, csv = false, latex = false;
  std::string output = "-", report;
  RunControl control;  // of the per-segment scores (eval/style_transfer/rows.hpp)
};

// "NAME=FILE" → {NAME, FILE}; without "NAME=", the file's stem names it unless a name is required.
std::pair<std::string, std::string> named_file(const std::string& argument, const char* option, bool name_required) {
  const auto eq = argument.find('=');
  if (eq == std::string::npos || eq == 0) {
    if (name_required) fail("{} expects NAME=FILE, got '{}'", option, argument);
    return {std::filesystem::path(argument).stem().string(), argument};
  }
  return {argument.substr(0, eq), argument.substr(eq + 1)};
}

std::vector<style_transfer::Segment> read_segments(const StEvalArguments& args) {
  const bool files = !args.inputs.empty() || !args.systems.empty();
  if (files == !args.tables.empty())
    fail("give --table FILE (the meta-evaluation layout) or --inputs FILE with --system NAME=FILE (not both)");
  std::vector<style_transfer::Segment> segments;
  for (const auto& table : args.tables) {
    const auto [group, path] = named_file(table, "--table", false);
    auto rows = style_transfer::read_judgement_table(path, args.tables.size() == 1 && !args.group.empty() ? args.group : group);
    segments.insert(segments.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
  }
  if (!files) return segments;
  if (args.inputs.empty() || args.systems.empty()) fail("--inputs FILE needs at least one --system NAME=FILE");
  std::vector<style_transfer::SystemFiles> systems;
  for (const auto& s : args.systems) {
    const auto [name, path] = named_file(s, "--system", true);
    if (std::ranges::any_of(systems, [&](const auto& known) { return known.name == name; }))
      fail("--system {}: the name '{}' is given twice", s, name);
    systems.push_back({name, path, ""});
  }
  for (const auto& j : args.judgements) {
    const auto [name, path] = named_file(j, "--judgements", true);
    auto it = std::ranges::find_if(systems, [&](const auto& s) { return s.name == name; });
    if (it == systems.end()) fail("--judgements {}: no --system is named '{}'", j, name);
    it->judgements = path;
  }
  return style_transfer::read_aligned_files(args.inputs, systems, args.refs, args.group);
}

std::vector<std::pair<std::string, std::string>> settings_of(const StEvalArguments& args,
                                                             const style_transfer::Models& models) {
  const auto& m = models.settings();
  auto or_none = [](const std::string& s) { return s.empty() ? std::string("none") : s; };
  return {
      {"invar", kVersion},
      {"formality model", or_none(m.formality)}, {"STS model", or_none(m.sts)}, {"masked LM", or_none(m.mlm)},
      {"formality classifier", or_none(m.formality_classifier)},
      {"BLEU/chrF system scores", args.system_scores == "corpus" ? "corpus (sacrebleu's corpus_bleu/corpus_chrf)"
                                                                 : "mean of the sentence scores"},
      {"BERTScore model", m.bertscore.empty() ? "none" : models.bertscore_hash()},
      {"word vectors", or_none(m.vectors)},
      {"METEOR", models.meteor() ? models.meteor()->signature() : "none"},
      {"empty outputs", args.empty_as_zero ? "scored as bert_score and NLTK do (0; WMD undefined)" : "an error"}};
}

void run(StEvalArguments args) {
  if (args.json + args.csv + args.latex > 1) fail("--json, --csv and --latex are exclusive");
  if (args.system_scores != "corpus" && args.system_scores != "mean")
    fail("--system-scores must be corpus or mean, got '{}'", args.system_scores);
  if (args.nltk == "3.6.2")
    args.models.meteor_version = metrics::MeteorVersion::Nltk362;
  else if (args.nltk != "3.8")
    fail("--nltk must be 3.8 or 3.6.2, got '{}'", args.nltk);
  if (!args.wordnet.empty()) args.models.wordnet = args.wordnet;
  args.models.batch_size = args.compute.batch_size;
  args.models.threads = args.compute.threads;

  style_transfer::Evaluation e;
  e.segments = read_segments(args);
  if (!args.empty_as_zero) style_transfer::check_outputs(e.segments);
  if (!args.control.shard.empty() && args.output == "-") fail("--shard writes a partial result: give --output FILE");
  const auto backend = open_backend(args.compute);
  style_transfer::Models models(args.models, *backend);
  const auto row_run = style_transfer::run_segment_rows(
      row_run_spec(args.control, {.inputs = {"--inputs", "--ref", "--bertscore-baseline"}, .output = args.output}),
      e.segments, models, e.scores);
  if (!row_run) return;
  e.study = style_transfer::meta_evaluate(
      e.segments, e.scores,
      {.system_scores = args.system_scores == "corpus" ? style_transfer::SystemScores::Corpus
                                                       : style_transfer::SystemScores::Mean});
  e.human_texts = style_transfer::check_on_human_texts(e.segments, models);
  e.settings = settings_of(args, models);

  if (args.csv || args.latex)  // the text and JSON outputs say it themselves
    for (const auto& n : e.scores.not_computed)
      print_line(fmt::format("invar: note: not computed: {} ({})", n.metrics, n.reason));
  if (!args.report.empty()) style_transfer::write_html_report(args.report, e, provenance());
  AtomicOutput out(args.output);
  if (args.json)
    out.write_line(style_transfer::evaluation_json(e, provenance()).dump(1));
  else
    out.stream() << (args.csv ? style_transfer::segments_csv(e, provenance())
                              : args.latex ? style_transfer::evaluation_latex(e, provenance()) : style_transfer::evaluation_text(e));
  out.commit();
  row_run->close();
}

void add_model_settings(CLI::App* app, StEvalArguments& args) {
  auto& m = args.models;
  app->add_option("--formality", m.formality, "Formality regressor (sequence classification, num_labels = 1): "
                                              "scores each output as `invar classify` does");
  app->add_option("--sts", m.sts, "STS regressor (num_labels = 1): scores the pair (input, output) as `invar "
                                  "classify --pairs` does");
  app->add_option("--formality-classifier", m.formality_classifier,
                  "Binary formality classifier (sequence classification): formality-clf = 1 for an output it classes "
                  "formal; its F1 on the human texts (inputs informal, references formal: the paper's Table 4) and "
                  "its formal/informal counts per human formality bin (Figure 1)");
  app->add_option("--formal-label", m.formal_label,
                  "The classifier's label that means formal (default: the label named 'formal', in any case)");
  app->add_option("--mlm", m.mlm, "Masked LM: PLL and pseudo-perplexity (PPPL) of each output, as `invar pll --ppl`");
  app->add_option("--bertscore-model", m.bertscore, "BERTScore model: self- and ref-BERTScore F1 as `invar metric "
                                                    "bertscore` gives them");
  app->add_option("--bertscore-layer", m.bertscore_layer,
                  "BERTScore layer (default: bert_score's layer for the model's name)");
  app->add_flag("--bertscore-idf", m.bertscore_idf, "BERTScore idf weights (from the compared texts of each system)");
  app->add_option("--bertscore-baseline", m.bertscore_baseline, "Rescale BERTScore with this LAYER,P,R,F file");
  app->add_option("--bertscore-batch-size", m.bertscore_batch_size, "bert_score's batch_size")->capture_default_str();
  app->add_option("--vectors", m.vectors, "fastText word vectors (.vec or .bin): WMD and mean word-vector cosine");
  app->add_flag("--unit-vectors", m.unit_vectors, "WMD on unit-length vectors (gensim >= 4's default)");
  app->add_option("--wordnet", args.wordnet,
                  "WordNet 3.0 folder for METEOR (default: /usr/share/wordnet if it holds WordNet, else no METEOR)");
  app->add_option("--nltk", args.nltk, "METEOR as NLTK 3.8 or 3.6.2 computes it")->capture_default_str();
}

void setup(CLI::App& root) {
  auto args = std::make_shared<StEvalArguments>();
  auto* app = root.add_subcommand(
      "st-eval",
      "Style-transfer evaluation (Briakou et al. 2021): every metric on every system output (self- and ref- BLEU, "
      "chrF, METEOR, BERTScore, WMD, word-vector cosine; formality and STS regressors; PLL) and, with human "
      "judgements, each metric's correlation with the matching human dimension per group, the system pairs it "
      "orders correctly and the cross-metric correlations");
  app->add_option("--table", args->tables,
                  "[GROUP=]FILE: the paper's meta-evaluation layout (TSV or CSV with a header: system_name, "
                  "informal_input, system_output, and any of meaning_human, formality_human, fluency_human, "
                  "combined, reference…); repeat for several groups (default group name: the file's stem)");
  app->add_option("--inputs", args->inputs, "Informal inputs, one per line");
  app->add_option("--system", args->systems, "NAME=FILE: a system's outputs, line-aligned with --inputs (repeat)");
  app->add_option("-r,--ref", args->refs, "References, line-aligned with --inputs (repeat for several)");
  app->add_option("--judgements", args->judgements,
                  "NAME=FILE: human judgements of a system's outputs (TSV/CSV with a header naming any of "
                  "meaning_human, formality_human, fluency_human, combined; None = not judged), row-aligned");
  app->add_option("--group", args->group, "Group (language) name of the --inputs data, or of a single --table");
  add_model_settings(app, *args);
  add_compute_options(*app, args->compute);
  app->add_option_function<std::string>(
         "--empty", [args](const std::string& empty) { args->empty_as_zero = empty == "reference"; },
         "An empty output: error (naming its line) or reference (scored as bert_score and NLTK do: BERTScore and "
         "METEOR 0, WMD undefined), as the metrics' --empty")
      ->check(CLI::IsMember({"error", "reference"}));
  app->add_flag("--empty-as-zero", args->empty_as_zero, "The same as --empty reference (the older spelling)");
  app->add_option("--system-scores", args->system_scores,
                  "BLEU and chrF system scores (system means, Table 8's pairs): corpus (sacrebleu's corpus score over "
                  "the system's segments, as the paper) or mean (of the sentence scores)")
      ->capture_default_str();
  app->add_flag("--json", args->json, "One JSON document: settings, metrics, systems, meta-evaluation, segments");
  add_output_form_option(*app, "--csv", args->csv, args->output,
                         "Per-segment CSV: group, system, where, every metric, the human judgements");
  add_output_form_option(*app, "--latex", args->latex, args->output,
                         "LaTeX tables: system means and correlations per group");
  app->add_option("-o,--output", args->output, "Write here instead of standard output (complete or not at all)");
  app->add_option("--report", args->report,
                  "Also write an HTML report: the tables, the cross-metric heat maps, Table 8's pairs, Figure 2's "
                  "ranks and the formality classifier's report");
  add_run_control_options(*app, args->control);
  app->footer(
      "Human dimensions and the metrics meta-evaluated against them: meaning ~ self-/ref- BLEU, chrF, METEOR, "
      "BERTScore, WMD, WVCOS, STS and ref-STS; formality ~ formality and formality-clf; fluency ~ PLL and PPPL; "
      "combined ~ none (Table 8's OVERALL pairs are counted against it). A metric whose "
      "model is not given is not computed, and the output says so. System means are the means of the defined "
      "segment scores, except BLEU and chrF with --system-scores corpus (the default): their corpus scores.");
  app->callback([args] { run(*args); });
}

INVAR_COMMAND("st-eval", setup);

}  // namespace
}  // namespace invar::cli
