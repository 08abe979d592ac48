// Semantic robustness (eval/robustness, `invar robustness`): template parsing and expansion, the
// bundled test beds, accuracy and verdict arithmetic against hand-computed cases, populations and
// Welch's t-test against scipy goldens, model scoring and layer ablation on a fixture classifier,
// the reports, and every bad-input error.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "core/crc32.hpp"
#include "core/error.hpp"
#include "core/version.hpp"
#include "eval/robustness/models.hpp"
#include "eval/robustness/paper_templates.hpp"
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
  const auto message = test::error_of([&] { expand(set); });
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
  EXPECT_NE(test::error_of([&] { expand(four, {.max_texts = 8}); }).find("would make 9 texts"), std::string::npos);
  EXPECT_EQ(expand(four, {.max_texts = 9}).size(), 9u);
}

// Memory counts too: few texts with long replacements.
TEST(RobustnessTemplates, ExpansionMemoryIsBoundedBeforeExpanding) {
  const std::string long_value(100000, 'x');
  const auto set = parse("slot\tA\t" + long_value + "\t" + long_value + "y\nslot\tB\t1\t2\t3\t4\t5\n"
                         "template\tp\tx\t@A@ @B@\n");
  const auto message = test::error_of([&] { expand(set, {.max_bytes = 1 << 20}); });
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
  EXPECT_NE(test::error_of([&] { expand(set); }).find("template p-1 has more than 2^64 combinations: sample them"),
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

// A slot used twice: one replacement for both (invar's format) or each occurrence drawn on its own
// (the authors' generator), in product order over the occurrences.
TEST(RobustnessTemplates, SlotDrawsSharedOrIndependent) {
  const TemplateSet set = parse("labels\tnegative\tpositive\nslot\tA\tx\ty\nflip\tNOT\t\tnot\ntemplate\tp\tpositive\t@A@ and @a@ @NOT@\n");
  auto texts = [](const std::vector<GeneratedText>& generated) {
    std::vector<std::string> out;
    for (const auto& g : generated) out.push_back(g.text + "|" + g.label);
    return out;
  };
  EXPECT_EQ(texts(expand(set)), (std::vector<std::string>{"x and x|positive", "x and x not|negative", "y and y|positive",
                                                          "y and y not|negative"}));
  const auto independent = expand(set, {.draws = Draws::Independent});
  ASSERT_EQ(independent.size(), 8u);
  EXPECT_EQ(independent[1].text, "x and x not");
  EXPECT_EQ(independent[2].text, "x and y");
  EXPECT_EQ(independent[6].text, "y and y");
  EXPECT_EQ(independent[2].replacements,
            (std::vector<std::pair<std::string, std::string>>{{"A", "x"}, {"A#2", "y"}, {"NOT", ""}}));
  EXPECT_EQ(parse_draws("shared"), Draws::Shared);
  EXPECT_THROW(parse_draws("both"), Error);
}

// tests/fixtures/robustness/paper_templates.py, expanded by hand: echo-1 "the @adj@ score and the
// @adj@ cast" 3 × 3 (each occurrence its own draw), echo-2 3 ("@adj@." is text), turn-1 3 × 2 with
// a label-changing @neg@.
TEST(RobustnessTemplates, ReadsTheAuthorsTemplateLayout) {
  std::vector<std::string> warnings;
  const TemplateSet set =
      read_paper_templates({test::fixture("robustness/paper_templates.py")}, {"negative", "positive"}, warnings);
  ASSERT_EQ(set.templates.size(), 3u);
  EXPECT_EQ(set.templates[0].id, "echo-1");
  EXPECT_EQ(set.templates[2].id, "turn-1");
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("paper_templates.py:14: slot @spare@ is used by no template of echo"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[1].find("@mystery@ has no replace entry in turn: kept as text"), std::string::npos) << warnings[1];

  const auto texts = expand(set);
  ASSERT_EQ(texts.size(), 9u + 3 + 6);
  EXPECT_EQ(texts[0].text, "the fine score and the fine cast");
  EXPECT_EQ(texts[1].text, "the fine score and the lovely cast");
  EXPECT_EQ(texts[8].text, "the score and the cast");  // empty defaults leave one space
  EXPECT_EQ(texts[8].label, "positive");
  EXPECT_EQ(texts[9].text, "a fine ending , sadly not @adj@.");  // spaces before punctuation kept
  EXPECT_EQ(texts[9].label, "negative");
  EXPECT_EQ(texts[12].text, "this film is good @mystery@ ?");
  EXPECT_EQ(texts[12].label, "positive");
  EXPECT_EQ(texts[14].text, "this film is not good @mystery@ ?");
  EXPECT_EQ(texts[14].label, "negative");  // @neg@ flips the label
  EXPECT_EQ(texts[14].replacements, (std::vector<std::pair<std::string, std::string>>{{"NEG", "not"}, {"TURN-ADJ", "good"}}));
  std::size_t positive = 0;
  for (const auto& t : texts) positive += t.label == "positive";
  EXPECT_EQ(positive, 9u + 2);
  // One draw per slot instead: echo-1 makes 3 texts.
  EXPECT_EQ(expand(set, {.draws = Draws::Shared}).size(), 3u + 3 + 6);

  const auto cli = test::run_cli({"robustness", "expand", "--paper-templates", test::fixture("robustness/paper_templates.py"),
                                  "--paper-labels", "neg,pos"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(std::count(cli.out.begin(), cli.out.end(), '\n'), 18);
  EXPECT_NE(cli.out.find("this film is never great @mystery@ ?\tneg\tturn\tturn-1\t"), std::string::npos) << cli.out;
  EXPECT_NE(cli.err.find("echo: 12 texts"), std::string::npos) << cli.err;
}

TEST(RobustnessErrors, AuthorsTemplateLayoutNamesFileAndLine) {
  auto error = [](const std::string& content, std::vector<std::string> labels = {"negative", "positive"}) {
    const std::string path = write("bad.py", content);
    std::vector<std::string> warnings;
    return test::error_of([&] { read_paper_templates({path}, labels, warnings); });
  };
  const std::string slots = "    replace = {}\n    replace['@a@'] = ['x', 'y']\n";
  EXPECT_NE(error("def f():\n    X = ['@a@', '@a@ b']\n    Y = [1]\n" + slots).find("bad.py:3: f has 1 labels (Y) for 2 templates"),
            std::string::npos);
  EXPECT_NE(error("def f():\n    X = ['@a@']\n    Y = [2]\n" + slots).find("bad.py:3: label 2 of template 1 of f is not an index"),
            std::string::npos);
  EXPECT_NE(error("def f():\n    X = [make()]\n").find("bad.py:2: expected a string literal"), std::string::npos);
  EXPECT_NE(error("def f():\n    X = ['@a@']\n" + slots).find("f has templates (X) but no labels (Y)"), std::string::npos);
  EXPECT_NE(error("def f():\n    X = ['@a@']\n    Y = [0]\n" + slots + "    label_changing_replacements = ['@b@']\n")
                .find("label-changing slot @b@ of f has no replace entry"),
            std::string::npos);
  EXPECT_NE(error("import os\n").find("no templates"), std::string::npos);
  EXPECT_NE(error("X = ['@a@']\nY = [99999999999999999999]\n").find("bad.py:2: label index 99999999999999999999 is out of range"),
            std::string::npos);
  EXPECT_NE(error("X = [' ']\nY = [0]\n").find("bad.py:1: template 1 of bad is empty"), std::string::npos);
  EXPECT_NE(error("X = ['a\nY = [0]\n").find("bad.py:1: unterminated string literal"), std::string::npos);
  EXPECT_NE(error("X = ['a',\n").find("unterminated list"), std::string::npos);
  EXPECT_NE(error("X = ['@a b@']\nY = [0]\n", {"only"}).find("at least two label names"), std::string::npos);
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
  const Population p = summarize("P", models, baselines(bed, Chance::None), 0.05);
  EXPECT_DOUBLE_EQ(p.task.mean, 0.75);
  EXPECT_NEAR(p.task.std, 0.25, 1e-15);
  // negation: 3/3, 2/3, 1/3 → mean 2/3, std 1/3.
  EXPECT_NEAR(p.phenomena[0].mean, 2.0 / 3, 1e-15);
  EXPECT_NEAR(p.phenomena[0].std, 1.0 / 3, 1e-15);
  // irony: 2/2, 2/2, 0/2 → mean 2/3; both below 0.75 − 0.05: not robust.
  EXPECT_NEAR(p.phenomena[1].mean, 2.0 / 3, 1e-15);
  EXPECT_FALSE(p.verdicts.phenomena[0].robust);
  EXPECT_FALSE(p.verdicts.phenomena[1].robust);
  EXPECT_NEAR(p.templates.at("negation-1").mean, (1.0 + 1.0 + 0.0) / 3, 1e-15);
  const auto single = summarize("S", {models[0]}, baselines(bed, Chance::None), 0.1);
  EXPECT_EQ(single.task.std, 0.0);
}

namespace {

// Task: 5 pos, 5 neg. irony: 24 neg and 1 pos (96 % one class, as invar's irony bed): irony-1 holds
// 12 neg texts, irony-2 12 neg and the pos one.
Bed skewed_bed() {
  LabelledSet task{"task.tsv", {}, {}, {}};
  for (int i = 0; i < 10; ++i) {
    task.texts.push_back("t" + std::to_string(i));
    task.labels.push_back(i < 5 ? "pos" : "neg");
    task.line_numbers.push_back(static_cast<std::size_t>(i + 1));
  }
  std::vector<GeneratedText> generated;
  for (int i = 0; i < 25; ++i)
    generated.push_back({"i" + std::to_string(i), i == 24 ? "pos" : "neg", "irony", i < 12 ? "irony-1" : "irony-2", {}});
  return make_bed(std::move(task), std::move(generated));
}

// Predictions: the task right but for `task_wrong` texts, irony texts predicted by `irony(i)`.
std::vector<std::string> skewed_predictions(const Bed& bed, int task_wrong, const std::function<std::string(int)>& irony) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < bed.task.labels.size(); ++i)
    out.push_back(static_cast<int>(i) < task_wrong ? (bed.task.labels[i] == "pos" ? "neg" : "pos") : bed.task.labels[i]);
  for (int i = 0; i < 25; ++i) out.push_back(irony(i));
  return out;
}

}  // namespace

TEST(RobustnessScoring, BalanceAndChanceLevels) {
  const Bed bed = small_bed();  // task pos 2 / neg 2; negation neg 2 / pos 1; irony pos 1 / neg 1
  const Baselines uniform = baselines(bed, Chance::Uniform);
  EXPECT_EQ(uniform.classes, 2u);
  EXPECT_EQ(uniform.task.counts, (std::map<std::string, std::size_t>{{"neg", 2}, {"pos", 2}}));
  EXPECT_EQ(uniform.task.majority, "neg");  // a tie goes to the first label in sort order
  EXPECT_DOUBLE_EQ(uniform.task.majority_share, 0.5);
  EXPECT_EQ(uniform.phenomena[0].majority, "neg");
  EXPECT_DOUBLE_EQ(uniform.phenomena[0].majority_share, 2.0 / 3);
  EXPECT_DOUBLE_EQ(uniform.phenomena[0].chance, 0.5);
  EXPECT_DOUBLE_EQ(uniform.templates.at("negation-2").chance, 0.5);
  EXPECT_EQ(uniform.phenomenon_templates[0], (std::vector<std::string>{"negation-1", "negation-2"}));
  EXPECT_TRUE(uniform.phenomenon_templates[1].empty());  // irony here is an external set
  const Baselines majority = baselines(bed, Chance::Majority);
  EXPECT_DOUBLE_EQ(majority.task.chance, 0.5);
  EXPECT_DOUBLE_EQ(majority.phenomena[0].chance, 2.0 / 3);
  // negation-2 holds only pos texts (share 1); a template uses its phenomenon's baseline.
  EXPECT_DOUBLE_EQ(majority.templates.at("negation-2").majority_share, 1.0);
  EXPECT_DOUBLE_EQ(majority.templates.at("negation-2").chance, 2.0 / 3);
  EXPECT_DOUBLE_EQ(baselines(bed, Chance::None).phenomena[0].chance, 0.0);

  EXPECT_DOUBLE_EQ(chance_corrected(0.75, 0.5), 0.5);
  EXPECT_DOUBLE_EQ(chance_corrected(0.25, 0.5), -0.5);
  EXPECT_DOUBLE_EQ(chance_corrected(0.5, 0.25), 1.0 / 3);  // four labels: (0.5 − 0.25) / 0.75
  EXPECT_DOUBLE_EQ(chance_corrected(0.7, 0.0), 0.7);
  EXPECT_TRUE(std::isnan(chance_corrected(1.0, 1.0)));
  EXPECT_FALSE(verdict(0.5, NAN, 0.05).defined);
  EXPECT_FALSE(verdict(0.5, NAN, 0.05).robust);
  EXPECT_EQ(parse_chance("majority"), Chance::Majority);
  EXPECT_THROW(parse_chance("kappa"), Error);
}

// The issue's case: a model right on 90 % of the task that calls every irony text negative scores
// 0.96 on a 96 %-negative bed.
TEST(RobustnessScoring, ChanceCorrectedVerdictsOnASkewedBed) {
  const Bed bed = skewed_bed();
  const ModelScore constant = score_model("constant", bed, skewed_predictions(bed, 1, [](int) { return "neg"; }));
  EXPECT_DOUBLE_EQ(constant.task.value(), 0.9);
  EXPECT_DOUBLE_EQ(constant.phenomena[0].value(), 0.96);

  // Plain accuracy: 0.96 ≥ 0.9 − 0.05.
  const Population none = summarize("P", {constant}, baselines(bed, Chance::None), 0.05);
  EXPECT_TRUE(none.verdicts.phenomena[0].robust);
  EXPECT_TRUE(none.verdicts.baseline_above_task[0]);  // 0.96 > 0.9: flagged whatever the chance level

  // Uniform (1/2): p̂ = 0.8, p̂′ = 0.92 ≥ 0.75; irony-1 12/12 → 1, irony-2 12/13 → 11/13.
  const Population uniform = summarize("P", {constant}, baselines(bed, Chance::Uniform), 0.05);
  EXPECT_DOUBLE_EQ(uniform.task_corrected.mean, 0.8);
  EXPECT_NEAR(uniform.phenomena_corrected[0].mean, 0.92, 1e-15);
  EXPECT_TRUE(uniform.verdicts.phenomena[0].robust);
  EXPECT_FALSE(uniform.verdicts.phenomena[0].bounded);  // 0.92 > 0.8 + 0.05
  EXPECT_NEAR(uniform.templates_corrected.at("irony-2").mean, 11.0 / 13, 1e-15);
  EXPECT_EQ(uniform.verdicts.every_template[0], std::optional<bool>(true));
  EXPECT_TRUE(uniform.verdicts.baseline_above_task[0]);

  // Majority: p̂ = (0.9 − 0.5) / 0.5 = 0.8, p̂′ = (0.96 − 0.96) / 0.04 = 0 < 0.75: not robust; irony-1
  // (1 − 0.96) / 0.04 = 1 robust, irony-2 (12/13 − 0.96) / 0.04 < 0 not: not robust for every s.
  const Population majority = summarize("P", {constant}, baselines(bed, Chance::Majority), 0.05);
  EXPECT_NEAR(majority.phenomena_corrected[0].mean, 0.0, 1e-12);
  EXPECT_FALSE(majority.verdicts.phenomena[0].robust);
  EXPECT_TRUE(majority.verdicts.templates.at("irony-1").robust);
  EXPECT_FALSE(majority.verdicts.templates.at("irony-2").robust);
  EXPECT_EQ(majority.verdicts.every_template[0], std::optional<bool>(false));
}

// A set of one label under --chance majority: no corrected value, no verdict, no "every template".
TEST(RobustnessScoring, OneLabelSetHasNoMajorityCorrectedVerdict) {
  LabelledSet task{"task.tsv", {"t1", "t2"}, {"pos", "neg"}, {1, 2}};
  Bed bed = make_bed(std::move(task), {{"s1", "neg", "sarcasm", "sarcasm-1", {}}, {"s2", "neg", "sarcasm", "sarcasm-1", {}}});
  const ModelScore m = score_model("m", bed, {"pos", "neg", "neg", "neg"});
  const Population majority = summarize("P", {m}, baselines(bed, Chance::Majority), 0.05);
  EXPECT_TRUE(std::isnan(majority.phenomena_corrected[0].mean));
  EXPECT_FALSE(majority.verdicts.phenomena[0].defined);
  EXPECT_FALSE(majority.verdicts.templates.at("sarcasm-1").defined);
  EXPECT_EQ(majority.verdicts.every_template[0], std::nullopt);
  EXPECT_EQ(majority.robust_models[0], 0u);
  // Uniform: 1.0 → 1 ≥ 1 − 0.05.
  const Population uniform = summarize("P", {m}, baselines(bed, Chance::Uniform), 0.05);
  EXPECT_EQ(uniform.verdicts.every_template[0], std::optional<bool>(true));
  const std::string csv = score_csv(make_score_result(bed, baselines(bed, Chance::Majority), 0.05, {majority}), {});
  EXPECT_NE(csv.find("P,m,phenomenon,sarcasm,2,2,1,,\n"), std::string::npos) << csv;
}

// A population mean can be robust while one of its models is not.
TEST(RobustnessScoring, PerModelVerdictsInsideAPopulation) {
  const Bed bed = skewed_bed();
  auto right = [&](int i) { return std::string(i == 24 ? "pos" : "neg"); };
  const auto good = skewed_predictions(bed, 0, right);
  // 20 of 25 irony texts right: accuracy 0.8, corrected 0.6; the wrong ones all in irony-2.
  const auto weak = skewed_predictions(bed, 0, [&](int i) { return i >= 20 ? std::string(i == 24 ? "neg" : "pos") : right(i); });
  std::vector<ModelScore> models{score_model("g1", bed, good), score_model("g2", bed, good), score_model("g3", bed, good),
                                 score_model("weak", bed, weak)};
  EXPECT_DOUBLE_EQ(models[3].phenomena[0].value(), 0.8);
  // τ = 0.2: mean p̂′ = (1 + 1 + 1 + 0.6) / 4 = 0.9 ≥ 1 − 0.2, but the weak model's 0.6 is not.
  const Population p = summarize("P", models, baselines(bed, Chance::Uniform), 0.2);
  EXPECT_NEAR(p.phenomena_corrected[0].mean, 0.9, 1e-15);
  EXPECT_TRUE(p.verdicts.phenomena[0].robust);
  EXPECT_EQ(p.robust_models[0], 3u);
  ASSERT_EQ(p.model_verdicts.size(), 4u);
  EXPECT_TRUE(p.model_verdicts[0].phenomena[0].robust);
  EXPECT_FALSE(p.model_verdicts[3].phenomena[0].robust);
  EXPECT_DOUBLE_EQ(p.model_verdicts[3].phenomena[0].p_prime, 0.6);
  // irony-1 all right for every model; the weak model gets 8 of 13 of irony-2: 2·8/13 − 1 = 3/13.
  EXPECT_TRUE(p.model_verdicts[3].templates.at("irony-1").robust);
  EXPECT_NEAR(p.model_verdicts[3].templates.at("irony-2").p_prime, 3.0 / 13, 1e-15);
  EXPECT_EQ(p.model_verdicts[3].every_template[0], std::optional<bool>(false));
  EXPECT_EQ(p.model_verdicts[0].every_template[0], std::optional<bool>(true));

  // Reports carry the per-model and per-template verdicts.
  const Baselines sets = baselines(bed, Chance::Uniform);
  const auto result = make_score_result(bed, sets, 0.2, {p});
  const json j = score_json(result, {});
  EXPECT_EQ(j["chance"], "uniform");
  EXPECT_EQ(j["phenomena"][0]["labels"]["neg"], 24);
  EXPECT_DOUBLE_EQ(j["phenomena"][0]["majority_share"].get<double>(), 0.96);
  EXPECT_EQ(j["populations"][0]["phenomena"]["irony"]["robust_models"], 3);
  EXPECT_EQ(j["populations"][0]["models"][3]["phenomena"]["irony"]["robust"], false);
  EXPECT_EQ(j["populations"][0]["models"][3]["phenomena"]["irony"]["every_template"], false);
  EXPECT_EQ(j["populations"][0]["models"][3]["templates"]["irony-1"]["robust"], true);
  // The population's irony-2: (1 + 1 + 1 + 3/13) / 4 = 21/26 ≥ 0.8.
  EXPECT_NEAR(p.templates_corrected.at("irony-2").mean, 21.0 / 26, 1e-15);
  EXPECT_EQ(j["populations"][0]["templates"]["irony-2"]["robust"], true);
  const std::string text = score_text(result);
  EXPECT_NE(text.find("0 = random guessing among 2 labels; verdicts on the corrected values"), std::string::npos) << text;
  EXPECT_NE(text.find("neg 24 / pos 1"), std::string::npos) << text;
  const std::string plain = score_text(make_score_result(bed, baselines(bed, Chance::None), 0.2,
                                                         {summarize("P", models, baselines(bed, Chance::None), 0.2)}));
  EXPECT_NE(plain.find("verdicts on plain accuracy (--chance none)\n"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("corrected values"), std::string::npos) << plain;
  EXPECT_NE(text.find("3/4"), std::string::npos) << text;
  EXPECT_NE(text.find("irony-2"), std::string::npos) << text;
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
  const Baselines sets = baselines(bed, Chance::Uniform);
  const auto result = make_score_result(bed, sets, 0.05, {summarize("vanilla", a, sets, 0.05), summarize("augmented", b, sets, 0.05)});
  ASSERT_EQ(result.comparisons.size(), 1u);
  const auto& columns = result.comparisons[0].columns;
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[0].column, "task");
  EXPECT_FALSE(columns[0].tested ? std::isfinite(columns[0].welch.t) : false);
  // negation: 0,0,1 vs 1,1,1 → not significant (the second sample is constant); irony 0,0,1/2 vs 1,1,1/2.
  const report::Provenance provenance{.version = "1.2.3", .command = "invar robustness score", .date = "2026-11-27T17:42:57Z",
                                      .settings = {{"--tau", "0.05"}}};
  const json j = score_json(result, provenance);
  EXPECT_EQ(j["provenance"]["invar"], "1.2.3");
  EXPECT_EQ(j["provenance"]["settings"]["--tau"], "0.05");
  EXPECT_EQ(j["populations"][1]["name"], "augmented");
  EXPECT_DOUBLE_EQ(j["populations"][1]["task"]["mean"].get<double>(), 1.0);
  EXPECT_EQ(j["populations"][0]["models"][2]["phenomena"]["irony"]["correct"], 1);
  EXPECT_EQ(j["comparisons"][0]["sets"].size(), 3u);
  const std::string csv = score_csv(result, provenance);
  EXPECT_EQ(csv.rfind("# invar: 1.2.3\n# command: invar robustness score\n# date: 2026-11-27T17:42:57Z\n"
                      "# setting: --tau = 0.05\npopulation,model,", 0), 0u) << csv;
  // Binary labels: corrected = 2 accuracy − 1; robust when it is ≥ max(0, 2p − 1 − τ).
  EXPECT_NE(csv.find("vanilla,a1,task,task,4,4,1,1,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("augmented,b3,phenomenon,irony,1,2,0.5,0,no\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("augmented,b1,phenomenon,irony,2,2,1,1,yes\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("vanilla,a1,template,negation-1,0,2,0,-1,no\n"), std::string::npos) << csv;
  const std::string latex = score_latex(result, provenance);
  EXPECT_EQ(latex.rfind("% invar: 1.2.3\n% command: invar robustness score\n", 0), 0u) << latex;
  EXPECT_NE(latex.find("Population & Task & negation & irony \\\\"), std::string::npos) << latex;
  EXPECT_NE(latex.find("vanilla & $1.0000 \\pm 0.0000$"), std::string::npos) << latex;
  // task pos 2 / neg 2, negation neg 2 / pos 1, irony 1 / 1.
  EXPECT_NE(latex.find("Majority baseline & $0.5000$ & $0.6667$ & $0.5000$ \\\\"), std::string::npos) << latex;
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
  const Baselines sets = baselines(bed, Chance::Uniform);
  const auto result = make_score_result(bed, sets, 0.05, {summarize("A", a, sets, 0.05), summarize("B", b, sets, 0.05)});
  const auto expected = stats::ttest_ind({0.5, 0.5, 0.75}, {1, 1, 0.75}, false);
  const Comparison& task = result.comparisons[0].columns[0];
  EXPECT_DOUBLE_EQ(task.welch.pvalue, expected.pvalue);
  ASSERT_EQ(task.stars, stars(expected.pvalue));
  ASSERT_FALSE(task.stars.empty());
  EXPECT_NE(score_latex(result, {}).find("B & $0.9167 \\pm 0.1443$$^{" + task.stars + "}$"),
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

// More than two populations (the paper's 4 architectures × 2 regimes), from prediction files.
TEST(RobustnessCli, ScoresSeveralPopulationsFromPredictionFiles) {
  const std::string templates = write("small.tsv", kSmallTemplates);
  const Bed bed = make_bed(read_labelled_set(bundled("task.tsv"), {}), [&] {
    std::vector<std::string> warnings;
    return expand(read_templates({templates}, warnings));
  }());
  const auto texts = all_texts(bed);
  const std::size_t n_task = bed.task.texts.size();
  // right: every label; flipped: the phenomenon texts wrong; constant: "negative" everywhere.
  auto predictions = [&](const std::string& name, const std::function<std::string(std::size_t, const std::string&)>& f) {
    std::string lines;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const std::string& gold = i < n_task ? bed.task.labels[i] : bed.generated[i - n_task].label;
      lines += texts[i] + "\t" + f(i, gold) + "\n";
    }
    return write(name, lines);
  };
  auto other = [](const std::string& label) { return std::string(label == "positive" ? "negative" : "positive"); };
  const std::string right = predictions("right.tsv", [](std::size_t, const std::string& gold) { return gold; });
  const std::string flipped = predictions("flipped.tsv", [&](std::size_t i, const std::string& gold) {
    return i < n_task ? gold : other(gold);
  });
  const std::string constant = predictions("constant.tsv", [](std::size_t, const std::string&) { return "negative"; });
  const std::string c_list = write("c.txt", constant + "\n" + constant + "\n");
  const std::string f_list = write("f.txt", flipped + "\n");
  const std::string dir = test::temp_dir();
  const auto result = test::run_cli({"robustness", "score", "--task", bundled("task.tsv"), "--templates", templates,
                                     "--predictions", right, "--predictions", right, "--name", "good",
                                     "--population-predictions", "const=" + c_list, "--population-predictions",
                                     "bad=" + f_list, "--json", "--latex", dir + "/p.tex", "--chance", "majority"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json j = json::parse(result.out);
  ASSERT_EQ(j["populations"].size(), 3u);
  EXPECT_EQ(j["populations"][1]["name"], "const");
  EXPECT_EQ(j["populations"][1]["models"].size(), 2u);
  EXPECT_EQ(j["chance"], "majority");
  // Pairs good-const, good-bad, const-bad.
  ASSERT_EQ(j["comparisons"].size(), 3u);
  EXPECT_EQ(j["comparisons"][2]["first"], "const");
  EXPECT_EQ(j["comparisons"][2]["second"], "bad");
  EXPECT_EQ(j["populations"][0]["phenomena"]["negation"]["robust"], true);
  EXPECT_EQ(j["populations"][2]["phenomena"]["negation"]["robust"], false);
  const std::string latex = test::read_file(dir + "/p.tex");
  EXPECT_NE(latex.find("const & "), std::string::npos) << latex;
  EXPECT_NE(latex.find("bad & "), std::string::npos) << latex;
  // A population named twice joins its lists; a malformed NAME=LIST is refused.
  const auto joined = test::run_cli({"robustness", "score", "--task", bundled("task.tsv"), "--templates", templates,
                                     "--population-predictions", "x=" + f_list, "--population-predictions",
                                     "x=" + c_list, "--json"});
  ASSERT_EQ(joined.exit_code, 0) << joined.err;
  EXPECT_EQ(json::parse(joined.out)["populations"][0]["models"].size(), 3u);
  const auto bad = test::run_cli({"robustness", "score", "--task", bundled("task.tsv"), "--templates", templates,
                                  "--population", "nolist"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--population expects NAME=LIST"), std::string::npos) << bad.err;
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

// The paper's head: an MLP on the first 8 token states (8 × 32 features) of each layer. 50 distinct
// training texts in 256 dimensions are separable, and the seeded head is the same run to run.
TEST(RobustnessCli, AblatesWithTheMlpHead) {
  const std::string templates = write("small.tsv", kSmallTemplates);
  const std::vector<std::string> args{"-q", "robustness", "ablate", "-m", kModel, "--train", bundled("train.tsv"),
                                      "--task", bundled("task.tsv"), "--templates", templates, "--json", "--head", "mlp",
                                      "--head-tokens", "8", "--hidden", "16", "--head-seed", "5"};
  const auto result = test::run_cli(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json j = json::parse(result.out);
  ASSERT_EQ(j["layers"].size(), 3u);
  EXPECT_EQ(j["pooling"], "tokens");
  EXPECT_NE(j["head"].get<std::string>().find("MLP head (16 hidden ReLU units, alpha 0.0001, seed 5) on the first 8 token"),
            std::string::npos)
      << j["head"];
  for (std::size_t l = 0; l < 3; ++l) {
    EXPECT_EQ(j["layers"][l]["train"]["total"], 50);
    EXPECT_GE(j["layers"][l]["train"]["correct"].get<int>(), 45);
    EXPECT_EQ(j["layers"][l]["phenomena"]["negation"]["total"], 12);
  }
  EXPECT_EQ(test::run_cli(args).out, result.out);
  std::vector<std::string> no_tokens = args;
  *std::find(no_tokens.begin(), no_tokens.end(), "8") = "0";
  const auto refused = test::run_cli(no_tokens);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("at least one token position"), std::string::npos) << refused.err;
}

TEST(RobustnessErrors, TemplateFilesNameFileAndLine) {
  auto message = [](const std::string& content) { return test::error_of([&] { parse(content); }); };
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
  const std::string conflict = test::error_of([] { expand(parse("slot\tA\tx\t\ntemplate\tp\tpos\tIt is @A@.\ntemplate\tp\tneg\tIt is x.\n")); });
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
  EXPECT_NE(test::error_of([&] { task_labels_of({"not_paraphrase", "paraphrase"}, parse_label_map({"paraphrase=positive"}), task, "m/config.json"); })
                .find("m/config.json: model label 'not_paraphrase' is unmapped"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { task_labels_of({"LABEL_0", "LABEL_1"}, {}, task, "m/config.json"); })
                .find("model label 'LABEL_0' is not a task label"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { task_labels_of({"a", "b"}, parse_label_map({"a=negative", "b=neutral"}), task, "m"); })
                .find("maps to 'neutral'"),
            std::string::npos);
  // An entry for a label the model lacks (c) is ignored: one map serves a whole population.
  EXPECT_EQ(task_labels_of({"a", "b"}, parse_label_map({"b=negative", "a=positive", "c=positive"}), task, "m"),
            (std::vector<std::string>{"positive", "negative"}));
  EXPECT_THROW(parse_label_map({"a"}), Error);
  EXPECT_THROW(parse_label_map({"a=x", "a=y"}), Error);
  const std::string predictions = write("p.tsv", "one\tpositive\ntwo\tnegative\none\tnegative\n");
  EXPECT_NE(test::error_of([&] { read_predictions(predictions, {}, {"one"}, {}, task); }).find("p.tsv:3: 'one' is predicted"),
            std::string::npos);
  const std::string partial = write("q.tsv", "one\tpositive\n");
  EXPECT_NE(test::error_of([&] { read_predictions(partial, {}, {"one", "three"}, {}, task); })
                .find("q.tsv: no prediction for the text 'three'"),
            std::string::npos);
}

TEST(RobustnessErrors, EmptyOrInconsistentSets) {
  LabelledSet task{"task.tsv", {"t"}, {"pos"}, {1}};
  EXPECT_NE(test::error_of([&] { make_bed(task, {}); }).find("the phenomenon sets are empty"), std::string::npos);
  EXPECT_NE(test::error_of([&] { make_bed(task, {{"g", "neg", "irony", "", {}}}); })
                .find("phenomenon 'irony' has label 'neg', which the task set task.tsv never uses"),
            std::string::npos);
  const std::string empty = write("empty.tsv", "");
  EXPECT_NE(test::error_of([&] { read_phenomenon_set(empty, {}); }).find("empty.tsv: no texts"), std::string::npos);
  const std::string missing = write("missing.tsv", "a text\tpositive\t \n");
  EXPECT_NE(test::error_of([&] { read_phenomenon_set(missing, {}); }).find("missing.tsv:1: empty phenomenon"), std::string::npos);
}

// A challenge set whose phenomenon is also a template phenomenon is refused, naming its line; other
// phenomena of the same file, and two external files sharing a name, are scored as given.
TEST(RobustnessErrors, ExternalPhenomenonNamedLikeATemplatePhenomenonIsRefused) {
  const std::vector<GeneratedText> generated{{"g", "negative", "negation", "negation-1", {}}};
  const std::string clash = write("clash.tsv", "a text\tpositive\tsarcasm\nnot good\tnegative\tnegation\n");
  EXPECT_NE(test::error_of([&] { read_phenomenon_set(clash, {}, generated); })
                .find("clash.tsv:2: phenomenon 'negation' is also a template phenomenon"),
            std::string::npos);
  EXPECT_EQ(read_phenomenon_set(clash, {}).size(), 2u);  // alone, nothing collides
  const std::vector<GeneratedText> external{{"x", "negative", "negation", "", {}}};
  EXPECT_EQ(read_phenomenon_set(clash, {}, external).size(), 2u);  // two external sets may share a name
  const std::string templates = write("small.tsv", kSmallTemplates);
  const auto refused = test::run_cli({"robustness", "score", "--task", bundled("task.tsv"), "--templates", templates,
                                      "--phenomena", clash, "--predictions", clash});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("clash.tsv:2: phenomenon 'negation' is also a template phenomenon"), std::string::npos)
      << refused.err;
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
