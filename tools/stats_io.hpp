#pragma once
// Input and output of the stats and metaeval commands: numbers and labels read from a column of a
// text / TSV / CSV / JSONL file (core/io.hpp readers), results written as text or JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/io.hpp"
#include "core/json_number.hpp"
#include "core/number.hpp"

namespace invar::cli {

// One value per row of `column` (1-based number or header name for TSV/CSV, key for JSONL; plain
// text files hold one value per line). A header name implies a header line.
std::vector<double> read_numbers(const std::string& path, const std::string& column, bool header);
// Several columns of one table (TSV/CSV; a plain file is read as TSV; JSONL keys); a header name
// implies a header line. index[i] is the position of selectors[i] in table.rows.
struct Columns {
  Table table;
  std::vector<std::size_t> index;
};
Columns read_columns(const std::string& path, const std::vector<std::string>& selectors, bool header);

std::vector<std::string> read_labels(const std::string& path, const std::string& column, bool header);

// Where a result goes and in which form (--json, -o/--output).
struct ResultOutput {
  std::string path = "-";
  bool json = false;
};
void add_output_options(CLI::App* app, ResultOutput& output);
// Writes the JSON (indented, with the run's "provenance") or the text, complete or not at all (AtomicOutput).
void write_result(const ResultOutput& output, nlohmann::ordered_json json, const std::string& text);

// --column (default 1) and --header, for commands reading one column of each input file.
void add_column_options(CLI::App* app, std::string& column, bool& header);

}  // namespace invar::cli
