#include "eval/style_transfer/data.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/number.hpp"

namespace invar::style_transfer {

namespace {

constexpr const char* kSystemColumn = "system_name";
constexpr const char* kInputColumn = "informal_input";
constexpr const char* kOutputColumn = "system_output";

// A header-first TSV or CSV file (by extension; anything but .csv is TSV).
Table read_header_table(const std::string& path) {
  const auto format = table_format_from_path(path) == TableFormat::Csv ? TableFormat::Csv : TableFormat::Tsv;
  auto table = read_table(path, {.format = format, .header = true});
  if (table.columns.empty()) fail("{}: empty file: expected a header line", path);
  return table;
}

std::optional<std::size_t> find_column(const Table& table, const std::string& name) {
  const auto it = std::ranges::find(table.columns, name);
  if (it == table.columns.end()) return std::nullopt;
  return static_cast<std::size_t>(it - table.columns.begin());
}

bool is_reference_column(const std::string& name) { return name.starts_with("reference"); }

bool is_human_column(const std::string& name) {
  return std::ranges::any_of(kDimensions, [&](Dimension d) { return name == dimension_column(d); });
}

// Every column must be one the layout knows.
template <typename Known>
void check_columns(const Table& table, Known known, const std::string& expected) {
  for (const auto& name : table.columns)
    if (!known(name)) fail("{}:1: unknown column '{}' (expected {})", table.path, name, expected);
}

// The paper's None, or a number.
std::optional<double> human_value(const std::string& cell, const std::string& where, const char* column) {
  if (cell == "None") return std::nullopt;
  return parse_number(cell, fmt::format("{}: {} (a number or None)", where, column));
}

void read_human(const Table& table, std::size_t row, Segment& segment) {
  for (Dimension d : kDimensions)
    if (auto c = find_column(table, dimension_column(d)))
      segment.human[static_cast<std::size_t>(d)] =
          human_value(table.rows[row][*c], table.where(row), dimension_column(d));
}

std::size_t required_column(const Table& table, const char* name) {
  auto c = find_column(table, name);
  if (!c) fail("{}:1: no column '{}' (the meta-evaluation layout needs {}, {} and {})", table.path, name,
               kSystemColumn, kInputColumn, kOutputColumn);
  return *c;
}

}  // namespace

const char* dimension_name(Dimension dimension) {
  constexpr const char* names[] = {"meaning", "formality", "fluency", "combined"};
  return names[static_cast<std::size_t>(dimension)];
}

const char* dimension_column(Dimension dimension) {
  constexpr const char* names[] = {"meaning_human", "formality_human", "fluency_human", "combined"};
  return names[static_cast<std::size_t>(dimension)];
}

std::vector<Segment> read_judgement_table(const std::string& path, const std::string& group) {
  const auto table = read_header_table(path);
  // Other columns are left alone: the released meta-evaluation files carry ~35 columns of the
  // paper's own metric scores next to the layout's (those are meta-evaluated by `invar metaeval`).
  const std::size_t system = required_column(table, kSystemColumn), input = required_column(table, kInputColumn),
                    output = required_column(table, kOutputColumn);
  std::vector<std::size_t> references;
  for (std::size_t c = 0; c < table.columns.size(); ++c)
    if (is_reference_column(table.columns[c])) references.push_back(c);
  std::vector<Segment> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    Segment s{.group = group, .system = row[system], .input = row[input], .output = row[output], .where = table.where(r)};
    if (is_blank(s.system)) fail("{}: {}: empty system name", s.where, kSystemColumn);
    for (std::size_t c : references)
      if (!is_blank(row[c])) s.references.push_back(row[c]);
    if (!references.empty() && s.references.empty())
      fail("{}: {}: no reference (every reference column is empty)", s.where, table.columns[references.front()]);
    read_human(table, r, s);
    out.push_back(std::move(s));
  }
  if (out.empty()) fail("{}: no rows after the header", path);
  return out;
}

std::vector<Segment> read_aligned_files(const std::string& inputs, const std::vector<SystemFiles>& systems,
                                        const std::vector<std::string>& references, const std::string& group) {
  const auto input_lines = read_lines(inputs);
  if (input_lines.empty()) fail("{}: no inputs", inputs);
  auto aligned = [&](const std::string& path) {
    auto lines = read_lines(path);
    if (lines.size() != input_lines.size())
      fail("{} has {} lines but {} has {}; outputs, references and judgements must be line-aligned with the inputs",
           path, lines.size(), inputs, input_lines.size());
    return lines;
  };
  std::vector<std::vector<std::string>> reference_lines;
  for (const auto& file : references) reference_lines.push_back(aligned(file));
  std::vector<Segment> out;
  for (const auto& system : systems) {
    const auto outputs = aligned(system.outputs);
    std::optional<Table> judgements;
    if (!system.judgements.empty()) {
      judgements = read_header_table(system.judgements);
      check_columns(*judgements, is_human_column, "meaning_human, formality_human, fluency_human, combined");
      if (judgements->rows.size() != input_lines.size())
        fail("{} has {} rows but {} has {}; judgements must be line-aligned with the inputs", system.judgements,
             judgements->rows.size(), inputs, input_lines.size());
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      Segment s{.group = group, .system = system.name, .input = input_lines[i], .output = outputs[i],
                .where = fmt::format("{}:{}", system.outputs, i + 1)};
      for (const auto& lines : reference_lines) s.references.push_back(lines[i]);
      if (judgements) read_human(*judgements, i, s);
      out.push_back(std::move(s));
    }
  }
  return out;
}

void check_outputs(const std::vector<Segment>& segments) {
  for (const auto& s : segments)
    if (is_blank(s.output)) fail("{}: empty system output", s.where);
}

namespace {

template <typename Field>
std::vector<std::string> names_in_order(const std::vector<Segment>& segments, Field field) {
  std::vector<std::string> out;
  for (const auto& s : segments)
    if (std::ranges::find(out, s.*field) == out.end()) out.push_back(s.*field);
  return out;
}

}  // namespace

std::vector<std::string> systems_of(const std::vector<Segment>& segments) {
  return names_in_order(segments, &Segment::system);
}

std::vector<std::string> groups_of(const std::vector<Segment>& segments) {
  return names_in_order(segments, &Segment::group);
}

}  // namespace invar::style_transfer
