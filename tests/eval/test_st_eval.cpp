// `invar st-eval` end to end on the toy data of tests/fixtures/st_eval (written for invar: three
// systems, four informal inputs, invented judgements with some None) and the tiny fixture models:
// every per-segment metric equals what its single-metric command gives, the correlations equal
// eval/stats on the same vectors, the Table-8 pair counts of a hand-checked case, None handling,
// the aligned-files input, and one clear error line for each kind of bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/io.hpp"
#include "core/version.hpp"
#include "eval/stats/classification.hpp"
#include "eval/stats/stats.hpp"
#include "eval/style_transfer/study.hpp"
#include "support/test_support.hpp"

using namespace invar;
using nlohmann::json;

namespace {

std::string toy(const std::string& name) { return test::fixture("st_eval/" + name); }
std::string model(const std::string& name) { return test::fixture("core/" + name); }

const std::vector<std::string> kAllModels{"--formality", model("xlmr-regression"), "--sts", model("xlmr-regression"),
                                          "--mlm", model("xlmr-mlm"), "--bertscore-model", model("bert-wordpiece"),
                                          "--bertscore-layer", "2", "--vectors",
                                          test::fixture("stmetrics/wordvecs.vec"), "--formality-classifier",
                                          model("xlmr-pair-cls"), "--formal-label", "LABEL_1"};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// st-eval --json on the toy table with every model, run once for the tests that read it.
const json& full_run() {
  static const json result = [] {
    const auto r = test::run_cli(concat({"-q", "st-eval", "--table", toy("judgements.tsv"), "--json"}, kAllModels));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
  }();
  return result;
}

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

// One key of every JSON line a command prints (it must succeed).
std::vector<double> command_values(const std::vector<std::string>& args, const std::string& key,
                                   const std::string& input = "") {
  const auto r = test::run_cli(args, input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<double> out;
  for (const auto& line : json_lines(r.out)) out.push_back(line[key].get<double>());
  return out;
}

// The st-eval scores of `metric` for the segments of `system`, in order.
std::vector<double> st_eval_values(const json& run, const std::string& system, const std::string& metric) {
  std::vector<double> out;
  for (const auto& s : run["segments"])
    if (s["system"] == system) out.push_back(s["scores"][metric].get<double>());
  return out;
}

void expect_equal(const std::vector<double>& actual, const std::vector<double>& expected, double tolerance,
                  const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], tolerance) << what << " line " << i + 1;
}

const json& agreement(const json& run, const std::string& metric) {
  for (const auto& a : run["meta_evaluation"])
    if (a["metric"] == metric) return a;
  throw std::runtime_error("no meta-evaluation of " + metric);
}

std::string write_temp(const std::string& name, const std::string& content) {
  const auto path = test::temp_dir() + "/" + name;
  test::write_file(path, content);
  return path;
}

void expect_error(const test::CliResult& r, const std::string& text) {
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace

// The table's "polite" rows are polite.txt against informal.txt (self-) and formal.txt (ref-).
TEST(StEval, LexicalMetricsEqualTheSingleMetricCommands) {
  const json& run = full_run();
  const auto hyp = toy("polite.txt");
  for (const auto& [variant, compared] : {std::pair{"self-", std::vector<std::string>{"--source", toy("informal.txt")}},
                                          std::pair{"ref-", std::vector<std::string>{"-r", toy("formal.txt")}}}) {
    for (const auto& [metric, name] : {std::pair{"bleu", "BLEU"}, std::pair{"chrf", "chrF"}})
      expect_equal(st_eval_values(run, "polite", variant + std::string(name)),
                   command_values(concat({"metric", metric, "-i", hyp, "--sentence", "--json"}, compared), "score"),
                   1e-12, variant + std::string(name));
    for (const auto& [metric, name] : {std::pair{"meteor", "METEOR"}, std::pair{"wmd", "WMD"}, std::pair{"wvcos", "WVCOS"}}) {
      std::vector<std::string> args{"metric", metric, "--hyp", hyp, "--sentence", "--json"};
      if (std::string(metric) != "meteor") args = concat(args, {"--vectors", test::fixture("stmetrics/wordvecs.vec")});
      expect_equal(st_eval_values(run, "polite", variant + std::string(name)), command_values(concat(args, compared), "score"),
                   1e-12, variant + std::string(name));
    }
  }
}

TEST(StEval, ModelMetricsEqualTheSingleModelCommands) {
  const json& run = full_run();
  const auto hyp = toy("polite.txt");
  for (const auto& [variant, ref] : {std::pair{"self-", toy("informal.txt")}, std::pair{"ref-", toy("formal.txt")}})
    expect_equal(st_eval_values(run, "polite", variant + std::string("BERTScore")),
                 command_values({"metric", "bertscore", "-m", model("bert-wordpiece"), "--layer", "2", "-i", hyp, "-r",
                                 ref, "--sentence", "--json"},
                                "F"),
                 1e-6, variant + std::string("BERTScore"));
  expect_equal(st_eval_values(run, "polite", "formality"),
               command_values({"classify", "-m", model("xlmr-regression"), "-i", hyp}, "score"), 1e-6, "formality");
  std::string pairs;
  const auto inputs = test::read_file(toy("informal.txt")), outputs = test::read_file(hyp);
  std::istringstream in_lines(inputs), out_lines(outputs);
  for (std::string a, b; std::getline(in_lines, a) && std::getline(out_lines, b);) pairs += a + "\t" + b + "\n";
  expect_equal(st_eval_values(run, "polite", "STS"),
               command_values({"classify", "-m", model("xlmr-regression"), "--pairs"}, "score", pairs), 1e-6, "STS");
  expect_equal(st_eval_values(run, "polite", "PLL"), command_values({"pll", "-m", model("xlmr-mlm"), "-i", hyp}, "pll"),
               1e-9, "PLL");
  expect_equal(st_eval_values(run, "polite", "PPPL"),
               command_values({"pll", "-m", model("xlmr-mlm"), "--ppl", "-i", hyp}, "ppl"), 1e-9, "PPPL");
}

// The STS regressor reads (input, output) with the pair encoding the fixtures' golden pairs define
// (<s> A </s></s> B </s> for XLM-R). No pair-regression golden exists; the regression checkpoint
// shares the pair classifier's tokenizer, so its pair ids must equal that golden's, and the second
// text must change the score.
TEST(StEval, StsUsesThePairEncodingOfTheGoldens) {
  const json golden = test::load_json(model("xlmr-pair-cls") + "/golden.json");
  std::string pairs;
  for (const auto& c : golden["cases"]) pairs += c["text"].get<std::string>() + "\t" + c["text_pair"].get<std::string>() + "\n";
  const auto r = test::run_cli({"tokenize", "-m", model("xlmr-regression"), "--pair"}, pairs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), golden["cases"].size());
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i]["ids"], golden["cases"][i]["input_ids"]) << i;

  const json& run = full_run();
  const auto sts = st_eval_values(run, "polite", "STS");
  const auto alone = command_values({"classify", "-m", model("xlmr-regression"), "-i", toy("informal.txt")}, "score");
  for (std::size_t i = 0; i < sts.size(); ++i) EXPECT_GT(std::fabs(sts[i] - alone[i]), 1e-6) << i;
}

// Every segment-level correlation is eval/stats' on the segments judged on the metric's dimension.
TEST(StEval, CorrelationsEqualEvalStatsOnTheJudgedSegments) {
  const json& run = full_run();
  for (const auto& a : run["meta_evaluation"]) {
    const std::string metric = a["metric"], human = a["human"];
    std::vector<double> x, y;
    for (const auto& s : run["segments"])
      if (s["human"].contains(human) && !s["scores"][metric].is_null()) {
        x.push_back(s["scores"][metric].get<double>());
        y.push_back(s["human"][human].get<double>());
      }
    const auto& seg = a["segment_level"];
    ASSERT_EQ(seg["n"].get<std::size_t>(), x.size()) << metric;
    // A constant metric (the toy classifier's formality-clf) has undefined correlations: null.
    auto expect_same = [&](const json& value, double expected) {
      if (value.is_null())
        EXPECT_TRUE(std::isnan(expected)) << metric;
      else
        EXPECT_DOUBLE_EQ(value.get<double>(), expected) << metric;
    };
    expect_same(seg["spearman"]["rho"], stats::spearman(x, y).statistic);
    expect_same(seg["spearman"]["p"], stats::spearman(x, y).pvalue);
    expect_same(seg["pearson"]["r"], stats::pearson(x, y).statistic);
    expect_same(seg["kendall"]["tau_b"], stats::kendall_tau_b(x, y).tau);
  }
  // The heat map's matrix: Spearman of two metrics over the segments.
  const auto& cross = run["cross_correlation"][0];
  const auto names = cross["metrics"].get<std::vector<std::string>>();
  const auto bleu = std::ranges::find(names, "self-BLEU") - names.begin(), pll = std::ranges::find(names, "PLL") - names.begin();
  std::vector<double> x, y;
  for (const auto& s : run["segments"]) {
    x.push_back(s["scores"]["self-BLEU"].get<double>());
    y.push_back(s["scores"]["PLL"].get<double>());
  }
  EXPECT_DOUBLE_EQ(cross["spearman"][bleu][pll].get<double>(), stats::spearman(x, y).statistic);
  EXPECT_DOUBLE_EQ(cross["spearman"][pll][bleu].get<double>(), stats::spearman(x, y).statistic);
  EXPECT_DOUBLE_EQ(cross["spearman"][bleu][bleu].get<double>(), 1.0);
}

// Table 8 by hand: "copy" repeats its inputs (self-BLEU 100), "polite" rewrites them, "noisy" is
// unrelated. Humans rate polite's meaning highest (mean 4.875 > 4.5 > 7/6), so self-BLEU orders
// (copy, polite) wrongly and the two pairs with noisy rightly: 2 of 3. ref-BLEU gets all 3, and
// WMD (lower is better) is compared negated.
TEST(StEval, SystemPairsMatchAHandCheckedCase) {
  const json& run = full_run();
  const auto& self_bleu = agreement(run, "self-BLEU");
  EXPECT_EQ(self_bleu["human"], "meaning");
  EXPECT_EQ(self_bleu["pairwise"]["pairs"], 3);
  EXPECT_EQ(self_bleu["pairwise"]["correct"], 2);
  EXPECT_EQ(self_bleu["pairwise"]["human_ties"], 0);
  const auto& systems = self_bleu["systems"];
  EXPECT_EQ(systems[0]["system"], "copy");
  EXPECT_DOUBLE_EQ(systems[0]["metric"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(systems[0]["human"].get<double>(), 4.5);
  EXPECT_DOUBLE_EQ(systems[1]["human"].get<double>(), 4.875);
  EXPECT_DOUBLE_EQ(systems[2]["human"].get<double>(), (1.0 + 1.5 + 1.0) / 3);  // its None left out
  EXPECT_LT(systems[2]["metric"].get<double>(), systems[1]["metric"].get<double>());
  EXPECT_EQ(agreement(run, "ref-BLEU")["pairwise"]["correct"], 3);
  const auto& wmd = agreement(run, "ref-WMD");
  EXPECT_EQ(wmd["pairwise"]["correct"], 3);
  EXPECT_LT(wmd["segment_level"]["spearman"]["rho"].get<double>(), 0);
}

// A None leaves its segment out of that dimension only; `combined` has no metric.
TEST(StEval, NoneSkipsOneDimensionOfOneSegment) {
  const json& run = full_run();
  EXPECT_EQ(agreement(run, "ref-BLEU")["segment_level"]["n"], 11);   // noisy line 3: meaning None
  EXPECT_EQ(agreement(run, "formality")["segment_level"]["n"], 11);  // copy line 2: formality None
  EXPECT_EQ(agreement(run, "PLL")["segment_level"]["n"], 11);        // copy line 4: fluency None
  EXPECT_EQ(agreement(run, "formality")["human"], "formality");
  EXPECT_EQ(agreement(run, "PPPL")["human"], "fluency");
  EXPECT_EQ(agreement(run, "STS")["human"], "meaning");
  for (const auto& a : run["meta_evaluation"]) EXPECT_NE(a["human"], "combined");
  const auto& noisy_line3 = run["segments"][10];
  EXPECT_FALSE(noisy_line3["human"].contains("meaning"));
  EXPECT_EQ(noisy_line3["human"]["formality"], 2.5);
  for (const auto& s : run["systems"]) {
    if (s["system"] == "copy") {
      EXPECT_DOUBLE_EQ(s["human"]["formality"].get<double>(), (1.5 + 2 + 1.5) / 3);
    }
  }
  EXPECT_TRUE(run["not_computed"].empty()) << run["not_computed"];
}

// Line-aligned files give the same segment scores as the table; without models or references the
// output names what was not computed; a word-less output has WMD null (JSON) / nan (text).
TEST(StEval, AlignedFilesAndMissingModels) {
  const auto judged = write_temp("copy_human.tsv", "meaning_human\tformality_human\n4.5\t1.5\n4\tNone\n4.5\t2\n5\t1.5\n");
  const auto r = test::run_cli({"st-eval", "--inputs", toy("informal.txt"), "--system", "copy=" + toy("copy.txt"),
                                "--system", "polite=" + toy("polite.txt"), "--ref", toy("formal.txt"), "--judgements",
                                "copy=" + judged, "--vectors", test::fixture("stmetrics/wordvecs.vec"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json files = json::parse(r.out);
  const json& table = full_run();
  for (const char* metric : {"self-BLEU", "ref-chrF", "ref-METEOR", "self-WMD"})
    expect_equal(st_eval_values(files, "polite", metric), st_eval_values(table, "polite", metric), 0, metric);
  std::string missing = files["not_computed"].dump();
  for (const char* name : {"formality", "STS", "PLL", "BERTScore"}) EXPECT_NE(missing.find(name), std::string::npos) << missing;
  EXPECT_EQ(agreement(files, "self-BLEU")["segment_level"]["n"], 4);  // only copy is judged
  EXPECT_EQ(agreement(files, "self-BLEU")["pairwise"]["pairs"], 0);

  const auto unknown = write_temp("unknown.txt", "zebra xylophone\nthe film\n");
  const auto sources = write_temp("sources.txt", "the cat\nthe dog\n");
  const auto text = test::run_cli({"st-eval", "--inputs", sources, "--system", "a=" + unknown, "--vectors",
                                   test::fixture("stmetrics/wordvecs.vec"), "--csv"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::istringstream csv(text.out);
  std::string header, first;
  while (std::getline(csv, header) && header.rfind('#', 0) == 0) {  // the provenance block
  }
  std::getline(csv, first);
  EXPECT_EQ(header.substr(0, 36), "group,system,where,self-BLEU,self-ch");
  EXPECT_NE(first.find(",,"), std::string::npos) << first;  // WMD / WVCOS undefined: empty cells
}

TEST(StEval, LatexAndHtmlReport) {
  const auto html = test::temp_dir() + "/report.html";
  const auto r = test::run_cli({"st-eval", "--table", toy("judgements.tsv"), "--vectors", test::fixture("stmetrics/wordvecs.vec"),
                                "--latex", "--report", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(std::string("% invar: ") + kVersion + "\n% command: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("% data: --table " + toy("judgements.tsv") + " ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\begin{tabular}"), std::string::npos);
  EXPECT_NE(r.out.find("self-BLEU & meaning &"), std::string::npos) << r.out;
  const auto page = test::read_file(html);
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("Spearman correlation between metrics"), std::string::npos);
  EXPECT_NE(page.find("<details class=\"provenance\">"), std::string::npos);
  // The title once; WMD (lower is better) marked in the tables and the heat map, BLEU not.
  EXPECT_EQ(page.find("Style-transfer evaluation</h"), page.rfind("Style-transfer evaluation</h"));
  EXPECT_NE(page.find("<th class=\"num\">self-WMD ↓</th>"), std::string::npos);
  EXPECT_NE(page.find(">self-WMD ↓</text>"), std::string::npos);
  EXPECT_EQ(page.find("self-BLEU ↓"), std::string::npos);
  EXPECT_NE(r.out.find("self-WMD $\\downarrow$"), std::string::npos);
}

// A group name comes from the file name, system names from the file: a newline must not end the
// LaTeX comment that names the group (the next line would be live LaTeX), and a terminal escape must
// not reach the text tables raw.
TEST(StEval, NamesFromFilesAreEscapedForTheirFormat) {
  std::string table = test::read_file(toy("judgements.tsv"));
  for (auto at = table.find("\ncopy\t"); at != std::string::npos; at = table.find("\ncopy\t", at + 1))
    table.replace(at + 1, 4, "\x1b]0;owned\x07" "copy");
  const auto path = write_temp("evil\n\\input{secrets}.tsv", table);
  const auto latex = test::run_cli({"st-eval", "--table", path, "--latex"});
  ASSERT_EQ(latex.exit_code, 0) << latex.err;
  std::istringstream lines(latex.out);
  for (std::string line; std::getline(lines, line);) EXPECT_NE(line.rfind("\\input", 0), 0u) << latex.out;
  EXPECT_NE(latex.out.find("% evil\\n\\input{secrets}: system means"), std::string::npos) << latex.out;
  EXPECT_EQ(latex.out.find('\x1b'), std::string::npos) << latex.out;
  const auto text = test::run_cli({"st-eval", "--table", path});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find('\x07'), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\\x1b]0;owned\\x07copy"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("== evil\\n\\input{secrets} =="), std::string::npos) << text.out;
}

TEST(StEval, BadInputFailsWithOneLineNamingFileLineAndField) {
  const auto header = std::string("system_name\tinformal_input\tsystem_output\tmeaning_human\n");
  const auto bad_number = write_temp("bad.tsv", header + "a\tx\ty\t3\nb\tx\ty\tgood\n");
  expect_error(test::run_cli({"st-eval", "--table", bad_number}),
               "bad.tsv:3: meaning_human (a number or None): 'good' is not a finite number");
  const auto missing = write_temp("missing.tsv", "system_name\tsystem_output\na\ty\n");
  expect_error(test::run_cli({"st-eval", "--table", missing}), "missing.tsv:1: no column 'informal_input'");
  const auto empty = write_temp("empty.tsv", header + "a\tx\ty\t3\nb\tx\t \t2\n");
  expect_error(test::run_cli({"st-eval", "--table", empty}), "empty.tsv:3: empty system output");
  const auto allowed = test::run_cli({"st-eval", "--table", empty, "--empty-as-zero", "--json"});
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(json::parse(allowed.out)["segments"][1]["scores"]["self-METEOR"], 0.0);  // as NLTK

  const auto short_file = write_temp("short.txt", "one\ntwo\nthree\n");
  expect_error(test::run_cli({"st-eval", "--inputs", toy("informal.txt"), "--system", "s=" + short_file}),
               "short.txt has 3 lines but");
  expect_error(test::run_cli({"st-eval", "--inputs", toy("informal.txt"), "--system", toy("copy.txt")}),
               "--system expects NAME=FILE");
  expect_error(test::run_cli({"st-eval", "--inputs", toy("informal.txt"), "--system", "a=" + toy("copy.txt"), "--system",
                              "a=" + toy("polite.txt")}),
               "the name 'a' is given twice");
  expect_error(test::run_cli({"st-eval", "--inputs", toy("informal.txt"), "--system", "a=" + toy("copy.txt"),
                              "--judgements", "b=" + toy("copy.txt")}),
               "no --system is named 'b'");
  expect_error(test::run_cli({"st-eval", "--table", toy("judgements.tsv"), "--inputs", toy("informal.txt")}),
               "not both");
  expect_error(test::run_cli({"st-eval", "--table", toy("judgements.tsv"), "--formality", model("xlmr-pair-cls")}),
               "must be a regression checkpoint");
  expect_error(test::run_cli({"st-eval", "--table", toy("judgements.tsv"), "--mlm", model("xlmr-regression")}),
               "xlmr-regression");
  expect_error(test::run_cli({"st-eval", "--table", toy("judgements.tsv"), "--wordnet", "/nonexistent"}),
               "/nonexistent");
}

// --csv FILE and --latex FILE (tools/output_form.hpp) and --report name outputs, never data, even
// when the file is there from an earlier run: the provenance lists the table alone.
TEST(StEval, OutputFilesAreNotData) {
  const auto dir = test::temp_dir();
  for (const std::string form : {"--csv", "--latex"}) {
    const std::string out = dir + "/out" + form.substr(2), report = dir + "/report" + form.substr(2) + ".html";
    for (int run = 0; run < 2; ++run) {  // the second run finds the first one's files
      const auto r = test::run_cli({"-q", "st-eval", "--table", toy("judgements.tsv"), form, out, "--report", report});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const auto text = test::read_file(out);
    const std::string data = (form == "--csv" ? "# " : "% ") + std::string("data: ");
    EXPECT_NE(text.find(data + "--table " + toy("judgements.tsv") + " ("), std::string::npos) << text;
    EXPECT_EQ(text.find(data), text.rfind(data)) << text;  // one data file
  }
}

// `st-eval --csv` reads back into `metaeval`: an unjudged value is the layout's None (which
// `--missing None` skips), numbers are the shortest text of the same double, and metaeval then finds
// exactly the segment-level agreement st-eval computed itself.
TEST(StEval, CsvReadsBackIntoMetaeval) {
  const auto csv = test::run_cli({"-q", "st-eval", "--table", toy("judgements.tsv"), "--csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto path = write_temp("segments.csv", csv.out);
  const auto own = test::run_cli({"-q", "st-eval", "--table", toy("judgements.tsv"), "--json"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  const json run = json::parse(own.out);
  EXPECT_EQ(run["provenance"]["invar"], kVersion);
  EXPECT_EQ(run["provenance"]["data"][0]["path"], toy("judgements.tsv"));
  EXPECT_EQ(csv.out.rfind(std::string("# invar: ") + kVersion + "\n", 0), 0u) << csv.out;
  const auto meta = test::run_cli({"metaeval", "--scores", path, "--system-column", "system", "--human-column",
                                   "meaning_human", "--score-column", "ref-BLEU", "--missing", "None", "--json"});
  ASSERT_EQ(meta.exit_code, 0) << meta.err;
  EXPECT_EQ(json::parse(meta.out)["segment_level"], agreement(run, "ref-BLEU")["segment_level"]);
  EXPECT_EQ(json::parse(meta.out)["segment_level"]["n"], 11);  // noisy line 3: meaning None
  EXPECT_EQ(json::parse(meta.out)["provenance"]["data"][0]["path"], path);

  // Every cell reads back as exactly the JSON's value, written without a 17-digit tail.
  const auto table = read_table(path, TableOptions{.format = TableFormat::Csv, .header = true});
  const std::size_t column = table.column("ref-chrF");
  ASSERT_EQ(table.rows.size(), run["segments"].size());
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::string& cell = table.rows[r][column];
    const double value = run["segments"][r]["scores"]["ref-chrF"].get<double>();
    EXPECT_EQ(std::stod(cell), value) << cell;
    EXPECT_EQ(cell, fmt::format("{}", value));  // the shortest such text, as JSON has it
  }
}

// The released meta-evaluation files carry the paper's own metric scores next to the layout's
// columns: st-eval reads them as the bare layout, and `metaeval --missing None` meta-evaluates one of
// those columns with the unjudged rows of that dimension left out.
TEST(StEval, ReleasedLayoutWithScoreColumns) {
  std::vector<std::string> lines;
  std::istringstream table(test::read_file(toy("judgements.tsv")));
  for (std::string line; std::getline(table, line);) lines.push_back(line);
  std::string released;
  for (std::size_t i = 0; i < lines.size(); ++i)
    released += lines[i] + (i == 0 ? std::string("\tself-BLEU") : "\t" + std::to_string(i % 5)) + "\n";
  const auto path = write_temp("released.tsv", released);
  const auto bare = test::run_cli({"-q", "st-eval", "--table", toy("judgements.tsv"), "--json"});
  const auto extended = test::run_cli({"-q", "st-eval", "--table", "judgements=" + path, "--json"});
  ASSERT_EQ(extended.exit_code, 0) << extended.err;
  auto segments = json::parse(extended.out)["segments"], expected = json::parse(bare.out)["segments"];
  ASSERT_EQ(segments.size(), expected.size());
  for (std::size_t i = 0; i < segments.size(); ++i) {
    EXPECT_EQ(segments[i]["where"], path + ":" + std::to_string(i + 2));
    segments[i].erase("where");
    expected[i].erase("where");
  }
  EXPECT_EQ(segments, expected);

  const auto meta = test::run_cli({"metaeval", "--scores", path, "--system-column", "system_name", "--human-column",
                                   "formality_human", "--score-column", "self-BLEU", "--missing", "None", "--json"});
  ASSERT_EQ(meta.exit_code, 0) << meta.err;
  EXPECT_EQ(json::parse(meta.out)["segment_level"]["n"], lines.size() - 2);  // one formality None in the toy table
  EXPECT_NE(meta.err.find("1 of " + std::to_string(lines.size() - 1) + " rows have no human judgement"),
            std::string::npos) << meta.err;
  const auto strict = test::run_cli({"metaeval", "--scores", path, "--system-column", "system_name", "--human-column",
                                     "formality_human", "--score-column", "self-BLEU"});
  EXPECT_NE(strict.err.find("'None' is not a finite number"), std::string::npos) << strict.err;
}

// ref-STS is the STS regressor on (reference, output), as `invar classify --pairs` scores that pair.
TEST(StEval, RefStsIsTheRegressorOnReferenceAndOutput) {
  const json& run = full_run();
  std::string pairs;
  std::istringstream refs(test::read_file(toy("formal.txt"))), outputs(test::read_file(toy("polite.txt")));
  for (std::string a, b; std::getline(refs, a) && std::getline(outputs, b);) pairs += a + "\t" + b + "\n";
  expect_equal(st_eval_values(run, "polite", "ref-STS"),
               command_values({"classify", "-m", model("xlmr-regression"), "--pairs"}, "score", pairs), 1e-6, "ref-STS");
  EXPECT_EQ(agreement(run, "ref-STS")["human"], "meaning");
}

// BLEU and chrF system scores are corpus scores by default (`invar metric bleu|chrf` over the
// system's outputs), the means of the sentence scores with --system-scores mean.
TEST(StEval, SystemScoresAreCorpusBleuAndChrfOrSentenceMeans) {
  const json& run = full_run();
  auto system_score = [](const json& r, const std::string& system, const std::string& metric) {
    for (const auto& s : r["systems"])
      if (s["system"] == system) return s["scores"][metric].get<double>();
    throw std::runtime_error("no system " + system);
  };
  auto corpus = [](const std::string& metric, const std::string& hyp, const std::vector<std::string>& against) {
    auto args = concat({"metric", metric, "-i", hyp, "--json", "--width", "12"}, against);
    const auto r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out)["score"].get<double>();
  };
  EXPECT_EQ(run["system_scores"], "corpus");
  for (const char* system : {"polite", "noisy"}) {
    const auto hyp = toy(std::string(system) + ".txt");
    EXPECT_NEAR(system_score(run, system, "ref-BLEU"), corpus("bleu", hyp, {"-r", toy("formal.txt")}), 1e-9) << system;
    EXPECT_NEAR(system_score(run, system, "self-chrF"), corpus("chrf", hyp, {"-r", toy("informal.txt")}), 1e-9) << system;
  }
  // The mean of the four sentence BLEUs is another number (sentence BLEU uses effective order).
  const auto sentences = st_eval_values(run, "polite", "ref-BLEU");
  const double mean = (sentences[0] + sentences[1] + sentences[2] + sentences[3]) / 4;
  EXPECT_GT(std::fabs(system_score(run, "polite", "ref-BLEU") - mean), 1e-3);
  const auto r = test::run_cli({"-q", "st-eval", "--table", toy("judgements.tsv"), "--system-scores", "mean", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json means = json::parse(r.out);
  EXPECT_EQ(means["system_scores"], "mean");
  EXPECT_NEAR(system_score(means, "polite", "ref-BLEU"), mean, 1e-9);
  expect_error(test::run_cli({"st-eval", "--table", toy("judgements.tsv"), "--system-scores", "median"}),
               "--system-scores must be corpus or mean, got 'median'");
}

// Table 8's OVERALL column: the system pairs ordered as the `combined` means (copy 3.125, polite
// 4.5, noisy 1.5). ref-BLEU orders polite > copy > noisy: 3/3; self-BLEU rewards copy over polite: 2/3.
TEST(StEval, OverallPairsAgainstCombined) {
  const json& run = full_run();
  EXPECT_EQ(agreement(run, "ref-BLEU")["overall_pairwise"]["pairs"], 3);
  EXPECT_EQ(agreement(run, "ref-BLEU")["overall_pairwise"]["correct"], 3);
  EXPECT_EQ(agreement(run, "self-BLEU")["overall_pairwise"]["correct"], 2);
  const auto r = test::run_cli(concat({"-q", "st-eval", "--table", toy("judgements.tsv")}, kAllModels));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("System ranking (Table 8)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BLEU/chrF system scores: corpus"), std::string::npos) << r.out;
}

// The formality classifier: formality-clf is 1 where `invar classify` gives the formal label; on
// the human texts (4 informal inputs, 4 formal references) its report is eval/stats' classification
// of those labels; Figure 1's bins count the judged outputs.
TEST(StEval, FormalityClassifierOnOutputsAndHumanTexts) {
  const json& run = full_run();
  const auto labels = test::run_cli({"classify", "-m", model("xlmr-pair-cls"), "-i", toy("polite.txt")});
  ASSERT_EQ(labels.exit_code, 0) << labels.err;
  std::vector<double> expected;
  for (const auto& line : json_lines(labels.out)) expected.push_back(line["label"] == "LABEL_1" ? 1.0 : 0.0);
  expect_equal(st_eval_values(run, "polite", "formality-clf"), expected, 0, "formality-clf");
  EXPECT_EQ(agreement(run, "formality-clf")["human"], "formality");

  const auto& human = run["formality_classifier"]["human_texts"];
  ASSERT_EQ(human.size(), 1u);
  EXPECT_EQ(human[0]["inputs"], 4);
  EXPECT_EQ(human[0]["references"], 4);
  std::vector<std::string> texts, truth, predicted;
  for (const auto& [file, label] : {std::pair{"informal.txt", "informal"}, std::pair{"formal.txt", "formal"}}) {
    const auto r = test::run_cli({"classify", "-m", model("xlmr-pair-cls"), "-i", toy(file)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& line : json_lines(r.out)) {
      truth.push_back(label);
      predicted.push_back(line["label"] == "LABEL_1" ? "formal" : "informal");
    }
  }
  EXPECT_EQ(human[0]["scores"], json::parse(stats::classification_json(stats::classification_scores(truth, predicted)).dump()));

  std::size_t judged = 0, formal = 0, binned = 0, binned_formal = 0;
  for (const auto& s : run["segments"])
    if (s["human"].contains("formality")) {
      ++judged;
      formal += s["scores"]["formality-clf"].get<double>() == 1.0;
    }
  for (const auto& b : run["formality_classifier"]["bins"]) {
    binned += b["formal"].get<std::size_t>() + b["informal"].get<std::size_t>();
    binned_formal += b["formal"].get<std::size_t>();
  }
  EXPECT_EQ(judged, 11u);
  EXPECT_EQ(binned, judged);
  EXPECT_EQ(binned_formal, formal);

  expect_error(test::run_cli({"st-eval", "--table", toy("judgements.tsv"), "--formality-classifier", model("xlmr-pair-cls")}),
               "no label named 'formal' (labels: LABEL_0, LABEL_1); name the formal one with --formal-label");
  expect_error(test::run_cli({"st-eval", "--table", toy("judgements.tsv"), "--formality-classifier", model("xlmr-regression")}),
               "the formality classifier must be a classification checkpoint with two or more labels");
}

TEST(StEval, SystemRanks) {
  EXPECT_EQ(style_transfer::system_ranks({2.0, 5.0, 2.0, std::nan("")}, true), (std::vector<std::size_t>{2, 1, 2, 4}));
  EXPECT_EQ(style_transfer::system_ranks({2.0, 5.0, 1.0}, false), (std::vector<std::size_t>{2, 3, 1}));
}
