#include "tools/stats_io.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/lip/lip.hpp"
#include "tools/provenance.hpp"

namespace invar::cli {

namespace {
bool is_number(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }
}  // namespace

Columns read_columns(const std::string& path, const std::vector<std::string>& selectors, bool header) {
  TableOptions options{.format = table_format_from_path(path)};
  if (options.format == TableFormat::Text) options.format = TableFormat::Tsv;
  if (options.format == TableFormat::Jsonl) {
    options.fields = selectors;
  } else {
    options.header = header;
    for (const auto& s : selectors) options.header = options.header || !is_number(s);
  }
  Columns out{read_table(path, options), {}};
  if (out.table.rows.empty()) fail("{}: no rows", out.table.path);
  for (const auto& s : selectors)
    out.index.push_back(options.format == TableFormat::Jsonl ? out.index.size() : out.table.column(s));
  return out;
}

namespace {
TextColumns read_column(const std::string& path, const std::string& column, bool header) {
  return read_text_columns(path, {TextColumn{.role = "text", .selector = column, .tsv_default = "1", .jsonl_default = "text"}},
                           header);
}
}  // namespace

std::vector<std::string> read_labels(const std::string& path, const std::string& column, bool header) {
  return std::move(read_column(path, column, header).texts[0]);
}

std::vector<double> read_numbers(const std::string& path, const std::string& column, bool header) {
  const auto rows = read_column(path, column, header);
  const auto& texts = rows.texts[0];
  std::vector<double> out;
  out.reserve(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i)
    out.push_back(parse_number(texts[i], fmt::format("{}:{}", rows.path, rows.line_numbers[i])));
  return out;
}

void add_output_options(CLI::App* app, ResultOutput& output) {
  app->add_flag("--json", output.json, "Print JSON (NaN and infinities as null)");
  app->add_option("-o,--output", output.path, "Write here instead of standard output (complete or not at all)");
}

void write_result(const ResultOutput& output, nlohmann::ordered_json json, const std::string& text) {
  AtomicOutput out(output.path);
  if (output.json && json.is_object()) json["provenance"] = provenance().json();
  if (output.json) out.write_line(json.dump(2));
  else out.stream() << text;
  out.commit();
}

void add_column_options(CLI::App* app, std::string& column, bool& header) {
  app->add_option("--column", column, "Column: 1-based number or header name (TSV/CSV), key (JSONL)")
      ->capture_default_str();
  app->add_flag("--header", header, "TSV/CSV files start with a header line");
}

}  // namespace invar::cli
