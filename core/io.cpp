#include "core/io.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.hpp"
#include "core/utf8.hpp"

namespace invar {

namespace {

// read(), with running out of memory (a line or a file too large to hold) reported naming `where`.
template <typename Read>
auto naming_on_out_of_memory(const std::string& where, Read read) {
  try {
    return read();
  } catch (const std::bad_alloc&) {
    fail("{}: out of memory while reading it", where);
  }
}

}  // namespace

LineReader::LineReader(const std::string& path) : path_(path) {
  if (path == "-") {
    in_ = &std::cin;
    path_ = "<stdin>";
    return;
  }
  if (std::filesystem::is_directory(path)) fail("{}: is a directory, expected a text file", path);
  file_ = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*file_) fail("{}: cannot open for reading", path);
  in_ = file_.get();
}

bool LineReader::next(std::string& line) {
  if (!std::getline(*in_, line)) {
    // getline turns what stopped it (a line longer than the memory left, a read error) into
    // badbit, which would otherwise pass for the end of the file.
    if (in_->bad()) fail("{}:{}: cannot read the line (out of memory, or a read error)", path_, line_number_ + 1);
    return false;
  }
  ++line_number_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (auto bad = find_invalid_utf8(line); bad != std::string::npos)
    fail("{}: invalid UTF-8 at byte {} of the line", where(), bad + 1);
  return true;
}

std::string LineReader::where() const { return fmt::format("{}:{}", path_, line_number_); }

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open: {}", path, std::strerror(errno));
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error) fail("{}: cannot read its size: {}", path, error.message());
  std::string bytes(size, '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    fail("{}: cannot read all its {} bytes", path, bytes.size());
  return bytes;
}

std::vector<std::string> read_lines(const std::string& path) {
  LineReader reader(path);
  return naming_on_out_of_memory(reader.path(), [&] {
    std::vector<std::string> lines;
    std::string line;
    while (reader.next(line)) lines.push_back(line);
    return lines;
  });
}

TableFormat table_format_from_path(const std::string& path) {
  auto ext = std::filesystem::path(path).extension().string();
  if (ext == ".tsv") return TableFormat::Tsv;
  if (ext == ".csv") return TableFormat::Csv;
  if (ext == ".jsonl" || ext == ".json" || ext == ".ndjson") return TableFormat::Jsonl;
  return TableFormat::Text;
}

std::optional<TableFormat> parse_table_format(const std::string& name) {
  if (name == "text" || name == "txt") return TableFormat::Text;
  if (name == "tsv") return TableFormat::Tsv;
  if (name == "csv") return TableFormat::Csv;
  if (name == "jsonl") return TableFormat::Jsonl;
  return std::nullopt;
}

std::size_t Table::column(const std::string& selector) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == selector) return i;
  char* end = nullptr;
  long number = std::strtol(selector.c_str(), &end, 10);
  std::size_t width = rows.empty() ? columns.size() : rows.front().size();
  if (end && *end == '\0' && !selector.empty() && number >= 1 && static_cast<std::size_t>(number) <= width)
    return static_cast<std::size_t>(number - 1);
  fail("{}: no column '{}' (columns: {})", path, selector,
       columns.empty() ? fmt::format("1..{}", width) : fmt::format("{}", fmt::join(columns, ", ")));
}

std::string Table::where(std::size_t row) const { return fmt::format("{}:{}", path, line_numbers.at(row)); }

namespace {

std::vector<std::string> split_tsv(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    auto tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return fields;
}

// RFC 4180: a quoted field may contain commas, doubled quotes and line breaks. The record that starts with `line` (already read), continued from `reader` while a quoted field
// holds line breaks.
void read_csv_record(LineReader& reader, std::string& line, std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false;
  std::size_t i = 0;
  while (true) {
    if (i == line.size()) {
      if (!quoted) break;
      std::string more;
      if (!reader.next(more)) fail("{}: unterminated quoted CSV field", reader.where());
      field += '\n';
      line = more;
      i = 0;
      continue;
    }
    char c = line[i++];
    if (quoted) {
      if (c == '"' && i < line.size() && line[i] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && field.empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(std::move(field));
}

std::vector<std::string> jsonl_fields(const std::string& line, const TableOptions& options, const std::string& where) {
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: invalid JSON: {}", where, e.what());
  }
  if (!object.is_object()) fail("{}: expected a JSON object", where);
  std::vector<std::string> fields;
  for (const auto& key : options.fields) {
    auto it = object.find(key);
    if (it == object.end()) fail("{}: missing field \"{}\"", where, key);
    if (!it->is_string() && options.text_fields.count(key))
      fail("{}: field \"{}\" must be a string, found {} {}", where, key, it->type_name(), it->dump());
    fields.push_back(it->is_string() ? it->get<std::string>() : it->dump());
  }
  return fields;
}

}  // namespace

namespace {

Table read_table_rows(const std::string& path, const TableOptions& options) {
  Table table;
  LineReader reader(path);
  table.path = reader.path();
  if (options.format == TableFormat::Jsonl) {
    if (options.fields.empty()) fail("{}: JSONL input needs the names of the fields to read", table.path);
    table.columns = options.fields;
  }
  std::string line;
  std::vector<std::string> fields;
  bool first = true;
  // The provenance block invar writes at the top of its own CSV tables (eval/report/provenance.hpp):
  // "# invar: VERSION" and the "#" lines after it.
  const bool tabular = options.format == TableFormat::Csv || options.format == TableFormat::Tsv;
  bool in_provenance = false;
  while (true) {
    std::size_t start_line = reader.line_number() + 1;
    if (!reader.next(line)) break;
    if (tabular && (start_line == 1 ? line.rfind("# invar: ", 0) == 0 : in_provenance && line.rfind('#', 0) == 0)) {
      in_provenance = true;
      continue;
    }
    in_provenance = false;
    if (options.format == TableFormat::Csv) {
      read_csv_record(reader, line, fields);
    } else {
      if (options.format == TableFormat::Tsv) fields = split_tsv(line);
      else if (options.format == TableFormat::Jsonl) fields = jsonl_fields(line, options, reader.where());
      else fields = {line};
    }
    if (first && options.header && options.format != TableFormat::Jsonl && options.format != TableFormat::Text) {
      table.columns = fields;
      first = false;
      continue;
    }
    first = false;
    std::size_t expected = options.expected_columns;
    if (expected == 0 && !table.columns.empty()) expected = table.columns.size();
    if (expected == 0 && !table.rows.empty()) expected = table.rows.front().size();
    if (expected != 0 && fields.size() != expected)
      fail("{}:{}: expected {} column{}, found {}", table.path, start_line, expected, expected == 1 ? "" : "s",
           fields.size());
    table.rows.push_back(fields);
    table.line_numbers.push_back(start_line);
  }
  return table;
}

}  // namespace

Table read_table(const std::string& path, const TableOptions& options) {
  return naming_on_out_of_memory(path == "-" ? "<stdin>" : path, [&] { return read_table_rows(path, options); });
}

bool is_blank(std::string_view text) {
  for (char32_t c : decode_utf8(text))
    if (!is_python_space(c)) return false;
  return true;
}

namespace {

bool is_number(const std::string& selector) {
  return !selector.empty() && std::all_of(selector.begin(), selector.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

TextColumns read_text_columns(const std::string& path, const std::vector<TextColumn>& columns,
                              const TextColumnsOptions& text_options) {
  TableFormat format = text_options.format.value_or(table_format_from_path(path));
  const bool only_first = columns.size() == 1 && (columns[0].selector.empty() || columns[0].selector == "1");
  if (format == TableFormat::Text && !only_first) {
    if (text_options.format)
      fail("{}: text input has one column, but {} are read; use tsv, csv or jsonl input",
           path == "-" ? "<stdin>" : path,
           columns.size() == 1 ? "column " + columns[0].selector : fmt::format("{} columns", columns.size()));
    format = TableFormat::Tsv;
  }
  const bool jsonl = format == TableFormat::Jsonl;
  std::vector<std::string> selectors;
  for (const auto& c : columns) selectors.push_back(!c.selector.empty() ? c.selector : jsonl ? c.jsonl_default : c.tsv_default);
  TableOptions options{.format = format, .expected_columns = jsonl ? 0 : text_options.expected_columns};
  if (jsonl) {
    options.fields = selectors;
    for (std::size_t c = 0; c < columns.size(); ++c)
      if (!columns[c].label) options.text_fields.insert(selectors[c]);
  } else {
    options.header = format != TableFormat::Text &&
                     (text_options.header || !std::all_of(selectors.begin(), selectors.end(), is_number));
  }
  Table table = read_table(path, options);
  TextColumns result;
  result.path = table.path;
  result.texts.resize(columns.size());
  if (table.rows.empty()) {
    if (text_options.rows_required) fail("{}: no texts", table.path);
    return result;
  }
  std::vector<std::size_t> indices;
  const std::size_t width = table.rows.front().size();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (table.columns.empty() && is_number(selectors[c]) && std::strtoull(selectors[c].c_str(), nullptr, 10) > width)
      fail("{}: no column {} for {}: the file has {} column{}", table.where(0), selectors[c], columns[c].role,
           width, width == 1 ? "" : "s");
    if (!table.columns.empty() && !is_number(selectors[c]) &&
        std::find(table.columns.begin(), table.columns.end(), selectors[c]) == table.columns.end())
      fail("{}:1: no column '{}' for {} in the header (columns: {})", table.path, selectors[c], columns[c].role,
           fmt::join(table.columns, ", "));
    indices.push_back(table.column(selectors[c]));
  }
  result.line_numbers = table.line_numbers;
  for (std::size_t r = 0; r < table.rows.size(); ++r)
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const auto& text = table.rows[r][indices[c]];
      if (is_blank(text) && !columns[c].blank_allowed) fail("{}: empty {}", table.where(r), columns[c].role);
      result.texts[c].push_back(text);
    }
  return result;
}

std::string TextColumns::where(std::size_t row) const { return fmt::format("{}:{}", path, line_numbers.at(row)); }

namespace {

// The file a chain of symbolic links ends at (the path itself when it is none), so that the rename
// replaces the file and keeps the links. Gives up after 40 links, as the kernel does (ELOOP).
std::filesystem::path link_target(std::filesystem::path path) {
  std::error_code error;
  for (int i = 0; i < 40 && std::filesystem::is_symlink(path, error); ++i) {
    const auto link = std::filesystem::read_symlink(path, error);
    if (error) break;
    path = link.is_absolute() ? link : path.parent_path() / link;
  }
  return path;
}

}  // namespace

AtomicOutput::AtomicOutput(const std::string& path) : path_(path) {
  if (path == "-" || path.empty()) {
    out_ = &std::cout;
    return;
  }
  const auto target = link_target(path);
  std::error_code error;
  const auto status = std::filesystem::status(target, error);
  if (std::filesystem::is_directory(status)) fail("{}: is a directory, expected an output file", path);
  // A device, FIFO or socket (-o /dev/null, -o /dev/stdout, a named pipe) is written to directly:
  // renaming a temporary file over it would replace the node itself.
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    file_ = std::make_unique<std::ofstream>(target, std::ios::binary);
    if (!*file_) fail("{}: cannot open for writing", path);
    out_ = file_.get();
    return;
  }
  target_ = target.string();
  auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir)) fail("{}: directory {} does not exist", path, dir.string());
  std::string pattern = (dir / (target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = mkstemp(pattern.data());
  if (fd < 0) fail("{}: cannot create a temporary file in {}", path, dir.string());
  // mkstemp creates the file 0600; the result should get the permissions a plain open would give.
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  temp_path_ = pattern;
  file_ = std::make_unique<std::ofstream>(temp_path_, std::ios::binary | std::ios::trunc);
  if (!*file_) fail("{}: cannot open for writing", temp_path_);
  out_ = file_.get();
}

AtomicOutput::~AtomicOutput() {
  if (!committed_ && !temp_path_.empty()) {
    file_.reset();
    std::error_code ignored;
    std::filesystem::remove(temp_path_, ignored);
  }
}

void AtomicOutput::write_line(const std::string& line) {
  *out_ << line << '\n';
}

void AtomicOutput::commit() {
  out_->flush();
  if (!*out_) fail("{}: write failed", path_);
  if (file_) file_->close();
  if (!temp_path_.empty()) {
    std::error_code error;
    std::filesystem::rename(temp_path_, target_, error);
    if (error) {
      const std::string why = error.message();
      std::filesystem::remove(temp_path_, error);
      temp_path_.clear();
      fail("{}: cannot rename the finished output into place ({}); nothing was written", path_, why);
    }
  }
  committed_ = true;
}

}  // namespace invar
