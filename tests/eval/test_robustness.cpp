// Semantic robustness (eval/robustness, `invar robustness`): template parsing and expansion, the
// bundled test beds, accuracy and verdict arithmetic against hand-computed cases, populations and
// Welch's t-test against scipy goldens, model scoring and layer ablation on a fixture classifier,
// the reports, and every bad-input error.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "core/crc32.hpp"
#include "core/error.hpp"
#include "core/version.hpp"
#include "eval/robustness/models.hpp"
#include "eval/report/report.hpp"
#include "eval/robustness/report.hpp"
#include "support/test_support.hpp"

using namespace invar;
using namespace invar::robustness;
using nlohmann::json;

namespace {

std::string write(const std::string& name, const std::string& content) {
  const std::string path = test::temp_dir() + "/" + name;
  test::write_file(path, content);
  return path;
}

TemplateSet parse(const std::string& content, std::vector<std::string>* warnings = nullptr) {
  std::vector<std::string> ignored;
  return read_templates({write("templates.tsv", content)}, warnings ? *warnings : ignored);
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string bundled(const std::string& name) { return std::string(INVAR_SOURCE_DIR) + "/examples/robustness/" + name; }

const std::string kModel = test::fixture("core/bert-pair-cls");
const std::vector<std::string> kLabelMap{"--label-map", "not_paraphrase=negative,paraphrase=positive"};

}  // namespace

// ---- Templates and expansion ---------------------------------------------------------------------

TEST(RobustnessTemplates, ExpandsTheCartesianProductWithProvenance) {
  const auto set = parse(
      "# a comment\n"
      "labels\tnegative\tpositive\n"
      "slot\tAdj\tgood\tgreat\n"
      "slot\tintensifier\t\tvery\treally\n"
      "template\tneg\tpositive\tThe film is @INTENSIFIER@ @adj@ , @ADJ@!\n");
  const auto texts = expand(set);
  // Slots in order of first appearance (INTENSIFIER, ADJ), the last varying fastest; @adj@ and @ADJ@
  // are one slot; the empty default leaves no double space and no space before punctuation.
  const std::vector<std::string> expected{
      "The film is good, good!",       "The film is great, great!",   "The film is very good, good!",
      "The film is very great, great!", "The film is really good, good!", "The film is really great, great!"};
  ASSERT_EQ(texts.size(), expected.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(texts[i].text, expected[i]);
    EXPECT_EQ(texts[i].label, "positive");
    EXPECT_EQ(texts[i].phenomenon, "neg");
    EXPECT_EQ(texts[i].template_id, "neg-1");
  }
  ASSERT_EQ(texts[3].replacements.size(), 2u);
  EXPECT_EQ(texts[3].replacements[0], (std::pair<std::string, std::string>{"INTENSIFIER", "very"}));
  EXPECT_EQ(texts[3].replacements[1], (std::pair<std::string, std::string>{"ADJ", "great"}));
  EXPECT_NE(set.templates[0].where.find("templates.tsv:5"), std::string::npos);
}

TEST(RobustnessTemplates, RemovesDuplicatesWithinAPhenomenon) {
  const auto set = parse(
      "slot\tA\tgood\t\n"
      "slot\tB\t\tgood\n"
      "template\tp\tpositive\tIt is @A@ @B@.\n"
      "template\tp\tpositive\tIt is good.\n"
      "template\tq\tpositive\tIt is good.\n");
  // Combinations of the first template: "It is good.", "It is good good.", "It is.", "It is good."
  const auto texts = expand(set);
  std::vector<std::string> got;
  for (const auto& t : texts) got.push_back(t.phenomenon + ":" + t.text + ":" + t.template_id);
  EXPECT_EQ(got, (std::vector<std::string>{"p:It is good.:p-1", "p:It is good good.:p-1", "p:It is.:p-1",
                                           "q:It is good.:q-1"}));
}

TEST(RobustnessTemplates, LabelChangingSlotFlipsTheBinaryLabel) {
  const auto set = parse(
      "labels\tnegative\tpositive\n"
      "flip\tNOT\t\tnot\thardly\n"
      "slot\tADJ\tgood\tfine\n"
      "template\tnegation\tpositive\tIt is @NOT@ @ADJ@.\n");
  std::map<std::string, std::string> label_of;
  for (const auto& t : expand(set)) label_of[t.text] = t.label;
  EXPECT_EQ(label_of.size(), 6u);
  EXPECT_EQ(label_of["It is good."], "positive");
  EXPECT_EQ(label_of["It is fine."], "positive");
  EXPECT_EQ(label_of["It is not good."], "negative");
  EXPECT_EQ(label_of["It is hardly fine."], "negative");
}

TEST(RobustnessTemplates, SampleCapIsSeededDistinctAndInProductOrder) {
  const auto set = parse("slot\tA\ta\tb\tc\td\nslot\tB\t1\t2\t3\t4\t5\t6\ntemplate\tp\tx\t@A@@B@\ntemplate\tp\ty\tz\n");
  const auto all = expand(set);
  ASSERT_EQ(all.size(), 25u);
  const auto first = expand(set, {5, 7});
  const auto again = expand(set, {5, 7});
  const auto other = expand(set, {5, 8});
  ASSERT_EQ(first.size(), 6u);  // 5 of 24 combinations, and the 1-combination template whole
  std::vector<std::string> a, b, c;
  for (const auto& t : first) a.push_back(t.text);
  for (const auto& t : again) b.push_back(t.text);
  for (const auto& t : other) c.push_back(t.text);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), a.size());
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end() - 1));  // product order: a1 < a2 < ... < d6
  EXPECT_EQ(a.back(), "z");
}

// A 7-slot template of 10 replacements each makes 10^7 texts (1.9 GB, over a minute): refused before
// anything is expanded, naming the template; --max-per-template samples it without enumerating.
TEST(RobustnessTemplates, HugeExpansionIsRefusedBeforeExpandingAndSampledOnRequest) {
  std::string content = "labels\tneg\tpos\n";
  std::string text;
  for (char slot = 'A'; slot < 'A' + 7; ++slot) {
    content += std::string("slot\t") + slot;
    for (int r = 0; r < 10; ++r) content += "\t" + std::string(1, static_cast<char>(slot + 32)) + std::to_string(r);
    content += "\n";
    text += std::string(" @") + slot + "@";
  }
  content += "template\tbig\tpos\t" + text + "\ntemplate\tbig\tneg\tsmall one\n";
  const auto set = parse(content);
  const auto message = error_of([&] { expand(set); });
  EXPECT_NE(message.find("templates.tsv:9: the templates would make 10000001 texts"), std::string::npos) << message;
  EXPECT_NE(message.find("template big-1 alone 10000000 of 10000000 combinations"), std::string::npos) << message;
  EXPECT_NE(message.find("--max-per-template"), std::string::npos) << message;

  const auto sample = expand(set, {.max_per_template = 100, .seed = 3});
  ASSERT_EQ(sample.size(), 101u);
  std::set<std::string> distinct;
  for (const auto& t : sample) distinct.insert(t.text);
  EXPECT_EQ(distinct.size(), 101u);
  EXPECT_EQ(sample.front().replacements.size(), 7u);
  // A bound the caller raises lets the same expansion through (here on a 4-slot template).
  const auto four = parse("slot\tA\t1\t2\t3\nslot\tB\t1\t2\t3\ntemplate\tp\tx\t@A@ @B@\n");
  EXPECT_NE(error_of([&] { expand(four, {.max_texts = 8}); }).find("would make 9 texts"), std::string::npos);
  EXPECT_EQ(expand(four, {.max_texts = 9}).size(), 9u);
}

// Memory counts too: few texts with long replacements.
TEST(RobustnessTemplates, ExpansionMemoryIsBoundedBeforeExpanding) {
  const std::string long_value(100000, 'x');
  const auto set = parse("slot\tA\t" + long_value + "\t" + long_value + "y\nslot\tB\t1\t2\t3\t4\t5\n"
                         "template\tp\tx\t@A@ @B@\n");
  const auto message = error_of([&] { expand(set, {.max_bytes = 1 << 20}); });
  EXPECT_NE(message.find("would make 10 texts (up to 2 MB; the bounds are 1000000 texts and 1 MB)"), std::string::npos)
      << message;
  EXPECT_EQ(expand(set).size(), 10u);
}

// A product beyond 2^64 (20 slots of 10) cannot be indexed, but sampling it is well defined: the
// sample is seeded, distinct and in product order; without a sample it is refused.
TEST(RobustnessTemplates, ProductBeyond64BitsIsSampled) {
  std::string content, text;
  for (int slot = 0; slot < 20; ++slot) {
    content += "slot\tS" + std::to_string(slot);
    for (int r = 0; r < 10; ++r) content += "\t" + std::to_string(r);
    content += "\n";
    text += "@S" + std::to_string(slot) + "@";
  }
  const auto set = parse(content + "template\tp\tx\t" + text + "\n");
  EXPECT_NE(error_of([&] { expand(set); }).find("template p-1 has more than 2^64 combinations: sample them"),
            std::string::npos);
  const auto first = expand(set, {.max_per_template = 50, .seed = 1});
  const auto again = expand(set, {.max_per_template = 50, .seed = 1});
  ASSERT_EQ(first.size(), 50u);
  std::vector<std::string> a, b;
  for (const auto& t : first) a.push_back(t.text);
  for (const auto& t : again) b.push_back(t.text);
  EXPECT_EQ(a, b);
  EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), 50u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));  // 20 digits each: product order is text order
  for (const auto& t : a) EXPECT_EQ(t.size(), 20u) << t;
}

// The bundled test beds: three phenomena, ≥ 12 templates and ≥ 500 texts each. Every combination
// is distinct by design, so each phenomenon holds exactly Σ over its templates of the product of its
// slots' list sizes; the expansion is the same run after run.
TEST(RobustnessTemplates, BundledTestBedsAreLargeEnoughAndDeterministic) {
  std::vector<std::string> warnings;
  const auto set = read_templates({bundled("slots.tsv"), bundled("negation.tsv"), bundled("mixed.tsv"), bundled("irony.tsv")},
                                  warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(set.labels, (std::vector<std::string>{"negative", "positive"}));
  std::map<std::string, std::size_t> templates, expected;
  for (const auto& t : set.templates) {
    templates[t.phenomenon]++;
    std::size_t product = 1;
    for (const auto& name : slot_names(t.text)) product *= set.slots.at(name).replacements.size();
    expected[t.phenomenon] += product;
  }
  const auto texts = expand(set);
  std::map<std::string, std::size_t> counts;
  for (const auto& t : texts) counts[t.phenomenon]++;
  EXPECT_EQ(phenomena(texts), (std::vector<std::string>{"negation", "mixed", "irony"}));
  for (const auto& name : {"negation", "mixed", "irony"}) {
    EXPECT_GE(templates[name], 12u) << name;
    EXPECT_GE(counts[name], 500u) << name;
    EXPECT_EQ(counts[name], expected[name]) << name;
  }
  EXPECT_EQ(counts["negation"], 3024u);
  EXPECT_EQ(counts["mixed"], 5888u);
  EXPECT_EQ(counts["irony"], 2688u);
  const auto again = expand(set);
  ASSERT_EQ(again.size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) ASSERT_EQ(again[i].text, texts[i].text);
  for (const auto& t : texts) {
    EXPECT_EQ(t.text.find("  "), std::string::npos) << t.text;
    EXPECT_EQ(t.text.find('@'), std::string::npos) << t.text;
  }
}

TEST(RobustnessCli, ExpandWritesLabelledTsvAndJsonl) {
  const std::string dir = test::temp_dir();
  const auto tsv = test::run_cli({"robustness", "expand", "--bundled", "-o", dir + "/bed.tsv"});
  ASSERT_EQ(tsv.exit_code, 0) << tsv.err;
  EXPECT_NE(tsv.err.find("negation: 3024 texts"), std::string::npos) << tsv.err;
  std::istringstream lines(test::read_file(dir + "/bed.tsv"));
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line)) {
    if (n++ == 0) {
      EXPECT_EQ(line, "The movie was not good.\tnegative\tnegation\tnegation-1\t"
                      R"({"CATEGORY":"movie","INTENSIFIER":"","POS_ADJ":"good"})");
    }
  }
  EXPECT_EQ(n, 3024u + 5888u + 2688u);
  const auto jsonl = test::run_cli({"robustness", "expand", bundled("slots.tsv"), bundled("irony.tsv"), "--format", "jsonl",
                                    "--max-per-template", "3"});
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.err;
  std::istringstream records(jsonl.out);
  n = 0;
  while (std::getline(records, line)) {
    const json record = json::parse(line);
    EXPECT_EQ(record["phenomenon"], "irony");
    EXPECT_TRUE(record["replacements"].is_object());
    ++n;
  }
  EXPECT_EQ(n, 13u * 3);
  // slots.tsv's slots that irony.tsv does not use are reported.
  EXPECT_NE(jsonl.err.find("slot @NOT@ is used by no template"), std::string::npos) << jsonl.err;
}

// ---- Accuracy, verdicts, populations --------------------------------------------------------------

namespace {

Bed small_bed() {
  LabelledSet task{"task.tsv", {"t1", "t2", "t3", "t4"}, {"pos", "neg", "pos", "neg"}, {1, 2, 3, 4}};
  std::vector<GeneratedText> generated{{"g1", "neg", "negation", "negation-1", {}},
                                       {"g2", "neg", "negation", "negation-1", {}},
                                       {"g3", "pos", "negation", "negation-2", {}},
                                       {"g4", "pos", "irony", "", {}},
                                       {"g5", "neg", "irony", "", {}}};
  return make_bed(std::move(task), std::move(generated));
}

}  // namespace

TEST(RobustnessScoring, AccuracyPerSetAndTemplate) {
  const Bed bed = small_bed();
  EXPECT_EQ(bed.phenomena, (std::vector<std::string>{"negation", "irony"}));
  EXPECT_EQ(all_texts(bed), (std::vector<std::string>{"t1", "t2", "t3", "t4", "g1", "g2", "g3", "g4", "g5"}));
  //                                         t1     t2     t3     t4     g1     g2     g3     g4     g5
  const ModelScore s = score_model("m", bed, {"pos", "neg", "neg", "neg", "neg", "pos", "pos", "neg", "neg"});
  EXPECT_EQ(s.task.correct, 3u);
  EXPECT_EQ(s.task.total, 4u);
  EXPECT_DOUBLE_EQ(s.task.value(), 0.75);
  EXPECT_EQ(s.phenomena[0].correct, 2u);  // g1, g3
  EXPECT_EQ(s.phenomena[0].total, 3u);
  EXPECT_EQ(s.phenomena[1].correct, 1u);  // g5
  EXPECT_EQ(s.templates.at("negation-1").correct, 1u);
  EXPECT_EQ(s.templates.at("negation-1").total, 2u);
  EXPECT_EQ(s.templates.at("negation-2").correct, 1u);
  EXPECT_EQ(s.templates.size(), 2u);  // external texts have no template
  EXPECT_THROW(score_model("m", bed, {"pos"}), Error);
}

TEST(RobustnessScoring, VerdictsFollowTheDefinitions) {
  // p = 0.8, τ = 0.05: robust when p′ ≥ 0.75, bounded when 0.75 ≤ p′ ≤ 0.85.
  auto v = verdict(0.8, 0.76, 0.05);
  EXPECT_TRUE(v.robust);
  EXPECT_TRUE(v.bounded);
  EXPECT_DOUBLE_EQ(v.lower, 0.75);
  EXPECT_DOUBLE_EQ(v.upper, 0.85);
  v = verdict(0.8, 0.9, 0.05);  // better than the task: robust but not invariant
  EXPECT_TRUE(v.robust);
  EXPECT_FALSE(v.bounded);
  v = verdict(0.8, 0.7, 0.05);
  EXPECT_FALSE(v.robust);
  EXPECT_FALSE(v.bounded);
  v = verdict(0.03, 0.0, 0.05);  // min(0, p − τ) = 0: the bound is 0, not −0.02
  EXPECT_DOUBLE_EQ(v.lower, 0.0);
  EXPECT_TRUE(v.robust);
  EXPECT_TRUE(v.bounded);
}

TEST(RobustnessScoring, PopulationMeanAndSampleStd) {
  const Bed bed = small_bed();
  std::vector<ModelScore> models;
  // Task accuracies 2/4, 3/4, 4/4: mean 0.75, sample std 0.25.
  models.push_back(score_model("a", bed, {"pos", "neg", "neg", "pos", "neg", "neg", "pos", "pos", "neg"}));
  models.push_back(score_model("b", bed, {"pos", "neg", "neg", "neg", "neg", "neg", "neg", "pos", "neg"}));
  models.push_back(score_model("c", bed, {"pos", "neg", "pos", "neg", "pos", "pos", "pos", "neg", "pos"}));
  const Population p = summarize("P", models, bed.phenomena.size(), 0.05);
  EXPECT_DOUBLE_EQ(p.task.mean, 0.75);
  EXPECT_NEAR(p.task.std, 0.25, 1e-15);
  // negation: 3/3, 2/3, 1/3 → mean 2/3, std 1/3.
  EXPECT_NEAR(p.phenomena[0].mean, 2.0 / 3, 1e-15);
  EXPECT_NEAR(p.phenomena[0].std, 1.0 / 3, 1e-15);
  // irony: 2/2, 2/2, 0/2 → mean 2/3; both below 0.75 − 0.05: not robust.
  EXPECT_NEAR(p.phenomena[1].mean, 2.0 / 3, 1e-15);
  EXPECT_FALSE(p.verdicts[0].robust);
  EXPECT_FALSE(p.verdicts[1].robust);
  EXPECT_NEAR(p.templates.at("negation-1").mean, (1.0 + 1.0 + 0.0) / 3, 1e-15);
  const auto single = summarize("S", {models[0]}, bed.phenomena.size(), 0.1);
  EXPECT_EQ(single.task.std, 0.0);
}

TEST(RobustnessScoring, WelchMatchesScipyGoldens) {
  const json golden = test::load_json(test::fixture("robustness/welch.json"));
  ASSERT_FALSE(golden["ttests"].empty());
  for (const auto& record : golden["ttests"]) {
    const auto c = compare_column("x", record["a"].get<std::vector<double>>(), record["b"].get<std::vector<double>>());
    ASSERT_TRUE(c.tested);
    if (record["statistic"].is_string()) {  // "NaN": constant samples
      EXPECT_TRUE(std::isnan(c.welch.t));
      EXPECT_TRUE(std::isnan(c.welch.pvalue));
      EXPECT_EQ(c.stars, "");
      continue;
    }
    const double t = record["statistic"], p = record["pvalue"];
    EXPECT_NEAR(c.welch.t, t, 1e-9 * std::fabs(t));
    EXPECT_NEAR(c.welch.pvalue, p, 1e-9 * p);
    EXPECT_EQ(c.stars, stars(p));
  }
  EXPECT_FALSE(compare_column("x", {1.0}, {1.0, 2.0}).tested);
}

TEST(RobustnessScoring, Stars) {
  EXPECT_EQ(stars(0.2), "");
  EXPECT_EQ(stars(0.05), "");
  EXPECT_EQ(stars(0.049), "*");
  EXPECT_EQ(stars(0.0099), "**");
  EXPECT_EQ(stars(0.00099), "***");
  EXPECT_EQ(stars(NAN), "");
}

TEST(RobustnessReport, TablesCsvLatexAndJson) {
  const Bed bed = small_bed();
  auto model = [&](const std::string& name, const std::vector<std::string>& predictions) {
    return score_model(name, bed, predictions);
  };
  const std::vector<std::string> right{"pos", "neg", "pos", "neg", "neg", "neg", "pos", "pos", "neg"};
  std::vector<std::string> wrong = right;
  for (std::size_t i = 4; i < 9; ++i) wrong[i] = wrong[i] == "pos" ? "neg" : "pos";
  std::vector<std::string> almost = right;
  almost[8] = "pos";
  std::vector<ModelScore> a{model("a1", wrong), model("a2", wrong), model("a3", almost)};
  std::vector<ModelScore> b{model("b1", right), model("b2", right), model("b3", almost)};
  const auto result = make_score_result(bed, 0.05, {summarize("vanilla", a, 2, 0.05), summarize("augmented", b, 2, 0.05)});
  ASSERT_EQ(result.comparisons.size(), 3u);
  EXPECT_EQ(result.comparisons[0].column, "task");
  EXPECT_FALSE(result.comparisons[0].tested ? std::isfinite(result.comparisons[0].welch.t) : false);
  // negation: 0,0,1 vs 1,1,1 → not significant (the second sample is constant); irony 0,0,1/2 vs 1,1,1/2.
  const report::Provenance provenance{.version = "1.2.3", .command = "invar robustness score", .date = "2026-11-27T17:42:57Z",
                                      .settings = {{"--tau", "0.05"}}};
  const json j = score_json(result, provenance);
  EXPECT_EQ(j["provenance"]["invar"], "1.2.3");
  EXPECT_EQ(j["provenance"]["settings"]["--tau"], "0.05");
  EXPECT_EQ(j["populations"][1]["name"], "augmented");
  EXPECT_DOUBLE_EQ(j["populations"][1]["task"]["mean"].get<double>(), 1.0);
  EXPECT_EQ(j["populations"][0]["models"][2]["phenomena"]["irony"]["correct"], 1);
  EXPECT_EQ(j["comparison"]["sets"].size(), 3u);
  const std::string csv = score_csv(result, provenance);
  EXPECT_EQ(csv.rfind("# invar: 1.2.3\n# command: invar robustness score\n# date: 2026-11-27T17:42:57Z\n"
                      "# setting: --tau = 0.05\npopulation,model,", 0), 0u) << csv;
  EXPECT_NE(csv.find("vanilla,a1,task,task,4,4,1\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("augmented,b3,phenomenon,irony,1,2,0.5\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("vanilla,a1,template,negation-1,0,2,0\n"), std::string::npos) << csv;
  const std::string latex = score_latex(result, provenance);
  EXPECT_EQ(latex.rfind("% invar: 1.2.3\n% command: invar robustness score\n", 0), 0u) << latex;
  EXPECT_NE(latex.find("Population & Task & negation & irony \\\\"), std::string::npos) << latex;
  EXPECT_NE(latex.find("vanilla & $1.0000 \\pm 0.0000$"), std::string::npos) << latex;
  const std::string text = score_text(result);
  EXPECT_NE(text.find("Welch's t-test"), std::string::npos);
  EXPECT_EQ(report::csv_number(4.6), "4.6");  // not {:.17g}'s 4.5999999999999996
  EXPECT_EQ(report::csv_number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(report::csv_number(2.0 / 3.0), "0.6666666666666666");
  EXPECT_EQ(report::csv_number(std::nan("")), "");
  EXPECT_EQ(report::csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(report::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(RobustnessReport, LatexStarsTheSecondPopulationWhereWelchIsSignificant) {
  const Bed bed = small_bed();
  std::vector<ModelScore> a, b;
  // Task accuracies 0.5, 0.5, 0.75 vs 1, 1, 0.75 (Welch p ≈ 0.02: one star).
  const std::vector<std::vector<std::string>> low{{"pos", "pos", "neg", "neg"}, {"neg", "neg", "pos", "pos"}, {"pos", "pos", "pos", "neg"}};
  const std::vector<std::vector<std::string>> high{{"pos", "neg", "pos", "neg"}, {"pos", "neg", "pos", "neg"}, {"pos", "pos", "pos", "neg"}};
  const std::vector<std::string> rest{"neg", "neg", "pos", "pos", "neg"};
  for (auto predictions : low) {
    predictions.insert(predictions.end(), rest.begin(), rest.end());
    a.push_back(score_model("a", bed, predictions));
  }
  for (auto predictions : high) {
    predictions.insert(predictions.end(), rest.begin(), rest.end());
    b.push_back(score_model("b", bed, predictions));
  }
  const auto result = make_score_result(bed, 0.05, {summarize("A", a, 2, 0.05), summarize("B", b, 2, 0.05)});
  const auto expected = stats::ttest_ind({0.5, 0.5, 0.75}, {1, 1, 0.75}, false);
  EXPECT_DOUBLE_EQ(result.comparisons[0].welch.pvalue, expected.pvalue);
  ASSERT_EQ(result.comparisons[0].stars, stars(expected.pvalue));
  ASSERT_FALSE(result.comparisons[0].stars.empty());
  EXPECT_NE(score_latex(result, {}).find("B & $0.9167 \\pm 0.1443$$^{" + result.comparisons[0].stars + "}$"),
            std::string::npos)
      << score_latex(result, {});
}

// ---- A model end to end ---------------------------------------------------------------------------

namespace {

std::vector<std::string> classify_labels(const std::vector<std::string>& texts) {
  std::string input;
  for (const auto& t : texts) input += t + "\n";
  const auto result = test::run_cli({"-q", "classify", "-m", kModel}, input);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::string> labels;
  std::istringstream lines(result.out);
  std::string line;
  while (std::getline(lines, line)) labels.push_back(json::parse(line)["label"] == "paraphrase" ? "positive" : "negative");
  return labels;
}

const char* kSmallTemplates =
    "labels\tnegative\tpositive\n"
    "slot\tADJ\tgood\tgreat\tawful\n"
    "slot\tTHING\tfilm\tplot\n"
    "flip\tNOT\t\tnot\n"
    "template\tnegation\tpositive\tThe @THING@ is @NOT@ @ADJ@.\n"
    "template\tirony\tnegative\tWhat a @ADJ@ @THING@, I slept through it.\n";

}  // namespace

// p and p′ of `score` equal the accuracies of `invar classify`'s labels mapped through the label map.
TEST(RobustnessCli, ScoresAClassifierThroughALabelMap) {
  const std::string templates = write("small.tsv", kSmallTemplates);
  std::vector<std::string> args{"-q", "robustness", "score", "-m", kModel, "--task", bundled("task.tsv"),
                                "--templates", templates, "--json", "--tau", "0.1"};
  args.insert(args.end(), kLabelMap.begin(), kLabelMap.end());
  const auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json j = json::parse(result.out);

  const Bed bed = make_bed(read_labelled_set(bundled("task.tsv"), {}), [&] {
    std::vector<std::string> warnings;
    return expand(read_templates({templates}, warnings));
  }());
  const auto predicted = classify_labels(all_texts(bed));
  const ModelScore expected = score_model(kModel, bed, predicted);
  const json& model = j["populations"][0]["models"][0];
  EXPECT_EQ(model["task"]["correct"], expected.task.correct);
  EXPECT_EQ(model["task"]["total"], 40);
  EXPECT_EQ(model["phenomena"]["negation"]["correct"], expected.phenomena[0].correct);
  EXPECT_EQ(model["phenomena"]["negation"]["total"], 12);
  EXPECT_EQ(model["phenomena"]["irony"]["correct"], expected.phenomena[1].correct);
  EXPECT_EQ(model["templates"]["irony-1"]["total"], 6);
  const Verdict v = verdict(expected.task.value(), expected.phenomena[0].value(), 0.1);
  EXPECT_EQ(j["populations"][0]["phenomena"]["negation"]["robust"], v.robust);
  EXPECT_EQ(j["populations"][0]["phenomena"]["negation"]["bounded"], v.bounded);

  // The same predictions from a file give the same numbers.
  std::string lines;
  const auto texts = all_texts(bed);
  for (std::size_t i = 0; i < texts.size(); ++i) lines += texts[i] + "\t" + (predicted[i] == "positive" ? "paraphrase" : "not_paraphrase") + "\n";
  const std::string predictions = write("predictions.tsv", lines);
  std::vector<std::string> from_file{"robustness", "score", "--predictions", predictions, "--predictions", predictions,
                                     "--task", bundled("task.tsv"), "--templates", templates, "--json"};
  from_file.insert(from_file.end(), kLabelMap.begin(), kLabelMap.end());
  const auto precomputed = test::run_cli(from_file);
  ASSERT_EQ(precomputed.exit_code, 0) << precomputed.err;
  const json p = json::parse(precomputed.out);
  EXPECT_EQ(p["populations"][0]["models"].size(), 2u);
  EXPECT_EQ(p["populations"][0]["models"][1]["phenomena"]["irony"]["correct"], expected.phenomena[1].correct);
  EXPECT_EQ(p["populations"][0]["task"]["std"], 0.0);
}

TEST(RobustnessCli, ComparesTwoPopulationsAndWritesEveryReport) {
  const std::string dir = test::temp_dir();
  const std::string templates = write("small.tsv", kSmallTemplates);
  const std::string list = write("models.txt", "# population B\n" + kModel + "\n\n" + kModel + "\n");
  std::vector<std::string> args{"-q", "robustness", "score", "-m", kModel, "-m", kModel, "--compare-models", list,
                                "--name", "vanilla", "--compare-name", "augmented", "--task", bundled("task.tsv"),
                                "--templates", templates, "--csv", dir + "/r.csv", "--latex", dir + "/r.tex",
                                "--report", dir + "/r.html"};
  args.insert(args.end(), kLabelMap.begin(), kLabelMap.end());
  const auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("population vanilla (2 models"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("vanilla vs augmented: Welch's t-test"), std::string::npos) << result.out;
  const std::string csv = test::read_file(dir + "/r.csv");
  EXPECT_EQ(csv.rfind(std::string("# invar: ") + kVersion + "\n# command: ", 0), 0u) << csv;
  const auto table_start = csv.find("population,model,");
  ASSERT_NE(table_start, std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin() + static_cast<std::ptrdiff_t>(table_start), csv.end(), '\n'), 1 + 4 * (1 + 2 + 2));
  const std::string latex = test::read_file(dir + "/r.tex");
  EXPECT_EQ(latex.rfind(std::string("% invar: ") + kVersion + "\n", 0), 0u) << latex;
  EXPECT_NE(latex.find("% model: --model " + kModel + " (huggingface, bert, "), std::string::npos) << latex;
  EXPECT_NE(latex.find("\\begin{tabular}{lccc}"), std::string::npos);
  const std::string html = test::read_file(dir + "/r.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("Welch"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"provenance\">"), std::string::npos);
}

// Every output names what made it: invar's version, the command line as run, the date, the models
// (format, model_type, size) and the data files (size, CRC-32); the single-model HTML report names
// its model and the label map in its settings.
TEST(RobustnessCli, ReportsRecordTheirProvenance) {
  const std::string dir = test::temp_dir();
  const std::string templates = write("small.tsv", kSmallTemplates);
  std::vector<std::string> args{"-q", "robustness", "score", "-m", kModel, "--task", bundled("task.tsv"),
                                "--templates", templates, "--json", "--report", dir + "/one.html"};
  args.insert(args.end(), kLabelMap.begin(), kLabelMap.end());
  const auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json p = json::parse(result.out)["provenance"];
  EXPECT_EQ(p["invar"], kVersion);
  const std::string command = p["command"];
  EXPECT_NE(command.find("invar"), std::string::npos) << command;
  EXPECT_NE(command.find("robustness score -m " + kModel), std::string::npos) << command;
  EXPECT_NE(command.find("--label-map not_paraphrase=negative,paraphrase=positive"), std::string::npos) << command;
  EXPECT_EQ(std::string(p["date"]).size(), std::string("2026-11-27T17:42:57Z").size());
  EXPECT_EQ(std::string(p["date"]).back(), 'Z');
  ASSERT_EQ(p["models"].size(), 1u);
  EXPECT_EQ(p["models"][0]["path"], kModel);
  EXPECT_EQ(p["models"][0]["option"], "--model");
  EXPECT_EQ(p["models"][0]["model_type"], "bert");
  EXPECT_GT(p["models"][0]["bytes"].get<std::uint64_t>(), 0u);
  bool task_listed = false;
  for (const auto& d : p["data"])
    if (d["path"] == bundled("task.tsv")) {
      task_listed = true;
      const std::string bytes = test::read_file(bundled("task.tsv"));
      EXPECT_EQ(d["bytes"], bytes.size());
      EXPECT_EQ(d["crc32"], fmt::format("{:08x}", crc32_of(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size())));
    }
  EXPECT_TRUE(task_listed) << p.dump(1);
  for (const auto& d : p["data"]) EXPECT_NE(d["path"], dir + "/one.html");  // outputs are not inputs
  EXPECT_EQ(p["settings"]["--label-map"], "not_paraphrase=negative,paraphrase=positive");
  const std::string html = test::read_file(dir + "/one.html");
  EXPECT_NE(html.find("<dt>population A</dt><dd>" + kModel + "</dd>"), std::string::npos) << html;
  EXPECT_NE(html.find("<dt>label map</dt><dd>not_paraphrase=negative,paraphrase=positive</dd>"), std::string::npos);
  EXPECT_NE(html.find("How this report was made"), std::string::npos);
}

TEST(RobustnessCli, AblatesEveryLayer) {
  const std::string dir = test::temp_dir();
  const std::string templates = write("small.tsv", kSmallTemplates);
  const auto result = test::run_cli({"-q", "robustness", "ablate", "-m", kModel, "--train", bundled("train.tsv"), "--task",
                                     bundled("task.tsv"), "--templates", templates, "--json", "--csv", dir + "/a.csv",
                                     "--report", dir + "/a.html"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json j = json::parse(result.out);
  EXPECT_EQ(j["provenance"]["models"][0]["model_type"], "bert");
  EXPECT_EQ(j["provenance"]["settings"]["--train"], bundled("train.tsv"));
  EXPECT_EQ(test::read_file(dir + "/a.csv").rfind(std::string("# invar: ") + kVersion + "\n", 0), 0u);
  EXPECT_NE(test::read_file(dir + "/a.html").find("How this report was made"), std::string::npos);
  ASSERT_EQ(j["layers"].size(), 3u);  // embeddings + 2 layers
  EXPECT_EQ(j["pooling"], "mean");
  EXPECT_EQ(j["classes"], (json{"negative", "positive"}));
  for (std::size_t l = 0; l < 3; ++l) {
    EXPECT_EQ(j["layers"][l]["layer"], l);
    EXPECT_EQ(j["layers"][l]["train"]["total"], 50);
    EXPECT_EQ(j["layers"][l]["task"]["total"], 40);
    EXPECT_EQ(j["layers"][l]["phenomena"]["irony"]["total"], 6);
    // 50 texts, 32 features, C = 1: a probe fits more than chance of its own training set.
    EXPECT_GT(j["layers"][l]["train"]["correct"].get<int>(), 25);
  }
  const std::string csv = test::without_provenance(test::read_file(dir + "/a.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 4);
  EXPECT_NE(test::read_file(dir + "/a.html").find("<polyline"), std::string::npos);
}

// ---- Bad input ------------------------------------------------------------------------------------

TEST(RobustnessErrors, TemplateFilesNameFileAndLine) {
  auto message = [](const std::string& content) { return error_of([&] { parse(content); }); };
  EXPECT_NE(message("template\tp\tpositive\tIt is @ADJ@.\n").find("templates.tsv:1: slot @ADJ@ has no replacement list"),
            std::string::npos);
  EXPECT_NE(message("slot\tADJ\n").find("templates.tsv:1: slot @ADJ@ has no replacement list"), std::string::npos);
  EXPECT_NE(message("slot\tADJ\tgood\ntemplate\tp\tIt is @ADJ@.\n").find("templates.tsv:2: template without a label"),
            std::string::npos);
  EXPECT_NE(message("slot\tADJ\tgood\ntemplate\tp\t \tIt is @ADJ@.\n").find("templates.tsv:2: template without a label"),
            std::string::npos);
  EXPECT_NE(message("labels\tneg\tneutral\tpos\nflip\tNOT\t\tnot\ntemplate\tp\tpos\tIt is @not@ good.\n")
                .find("templates.tsv:2: label-changing slot @NOT@ needs a binary task, but the labels are 3"),
            std::string::npos);
  EXPECT_NE(message("slot\tA\tx\nslot\ta\ty\ntemplate\tp\tl\t@A@\n").find("templates.tsv:2: slot @A@ is already defined"),
            std::string::npos);
  EXPECT_NE(message("labels\tneg\tpos\ntemplate\tp\tmaybe\tt\n").find("templates.tsv:2: label 'maybe' is not one of"),
            std::string::npos);
  EXPECT_NE(message("slots\tA\tx\n").find("templates.tsv:1: unknown line kind 'slots'"), std::string::npos);
  EXPECT_NE(message("slot\tA\tx\n").find("no templates"), std::string::npos);
  const std::string conflict = error_of([] { expand(parse("slot\tA\tx\t\ntemplate\tp\tpos\tIt is @A@.\ntemplate\tp\tneg\tIt is x.\n")); });
  EXPECT_NE(conflict.find("templates.tsv:3: 'It is x.' is generated with label 'neg' here and with label 'pos' by template p-1"),
            std::string::npos)
      << conflict;
}

TEST(RobustnessErrors, UnusedSlotIsAWarning) {
  std::vector<std::string> warnings;
  parse("slot\tUSED\tx\nslot\tSPARE\ty\ntemplate\tp\tl\t@used@\n", &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("templates.tsv:2: slot @SPARE@ is used by no template"), std::string::npos);
}

TEST(RobustnessErrors, LabelMapsAndPredictions) {
  const std::vector<std::string> task{"negative", "positive"};
  EXPECT_NE(error_of([&] { task_labels_of({"not_paraphrase", "paraphrase"}, parse_label_map({"paraphrase=positive"}), task, "m/config.json"); })
                .find("m/config.json: model label 'not_paraphrase' is unmapped"),
            std::string::npos);
  EXPECT_NE(error_of([&] { task_labels_of({"LABEL_0", "LABEL_1"}, {}, task, "m/config.json"); })
                .find("model label 'LABEL_0' is not a task label"),
            std::string::npos);
  EXPECT_NE(error_of([&] { task_labels_of({"a", "b"}, parse_label_map({"a=negative", "b=neutral"}), task, "m"); })
                .find("maps to 'neutral'"),
            std::string::npos);
  // An entry for a label the model lacks (c) is ignored: one map serves a whole population.
  EXPECT_EQ(task_labels_of({"a", "b"}, parse_label_map({"b=negative", "a=positive", "c=positive"}), task, "m"),
            (std::vector<std::string>{"positive", "negative"}));
  EXPECT_THROW(parse_label_map({"a"}), Error);
  EXPECT_THROW(parse_label_map({"a=x", "a=y"}), Error);
  const std::string predictions = write("p.tsv", "one\tpositive\ntwo\tnegative\none\tnegative\n");
  EXPECT_NE(error_of([&] { read_predictions(predictions, {}, {"one"}, {}, task); }).find("p.tsv:3: 'one' is predicted"),
            std::string::npos);
  const std::string partial = write("q.tsv", "one\tpositive\n");
  EXPECT_NE(error_of([&] { read_predictions(partial, {}, {"one", "three"}, {}, task); })
                .find("q.tsv: no prediction for the text 'three'"),
            std::string::npos);
}

TEST(RobustnessErrors, EmptyOrInconsistentSets) {
  LabelledSet task{"task.tsv", {"t"}, {"pos"}, {1}};
  EXPECT_NE(error_of([&] { make_bed(task, {}); }).find("the phenomenon sets are empty"), std::string::npos);
  EXPECT_NE(error_of([&] { make_bed(task, {{"g", "neg", "irony", "", {}}}); })
                .find("phenomenon 'irony' has label 'neg', which the task set task.tsv never uses"),
            std::string::npos);
  const std::string empty = write("empty.tsv", "");
  EXPECT_NE(error_of([&] { read_phenomenon_set(empty, {}); }).find("empty.tsv: no texts"), std::string::npos);
  const std::string missing = write("missing.tsv", "a text\tpositive\t \n");
  EXPECT_NE(error_of([&] { read_phenomenon_set(missing, {}); }).find("missing.tsv:1: empty phenomenon"), std::string::npos);
}

// The 400-byte file of the hardening report under resource limits (address space, CPU time), as a
// container or batch cluster sets them: a clear error and exit 1, well inside both limits.
TEST(RobustnessErrors, HugeExpansionFailsInsideResourceLimits) {
  std::string content;
  std::string text;
  for (char slot = 'A'; slot < 'A' + 7; ++slot) {
    content += std::string("slot\t") + slot;
    for (int r = 0; r < 10; ++r) content += "\tw" + std::to_string(r);
    content += "\n";
    text += std::string(" @") + slot + "@";
  }
  const std::string templates = write("huge.tsv", content + "template\tp\tx\t" + text + "\n");
  std::vector<std::string> command{"prlimit", "--cpu=30"};
  // ASan reserves terabytes of address space up front, so only the CPU limit applies under it.
  if (!test::under_address_sanitizer()) command.push_back("--as=4000000000");
  command.insert(command.end(), {INVAR_CLI, "robustness", "expand", templates, "-o", test::temp_dir() + "/out.tsv"});
  const auto result = test::run_program(command);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("huge.tsv:8: the templates would make 10000000 texts"), std::string::npos) << result.err;
}

// Phenomenon names come from the template file: the counts on stderr show escapes escaped.
TEST(RobustnessCli, ExpandPrintsPhenomenonNamesEscaped) {
  const auto templates = write("escape.tsv", "slot\tA\tgood\tbad\ntemplate\t\x1b]0;owned\x07neg\tx\tit is @A@\n");
  const auto result = test::run_cli({"robustness", "expand", templates, "-o", test::temp_dir() + "/out.tsv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find('\x1b'), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("\\x1b]0;owned\\x07neg: 2 texts"), std::string::npos) << result.err;
}

TEST(RobustnessErrors, CliFailsWithOneLineAndNonZeroExit) {
  const std::string templates = write("small.tsv", kSmallTemplates);
  auto fails = [](const std::vector<std::string>& args, const std::string& message) {
    const auto result = test::run_cli(args);
    EXPECT_NE(result.exit_code, 0);
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  };
  fails({"robustness", "score", "-m", kModel, "--task", bundled("task.tsv"), "--templates", templates},
        "model label 'not_paraphrase' is not a task label");
  fails({"robustness", "score", "-m", kModel, "--task", bundled("task.tsv"), "--templates", templates, "--label-map",
         "paraphrase=positive"},
        "model label 'not_paraphrase' is unmapped");
  fails({"robustness", "score", "-m", kModel, "--task", bundled("task.tsv"), "--json"}, "no phenomenon texts");
  fails({"robustness", "score", "--task", bundled("task.tsv"), "--bundled"}, "score needs models");
  fails({"robustness", "expand"}, "expand needs template files");
  fails({"robustness", "ablate", "-m", kModel, "--train", write("one.tsv", "a\tpositive\nb\tpositive\n"), "--task",
         bundled("task.tsv"), "--templates", templates},
        "one.tsv: the training set has 1 label(s)");
}
