#pragma once
// How every command that runs a model over texts reads them: plain lines, TSV, CSV or JSONL (by the
// extension, or --input-format), the text columns chosen with --column (JSONL keys with
// --text-field, its alias), a header line with --header (implied by a column name). One reader for
// all of them: read_text_columns (core/io.hpp).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/io.hpp"

namespace invar::cli {

struct TextInputOptions {
  std::string format;                // --input-format; empty = from the extension (text for standard input)
  std::vector<std::string> columns;  // --column: one selector per text of a row; empty = the defaults
  bool header = false;
};

// The texts of each input row, by role: {"text"} for one text per row, {"text", "text_pair"} for
// pairs; a role is also its JSONL key unless --column names another.
struct TextRoles {
  std::vector<std::string> roles;
  std::vector<std::string> jsonl_keys;  // the default keys, one per role
};
inline const TextRoles kOneText{{"text"}, {"text"}};
inline const TextRoles kTextPairs{{"text", "second text"}, {"text", "text_pair"}};

// Adds --input-format, --column (alias --text-field) and --header.
void add_text_input_options(CLI::App& command, TextInputOptions& options, const TextRoles& roles);

// The texts of `path` ("-" = standard input), [role][row]. Blank texts are kept (an empty line is an
// input), an empty file gives no rows; a text column absent from a row is an error naming file,
// line and column.
TextColumns read_input_texts(const std::string& path, const TextInputOptions& options, const TextRoles& roles);

}  // namespace invar::cli
