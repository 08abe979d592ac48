#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/io.hpp"
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
