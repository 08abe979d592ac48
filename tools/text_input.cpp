#include "tools/text_input.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace invar::cli {

void add_text_input_options(CLI::App& command, TextInputOptions& options, const TextRoles& roles) {
  const bool pairs = roles.roles.size() == 2;
  command.add_option("--input-format", options.format,
                     pairs ? "tsv, csv or jsonl (default: from the extension .tsv, .csv, .jsonl; tsv otherwise)"
                           : "text, tsv, csv or jsonl (default: from the extension .tsv, .csv, .jsonl; text otherwise)")
      ->check(CLI::IsMember({"text", "tsv", "csv", "jsonl"}));
  command
      .add_option("--column,--text-field", options.columns,
                  pairs ? fmt::format("Column of the text, or of the two texts of a pair (FIRST,SECOND): 1-based "
                                      "numbers or header names (TSV/CSV, default 1,2), keys (JSONL, default {},{})",
                                      roles.jsonl_keys[0], roles.jsonl_keys[1])
                        : fmt::format("Column of the text: 1-based number or header name (TSV/CSV, default 1), key "
                                      "(JSONL, default {})",
                                      roles.jsonl_keys[0]))
      ->delimiter(',')
      ->expected(1, static_cast<int>(roles.roles.size()));
  command.add_flag("--header", options.header, "TSV/CSV input starts with a header line (implied by a column name)");
}

TextColumns read_input_texts(const std::string& path, const TextInputOptions& options, const TextRoles& roles) {
  if (!options.columns.empty() && options.columns.size() != roles.roles.size())
    fail("--column: each row holds {} text{} here, but {} column{} named", roles.roles.size(),
         roles.roles.size() == 1 ? "" : "s", options.columns.size(), options.columns.size() == 1 ? " is" : "s are");
  std::vector<TextColumn> columns;
  for (std::size_t i = 0; i < roles.roles.size(); ++i)
    columns.push_back({.role = roles.roles[i],
                       .selector = options.columns.empty() ? "" : options.columns.at(i),
                       .tsv_default = std::to_string(i + 1),
                       .jsonl_default = roles.jsonl_keys[i],
                       .blank_allowed = true});
  TextColumnsOptions read{.header = options.header, .rows_required = false};
  // Pairs in plain lines are two tab-separated texts, no more: a stray tab would otherwise move
  // text into a column that nothing reads.
  if (options.columns.empty() && options.format.empty() && table_format_from_path(path) == TableFormat::Text)
    read.expected_columns = roles.roles.size();
  if (!options.format.empty()) read.format = parse_table_format(options.format);
  return read_text_columns(path, columns, read);
}

}  // namespace invar::cli
