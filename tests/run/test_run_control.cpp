// Run control of the line-aligned commands (run/row_run.hpp): a run killed mid-way continues
// with --resume to the same bytes an uninterrupted run writes; a resume with other input or
// options is refused; --shard K/N parts joined by `invar merge` equal the one-process output.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "support/test_support.hpp"

namespace invar {
namespace {

using test::fixture;
using test::run_cli;
using test::write_file;

// A file as the tests compare outputs: byte for byte apart from the provenance record, which names
// each run's own command line and date (docs/cli.md).
std::string read_file(const std::string& path) { return test::without_provenance(test::read_file(path)); }

const std::string kMarian = fixture("core/marian");

// `count` lines of the Marian golden's sources, varied so that lengths differ.
std::string source_lines(std::size_t count, const std::string& separator = "") {
  const auto texts = test::case_strings(test::load_json(fixture("core/marian/golden.json")), "text");
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string text = texts[i % texts.size()] + std::string(i % 4 * 2, ' ') + std::string(i % 3, '!');
    out += separator.empty() ? text + "\n" : text + separator + texts[(i + 1) % texts.size()] + "\n";
  }
  return out;
}

std::string after_first_line(const std::string& text) { return text.substr(text.find('\n') + 1); }

std::size_t chunks_in(const std::string& path) {
  if (!std::filesystem::exists(path)) return 0;
  const std::string text = read_file(path);
  std::size_t count = 0;
  for (std::size_t at = text.find("\n#chunk "); at != std::string::npos; at = text.find("\n#chunk ", at + 1)) ++count;
  return count;
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

class RunControl : public ::testing::Test {
 protected:
  std::string dir_ = test::temp_dir();
  std::string input_ = dir_ + "/in.txt";
  std::vector<std::string> translate_ = {"-q", "translate", "-m", kMarian, "-i", input_, "--batch-size", "1",
                                         "--threads", "1", "--max-length", "32"};

  std::string whole_output(const std::vector<std::string>& args) {
    const auto result = run_cli(with(args, {"-o", dir_ + "/whole"}));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return read_file(dir_ + "/whole");
  }

  // The output of `args` run as `shards` shards, handed to merge last first.
  std::string merged_shards(const std::vector<std::string>& args, std::size_t shards = 3) {
    std::vector<std::string> merge{"merge", "-o", dir_ + "/merged"};
    for (std::size_t k = shards; k-- > 0;) {
      const std::string part = dir_ + "/part" + std::to_string(k);
      const auto result = run_cli(with(args, {"--shard", std::to_string(k) + "/" + std::to_string(shards), "-o", part}));
      EXPECT_EQ(result.exit_code, 0) << result.err;
      merge.push_back(part);
    }
    const auto merged = run_cli(merge);
    EXPECT_EQ(merged.exit_code, 0) << merged.err;
    return read_file(dir_ + "/merged");
  }

  // `args` run whole, then as two shards and merged: the whole run and the merge warn `expected`,
  // the parts warn nothing, and the merge gives the whole run's bytes.
  void expect_warning_of_whole_run(const std::vector<std::string>& args, const std::string& expected) {
    const auto whole = run_cli(with(args, {"-o", dir_ + "/whole"}));
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    EXPECT_NE(whole.err.find(expected), std::string::npos) << whole.err;
    for (const char* shard : {"0/2", "1/2"}) {
      const auto part = run_cli(with(args, {"--shard", shard, "-o", dir_ + "/part" + shard[0]}));
      ASSERT_EQ(part.exit_code, 0) << part.err;
      EXPECT_EQ(part.err.find(expected), std::string::npos) << part.err;
    }
    const auto merged = run_cli({"merge", "-o", dir_ + "/merged", dir_ + "/part0", dir_ + "/part1"});
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_NE(merged.err.find(expected), std::string::npos) << merged.err;
    EXPECT_EQ(read_file(dir_ + "/merged"), read_file(dir_ + "/whole"));
  }

  // A progress file beside `out` as a run of `args` killed while writing chunk `cut` leaves it:
  // the chunks before it (those of a one-shard partial result) and `bytes` of that chunk.
  void write_cut_progress(const std::vector<std::string>& args, const std::string& out, std::size_t cut,
                          std::size_t bytes) {
    const auto whole_part = run_cli(with(args, {"-o", dir_ + "/part", "--shard", "0/1"}));
    ASSERT_EQ(whole_part.exit_code, 0) << whole_part.err;
    std::string progress = read_file(dir_ + "/part");
    progress.replace(progress.find("\"partial\""), 9, "\"progress\"");
    const std::size_t at = progress.find("#chunk " + std::to_string(cut) + " ");
    ASSERT_NE(at, std::string::npos);
    write_file(out + ".invar-progress", progress.substr(0, at + bytes));
  }
};

TEST_F(RunControl, ResumeAfterKillGivesTheBytesOfAnUninterruptedRun) {
  write_file(input_, source_lines(500));
  const std::string expected = whole_output(translate_);
  const std::string out = dir_ + "/out", progress = out + ".invar-progress";
  const auto started = test::start_program(INVAR_CLI, with(translate_, {"-o", out}));
  while (chunks_in(progress) < 3 && waitpid(started.pid, nullptr, WNOHANG) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kill(started.pid, SIGKILL), 0);
  const auto killed = test::wait_for(started);
  ASSERT_EQ(killed.exit_code, 128 + SIGKILL) << "the run ended before it could be killed";
  ASSERT_FALSE(std::filesystem::exists(out));
  ASSERT_GE(chunks_in(progress), 3u);
  ASSERT_LT(chunks_in(progress), 500u / 8);

  const auto resumed = run_cli(with(translate_, {"-o", out, "--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(read_file(out), expected);
  EXPECT_FALSE(std::filesystem::exists(progress));
}

// isometry keeps the translations and detector probabilities of every translator and data set
// beside --per-pair when it has no --output.
TEST_F(RunControl, IsometryResumesAfterKillToTheSameReportAndPairs) {
  write_file(input_, source_lines(400, "\t"));
  const std::vector<std::string> isometry{"-q", "isometry", "--pairs", input_, "--translator", kMarian,
                                          "--detector", fixture("core/bert-pair-cls"), "--batch-size", "1",
                                          "--threads", "1", "--beam", "1", "--json"};
  const auto whole = run_cli(with(isometry, {"--per-pair", dir_ + "/whole"}));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string out = dir_ + "/pairs.jsonl", progress = out + ".invar-progress";
  const auto started = test::start_program(INVAR_CLI, with(isometry, {"--per-pair", out}));
  while (chunks_in(progress) < 3 && waitpid(started.pid, nullptr, WNOHANG) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(kill(started.pid, SIGKILL), 0);
  ASSERT_EQ(test::wait_for(started).exit_code, 128 + SIGKILL) << "the run ended before it could be killed";
  ASSERT_LT(chunks_in(progress), 400u / 8);

  const auto other = run_cli(with(isometry, {"--per-pair", out, "--resume", "--epsilon", "0.6"}));
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("cannot resume"), std::string::npos) << other.err;
  const auto resumed = run_cli(with(isometry, {"--per-pair", out, "--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(test::without_provenance(resumed.out), test::without_provenance(whole.out));
  EXPECT_EQ(read_file(out), read_file(dir_ + "/whole"));
  EXPECT_FALSE(std::filesystem::exists(progress));
}

// A run that failed at its last line leaves the chunks before it in the progress file.
class InterruptedRun : public RunControl {
 protected:
  std::string out_ = dir_ + "/out", progress_ = out_ + ".invar-progress";
  void SetUp() override {
    write_file(input_, source_lines(40) + std::string(300, 'a') + "\n");
    const auto failed = run_cli(with(translate_, {"-o", out_}));
    ASSERT_EQ(failed.exit_code, 1);
    ASSERT_NE(failed.err.find(":41:"), std::string::npos) << failed.err;
    ASSERT_EQ(chunks_in(progress_), 5u);
  }
};

// kill -9 may stop a run in the middle of writing a chunk: that chunk is computed again.
TEST_F(RunControl, AnIncompleteLastChunkIsDroppedAndRecomputed) {
  write_file(input_, source_lines(48));
  const std::string expected = whole_output(translate_);
  // Three whole chunks and a fourth cut off in its records.
  const std::string out = dir_ + "/out";
  ASSERT_NO_FATAL_FAILURE(write_cut_progress(translate_, out, 3, 20));
  const auto resumed = run_cli(with(translate_, {"-o", out, "--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(read_file(out), expected);
}

TEST_F(InterruptedRun, ResumeWithOtherOptionsOrInputIsRefused) {
  const auto other_options = run_cli(with(translate_, {"-o", out_, "--resume", "--beam", "2"}));
  EXPECT_EQ(other_options.exit_code, 1);
  EXPECT_NE(other_options.err.find("out.invar-progress: cannot resume: the progress there belongs to a run with other "
                                   "input or options"),
            std::string::npos)
      << other_options.err;
  write_file(input_, source_lines(41));
  const auto other_input = run_cli(with(translate_, {"-o", out_, "--resume"}));
  EXPECT_EQ(other_input.exit_code, 1);
  EXPECT_NE(other_input.err.find("cannot resume"), std::string::npos) << other_input.err;
  EXPECT_EQ(chunks_in(progress_), 5u);  // refusing keeps the progress
  const auto afresh = run_cli(with(translate_, {"-o", out_}));
  EXPECT_EQ(afresh.exit_code, 0) << afresh.err;
  EXPECT_FALSE(std::filesystem::exists(progress_));
}

TEST_F(RunControl, ResumeNeedsAnOutputFileAndAnInputFile) {
  write_file(input_, source_lines(3));
  const auto to_stdout = run_cli(with(translate_, {"--resume"}));
  EXPECT_EQ(to_stdout.exit_code, 1);
  EXPECT_NE(to_stdout.err.find("give --output FILE"), std::string::npos) << to_stdout.err;
  const auto from_stdin = run_cli({"translate", "-m", kMarian, "-o", dir_ + "/o", "--resume"}, source_lines(3));
  EXPECT_EQ(from_stdin.exit_code, 1);
  EXPECT_NE(from_stdin.err.find("not standard input"), std::string::npos) << from_stdin.err;
}

struct ShardCase {
  std::string name;
  std::vector<std::string> args;  // the command, without input and output
  std::string separator;          // between two texts of a line ("" = one text)
};

class ShardAndMerge : public RunControl, public ::testing::WithParamInterface<ShardCase> {};

// Three shards of 30 lines in chunks of 16 (batch size 2): the last shard has no chunk of its own
// when chunks do not divide evenly, which merge must take as it comes.
TEST_P(ShardAndMerge, PartsMergedEqualTheOneProcessOutput) {
  const auto& c = GetParam();
  write_file(input_, source_lines(30, c.separator));
  const auto args = with(c.args, {"-i", input_, "--batch-size", "2", "--threads", "1"});
  EXPECT_EQ(merged_shards(args), whole_output(args));
}

INSTANTIATE_TEST_SUITE_P(
    Commands, ShardAndMerge,
    ::testing::Values(ShardCase{"translate", {"translate", "-m", kMarian, "--max-length", "24"}, ""},
                      ShardCase{"generate", {"generate", "-m", kMarian, "--beam", "2", "--n-best", "2", "--max-length", "16"}, ""},
                      ShardCase{"score", {"score", "-m", kMarian}, "\t"},
                      ShardCase{"embed", {"embed", "-m", fixture("core/mpnet")}, ""},
                      ShardCase{"embed_npy", {"embed", "-m", fixture("core/xlmr"), "--output-format", "npy"}, ""},
                      ShardCase{"similarity", {"similarity", "-m", fixture("core/bert-wordpiece")}, "\t"},
                      ShardCase{"hidden", {"hidden", "-m", fixture("core/bert-wordpiece"), "--layer", "1"}, ""},
                      ShardCase{"classify", {"classify", "-m", fixture("core/xlmr-pair-cls"), "--pairs"}, "\t"},
                      ShardCase{"pll", {"pll", "-m", fixture("core/bert-mlm"), "--ppl"}, ""}),
    [](const auto& info) { return info.param.name; });

// Metrics: 1100 segments in chunks of 512, so that each of three shards has a chunk.
class MetricShards : public RunControl, public ::testing::WithParamInterface<std::vector<std::string>> {
 protected:
  void SetUp() override {
    write_file(dir_ + "/hyp", source_lines(1100));
    write_file(dir_ + "/hyp2", after_first_line(source_lines(1101)));
    write_file(dir_ + "/ref", source_lines(1100, " and "));
    write_file(dir_ + "/ref2", after_first_line(source_lines(1101, " or ")));
  }

  std::vector<std::string> args() {
    std::vector<std::string> out{"metric"};
    for (const auto& arg : GetParam()) out.push_back(arg.starts_with("@") ? dir_ + "/" + arg.substr(1) : arg);
    return out;
  }
};

TEST_P(MetricShards, PartsMergedEqualTheOneProcessOutput) {
  const std::string expected = whole_output(args());
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(merged_shards(args()), expected);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, MetricShards,
    ::testing::Values(std::vector<std::string>{"bleu", "-i", "@hyp", "-r", "@ref", "-r", "@ref2"},
                      std::vector<std::string>{"bleu", "-i", "@hyp", "-i", "@hyp2", "-r", "@ref", "--json", "--paired-bs",
                                               "--paired-bs-n", "50"},
                      std::vector<std::string>{"chrf", "-i", "@hyp", "-r", "@ref", "--word-order", "2", "--confidence",
                                               "--confidence-n", "50"},
                      std::vector<std::string>{"chrf", "-i", "@hyp", "-r", "@ref", "--commutative", "--json"},
                      std::vector<std::string>{"ter", "-i", "@hyp", "-r", "@ref", "--source", "@ref2"},
                      std::vector<std::string>{"ter", "-i", "@hyp", "-i", "@hyp2", "-r", "@ref", "--stats", "--json"}));

INSTANTIATE_TEST_SUITE_P(
    Sentence, MetricShards,
    ::testing::Values(std::vector<std::string>{"bleu", "-i", "@hyp", "-r", "@ref", "--sentence"},
                      std::vector<std::string>{"chrf", "-i", "@hyp", "-r", "@ref", "--sentence", "--json"},
                      std::vector<std::string>{"ter", "-i", "@hyp", "-r", "@ref", "--sentence", "--stats"}));

// The metrics scored segment by segment, each with a corpus summary from the sentence scores:
// BERTScore (its default batch size 64: chunks of 512 segments, so three), METEOR, WMD and WVCOS
// (chunks of 256). Every process reads the whole inputs: idf weights from every reference.
class SegmentMetricShards : public MetricShards {};

TEST_P(SegmentMetricShards, TwoAndThreePartsMergedEqualTheOneProcessOutput) {
  const std::string expected = whole_output(args());
  ASSERT_FALSE(expected.empty());
  for (std::size_t shards : {2, 3}) EXPECT_EQ(merged_shards(args(), shards), expected) << shards << " shards";
}

// A progress file whose second chunk was cut off in its records: the run continued with --resume keeps the first and recomputes the rest.
TEST_P(SegmentMetricShards, ResumeFromAnIncompleteProgressFileGivesTheWholeRunsBytes) {
  const std::string expected = whole_output(args());
  const std::string out = dir_ + "/out";
  ASSERT_NO_FATAL_FAILURE(write_cut_progress(args(), out, 1, 40));
  const auto resumed = run_cli(with(args(), {"-o", out, "--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(read_file(out), expected);
  EXPECT_FALSE(std::filesystem::exists(out + ".invar-progress"));
}

const std::string kBertScoreModel = fixture("core/bert-wordpiece");
const std::string kWordVectors = fixture("stmetrics/wordvecs.vec");

INSTANTIATE_TEST_SUITE_P(
    Segments, SegmentMetricShards,
    ::testing::Values(
        std::vector<std::string>{"bertscore", "-m", kBertScoreModel, "--layer", "2", "-i", "@hyp", "-r", "@ref", "-r",
                                 "@ref2", "--idf", "--sentence", "--json"},
        std::vector<std::string>{"bertscore", "-m", kBertScoreModel, "--layer", "2", "-i", "@hyp", "-r", "@ref",
                                 "--max-length", "8", "--baseline",
                                 fixture("stmetrics/bertscore_baseline_bert-wordpiece.tsv")},
        std::vector<std::string>{"meteor", "-i", "@hyp", "-r", "@ref", "-r", "@ref2", "--json"},
        std::vector<std::string>{"meteor", "-i", "@hyp", "--source", "@ref", "--sentence"},
        std::vector<std::string>{"wmd", "-i", "@hyp", "-r", "@ref", "--vectors", kWordVectors, "--sentence", "--json"},
        std::vector<std::string>{"wmd", "-i", "@hyp", "-r", "@ref", "--vectors", kWordVectors, "--unit-vectors"},
        std::vector<std::string>{"wvcos", "-i", "@hyp", "-r", "@ref", "--vectors", kWordVectors, "--sentence"},
        std::vector<std::string>{"wvcos", "-i", "@hyp", "--source", "@ref", "--vectors", kWordVectors, "--json"}));

// isometry and lip: their per-row models (translators, detectors, --transform, the SE classifier's
// encoder) split; the report and every file they write, joined by merge, are the one-process bytes.
// 30 + 13 pairs of two translators (one from a file) in chunks of 16 (batch size 2): chunks span
// data sets and translators.
class ModelReportShards : public RunControl, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    write_file(input_, source_lines(30, "\t"));
    write_file(dir_ + "/in2.txt", after_first_line(source_lines(14, "\t")));
    write_file(dir_ + "/train.tsv", source_lines(30, "\t"));
    write_file(dir_ + "/small.tsv",
               "labels\tnegative\tpositive\nslot\tADJ\tgood\tgreat\tawful\nslot\tTHING\tfilm\tplot\n"
               "flip\tNOT\t\tnot\ntemplate\tnegation\tpositive\tThe @THING@ is @NOT@ @ADJ@.\n"
               "template\tirony\tnegative\tWhat a @ADJ@ @THING@, I slept through it.\n");
    write_file(dir_ + "/contexts.tsv", "I saw a {} in the garden.\tupward\nI did not see a {} in the garden.\tdownward\n"
                                       "Every {} likes to run.\tdownward\nSome {} was sleeping.\tupward\n");
    write_file(dir_ + "/insertions.tsv", "animal\tdog\thypernym\ndog\tanimal\thyponym\nbird\tsparrow\thypernym\n"
                                         "sparrow\tbird\thyponym\ncat\ttable\tnone\nflower\trose\thypernym\n"
                                         "rose\tflower\thyponym\ncar\ttree\tnone\n");
    write_file(dir_ + "/words.tsv", "car\ten\nauto\ten\nvehicle\ten\nbig\ten\nlarge\ten\nhuge\ten\nHund\tde\nKöter\tde\nTier\tde\n");
    write_file(dir_ + "/population.txt", fixture("core/bert-pair-cls") + "\n");
    write_file(dir_ + "/informal.txt", source_lines(30));
    write_file(dir_ + "/formal.txt", after_first_line(source_lines(31)));
  }

  std::vector<std::string> args() const {
    // metamorphic: the model's outputs on 30 sources and their follow-ups under two transformations.
    if (GetParam() == "metamorphic_single")
      return {"-q", "metamorphic", "single", "-m", fixture("core/xlmr-regression"), "--sources", input_, "--transform",
              "suffix:Thanks.", "--transform", "noise:0.2", "--per-source", files_[0], "--csv", files_[1],
              "--batch-size", "2", "--threads", "1", "--json"};
    // robustness score: 58 texts (the bundled task's 40, 18 from templates) under a model of each of
    // three populations (the third from --population NAME=LIST), in chunks of 16.
    if (GetParam() == "robustness")
      return {"-q", "robustness", "score", "-m", fixture("core/bert-pair-cls"), "--compare-model",
              fixture("core/bert-pair-cls"), "--population", "third=" + dir_ + "/population.txt", "--task", std::string(INVAR_SOURCE_DIR) + "/examples/robustness/task.tsv",
              "--templates", dir_ + "/small.tsv", "--label-map", "not_paraphrase=negative,paraphrase=positive",
              "--csv", files_[0], "--latex", files_[1], "--batch-size", "2", "--threads", "1", "--json"};
    if (GetParam() == "metamorphic_pairwise")
      return {"-q", "metamorphic", "pairwise", "-m", fixture("core/xlmr"), "--sources", input_, "--transform",
              "suffix:Thanks.", "--property", "similarity", "--embeddings", "--delta", "0.9", "--per-source", files_[0],
              "--batch-size", "2", "--threads", "1"};
    // metamorphic compositionality: 4 contexts × 8 insertions; transitivity: 40 sampled triplets.
    if (GetParam() == "compositionality")
      return {"-q", "metamorphic", "compositionality", "-m", fixture("core/bert-pair-cls"), "--label", "1",
              "--contexts", dir_ + "/contexts.tsv", "--insertions", dir_ + "/insertions.tsv", "--report", files_[0],
              "--batch-size", "2", "--threads", "1", "--json"};
    if (GetParam() == "transitivity")
      return {"-q", "metamorphic", "transitivity", "-m", fixture("core/bert-pair-cls"), "--label", "paraphrase",
              "--label", "not_paraphrase", "--words", dir_ + "/words.tsv", "--samples", "40", "--report", files_[0],
              "--batch-size", "2", "--threads", "1", "--json"};
    // robustness ablate: the 50 training and 58 test texts under each of the 3 layers, in chunks of 16.
    const std::string bundled = std::string(INVAR_SOURCE_DIR) + "/examples/robustness/";
    if (GetParam() == "ablate")
      return {"-q", "robustness", "ablate", "-m", fixture("core/bert-pair-cls"), "--train", bundled + "train.tsv",
              "--task", bundled + "task.tsv", "--templates", dir_ + "/small.tsv", "--csv", files_[0], "--report",
              files_[1], "--batch-size", "2", "--threads", "1", "--json"};
    // the paper's MLP head on the first 8 token states of each layer.
    if (GetParam() == "ablate_mlp")
      return {"-q", "robustness", "ablate", "-m", fixture("core/bert-pair-cls"), "--train", bundled + "train.tsv",
              "--task", bundled + "task.tsv", "--templates", dir_ + "/small.tsv", "--head", "mlp", "--head-tokens", "8",
              "--hidden", "8", "--csv", files_[0], "--report", files_[1], "--batch-size", "2", "--threads", "1", "--json"};
    // st-eval: 3 systems of 30 outputs, each padded to 32 rows (BERTScore batches of 4), in chunks
    // of 32; idf from each system's every reference.
    if (GetParam() == "st_eval")
      return {"-q", "st-eval", "--inputs", dir_ + "/informal.txt", "--system", "a=" + dir_ + "/formal.txt",
              "--system", "b=" + dir_ + "/informal.txt", "--system", "c=" + input_, "--ref", dir_ + "/formal.txt",
              "--formality", fixture("core/xlmr-regression"), "--sts", fixture("core/xlmr-regression"), "--mlm",
              fixture("core/xlmr-mlm"), "--bertscore-model", fixture("core/bert-wordpiece"), "--bertscore-layer", "2",
              "--bertscore-idf", "--bertscore-batch-size", "4", "--vectors", kWordVectors, "--report", files_[0],
              "--batch-size", "2", "--threads", "1", "--json"};
    const std::vector<std::string> common{"--batch-size", "2", "--threads", "1", "--max-length", "16", "--json"};
    if (GetParam() == "isometry")
      return with({"-q", "isometry", "--pairs", input_, "--pairs", dir_ + "/in2.txt", "--translator", kMarian,
                   "--translations", "copy=" + input_, "--translations", "copy=" + dir_ + "/in2.txt", "--detector",
                   fixture("core/bert-pair-cls"), "--beam", "1", "--per-pair", files_[0]},
                  common);
    std::vector<std::string> lip{"-q", "lip", "--train", dir_ + "/train.tsv", "--original", input_, "--transform",
                                 kMarian, "--save-transformed", files_[0], "--predictions", files_[1],
                                 "--preset", "invar", "--runs", "2"};
    if (GetParam() == "lip_se") lip.insert(lip.end(), {"--classifier", "se", "-m", fixture("core/bert-wordpiece")});
    return with(lip, common);
  }

  // The report, then every file the command writes, as this run left them.
  std::vector<std::string> outputs(const std::string& report) const {
    std::vector<std::string> out{read_file(report)};
    for (const auto& file : files_)
      if (std::filesystem::exists(file)) out.push_back(read_file(file));
    return out;
  }

  // An option that changes the run (a resume with it is refused).
  std::vector<std::string> other_option() const {
    if (GetParam() == "st_eval") return {"--unit-vectors"};
    return {"--seed", "3"};
  }

  std::vector<std::string> files_ = {dir_ + "/file1", dir_ + "/file2"};
};

TEST_P(ModelReportShards, TwoAndThreePartsMergedEqualTheOneProcessOutput) {
  whole_output(args());
  const auto expected = outputs(dir_ + "/whole");
  // The report and --per-pair; B and --predictions; --per-source (and --csv); --report (and --csv).
  const std::size_t files = GetParam() == "isometry" || GetParam() == "metamorphic_pairwise" ||
                                    GetParam() == "st_eval" || GetParam() == "compositionality" ||
                                    GetParam() == "transitivity"
                                ? 2u
                                : 3u;
  ASSERT_EQ(expected.size(), files);
  for (const auto& text : expected) ASSERT_FALSE(text.empty());
  for (std::size_t shards : {2, 3}) {
    for (const auto& file : files_) std::filesystem::remove(file);
    merged_shards(args(), shards);
    EXPECT_EQ(outputs(dir_ + "/merged"), expected) << shards << " shards";
  }
}

INSTANTIATE_TEST_SUITE_P(Commands, ModelReportShards,
                         ::testing::Values("isometry", "lip", "lip_se", "metamorphic_single", "metamorphic_pairwise",
                                           "robustness", "ablate", "ablate_mlp", "st_eval", "compositionality",
                                           "transitivity"));

// metamorphic, robustness and st-eval keep the models' outputs beside --output: a run whose progress file
// was cut off in its second chunk continues to the bytes of the whole run.
class ModelReportResume : public ModelReportShards {};

TEST_P(ModelReportResume, ResumeFromAnIncompleteProgressFileGivesTheWholeRunsBytes) {
  whole_output(args());
  const auto expected = outputs(dir_ + "/whole");
  for (const auto& file : files_) std::filesystem::remove(file);
  const std::string out = dir_ + "/out";
  ASSERT_NO_FATAL_FAILURE(write_cut_progress(args(), out, 1, 40));
  for (const auto& file : files_) std::filesystem::remove(file);
  const auto other = run_cli(with(with(args(), {"-o", out, "--resume"}), other_option()));
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("cannot resume"), std::string::npos) << other.err;
  const auto resumed = run_cli(with(args(), {"-o", out, "--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(outputs(out), expected);
  EXPECT_FALSE(std::filesystem::exists(out + ".invar-progress"));
}

INSTANTIATE_TEST_SUITE_P(Commands, ModelReportResume,
                         ::testing::Values("metamorphic_single", "metamorphic_pairwise", "robustness", "ablate",
                                           "st_eval", "compositionality", "transitivity"));

TEST_F(RunControl, MetamorphicShardsSplitWhatTheModelComputes) {
  write_file(input_, "source\tsingle\nother\tpair\n");
  const auto no_model = run_cli({"metamorphic", "single", "--scores", input_, "--shard", "0/2", "-o", dir_ + "/p"});
  EXPECT_EQ(no_model.exit_code, 1);
  EXPECT_NE(no_model.err.find("--shard splits what -m MODEL computes"), std::string::npos) << no_model.err;
  const auto no_output = run_cli({"metamorphic", "single", "-m", fixture("core/xlmr-regression"), "--sources", input_,
                                  "--transform", "suffix:x", "--shard", "0/2"});
  EXPECT_EQ(no_output.exit_code, 1);
  EXPECT_NE(no_output.err.find("--shard writes a partial result: give --output FILE"), std::string::npos)
      << no_output.err;
}

// isometry's "N sources truncated" counts every source --truncate cut, whichever process translated
// it: the count travels in the pairs' records, so a merge (which translates nothing) reports it.
TEST_F(ModelReportShards, TruncatedSourcesAreCountedOverEveryPart) {
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += "lovely great thing ";
  std::string pairs;
  for (int i = 0; i < 20; ++i)
    pairs += (i % 6 == 0 ? long_text : "short text " + std::to_string(i)) + "\t" +
             (i % 9 == 4 ? long_text : "other text " + std::to_string(i)) + "\n";
  write_file(input_, pairs);  // long: first texts 0, 6, 12, 18; second texts 4, 13
  const std::vector<std::string> args{"isometry", "--pairs", input_, "--translator", kMarian, "--detector",
                                      fixture("core/bert-pair-cls"), "--beam", "1", "--max-length", "8",
                                      "--truncate", "--batch-size", "2", "--threads", "1", "--json"};
  expect_warning_of_whole_run(args, "invar: 6 sources truncated to the positions of " + kMarian + " (--truncate)\n");
}

// translate's "N of M sources were ... truncated" counts every source --truncate cut, whichever
// process translated it: the same count for a whole run, a resumed one, merged shards and mpirun.
TEST_F(RunControl, TranslateCountsTruncatedSourcesOverEveryPart) {
  std::string long_text, lines;
  for (int i = 0; i < 40; ++i) long_text += "lovely great thing ";
  for (int i = 0; i < 20; ++i) lines += (i % 6 == 0 ? long_text : "short text " + std::to_string(i)) + "\n";
  write_file(input_, lines);  // long: 0, 6, 12, 18; chunks of 16 rows
  const std::vector<std::string> args{"-q", "translate", "-m", kMarian, "-i", input_, "--max-length", "8",
                                      "--truncate", "--batch-size", "2", "--threads", "1"};
  const std::string expected = "4 of 20 sources were longer than the model's";
  ASSERT_NO_FATAL_FAILURE(expect_warning_of_whole_run(args, expected));
  // Killed in the second chunk: the first chunk's three cut sources come from the progress file.
  const std::string out = dir_ + "/out";
  ASSERT_NO_FATAL_FAILURE(write_cut_progress(args, out, 1, 10));
  const auto resumed = run_cli(with(args, {"-o", out, "--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(expected), std::string::npos) << resumed.err;
  EXPECT_EQ(read_file(out), read_file(dir_ + "/whole"));
}

TEST_F(ModelReportShards, MergeRefusesPartsOfOtherRunsAndShardsNeedAnOutputAndWork) {
  const auto isometry = [this](const std::vector<std::string>& more) {
    return with({"-q", "isometry", "--pairs", input_, "--detector", fixture("core/bert-pair-cls"), "--translations",
                 input_, "--batch-size", "2", "--threads", "1"},
                more);
  };
  const auto lip = with({"-q", "lip", "--train", dir_ + "/train.tsv", "--original", input_, "--transform", kMarian,
                         "--preset", "invar", "--batch-size", "2", "--threads", "1"},
                        {"--shard", "1/2", "-o", dir_ + "/lip1"});
  for (const auto& run : {isometry({"--shard", "0/2", "-o", dir_ + "/part0"}),
                          isometry({"--shard", "1/2", "-o", dir_ + "/part1", "--epsilon", "0.6"}), lip}) {
    const auto result = run_cli(run);
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  for (const auto& other : {dir_ + "/part1", dir_ + "/lip1"}) {
    const auto merged = run_cli({"merge", dir_ + "/part0", other});
    EXPECT_EQ(merged.exit_code, 1);
    EXPECT_NE(merged.err.find(other + ": a part of another run"), std::string::npos) << merged.err;
  }
  const auto no_output = run_cli(isometry({"--shard", "0/2"}));
  EXPECT_EQ(no_output.exit_code, 1);
  EXPECT_NE(no_output.err.find("--shard writes a partial result: give --output FILE"), std::string::npos)
      << no_output.err;
  const auto nothing_to_split = run_cli({"lip", "--train", dir_ + "/train.tsv", "--original", input_,
                                         "--transformed", input_, "--shard", "0/2", "-o", dir_ + "/p"});
  EXPECT_EQ(nothing_to_split.exit_code, 1);
  EXPECT_NE(nothing_to_split.err.find("--shard splits what --transform and --classifier se compute"),
            std::string::npos)
      << nothing_to_split.err;
}

#ifdef INVAR_MPIEXEC
const char* const kMpiexec = INVAR_MPIEXEC;
#else
const char* const kMpiexec = nullptr;
#endif

struct MpiCase {
  std::string name;
  std::vector<std::string> args;  // the command; "@in" is the input file
  std::string separator;          // between two texts of an input line ("" = one text)
  std::size_t lines = 100;
};

// `mpirun -n N invar ...` (a build with INVAR_MPI): 100 lines (isometry's pairs, lip's A and its
// training texts) in chunks of 16 (batch size 2), 40 lines of pll in chunks of 16, 1100 segments
// of metrics in chunks of 512 (256 for METEOR, WMD and WVCOS): every rank has a part.
// As root, as CI runs, mpirun must be told it may.
class Mpirun : public RunControl, public ::testing::WithParamInterface<MpiCase> {
 protected:
  void SetUp() override {
    if (kMpiexec == nullptr) GTEST_SKIP() << "built without INVAR_MPI";
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }

  // Under ASan (scripts/run-tests.sh --sanitize) the ranks unwind allocations fully: Open MPI's
  // libraries have no frame pointers, and tests/lsan.supp can name them only in full stacks.
  test::CliResult mpirun(const std::string& ranks, const std::vector<std::string>& args) {
    std::vector<std::string> launch{"--oversubscribe", "-n", ranks};
    if (const char* asan = std::getenv("ASAN_OPTIONS"))
      launch.insert(launch.end(), {"-x", std::string("ASAN_OPTIONS=") + asan + ":fast_unwind_on_malloc=0"});
    launch.push_back(INVAR_CLI);
    return test::wait_for(test::start_program(kMpiexec, with(launch, args)));
  }

  std::vector<std::string> args(const MpiCase& c) {
    std::vector<std::string> out;
    for (std::string arg : c.args) {  // "@in" and "@ref" also inside a value (st-eval's --system NAME=FILE)
      for (const auto& [name, path] : {std::pair{std::string("@in"), input_}, {std::string("@ref"), dir_ + "/ref"}})
        if (const auto at = arg.find(name); at != std::string::npos) arg.replace(at, name.size(), path);
      out.push_back(arg);
    }
    return out;
  }
};

TEST_P(Mpirun, TwoAndThreeRanksEqualTheOneProcessOutput) {
  const auto& c = GetParam();
  write_file(input_, source_lines(c.lines, c.separator));
  write_file(dir_ + "/ref", source_lines(c.lines, " and "));
  const std::string expected = whole_output(args(c));
  for (const char* ranks : {"2", "3"}) {
    const std::string out = dir_ + "/ranks" + ranks;
    const auto result = mpirun(ranks, with(args(c), {"-o", out}));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(read_file(out), expected) << ranks << " ranks";
    EXPECT_FALSE(std::filesystem::exists(out + ".invar-progress.1-of-" + ranks));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Commands, Mpirun,
    ::testing::Values(
        MpiCase{"translate", {"translate", "-m", kMarian, "-i", "@in", "--batch-size", "2", "--threads", "1"}, ""},
        MpiCase{"score", {"score", "-m", kMarian, "-i", "@in", "--batch-size", "2", "--threads", "1"}, "\t"},
        MpiCase{"embed", {"embed", "-m", fixture("core/mpnet"), "-i", "@in", "--batch-size", "2", "--threads", "1"}, ""},
        MpiCase{"classify",
                {"classify", "-m", fixture("core/xlmr-pair-cls"), "--pairs", "-i", "@in", "--batch-size", "2", "--threads", "1"},
                "\t"},
        MpiCase{"pll", {"pll", "-m", fixture("core/bert-mlm"), "-i", "@in", "--threads", "1"}, "", 40},
        MpiCase{"isometry",
                {"isometry", "--pairs", "@in", "--translator", kMarian, "--detector", fixture("core/bert-pair-cls"),
                 "--beam", "1", "--max-length", "16", "--batch-size", "2", "--threads", "1", "--json"},
                "\t"},
        MpiCase{"metamorphic",
                {"metamorphic", "single", "-m", fixture("core/xlmr-regression"), "--sources", "@in", "--transform",
                 "suffix:Thanks.", "--batch-size", "2", "--threads", "1", "--json"},
                ""},
        MpiCase{"lip_se",
                {"lip", "--train", "@in", "--original", "@in", "--transform", kMarian, "--max-length", "16",
                 "--classifier", "se", "-m", fixture("core/bert-wordpiece"), "--preset", "invar", "--batch-size", "2",
                 "--threads", "1", "--json"},
                "\t"},
        MpiCase{"ablate",
                {"robustness", "ablate", "-m", fixture("core/bert-pair-cls"), "--train",
                 std::string(INVAR_SOURCE_DIR) + "/examples/robustness/train.tsv", "--task",
                 std::string(INVAR_SOURCE_DIR) + "/examples/robustness/task.tsv", "--bundled", "--max-per-template",
                 "2", "--batch-size", "2", "--threads", "1", "--json"},
                ""},
        MpiCase{"st_eval",
                {"st-eval", "--inputs", "@in", "--system", "a=@ref", "--system", "b=@in", "--ref", "@ref",
                 "--formality", fixture("core/xlmr-regression"), "--mlm", fixture("core/xlmr-mlm"),
                 "--bertscore-model", kBertScoreModel, "--bertscore-layer", "2", "--bertscore-batch-size", "4",
                 "--vectors", kWordVectors, "--batch-size", "2", "--threads", "1", "--json"},
                ""},
        MpiCase{"bleu", {"metric", "bleu", "-i", "@in", "-r", "@ref", "--json"}, "", 1100},
        MpiCase{"ter_sentence", {"metric", "ter", "-i", "@in", "-r", "@ref", "--sentence"}, "", 1100},
        MpiCase{"bertscore",
                {"metric", "bertscore", "-m", kBertScoreModel, "--layer", "2", "-i", "@in", "-r", "@ref", "--idf",
                 "--sentence", "--json"},
                "", 1100},
        MpiCase{"meteor", {"metric", "meteor", "-i", "@in", "-r", "@ref", "--json"}, "", 1100},
        MpiCase{"wmd", {"metric", "wmd", "-i", "@in", "-r", "@ref", "--vectors", kWordVectors, "--sentence"}, "", 1100},
        MpiCase{"wvcos",
                {"metric", "wvcos", "-i", "@in", "-r", "@ref", "--vectors", kWordVectors, "--sentence", "--json"},
                "", 1100}),
    [](const auto& info) { return info.param.name; });

TEST_F(Mpirun, AnErrorOnOneRankEndsEveryRank) {
  write_file(input_, source_lines(60) + std::string(300, 'a') + "\n");
  const auto result = mpirun("2", with(translate_, {"-o", dir_ + "/out"}));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("in.txt:61: "), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/out"));
}

// lip --dataset reads its texts from the --data-dir folder: the parts of a run fingerprint the
// folder's files, so a part computed on other data is refused, as for input files.
TEST(LipDatasetShards, MergeRefusesAPartOfAChangedDataFolder) {
  const std::string dir = test::temp_dir(), data = dir + "/data";
  std::filesystem::copy(fixture("stmetrics/lip_synthetic"), data, std::filesystem::copy_options::recursive);
  const auto part = [&](const std::string& shard) {
    return run_cli({"-q", "lip", "--dataset", "trustpilot", "--data-dir", data, "--property", "polarity", "--classifier",
                    "se", "-m", fixture("core/bert-wordpiece"), "--threads", "1", "--shard", shard, "-o",
                    dir + "/part" + shard.substr(0, 1)});
  };
  ASSERT_EQ(part("0/2").exit_code, 0);
  const std::string train = data + "/train/english.csv";
  std::string text = read_file(train);
  text.replace(text.find("amazing"), 7, "awesome");
  write_file(train, text);
  const auto second = part("1/2");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto merged = run_cli({"merge", dir + "/part0", dir + "/part1"});
  EXPECT_EQ(merged.exit_code, 1);
  EXPECT_NE(merged.err.find("a part of another run"), std::string::npos) << merged.err;
}

class Merge : public RunControl {
 protected:
  void SetUp() override {
    write_file(input_, source_lines(40));
    for (const char* shard : {"0/2", "1/2"}) {
      const auto result = run_cli(with(translate_, {"--shard", shard, "-o", dir_ + "/part" + shard[0]}));
      ASSERT_EQ(result.exit_code, 0) << result.err;
    }
  }
  std::string part0_ = dir_ + "/part0", part1_ = dir_ + "/part1";
};

TEST_F(Merge, RefusesMissingRepeatedAndForeignParts) {
  const auto missing = run_cli({"merge", part0_});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("shard 1/2 is missing"), std::string::npos) << missing.err;
  const auto twice = run_cli({"merge", part0_, part0_, part1_});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("shard 0/2 is already given"), std::string::npos) << twice.err;
  const auto other = run_cli(with(translate_, {"--beam", "2", "--shard", "1/2", "-o", dir_ + "/other"}));
  ASSERT_EQ(other.exit_code, 0) << other.err;
  const auto foreign = run_cli({"merge", part0_, dir_ + "/other"});
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find("a part of another run"), std::string::npos) << foreign.err;
  const auto not_partial = run_cli({"merge", part0_, input_});
  EXPECT_EQ(not_partial.exit_code, 1);
  EXPECT_NE(not_partial.err.find("not a partial result"), std::string::npos) << not_partial.err;
}

TEST_F(Merge, RefusesPartsOfAnInputThatChangedSince) {
  write_file(input_, source_lines(41));
  const auto result = run_cli({"merge", part0_, part1_});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("made from other input files or options"), std::string::npos) << result.err;
}

// Run files are never written through a symbolic link: a link put where the progress file goes
// (by anyone who may create files in the output's folder) is replaced, its target left alone.
TEST_F(RunControl, ProgressIsNeverWrittenThroughASymbolicLink) {
  write_file(dir_ + "/hyp", source_lines(1100));
  write_file(dir_ + "/ref", source_lines(1100, " and "));
  const std::vector<std::string> bleu{"metric", "bleu", "-i", dir_ + "/hyp", "-r", dir_ + "/ref"};
  const std::string victim = dir_ + "/victim", out = dir_ + "/out", progress = out + ".invar-progress";
  write_file(victim, "precious\n");
  std::filesystem::create_symlink(victim, progress);
  const auto run = run_cli(with(bleu, {"-o", out}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_FALSE(std::filesystem::exists(progress));
  EXPECT_EQ(read_file(out), whole_output(bleu));

  // A progress file of this very run behind a link: --resume refuses to append through it.
  ASSERT_NO_FATAL_FAILURE(write_cut_progress(bleu, victim, 1, 40));
  const std::string kept = read_file(victim + ".invar-progress");
  std::filesystem::create_symlink(victim + ".invar-progress", progress);
  const auto resumed = run_cli(with(bleu, {"-o", out, "--resume"}));
  EXPECT_EQ(resumed.exit_code, 1);
  EXPECT_NE(resumed.err.find("out.invar-progress: is a symbolic link"), std::string::npos) << resumed.err;
  EXPECT_EQ(read_file(victim + ".invar-progress"), kept);
}

TEST_F(RunControl, AMissingOutputDirectoryIsNamed) {
  write_file(input_, "a\n");
  const auto run = run_cli({"metric", "bleu", "-i", input_, "-r", input_, "-o", dir_ + "/no/such/out.txt"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("out.txt: directory " + dir_ + "/no/such does not exist"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("invar-progress"), std::string::npos) << run.err;
}

// -o /dev/null (a device) is written directly and nothing is created beside it, which an
// unprivileged user could not do in /dev: the run is tried as user nobody when the tests run as root.
TEST_F(RunControl, NoProgressFileBesideADevice) {
  write_file(input_, source_lines(600));
  for (const auto& folder : {std::filesystem::path(dir_).parent_path(), std::filesystem::path(dir_)})
    std::filesystem::permissions(folder, std::filesystem::perms::others_exec, std::filesystem::perm_options::add);
  std::filesystem::permissions(input_, std::filesystem::perms::others_read, std::filesystem::perm_options::add);
  const std::vector<std::string> bleu{"metric", "bleu", "-i", input_, "-r", input_, "-o", "/dev/null"};
  const auto run = run_cli(bleu);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(std::filesystem::exists("/dev/null.invar-progress"));
  const auto resume = run_cli(with(bleu, {"--resume"}));
  EXPECT_EQ(resume.exit_code, 1);
  EXPECT_NE(resume.err.find("/dev/null is a device or pipe"), std::string::npos) << resume.err;
  if (geteuid() != 0 || !std::filesystem::exists("/usr/bin/setpriv")) GTEST_SKIP() << "needs root to become nobody";
  const auto nobody = test::wait_for(test::start_program(
      "/usr/bin/setpriv", with({"--reuid=nobody", "--regid=nogroup", "--clear-groups", INVAR_CLI}, bleu)));
  EXPECT_EQ(nobody.exit_code, 0) << nobody.err;
  EXPECT_FALSE(std::filesystem::exists("/dev/null.invar-progress"));
}

TEST_F(RunControl, ShardMustBeKOfN) {
  write_file(input_, source_lines(3));
  for (const char* bad : {"3/3", "1", "a/2", "1/0", "-1/2"}) {
    const auto result = run_cli(with(translate_, {"--shard", bad, "-o", dir_ + "/p"}));
    EXPECT_EQ(result.exit_code, 1) << bad;
    EXPECT_NE(result.err.find("--shard must be K/N"), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace invar
