#pragma once
// Text input and output shared by every command: line readers that name file and line on error,
// TSV / CSV / JSONL rows with a column selector, and outputs that appear only when complete.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <istream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace invar {

// Reads a file ("-" = standard input) line by line. Strips "\n" and a "\r" before it (universal
// newlines, as Python's open() reads them); every line must be valid UTF-8.
class LineReader {
 public:
  explicit LineReader(const std::string& path);
  bool next(std::string& line);
  std::size_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  // "FILE:LINE" of the line last returned, for error messages.
  std::string where() const;

 private:
  std::string path_;
  std::unique_ptr<std::ifstream> file_;
  std::istream* in_ = nullptr;
  std::size_t line_number_ = 0;
};

std::vector<std::string> read_lines(const std::string& path);

// The whole of a file, read by its size: `<< rdbuf()` stops quietly where memory runs out, while
// here std::bad_alloc reaches the caller, which names what it was reading. Fails naming the file
// when it cannot be read whole.
std::string read_whole_file(const std::string& path);

enum class TableFormat { Text, Tsv, Csv, Jsonl };

// Guesses the format from the extension (.tsv, .csv, .jsonl/.json, anything else = text).
TableFormat table_format_from_path(const std::string& path);
std::optional<TableFormat> parse_table_format(const std::string& name);

// One row per input line (CSV: per record; quoted fields may hold newlines and doubled quotes).
// Text rows have one field. For JSONL, `fields` names the keys to read, in order; a value that is not
// a string is rendered as JSON text, except under the keys in `text_fields`, which must hold strings
// (`{"text": 42}` is an error naming line and key, not the text "42"). With `header`, the first row
// of TSV/CSV names the columns.
struct Table {
  std::vector<std::string> columns;           // from the header, or empty
  std::vector<std::vector<std::string>> rows;
  std::vector<std::size_t> line_numbers;      // the input line where each row starts
  std::string path;

  // Index of a column given by header name or 1-based number; fails naming the file.
  std::size_t column(const std::string& selector) const;
  std::string where(std::size_t row) const;
};

struct TableOptions {
  TableFormat format = TableFormat::Tsv;
  bool header = false;
  std::vector<std::string> fields;  // JSONL keys
  std::set<std::string> text_fields;  // JSONL keys whose values must be strings
  std::size_t expected_columns = 0; // 0 = any, but every row must have the same count
};

Table read_table(const std::string& path, const TableOptions& options);

// Texts picked from the columns of a table, as the evaluation commands read their inputs. Each
// column has a role (named in errors: "FILE:LINE: empty sentence 1") and a selector: a 1-based
// number or header name (TSV/CSV; a name implies a header line), a key (JSONL); an empty selector
// takes the column's default. The format follows the extension (.tsv, .csv, .jsonl/.json); any other
// file is plain lines when only column 1 is asked for, else TSV. Every text must be non-blank.
struct TextColumn {
  std::string role;
  std::string selector;
  std::string tsv_default;    // e.g. "1"
  std::string jsonl_default;  // e.g. "text"
  bool blank_allowed = false;  // keep blank cells (the caller has a policy for them) instead of failing
  bool label = false;  // JSONL: a number or boolean is read as its JSON text (labels such as 1); texts must be strings
};
// A label column: its JSONL key is its role, and a number or boolean there is read as its JSON text.
inline TextColumn label_column(const std::string& role, const std::string& selector, const std::string& tsv_default) {
  return {.role = role, .selector = selector, .tsv_default = tsv_default, .jsonl_default = role, .label = true};
}

struct TextColumns {
  std::string path;
  std::vector<std::vector<std::string>> texts;  // [column][row]
  std::vector<std::size_t> line_numbers;        // where each row starts in the file

  std::string where(std::size_t row) const;  // "FILE:LINE" of a row
};
struct TextColumnsOptions {
  bool header = false;
  std::optional<TableFormat> format;  // overrides the extension; text with a column other than 1 is an error
  bool rows_required = true;          // an empty file is an error ("no texts")
  std::size_t expected_columns = 0;   // TSV/CSV: columns every row must have; 0 = any, the same in every row
};
TextColumns read_text_columns(const std::string& path, const std::vector<TextColumn>& columns,
                              const TextColumnsOptions& options);
inline TextColumns read_text_columns(const std::string& path, const std::vector<TextColumn>& columns, bool header) {
  return read_text_columns(path, columns, TextColumnsOptions{.header = header});
}

// True when the text holds nothing but (Python) whitespace.
bool is_blank(std::string_view text);

// Output written to "PATH.tmp-XXXXXX" beside PATH and renamed over PATH by commit(), so an
// interrupted run never leaves a half-written file that looks whole. "-" writes to stdout. A
// symbolic link is followed (the file it names is replaced, the link kept); a device, FIFO or socket
// (/dev/null, /dev/stdout on a terminal or pipe) is written to directly; a directory is refused. When
// commit() fails, the temporary file is removed.
class AtomicOutput {
 public:
  explicit AtomicOutput(const std::string& path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  std::ostream& stream() { return *out_; }
  void write_line(const std::string& line);
  void commit();

 private:
  std::string path_;
  std::string target_;  // path_ with symbolic links followed
  std::string temp_path_;
  std::unique_ptr<std::ofstream> file_;
  std::ostream* out_ = nullptr;
  bool committed_ = false;
};

}  // namespace invar
