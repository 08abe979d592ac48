#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/utf8.hpp"
#include "eval/lip/labelled_texts.hpp"
#include "support/test_support.hpp"

using namespace invar;

TEST(LineReader, StripsNewlinesAndCarriageReturns) {
  auto path = test::temp_dir() + "/lines.txt";
  test::write_file(path, "one\r\ntwo\n\nfour");
  EXPECT_EQ(read_lines(path), (std::vector<std::string>{"one", "two", "", "four"}));
}

TEST(LineReader, InvalidUtf8NamesFileAndLine) {
  auto path = test::temp_dir() + "/bad.txt";
  test::write_file(path, "fine\nbro\xC3\x28ken\n");
  try {
    read_lines(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:2: invalid UTF-8 at byte 4"), std::string::npos) << e.what();
  }
}

TEST(Utf8, InvalidByteFoundAtItsOffsetAfterAnyRunOfAscii) {
  // ASCII is skipped eight bytes at a time: a bad byte is found wherever it falls in or after a block.
  for (std::size_t ascii : {0, 1, 7, 8, 9, 15, 16, 17, 40}) {
    const std::string prefix(ascii, 'a');
    EXPECT_EQ(find_invalid_utf8(prefix + "\xC3\x28" + std::string(20, 'b')), ascii) << ascii;
    EXPECT_EQ(find_invalid_utf8(prefix + "\xFF"), ascii) << ascii;
    EXPECT_EQ(find_invalid_utf8(prefix + "\xE2\x82"), ascii) << ascii;  // cut short at the end
    EXPECT_EQ(find_invalid_utf8(prefix + "\xC3\xA9\xE2\x82\xAC" + prefix + "\xF0\x9F\x98\x80"), std::string::npos);
  }
}

TEST(Table, TsvRaggedRowIsAnError) {
  auto path = test::temp_dir() + "/pairs.tsv";
  test::write_file(path, "a\tb\nc\n");
  try {
    read_table(path, {.format = TableFormat::Tsv});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pairs.tsv:2: expected 2 columns, found 1"), std::string::npos) << e.what();
  }
}

TEST(Table, CsvQuotedFieldsWithCommasQuotesAndNewlines) {
  auto path = test::temp_dir() + "/data.csv";
  test::write_file(path, "text,label\n\"a, \"\"b\"\"\nc\",1\nplain,0\n");
  auto table = read_table(path, {.format = TableFormat::Csv, .header = true});
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0][0], "a, \"b\"\nc");
  EXPECT_EQ(table.rows[0][1], "1");
  EXPECT_EQ(table.line_numbers[1], 4u);
  EXPECT_EQ(table.column("label"), 1u);
  EXPECT_EQ(table.column("1"), 0u);
  EXPECT_THROW(table.column("missing"), Error);
}

TEST(Table, JsonlSelectsFieldsAndRendersNumbers) {
  auto path = test::temp_dir() + "/data.jsonl";
  test::write_file(path, "{\"text\": \"hi\", \"score\": 0.5}\n{\"text\": \"yo\", \"score\": 2}\n");
  auto table = read_table(path, {.format = TableFormat::Jsonl, .fields = {"score", "text"}});
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0], (std::vector<std::string>{"0.5", "hi"}));
  EXPECT_EQ(table.rows[1], (std::vector<std::string>{"2", "yo"}));
  test::write_file(path, "{\"text\": \"hi\"}\n");
  EXPECT_THROW(read_table(path, {.format = TableFormat::Jsonl, .fields = {"score"}}), Error);
}

TEST(AtomicOutput, NothingAppearsUntilCommit) {
  auto dir = test::temp_dir();
  auto path = dir + "/out.jsonl";
  {
    AtomicOutput out(path);
    out.write_line("{}");
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  {
    AtomicOutput out(path);
    out.write_line("done");
    out.commit();
  }
  EXPECT_EQ(test::read_file(path), "done\n");
}

namespace {

std::size_t entries(const std::string& dir) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

void write_and_commit(const std::string& path, const std::string& line) {
  AtomicOutput out(path);
  out.write_line(line);
  out.commit();
}

}  // namespace

// Issue 18, item 6: the rename into place never replaces what -o points at.
TEST(AtomicOutput, DevicesAndFifosAreWrittenDirectly) {
  write_and_commit("/dev/null", "discarded");
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));

  const auto dir = test::temp_dir();
  const std::string fifo = dir + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo);
    received.assign(std::istreambuf_iterator<char>(in), {});
  });
  write_and_commit(fifo, "through the pipe");
  reader.join();
  EXPECT_EQ(received, "through the pipe\n");
  EXPECT_EQ(std::filesystem::status(fifo).type(), std::filesystem::file_type::fifo);
  EXPECT_EQ(entries(dir), 1u);
}

TEST(AtomicOutput, SymbolicLinksAreFollowedAndKept) {
  const auto dir = test::temp_dir();
  test::write_file(dir + "/real.txt", "old\n");
  std::filesystem::create_symlink("real.txt", dir + "/link.txt");
  std::filesystem::create_symlink("/dev/null", dir + "/null");
  write_and_commit(dir + "/link.txt", "new");
  write_and_commit(dir + "/null", "discarded");
  EXPECT_TRUE(std::filesystem::is_symlink(dir + "/link.txt"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir + "/null"));
  EXPECT_EQ(test::read_file(dir + "/real.txt"), "new\n");
  EXPECT_EQ(entries(dir), 3u);
}

TEST(AtomicOutput, DirectoryTargetFailsAndLeavesNoTemporaryFile) {
  const auto dir = test::temp_dir();
  std::filesystem::create_directory(dir + "/taken");
  try {
    AtomicOutput out(dir + "/taken");
    FAIL() << "a directory was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("taken: is a directory"), std::string::npos) << e.what();
  }
  // The directory appears while the output is being written: the rename fails, says why, and the
  // temporary file goes.
  AtomicOutput out(dir + "/later");
  out.write_line("x");
  std::filesystem::create_directory(dir + "/later");
  try {
    out.commit();
    FAIL() << "the rename over a directory succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("later: cannot rename the finished output into place ("), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(entries(dir), 2u);
}

// Found by fuzz_tables: a number beyond double's range is nlohmann's out_of_range, not a
// parse_error, and escaped as an uncaught exception.
TEST(Table, JsonlNumberOutOfRangeIsAnErrorNamingTheLine) {
  const auto path = test::temp_dir() + "/data.jsonl";
  test::write_file(path, "{\"text\": \"fine\"}\n{\"text\": \"x\", \"n\": 2222e22222222222}\n");
  try {
    read_table(path, {.format = TableFormat::Jsonl, .fields = {"text"}});
    ADD_FAILURE() << "an out-of-range number was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("data.jsonl:2: invalid JSON"), std::string::npos) << e.what();
  }
}

// Issue 18, item 8: a text field holding a number, null, an array or an object is an error naming
// file, line and key, wherever texts are read from JSONL; labels may be numbers.
TEST(Table, JsonlTextFieldsMustBeStrings) {
  const auto path = test::temp_dir() + "/data.jsonl";
  for (const std::string bad : {"42", "null", "[\"a\", \"b\"]", "{\"a\": 1}", "true"}) {
    test::write_file(path, "{\"text\": \"fine\", \"label\": 1}\n{\"text\": " + bad + ", \"label\": 0}\n");
    try {
      read_labelled_texts(path, {});
      ADD_FAILURE() << bad << " was read as a text";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("data.jsonl:2: field \"text\" must be a string, found "), std::string::npos)
          << e.what();
    }
    EXPECT_THROW(read_table(path, {.format = TableFormat::Jsonl, .fields = {"text"}, .text_fields = {"text"}}), Error);
  }
  test::write_file(path, "{\"text\": \"fine\", \"label\": 1}\n{\"text\": \"also\", \"label\": true}\n");
  const auto read = read_labelled_texts(path, {});
  EXPECT_EQ(read.texts, (std::vector<std::string>{"fine", "also"}));
  EXPECT_EQ(read.labels, (std::vector<std::string>{"1", "true"}));
}
