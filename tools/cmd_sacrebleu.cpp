// `invar sacrebleu`: sacrebleu 2.4.3's command line and output, so that `alias sacrebleu='invar
// sacrebleu'` works: references positional, hypotheses from -i FILE… or standard input (systems
// tab-separated), -m bleu chrf ter, JSON by default, text with -f text, sentence scores with -sl,
// several systems in sacrebleu's table. The metrics come from the registry
// (eval/metrics/corpus/registry.hpp), built with sacrebleu's argument names.
//
// sacrebleu's argparse takes single-dash long options (-tok, -lc, -nr, …), `-opt=value` and unique
// prefixes of long options (--tok); CLI11 takes none of them, so the arguments are rewritten to
// CLI11's spelling first (sacrebleu_arguments). Test sets (-t, --list, --echo, …) need downloads:
// they fail with a message saying so. --confidence, --paired-bs and --paired-ar draw what sacrebleu
// draws (eval/stats/numpy_random.hpp: numpy's default_rng(SACREBLEU_SEED)) and score resamples with
// its numpy 2 float32 arithmetic (CorpusMetric::resampled_score), so their digits are sacrebleu's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/utf8.hpp"
#include "eval/metrics/corpus/registry.hpp"
#include "eval/metrics/tokenizers/registry.hpp"
#include "eval/metrics/tokenizers/mt_tokenize.hpp"
#include "eval/stats/resampling.hpp"
#include "tools/command.hpp"
#include "tools/metric_inputs.hpp"

namespace invar::cli {
namespace {

struct SacrebleuOptions {
  std::vector<std::string> refs;
  std::vector<std::string> input;
  int num_refs = 1;
  std::string encoding = "utf-8";
  std::vector<std::string> metrics{"bleu"};
  bool sentence_level = false;
  std::string smooth_method = "exp";
  std::optional<double> smooth_value;
  std::string tokenize;
  bool lowercase = false;
  bool force = false;
  int chrf_char_order = 6;
  int chrf_word_order = 0;
  int chrf_beta = 2;
  bool chrf_whitespace = false, chrf_lowercase = false, chrf_eps_smoothing = false;
  bool ter_case_sensitive = false, ter_asian_support = false, ter_no_punct = false, ter_normalized = false;
  bool confidence = false, paired_ar = false, paired_bs = false;
  int confidence_n = 1000, paired_ar_n = 10000, paired_bs_n = 1000, paired_jobs = 1;
  bool quiet = false, short_signature = false, score_only = false, detail = false, no_color = false;
  int width = 1;
  std::string format = "json";
  std::string test_set, language_pair, origlang, subset, download;
  std::vector<std::string> echo;
  bool citation = false, list = false;
};

void add_options(CLI::App& app, SacrebleuOptions& o) {
  app.set_help_flag("-h,--help", "Show this help message and exit");
  app.set_version_flag("-V,--version", fmt::format("sacrebleu {}", metrics::kSacrebleuVersion));
  app.add_flag("--citation,--cite", o.citation, "Dump the bibtex citation and quit (needs a test set: not offline)");
  app.add_flag("--list", o.list, "Print a list of all available test sets (not offline)");
  app.add_option("-t,--test-set", o.test_set, "The test set to use (needs a download: not offline)");
  app.add_option("-l,--language-pair", o.language_pair,
                 "Source-target language pair (2-char ISO639-1 codes); BLEU's tokenizer follows the target");
  app.add_option("--origlang", o.origlang, "Subset by original language (test sets only: not offline)");
  app.add_option("--subset", o.subset, "Subset by document annotation (test sets only: not offline)");
  app.add_option("--download", o.download, "Download a test set and quit (not offline)");
  app.add_option("--echo", o.echo, "Output a field of a test set and quit (not offline)");
  app.add_option("-i,--input", o.input, "Read input from file(s) instead of STDIN");
  app.add_option("refs", o.refs, "References (before -i/--input)");
  app.add_option("--num-refs", o.num_refs, "Split the reference stream on tabs, and expect this many references")
      ->capture_default_str();
  app.add_option("-e,--encoding", o.encoding, "Encoding of text files (only utf-8)")->capture_default_str();
  app.add_option("-m,--metrics", o.metrics, "Space-delimited list of metrics to compute (Default: bleu)")
      ->check(CLI::IsMember({"bleu", "chrf", "ter"}));
  app.add_flag("--sentence-level", o.sentence_level, "Compute metric for each sentence");
  app.add_option("-s,--smooth-method", o.smooth_method, "BLEU smoothing: exp, floor, add-k, none")
      ->check(CLI::IsMember({"none", "floor", "add-k", "exp"}))
      ->capture_default_str();
  app.add_option("--smooth-value", o.smooth_value, "The smoothing value (floor: 0.1, add-k: 1)");
  // sacrebleu's spm, flores101 and flores200 download their SentencePiece models: accepted here,
  // refused by check_offline with the reason.
  auto tokenizers = metrics::tokenizer_names();
  tokenizers.insert(tokenizers.end(), {"spm", "flores101", "flores200"});
  app.add_option("--tokenize", o.tokenize, "BLEU's tokenizer (default: as the target language asks, else 13a)")
      ->check(CLI::IsMember(tokenizers));
  app.add_flag("--lowercase", o.lowercase, "BLEU case-insensitive");
  app.add_flag("--force", o.force, "Insist that your tokenized input is actually detokenized");
  app.add_option("--chrf-char-order", o.chrf_char_order, "chrF character n-gram order")->capture_default_str();
  app.add_option("--chrf-word-order", o.chrf_word_order, "chrF word n-gram order (2: chrF++)")->capture_default_str();
  app.add_option("--chrf-beta", o.chrf_beta, "chrF: importance of recall w.r.t. precision")->capture_default_str();
  app.add_flag("--chrf-whitespace", o.chrf_whitespace, "chrF: include whitespace in character n-grams");
  app.add_flag("--chrf-lowercase", o.chrf_lowercase, "chrF case-insensitive");
  app.add_flag("--chrf-eps-smoothing", o.chrf_eps_smoothing, "chrF: epsilon smoothing (chrF++.py, NLTK, Moses)");
  app.add_flag("--ter-case-sensitive", o.ter_case_sensitive, "TER: case-sensitive");
  app.add_flag("--ter-asian-support", o.ter_asian_support, "TER: special treatment of Asian characters");
  app.add_flag("--ter-no-punct", o.ter_no_punct, "TER: remove punctuation");
  app.add_flag("--ter-normalized", o.ter_normalized, "TER: basic normalization and tokenization");
  app.add_flag("--confidence", o.confidence, "Report a confidence interval using bootstrap resampling");
  app.add_option("--confidence-n", o.confidence_n, "Bootstrap resamples")->capture_default_str();
  app.add_flag("--paired-ar", o.paired_ar, "Paired test of each system against the first: approximate randomization")
      ->excludes(app.add_flag("--paired-bs", o.paired_bs,
                              "Paired test of each system against the first: bootstrap resampling"));
  app.add_option("--paired-ar-n", o.paired_ar_n, "Approximate randomization trials")->capture_default_str();
  app.add_option("--paired-bs-n", o.paired_bs_n, "Paired bootstrap resamples")->capture_default_str();
  app.add_option("-j,--paired-jobs", o.paired_jobs, "Workers of the paired tests")->capture_default_str();
  app.add_flag("-q,--quiet", o.quiet, "Suppress verbose messages");
  app.add_flag("--short", o.short_signature, "Produce a shorter (less human readable) signature");
  app.add_flag("-b,--score-only", o.score_only, "Print only the computed score");
  app.add_option("-w,--width", o.width, "Floating point width")->capture_default_str();
  app.add_flag("-d,--detail", o.detail, "Print detailed information (test sets only: not offline)");
  app.add_flag("--no-color", o.no_color, "Disable terminal colors (invar prints none)");
  app.add_option("-f,--format", o.format, "Output format: json, text (latex: multi-system)")
      ->check(CLI::IsMember({"json", "text", "latex"}))
      ->capture_default_str();
  app.footer(
      "sacrebleu 2.4.3's command line: single-dash long options (-tok, -lc, -nr, -sl, -sv, -cc, -cw, -ci, "
      "-cin, -par, -pbs, -parn, -pbsn, -sh, -nc, -ol), -opt=value and unique prefixes of long options are "
      "accepted as sacrebleu's argparse accepts them. SACREBLEU_FORMAT overrides -f; SACREBLEU_SEED (default "
      "12345) seeds the resampling.");
}

// sacrebleu's argparse spellings in CLI11's: single-dash long options (-tok) and their `-tok=intl`
// form become --tokenize, `-f=text` becomes -f text, and a unique prefix of a long option (--tok)
// becomes the option, as argparse's allow_abbrev does. Everything after "--" stays as it is.
std::vector<std::string> sacrebleu_arguments(const std::vector<std::string>& args, const CLI::App& parser) {
  static const std::map<std::string, std::string, std::less<>> kSingleDash{
      {"-tok", "--tokenize"},      {"-lc", "--lowercase"},        {"-nr", "--num-refs"},     {"-sl", "--sentence-level"},
      {"-sv", "--smooth-value"},   {"-cc", "--chrf-char-order"},  {"-cw", "--chrf-word-order"}, {"-ci", "--confidence"},
      {"-cin", "--confidence-n"},  {"-par", "--paired-ar"},       {"-pbs", "--paired-bs"},   {"-parn", "--paired-ar-n"},
      {"-pbsn", "--paired-bs-n"},  {"-sh", "--short"},            {"-nc", "--no-color"},     {"-ol", "--origlang"}};
  std::vector<std::string> long_names;
  for (const auto* option : parser.get_options())
    for (const auto& name : option->get_lnames()) long_names.push_back("--" + name);
  std::vector<std::string> out;
  bool options_end = false;
  for (const auto& arg : args) {
    if (options_end || arg.size() < 2 || arg[0] != '-') {
      out.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_end = true;
      out.push_back(arg);
      continue;
    }
    const auto equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : arg.substr(equals);
    if (const auto found = kSingleDash.find(name); found != kSingleDash.end()) {
      out.push_back(found->second + value);
      continue;
    }
    // argparse reads -f=text as -f text; CLI11 would take "=text" as the value.
    if (name.size() == 2 && !value.empty()) {
      out.push_back(name);
      out.push_back(value.substr(1));
      continue;
    }
    if (name.starts_with("--") && std::find(long_names.begin(), long_names.end(), name) == long_names.end()) {
      std::vector<std::string> matches;
      for (const auto& candidate : long_names)
        if (candidate.starts_with(name)) matches.push_back(candidate);
      if (matches.size() > 1)
        throw CLI::ArgumentMismatch(fmt::format("ambiguous option: {} could match {}", name, fmt::join(matches, ", ")));
      if (matches.size() == 1) {
        out.push_back(matches.front() + value);
        continue;
      }
    }
    out.push_back(arg);
  }
  return out;
}

void check_offline(const SacrebleuOptions& o) {
  const auto offline = [](const char* what) {
    fail("{} needs sacrebleu's test sets, which are downloaded; invar runs offline: give the reference files "
         "as arguments (invar sacrebleu REF... -i HYP)",
         what);
  };
  if (!o.test_set.empty()) offline("-t/--test-set");
  if (o.list) offline("--list");
  if (!o.download.empty()) offline("--download");
  if (!o.echo.empty()) offline("--echo");
  if (o.citation) offline("--citation");
  if (!o.origlang.empty()) offline("--origlang");
  if (!o.subset.empty()) offline("--subset");
  if (o.detail) offline("--detail");
  if (o.tokenize == "spm" || o.tokenize == "flores101" || o.tokenize == "flores200")
    fail("-tok {} needs the SentencePiece model sacrebleu downloads; invar runs offline (its tokenizers: {})",
         o.tokenize, metrics::tokenizer_choices());
  const auto encoding = python_lower(o.encoding);
  if (encoding != "utf-8" && encoding != "utf8") fail("--encoding: invar reads UTF-8 only, got '{}'", o.encoding);
}

// Python's text.split(separator): every piece, empty ones included.
std::vector<std::string> split_at(std::string_view text, char separator) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  for (auto end = text.find(separator); end != std::string_view::npos; end = text.find(separator, start)) {
    pieces.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  pieces.emplace_back(text.substr(start));
  return pieces;
}

// sacrebleu's stdin mode: each line holds one segment of every system, tab-separated; the first
// line decides how many systems there are.
std::vector<std::vector<std::string>> read_stdin_systems() {
  const auto lines = read_lines("-");
  std::vector<std::vector<std::string>> systems;
  for (std::size_t i = 0; i < std::max<std::size_t>(lines.size(), 1); ++i) {
    const std::string_view line = i < lines.size() ? metrics::rstrip_whitespace(lines[i]) : std::string_view();
    const auto fields = split_at(line, '\t');
    if (i == 0) systems.resize(fields.size());
    if (fields.size() != systems.size())
      fail("<stdin>:{}: {} tab-separated systems, the first line has {}: the number of tab-delimited fields in the "
           "input stream differ across lines",
           i + 1, fields.size(), systems.size());
    // As sacrebleu: every field but the first line's is rstrip()ped on its own.
    for (std::size_t s = 0; s < fields.size(); ++s)
      systems[s].push_back(i == 0 ? fields[s] : std::string(metrics::rstrip_whitespace(fields[s])));
  }
  return systems;
}

// sacrebleu's BLEU/chrF/TER arguments as the registry's settings.
metrics::MetricSettings settings_of(const std::string& metric, const SacrebleuOptions& o) {
  const auto flag = [](bool on) { return on ? "true" : "false"; };
  if (metric == "bleu") {
    metrics::MetricSettings s{{"smooth", o.smooth_method}, {"lowercase", flag(o.lowercase)}};
    if (!o.tokenize.empty()) s["tokenize"] = o.tokenize;
    // sacrebleu ignores a smoothing value the method does not use.
    if (o.smooth_value && (o.smooth_method == "floor" || o.smooth_method == "add-k"))
      s["smooth-value"] = fmt::format("{}", *o.smooth_value);
    return s;
  }
  if (metric == "chrf")
    return {{"char-order", std::to_string(o.chrf_char_order)}, {"word-order", std::to_string(o.chrf_word_order)},
            {"beta", std::to_string(o.chrf_beta)},          {"whitespace", flag(o.chrf_whitespace)},
            {"lowercase", flag(o.chrf_lowercase)},          {"eps-smoothing", flag(o.chrf_eps_smoothing)}};
  return {{"normalized", flag(o.ter_normalized)},
          {"no-punct", flag(o.ter_no_punct)},
          {"asian-support", flag(o.ter_asian_support)},
          {"case-sensitive", flag(o.ter_case_sensitive)}};
}

// sacrebleu's `args.langpair.split('-')[1]`.
std::string target_of(const std::string& pair) {
  const auto dash = pair.find('-');
  if (pair.empty()) return "";
  if (dash == std::string::npos) fail("-l/--language-pair must be SRC-TRG (e.g. en-de), got '{}'", pair);
  const auto rest = pair.substr(dash + 1);
  return rest.substr(0, rest.find('-'));
}

// Code points of `text` (sacrebleu pads and slices Python strings).
std::size_t code_points(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// sacrebleu's print_single_results: JSON objects in a list, or text lines aligned at their '='.
void print_single(const std::vector<std::string>& results, const SacrebleuOptions& o, std::string& out) {
  if (o.format == "json") {
    if (results.size() == 1) {
      out += results.front() + "\n";
      return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < results.size(); ++i) out += results[i] + (i + 1 < results.size() ? ",\n" : "\n");
    out += "]\n";
    return;
  }
  if (results.size() == 1) {
    out += results.front() + "\n";
    return;
  }
  std::vector<std::pair<std::size_t, const std::string*>> aligned;
  for (const auto& line : results) {
    const auto equals = line.find('=');
    if (equals == std::string::npos) {
      out += line + "\n";
      continue;
    }
    // line.index('=') - 1: the part before the space before '='.
    aligned.emplace_back(code_points(std::string_view(line).substr(0, equals)) - 1, &line);
  }
  std::size_t widest = 0;
  for (const auto& [length, line] : aligned) widest = std::max(widest, length);
  for (const auto& [length, line] : aligned) out += std::string(widest - length, ' ') + *line + "\n";
}

// tabulate's fancy_grid (text) and latex_booktabs (latex) as sacrebleu calls them: the first column
// right-aligned, the others centred (Python's "{:^w}": the odd space goes right), every cell padded
// by one space; fancy_grid draws a rule between rows, and a cell with line breaks (the p-values of
// the paired tests) spans several lines, each aligned on its own, the shorter cells padded with
// empty lines.
std::string table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows,
                  bool latex) {
  const auto lines_of_cell = [](const std::string& cell) { return split_at(cell, '\n'); };
  std::vector<std::size_t> widths;
  for (std::size_t c = 0; c < headers.size(); ++c) {
    std::size_t w = code_points(headers[c]) + 2;  // tabulate's MIN_PADDING
    for (const auto& row : rows)
      for (const auto& line : lines_of_cell(row[c])) w = std::max(w, code_points(line));
    widths.push_back(w);
  }
  const auto align = [&](const std::string& cell, std::size_t c) {
    const std::size_t gap = widths[c] - code_points(cell);
    if (c == 0) return std::string(gap, ' ') + cell;
    // Python's "{:^w}": the left gets the smaller half.
    return std::string(gap / 2, ' ') + cell + std::string(gap - gap / 2, ' ');
  };
  const auto rule = [&](const char* left, const char* fill, const char* cross, const char* right) {
    std::string line = left;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      if (c > 0) line += cross;
      for (std::size_t k = 0; k < widths[c] + 2; ++k) line += fill;
    }
    return line + right + "\n";
  };
  const auto row_line = [&](const std::vector<std::string>& cells) {
    std::vector<std::vector<std::string>> split;
    std::size_t height = 1;
    for (const auto& cell : cells) {
      split.push_back(lines_of_cell(cell));
      height = std::max(height, split.back().size());
    }
    std::string out;
    for (std::size_t k = 0; k < height; ++k) {
      out += "│";
      for (std::size_t c = 0; c < cells.size(); ++c) {
        out += ' ';
        out += align(k < split[c].size() ? split[c][k] : std::string(), c);
        out += " │";
      }
      out += '\n';
    }
    return out;
  };
  if (latex) {
    // tabulate's LaTeX escapes, applied after the cells are aligned.
    const auto escaped = [](const std::string& cell) {
      static const std::map<char, std::string> kRules{
          {'&', "\\&"}, {'%', "\\%"}, {'$', "\\$"}, {'#', "\\#"}, {'_', "\\_"}, {'^', "\\^{}"}, {'{', "\\{"},
          {'}', "\\}"}, {'~', "\\textasciitilde{}"}, {'\\', "\\textbackslash{}"}, {'<', "\\ensuremath{<}"},
          {'>', "\\ensuremath{>}"}};
      std::string out;
      for (char ch : cell) {
        const auto found = kRules.find(ch);
        out += found == kRules.end() ? std::string(1, ch) : found->second;
      }
      return out;
    };
    const auto latex_row = [&](const std::vector<std::string>& cells) {
      std::string line;
      for (std::size_t c = 0; c < cells.size(); ++c) line += (c > 0 ? "&" : "") + (" " + escaped(align(cells[c], c)) + " ");
      return line + "\\\\\n";
    };
    std::string out = "\\begin{tabular}{r" + std::string(headers.size() - 1, 'c') + "}\n\\toprule\n" + latex_row(headers) +
                      "\\midrule\n";
    for (const auto& row : rows) out += latex_row(row);
    return out + "\\bottomrule\n\\end{tabular}\n";
  }
  std::string out = rule("╒", "═", "╤", "╕") + row_line(headers) + rule("╞", "═", "╪", "╡");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r > 0) out += rule("├", "─", "┼", "┤");
    out += row_line(rows[r]);
  }
  return out + rule("╘", "═", "╧", "╛");
}

// SACREBLEU_SEED as sacrebleu reads it (default 12345). "none" (draws from the OS's entropy) and
// 0 (which sacrebleu's paired tests also take as "no seed") would not be reproducible: refused.
std::uint64_t sacrebleu_seed() {
  const char* text = std::getenv("SACREBLEU_SEED");
  if (text == nullptr) return 12345;
  const std::string value = text;
  std::size_t used = 0;
  unsigned long long seed = 0;
  try {
    seed = std::stoull(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || value[0] == '-' || value[0] == '+' || value[0] == ' ')
    fail("SACREBLEU_SEED must be a non-negative integer, got '{}' (invar does not draw from the OS's entropy, as "
         "sacrebleu does for 'none')",
         value);
  if (seed == 0)
    fail("SACREBLEU_SEED=0: sacrebleu's paired tests take 0 as 'no seed' and draw from the OS's entropy; give "
         "another seed");
  return seed;
}

// The resampling options that make stats:: resample and score as sacrebleu does for `metric`.
stats::BootstrapOptions bootstrap_options(const metrics::CorpusMetric& metric, int samples, std::uint64_t seed) {
  return {.samples = samples,
          .seed = seed,
          .resampled_score = [&metric](const std::vector<double>& sum) { return metric.resampled_score(sum); },
          .float32_scores = metric.float32_resampled()};
}

// sacrebleu's significance.Result: a paired test's numbers for one system and metric.
struct PairedResult {
  double score = 0;
  std::optional<double> p_value, mean, ci;
};

// sacrebleu's PairedTest: the first system is the baseline; --paired-bs gives every system a
// bootstrap mean and 95% half-width and each other system a p-value, --paired-ar only p-values.
// Every test seeds its own generator, so all use the same draws.
std::vector<std::vector<PairedResult>> paired_results(const SacrebleuOptions& o,
                                                      const std::vector<const metrics::CorpusMetric*>& metrics,
                                                      const std::vector<std::vector<std::string>>& systems,
                                                      const std::vector<std::vector<std::string>>& refs,
                                                      int samples, std::uint64_t seed) {
  std::vector<std::vector<PairedResult>> results(metrics.size());
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const auto& metric = *metrics[m];
    const auto score = [&metric](const std::vector<double>& sum) { return metric.score_row(sum); };
    const auto options = bootstrap_options(metric, samples, seed);
    const auto baseline = metrics::segment_rows(metric, systems.front(), refs);
    PairedResult first{.score = metric.score_row(metrics::sum_rows(baseline))};
    if (o.paired_bs) {
      const auto interval = stats::bootstrap_interval(stats::bootstrap_scores(baseline, score, options),
                                                      options.float32_scores);
      first.mean = interval.mean;
      first.ci = interval.half_width;
    }
    results[m].push_back(first);
    for (std::size_t s = 1; s < systems.size(); ++s) {
      const auto rows = metrics::segment_rows(metric, systems[s], refs);
      PairedResult r;
      if (o.paired_bs) {
        const auto test = stats::paired_bootstrap(baseline, rows, score, options);
        r = {.score = test.system_score, .p_value = test.pvalue, .mean = test.system.mean, .ci = test.system.half_width};
      } else {
        const auto test = stats::paired_randomization(baseline, rows, score, {.trials = samples, .seed = seed});
        r = {.score = test.system_score, .p_value = test.pvalue};
      }
      results[m].push_back(r);
    }
  }
  return results;
}

// utils._format_score_lines: "score (mean ± ci)" and the p-value, starred when p <= 0.05, on a
// line of its own in fancy_grid.
std::string paired_cell(const PairedResult& r, int width, bool multiline) {
  std::string cell = fmt::format("{:.{}f}", r.score, width);
  if (r.mean) cell += fmt::format(" ({:.{}f} ± {:.{}f})", *r.mean, width, *r.ci, width);
  if (r.p_value)
    cell += fmt::format("{}(p = {:.4f}){}", multiline ? "\n" : " ", *r.p_value, *r.p_value > 0.05 ? "" : "*");
  return cell;
}

// The explanation print_results_table adds under a paired test's table.
std::string paired_legend(const SacrebleuOptions& o, const std::string& baseline) {
  const std::string message =
      o.paired_bs ? fmt::format("Paired bootstrap resampling test with {} resampling trials", o.paired_bs_n)
                  : fmt::format("Paired approximate randomization test with {} trials", o.paired_ar_n);
  const std::string rule(message.size(), '-');
  std::string out = rule + "\n" + message + "\n" + rule + "\n";
  out += fmt::format(" - Each system is pairwise compared to {}.\n", baseline);
  out += o.paired_bs ? "   Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric.\n"
                     : "   Actual system score is provided for each metric.\n";
  out += "\n";
  out += " - Null hypothesis: the system and the baseline translations are essentially\n"
         "   generated by the same underlying process. For a given system and the baseline,\n"
         "   the p-value is roughly the probability of the absolute score difference (delta)\n"
         "   or higher occurring due to chance, under the assumption that the null hypothesis is correct.\n\n"
         " - Assuming a significance threshold of 0.05, the null hypothesis can be rejected\n"
         "   for p-values < 0.05 (marked with \"*\"). This means that the delta is unlikely to be attributed\n"
         "   to chance, hence the system is significantly \"different\" than the baseline.\n"
         "   Otherwise, the p-values are highlighted in red.\n\n"
         " - NOTE: Significance does not tell whether a system is \"better\" than the baseline but rather\n"
         "   emphasizes the \"difference\" of the systems in terms of the replicability of the delta.\n\n";
  return out;
}

void run(const SacrebleuOptions& o) {
  check_offline(o);
  if (o.sentence_level && o.metrics.size() > 1) fail("Only one metric can be used in sentence-level mode.");
  if (o.num_refs != 1 && o.refs.size() > 1)
    fail("--num-refs reads every reference of a segment from one file (tab-separated): give one reference file");
  if (o.refs.empty())
    fail("give the reference files before -i/--input (sacrebleu's test sets, -t, need a download)");
  if (o.num_refs < 1) fail("--num-refs must be >= 1, got {}", o.num_refs);
  if (o.width < 0 || o.width > 17) fail("--width must be between 0 and 17, got {}", o.width);
  const bool paired = o.paired_bs || o.paired_ar;

  std::vector<std::vector<std::string>> systems;
  std::vector<std::string> names;
  if (o.input.empty()) {
    systems = read_stdin_systems();
    for (std::size_t s = 0; s < systems.size(); ++s)
      names.push_back(paired ? (s == 0 ? std::string("Baseline") : fmt::format("System {}", s)) : fmt::format("System {}", s + 1));
  } else {
    for (const auto& file : o.input) {
      if (std::find(names.begin(), names.end(), file) != names.end()) {
        if (paired && file == names.front()) {
          fmt::print(stderr, "sacreBLEU: Ignoring '{}' as it was also given as the baseline.\n", file);
          continue;
        }
        fail("'{}' already used to name a system: give each system's file once", file);
      }
      systems.push_back(read_segments(file));
      names.push_back(file);
    }
    if (paired) names.front() = "Baseline: " + names.front();
  }
  if (o.sentence_level && systems.size() > 1) fail("Only one system can be evaluated in sentence-level mode.");
  if (o.sentence_level && (o.confidence || paired)) fail("Statistical tests are unavailable in sentence-level mode.");
  if (paired && systems.size() == 1) fail("Paired tests require multiple input systems given to --input (-i).");
  if (systems.size() > 1 && o.confidence) fail("Use paired tests (--paired) for multiple systems.");
  const std::uint64_t seed = o.confidence || paired ? sacrebleu_seed() : 0;

  MetricArguments references;
  references.refs = o.refs;
  references.num_refs = o.num_refs;
  references.hyps = {o.input.empty() ? std::string("<stdin>") : o.input.front()};
  const auto refs = read_comparisons(references, systems.front().size()).front().refs;
  for (std::size_t s = 1; s < systems.size(); ++s) check_aligned(names[s], systems[s].size(), names[0], refs.size());

  const metrics::MetricContext context{.sentence = o.sentence_level,
                                       .target_language = target_of(o.language_pair),
                                       .warn = [](const std::string& advice) { fmt::print(stderr, "sacreBLEU: {}\n", advice); }};
  // sacrebleu computes its metrics in the order of their upper-case names, but the paired tests
  // in the order of -m.
  std::vector<std::string> order;
  for (const auto& name : o.metrics)
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  if (!paired) std::sort(order.begin(), order.end());
  std::vector<std::unique_ptr<metrics::CorpusMetric>> metrics;
  for (const auto& name : order) metrics.push_back(metrics::make_corpus_metric(name, settings_of(name, o), context));
  const int nrefs = metrics::reference_count(refs);

  std::string out;
  if (o.sentence_level) {
    const auto& metric = *metrics.front();
    const auto signature = metric.signature(nrefs).format(o.short_signature);
    for (const auto& row : metrics::segment_rows(metric, systems.front(), refs)) {
      const auto report = metric.report_row(row);
      out += (o.score_only ? metrics::format_score_only(report, o.width)
                           : metrics::format_score_line(report, signature, o.width)) +
             "\n";
    }
  } else if (systems.size() == 1) {
    std::vector<std::string> results;
    for (const auto& metric : metrics) {
      const auto rows = metrics::segment_rows(*metric, systems.front(), refs);
      auto report = metric->report_row(metrics::sum_rows(rows));
      auto signature = metric->signature(nrefs);
      // Metric.corpus_score(n_bootstrap=confidence_n): an interval only for more than one resample.
      if (o.confidence && o.confidence_n > 1) {
        const auto options = bootstrap_options(*metric, o.confidence_n, seed);
        const auto interval = stats::bootstrap_interval_exact_mean(
            stats::bootstrap_scores(rows, [&](const std::vector<double>& sum) { return metric->score_row(sum); }, options),
            options.float32_scores);
        report.ci_mean = interval.mean;
        report.ci_half_width = interval.half_width;
        signature.set_bootstrap(o.confidence_n, seed);
      }
      const bool json = o.format == "json";
      const auto formatted = signature.format(o.short_signature && !json);
      results.push_back(o.score_only ? metrics::format_score_only(report, o.width)
                        : json       ? metrics::format_score_json(report, formatted, o.width, 1, true)
                                     : metrics::format_score_line(report, formatted, o.width));
    }
    print_single(results, o, out);
  } else {
    std::vector<std::string> headers{"System"};
    std::vector<std::string> signatures;
    std::vector<std::vector<std::string>> rows(systems.size());
    for (std::size_t s = 0; s < systems.size(); ++s) rows[s].push_back(names[s]);
    // PairedTest: 0 trials or fewer mean the default.
    const int samples = o.paired_bs ? (o.paired_bs_n > 0 ? o.paired_bs_n : 1000) : (o.paired_ar_n > 0 ? o.paired_ar_n : 10000);
    std::vector<std::vector<PairedResult>> tests;
    if (paired) {
      std::vector<const metrics::CorpusMetric*> chosen;
      for (const auto& metric : metrics) chosen.push_back(metric.get());
      tests = paired_results(o, chosen, systems, refs, samples, seed);
    }
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      const auto& metric = *metrics[m];
      auto signature = metric.signature(nrefs);
      if (o.paired_bs) signature.set_bootstrap(samples, seed);
      if (o.paired_ar) signature.set_randomization(samples, seed);
      headers.push_back(metric.name() + (o.paired_bs && o.format != "json" ? " (μ ± 95% CI)" : ""));
      signatures.push_back(signature.format(o.short_signature));
      for (std::size_t s = 0; s < systems.size(); ++s)
        rows[s].push_back(paired ? paired_cell(tests[m][s], o.width, o.format == "text")
                                 : metrics::format_score_only(metric.report_row(metrics::sum_rows(
                                                                  metrics::segment_rows(metric, systems[s], refs))),
                                                              o.width));
    }
    if (o.format == "json") {
      // json.dumps(indent=4) with ASCII escapes: the table's strings, or a paired test's Result
      // fields as numbers (null where absent).
      const auto number = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nullptr; };
      auto list = nlohmann::ordered_json::array();
      for (std::size_t s = 0; s < systems.size(); ++s) {
        nlohmann::ordered_json entry;
        entry["system"] = rows[s][0];
        for (std::size_t m = 0; m < metrics.size(); ++m) {
          if (!paired) {
            entry[headers[m + 1]] = rows[s][m + 1];
            continue;
          }
          const auto& r = tests[m][s];
          entry[headers[m + 1]] = {
              {"score", r.score}, {"p_value", number(r.p_value)}, {"mean", number(r.mean)}, {"ci", number(r.ci)}};
        }
        list.push_back(entry);
      }
      out += list.dump(4, ' ', true) + "\n";
    } else {
      out += table(headers, rows, o.format == "latex") + "\n";
      if (paired) out += paired_legend(o, names.front());
      out += "-----------------\nMetric signatures\n-----------------\n";
      for (std::size_t m = 0; m < signatures.size(); ++m)
        out += fmt::format(" - {:<10} {}\n", metrics[m]->name(), signatures[m]);
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

void setup(CLI::App& root) {
  auto* app = root.add_subcommand(
      "sacrebleu",
      "sacrebleu 2.4.3's command line and output (REF... -i HYP -m bleu chrf ter -f text|json ...): "
      "alias sacrebleu='invar sacrebleu'");
  // Everything after `sacrebleu` is sacrebleu's argv, parsed below after rewriting.
  app->prefix_command();
  // ... all of it: nothing falls through to the root (which would refuse it as extra arguments).
  app->fallthrough(false);
  app->set_help_flag();
  app->callback([app] {
    SacrebleuOptions options;
    CLI::App parser{"sacreBLEU: Hassle-free computation of shareable BLEU scores (invar's reproduction of 2.4.3)",
                    "invar sacrebleu"};
    add_options(parser, options);
    auto argv = sacrebleu_arguments(app->remaining(), parser);
    std::reverse(argv.begin(), argv.end());  // CLI11 takes a vector of arguments in reverse order
    try {
      parser.parse(argv);
    } catch (const CLI::CallForHelp&) {
      std::cout << parser.help();
      throw CLI::Success();
    } catch (const CLI::CallForVersion&) {
      std::cout << parser.version() << '\n';
      throw CLI::Success();
    }
    if (const char* format = std::getenv("SACREBLEU_FORMAT")) {
      const auto lowered = python_lower(format);
      if (lowered == "json" || lowered == "text" || lowered == "latex") options.format = lowered;
    }
    run(options);
  });
}

INVAR_COMMAND("sacrebleu", setup);

}  // namespace
}  // namespace invar::cli
