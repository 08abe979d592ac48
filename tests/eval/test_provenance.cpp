// The provenance record every report carries (eval/report/provenance.hpp): its JSON, comment and
// HTML forms, the facts it takes from files and models (loaders/fingerprint.hpp) without reading
// weights, and invar's table readers skipping the block a CSV table starts with.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/crc32.hpp"
#include "core/io.hpp"
#include "eval/report/provenance.hpp"
#include "eval/report/report.hpp"
#include "loaders/fingerprint.hpp"
#include "support/test_support.hpp"

using namespace invar;
using report::Provenance;

namespace {

std::string write_file(const std::string& name, const std::string& content) {
  const std::string path = test::temp_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string crc_text(const std::string& bytes) {
  return fmt::format("{:08x}", crc32_of(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
}

Provenance sample() {
  Provenance p{.version = "1.2.3", .command = "invar lip --train 'a b.tsv'", .date = "2026-11-27T17:42:57Z"};
  p.models.push_back({.option = "--model", .path = "m", .format = "invar", .model_type = "bert", .bytes = 1024,
                      .modified = "2026-01-02T03:04:05Z", .data_crc32 = "0badf00d"});
  p.data.push_back({.option = "--train", .path = "a b.tsv", .bytes = 5, .modified = "2026-01-02T03:04:05Z", .crc32 = "3610a686"});
  p.settings = {{"--seed", "42"}};
  return p;
}

}  // namespace

TEST(Provenance, CommentLinesStartWithTheVersionAndNameEveryEntry) {
  EXPECT_EQ(sample().comment_lines("#"),
            "# invar: 1.2.3\n"
            "# command: invar lip --train 'a b.tsv'\n"
            "# date: 2026-11-27T17:42:57Z\n"
            "# model: --model m (invar, bert, 1024 bytes, modified 2026-01-02T03:04:05Z, data CRC-32 0badf00d)\n"
            "# data: --train a b.tsv (5 bytes, modified 2026-01-02T03:04:05Z, CRC-32 3610a686)\n"
            "# setting: --seed = 42\n");
  // A line break in a file name must not end the comment (in LaTeX the rest would be live).
  Provenance p = sample();
  p.data[0].path = "x\n\\input{secret}";
  const std::string latex = p.comment_lines("%");
  for (std::size_t at = latex.find('\n'); at + 1 < latex.size(); at = latex.find('\n', at + 1))
    EXPECT_EQ(latex[at + 1], '%') << latex;
}

TEST(Provenance, JsonAndHtmlHoldTheSameFacts) {
  const auto j = sample().json();
  EXPECT_EQ(j["invar"], "1.2.3");
  EXPECT_EQ(j["command"], "invar lip --train 'a b.tsv'");
  EXPECT_EQ(j["models"][0]["model_type"], "bert");
  EXPECT_EQ(j["models"][0]["data_crc32"], "0badf00d");
  EXPECT_EQ(j["data"][0]["bytes"], 5);
  EXPECT_EQ(j["data"][0]["crc32"], "3610a686");
  EXPECT_EQ(j["settings"]["--seed"], "42");
  Provenance p = sample();
  p.command = "invar <script>";
  const std::string html = report::HtmlReport("t").provenance(p).html();
  EXPECT_NE(html.find("<dt>command</dt><dd>invar &lt;script&gt;</dd>"), std::string::npos) << html;
  EXPECT_LT(html.find("<details class=\"provenance\">"), html.find("</body>"));
}

TEST(Provenance, ShellQuotingAndDates) {
  EXPECT_EQ(report::shell_quote("--label-map=a=b,c"), "--label-map=a=b,c");
  EXPECT_EQ(report::shell_quote("two words"), "'two words'");
  EXPECT_EQ(report::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(report::shell_quote(""), "''");
  EXPECT_EQ(report::iso8601_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(report::iso8601_utc(1795801377), "2026-11-27T17:42:57Z");
}

TEST(Provenance, DataFilesBySizeTimeAndCrc) {
  const std::string path = write_file("hello.txt", "hello");
  const auto d = report::describe_data_file("--input", path);
  EXPECT_EQ(d.path, path);
  EXPECT_EQ(d.bytes, 5u);
  EXPECT_EQ(d.crc32, "3610a686");  // zlib.crc32(b"hello")
  EXPECT_EQ(d.modified.size(), 20u);
  const auto missing = report::describe_data_file("--input", test::temp_dir() + "/none");
  EXPECT_TRUE(missing.modified.empty());
  EXPECT_TRUE(missing.crc32.empty());
}

// A folder by its config.json and files; an .invar file by its preamble's data CRC (what loading
// checks the weights against) and its stored config.json, read without the weights.
TEST(Provenance, ModelFingerprints) {
  const std::string folder = test::fixture("core/bert-pair-cls");
  const auto hf = fingerprint_model(folder);
  ASSERT_TRUE(hf);
  EXPECT_EQ(hf->format, "huggingface");
  EXPECT_EQ(hf->model_type, "bert");
  std::uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
    if (entry.is_regular_file()) bytes += entry.file_size();
  EXPECT_EQ(hf->bytes, bytes);
  EXPECT_TRUE(hf->data_crc32.empty());

  const std::string converted = test::temp_dir() + "/fingerprint.invar";
  ASSERT_EQ(test::run_cli({"convert", folder, "-o", converted}).exit_code, 0);
  const auto invar = fingerprint_model(converted);
  ASSERT_TRUE(invar);
  EXPECT_EQ(invar->format, "invar");
  EXPECT_EQ(invar->model_type, "bert");
  const std::string file = test::read_file(converted);
  EXPECT_EQ(invar->bytes, file.size());
  std::uint64_t data_offset = 0;
  std::memcpy(&data_offset, file.data() + 32, 8);  // little-endian, as the preamble stores it
  EXPECT_EQ(invar->data_crc32, crc_text(file.substr(data_offset)));

  EXPECT_FALSE(fingerprint_model(write_file("plain.txt", "not a model")));
  EXPECT_FALSE(fingerprint_model(test::temp_dir()));
}

// invar's CSV tables start with the block; every table reader (metaeval, stats, st-eval) skips it,
// line numbers still count it, and a first line that merely starts with '#' stays data.
TEST(Provenance, TableReadersSkipTheBlock) {
  const std::string csv = write_file("with.csv", sample().comment_lines("#") + "system,score\na,1\n\"b, c\",2\nd,4\n");
  const auto table = read_table(csv, TableOptions{.format = TableFormat::Csv, .header = true});
  EXPECT_EQ(table.columns, (std::vector<std::string>{"system", "score"}));
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[1][0], "b, c");
  EXPECT_EQ(table.line_numbers[0], 8u);
  const std::string tsv = write_file("with.tsv", "# invar: 1.2.3\n# date: x\nsystem\tscore\na\t1\n");
  EXPECT_EQ(read_table(tsv, TableOptions{.format = TableFormat::Tsv, .header = true}).rows.size(), 1u);
  const std::string hash = write_file("hash.tsv", "#1\t2\n#3\t4\n");
  EXPECT_EQ(read_table(hash, TableOptions{.format = TableFormat::Tsv}).rows.size(), 2u);
  const auto numbers = test::run_cli(
      {"stats", "correlate", "--x", csv, "--x-column", "score", "--y-column", "score", "--method", "pearson", "--json"});
  ASSERT_EQ(numbers.exit_code, 0) << numbers.err;
  const auto stats = nlohmann::json::parse(numbers.out);
  EXPECT_EQ(stats["provenance"]["data"][0]["option"], "--x");  // the front binary records it as invar-full does
  EXPECT_EQ(stats["provenance"]["data"][0]["crc32"], crc_text(test::read_file(csv)));
}
