// The run files of --resume, --shard and `invar merge` (run/run_file.hpp) as untrusted input:
// a damaged, cut-off, foreign or old-format progress or part file is refused naming the file and
// the chunk, never read into a different output.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "run/run_file.hpp"
#include "support/test_support.hpp"

namespace invar {
namespace {

using test::read_file;
using test::run_cli;
using test::write_file;

// 1100 segments: three chunks of `metric bleu` (512 segments each); shard 0/2 holds chunk 0,
// shard 1/2 chunks 1 and 2.
std::string lines(std::size_t count, const std::string& word) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += "the " + word + " sat on mat number " + std::to_string(i % 37) + "\n";
  return out;
}

class RunFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(hyp_, lines(1100, "cat"));
    write_file(ref_, lines(1100, "dog"));
    for (const char* shard : {"0/2", "1/2"}) {
      const auto part = run_cli(with({"--shard", shard, "-o", dir_ + "/part" + shard[0]}));
      ASSERT_EQ(part.exit_code, 0) << part.err;
    }
  }

  std::vector<std::string> with(const std::vector<std::string>& more) const {
    std::vector<std::string> args = bleu_;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }

  // A progress file beside `out_` as a killed run leaves it: the whole run's chunks.
  void write_progress() {
    const auto whole = run_cli(with({"--shard", "0/1", "-o", dir_ + "/whole_part"}));
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    std::string text = read_file(dir_ + "/whole_part");
    text.replace(text.find("\"partial\""), 9, "\"progress\"");
    write_file(progress_, text);
  }

  // `merge` of the two parts fails with `expected` in its message.
  void expect_merge_refused(const std::string& expected) {
    const auto merged = run_cli({"merge", "-o", dir_ + "/merged", part0_, part1_});
    EXPECT_EQ(merged.exit_code, 1);
    EXPECT_NE(merged.err.find(expected), std::string::npos) << merged.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/merged"));
  }

  // `--resume` from the progress file fails with `expected` and leaves it as it was.
  void expect_resume_refused(const std::string& expected) {
    const std::string kept = read_file(progress_);
    const auto resumed = run_cli(with({"-o", out_, "--resume"}));
    EXPECT_EQ(resumed.exit_code, 1);
    EXPECT_NE(resumed.err.find(expected), std::string::npos) << resumed.err;
    EXPECT_EQ(read_file(progress_), kept);
    EXPECT_FALSE(std::filesystem::exists(out_));
  }

  std::string dir_ = test::temp_dir();
  std::string hyp_ = dir_ + "/hyp", ref_ = dir_ + "/ref";
  std::string part0_ = dir_ + "/part0", part1_ = dir_ + "/part1";
  std::string out_ = dir_ + "/out", progress_ = out_ + ".invar-progress";
  std::vector<std::string> bleu_ = {"metric", "bleu", "--sentence", "-i", hyp_, "-r", ref_};
};

// Where chunk `index`'s records begin in `text`.
std::size_t records_of(const std::string& text, std::size_t index) {
  const std::size_t line = text.find("#chunk " + std::to_string(index) + " ");
  EXPECT_NE(line, std::string::npos) << index;
  return text.find('\n', line) + 1;
}

// One byte of a record changed to another that is not a line break.
void flip_byte(std::string& text, std::size_t at) {
  ASSERT_NE(text[at], '\n');
  text[at] = text[at] == '0' ? '1' : '0';
}

TEST_F(RunFiles, TheUntouchedFilesMergeAndResume) {
  const auto whole = run_cli(with({"-o", dir_ + "/whole"}));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const auto merged = run_cli({"merge", "-o", dir_ + "/merged", part1_, part0_});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(read_file(dir_ + "/merged"), read_file(dir_ + "/whole"));
  ASSERT_NO_FATAL_FAILURE(write_progress());
  const auto resumed = run_cli(with({"-o", out_, "--resume"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(read_file(out_), read_file(dir_ + "/whole"));
}

TEST_F(RunFiles, AFlippedByteInAChunkIsRefusedNamingFileAndChunk) {
  std::string part = read_file(part1_);
  ASSERT_NO_FATAL_FAILURE(flip_byte(part, records_of(part, 2) + 3));
  write_file(part1_, part);
  expect_merge_refused("part1: chunk 2: damaged (its CRC-32 does not match); run its shard again");

  ASSERT_NO_FATAL_FAILURE(write_progress());
  std::string progress = read_file(progress_);
  ASSERT_NO_FATAL_FAILURE(flip_byte(progress, records_of(progress, 1) + 100));
  write_file(progress_, progress);
  expect_resume_refused("out.invar-progress: chunk 1: damaged (its CRC-32 does not match); run without --resume to "
                        "start over");
}

TEST_F(RunFiles, ACutOffPartIsNamed) {
  const std::string part = read_file(part1_);
  // Cut inside chunk 2's records, then at the start of its line: the part lacks rows either way.
  write_file(part1_, part.substr(0, records_of(part, 2) + 10));
  expect_merge_refused("part1: chunk 2: its line says");
  expect_merge_refused("(the file is cut off or damaged); run its shard again");
  write_file(part1_, part.substr(0, part.find("#chunk 2 ")));
  expect_merge_refused("part1: rows 1025 to 1100 (chunk 2) are missing from this part of shard 1/2");
}

TEST_F(RunFiles, AnImpossibleByteCountIsRefused) {
  ASSERT_NO_FATAL_FAILURE(write_progress());
  const std::string progress = read_file(progress_);
  // Chunk 0's line: "#chunk 0 512 BYTES CRC". A count beyond the file is not a cut-off last chunk
  // when the rows it claims are all there after it.
  const std::size_t line = progress.find("#chunk 0 512 ");
  const std::size_t bytes = line + 13, end = progress.find(' ', bytes);
  std::string huge = progress;
  huge.replace(bytes, end - bytes, "1000000000000000");
  write_file(progress_, huge);
  expect_resume_refused("out.invar-progress: chunk 0: its line says 1000000000000000 bytes");
  std::string small = progress;
  small.replace(bytes, end - bytes, "3");
  write_file(progress_, small);
  expect_resume_refused("out.invar-progress: chunk 0: its line says 3 bytes for 512 rows");
  std::string overflow = progress;
  overflow.replace(bytes, end - bytes, "99999999999999999999999");
  write_file(progress_, overflow);
  expect_resume_refused("out.invar-progress: byte ");
}

TEST_F(RunFiles, AChunkOfAnotherShardOrBeyondTheRunIsRefused) {
  const std::string part1 = read_file(part1_);
  const std::size_t chunk1 = part1.find("#chunk 1 "), chunk2 = part1.find("#chunk 2 ");
  const std::string part0 = read_file(part0_);
  write_file(part0_, part0 + part1.substr(chunk1, chunk2 - chunk1));
  expect_merge_refused("part0: chunk 1: not a chunk of shard 0/2 (its chunks are 0 to 0); run its shard again");
  write_file(part0_, part0);

  std::string beyond = part1;
  beyond.replace(chunk2, 9, "#chunk 7 ");
  write_file(part1_, beyond);
  expect_merge_refused("part1: chunk 7: no such chunk (the run has 3)");
}

TEST_F(RunFiles, AChunkOrAPartOfAnotherRunIsRefused) {
  // Another reference: another fingerprint; its chunk 1 has the same index and row count.
  write_file(dir_ + "/ref2", lines(1100, "cow"));
  auto other = bleu_;
  other[6] = dir_ + "/ref2";
  other.insert(other.end(), {"--shard", "1/2", "-o", dir_ + "/other"});
  ASSERT_EQ(run_cli(other).exit_code, 0);
  const auto merged_other = run_cli({"merge", part0_, dir_ + "/other"});
  EXPECT_EQ(merged_other.exit_code, 1);
  EXPECT_NE(merged_other.err.find("other: a part of another run than " + part0_), std::string::npos)
      << merged_other.err;

  // Another command on the same files.
  const auto chrf = run_cli({"metric", "chrf", "--sentence", "-i", hyp_, "-r", ref_, "--shard", "1/2", "-o",
                             dir_ + "/chrf"});
  ASSERT_EQ(chrf.exit_code, 0) << chrf.err;
  const auto merged_chrf = run_cli({"merge", part0_, dir_ + "/chrf"});
  EXPECT_EQ(merged_chrf.exit_code, 1);
  EXPECT_NE(merged_chrf.err.find("chrf: a part of another run than " + part0_), std::string::npos) << merged_chrf.err;

  // The other run's chunk 1 put in place of this run's: its checksum is of the other fingerprint.
  const std::string foreign = read_file(dir_ + "/other"), part1 = read_file(part1_);
  const std::size_t at = foreign.find("#chunk 1 "), end = foreign.find("#chunk 2 ");
  const std::size_t mine = part1.find("#chunk 1 "), mine_end = part1.find("#chunk 2 ");
  write_file(part1_, part1.substr(0, mine) + foreign.substr(at, end - at) + part1.substr(mine_end));
  expect_merge_refused("part1: chunk 1: damaged (its CRC-32 does not match)");
}

TEST_F(RunFiles, AFileOfAnEarlierFormatIsRefusedNotMisread) {
  ASSERT_NO_FATAL_FAILURE(write_progress());
  std::string progress = read_file(progress_);
  progress.replace(progress.find("\"format\":2,"), 11, "");
  write_file(progress_, progress);
  expect_resume_refused("out.invar-progress:1: a progress file of an earlier invar, whose chunks carry no checksums; "
                        "run without --resume to start over");
  std::string part = read_file(part0_);
  part.replace(part.find("\"format\":2"), 10, "\"format\":3");
  write_file(part0_, part);
  expect_merge_refused("part0:1: run file format 3; this invar reads format 2; run its shard again");
}

TEST_F(RunFiles, MergeReadsOnlyRegularFiles) {
  const auto merged = run_cli({"merge", "/dev/zero", part1_});
  EXPECT_EQ(merged.exit_code, 1);
  EXPECT_NE(merged.err.find("/dev/zero: not a regular file"), std::string::npos) << merged.err;
}

// Issue 27, item 7: running out of memory on a run file names it, not only the command.
TEST(RunFilesDeathTest, OutOfMemoryReadingARunFileNamesIt) {
  if (test::under_address_sanitizer()) GTEST_SKIP() << "address-space limits do not work under ASan";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = test::temp_dir() + "/big.part";
  const run::RunHeader header{.kind = "partial", .fingerprint = "f", .rows = 1, .chunk = 1, .shard = 0, .shards = 1,
                              .command = {"metric", "bleu"}};
  write_file(path, run::header_line(header) + run::chunk_block("f", 0, {std::string(std::size_t{48} << 20, 'a')}));
  EXPECT_EQ(run::read_run_file(path).chunks.at(0).at(0).size(), std::size_t{48} << 20);
  EXPECT_EXIT(test::exit_reporting_error([&] {
                test::limit_address_space(std::size_t{24} << 20);
                run::read_run_file(path);
              }),
              ::testing::ExitedWithCode(2), "big\\.part: out of memory reading this run file of 50331[0-9]+ bytes");
}

}  // namespace
}  // namespace invar
