#include "eval/report/report.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cmath>

#include "core/io.hpp"
#include "core/printable.hpp"
#include "core/utf8.hpp"
#include "eval/report/provenance.hpp"

namespace invar::report {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_number(double value) { return std::isnan(value) ? std::string() : fmt::format("{}", value); }

std::string latex_escape(const std::string& text) {
  std::string out;
  // Control characters first (printable()'s \n, \x1b, ...; the backslash is then escaped): a newline
  // from a file name would end a LaTeX comment and start a live line.
  for (char c : printable(text)) {
    if (std::string_view("&%$#_{}").find(c) != std::string_view::npos) out += '\\';
    if (c == '\\') out += "\\textbackslash{}";
    else if (c == '~') out += "\\textasciitilde{}";
    else if (c == '^') out += "\\textasciicircum{}";
    else out += c;
  }
  return out;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_p(double p) {
  if (std::isnan(p)) return "nan";
  return p < 1e-4 ? fmt::format("{:.2e}", p) : fmt::format("{:.4f}", p);
}

std::string directed_name(const std::string& name, bool higher_is_better) {
  return higher_is_better ? name : name + " ↓";
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (char32_t c : decode_utf8(text)) width += static_cast<std::size_t>(std::max(0, utf8proc_charwidth(static_cast<utf8proc_int32_t>(c))));
  return width;
}

TextTable TextTable::numeric(std::vector<std::string> header, std::size_t label_columns) {
  TextTable table;
  table.align.assign(header.size(), Align::Right);
  std::fill(table.align.begin(), table.align.begin() + static_cast<std::ptrdiff_t>(label_columns), Align::Left);
  table.header = std::move(header);
  return table;
}

std::string TextTable::render() const {
  std::size_t columns = header.size();
  for (const auto& row : rows) columns = std::max(columns, row.size());
  std::vector<std::size_t> widths(columns, 0);
  // Cells hold names from files (systems, phenomena, groups): shown with control characters escaped,
  // so a name cannot move the cursor, recolour the terminal or break the table's lines.
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(printable(row[c])));
  };
  measure(header);
  for (const auto& row : rows) measure(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (std::size_t c = 0; c < columns; ++c) {
      std::string cell = c < row.size() ? printable(row[c]) : "";
      std::string pad(widths[c] - display_width(cell), ' ');
      bool right = c < align.size() && align[c] == Align::Right;
      if (c > 0) out += "  ";
      out += right ? pad + cell : cell + (c + 1 < columns ? pad : "");
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out;
  if (!header.empty()) {
    out += line(header);
    std::size_t total = 0;
    for (auto w : widths) total += w;
    out += std::string(total + 2 * (columns > 0 ? columns - 1 : 0), '-') + "\n";
  }
  for (const auto& row : rows) out += line(row);
  return out;
}

HtmlReport::HtmlReport(std::string title) : title_(std::move(title)) {
  body_ += fmt::format("<h1>{}</h1>\n", html_escape(title_));
}

HtmlReport& HtmlReport::heading(const std::string& text, int level) {
  level = std::clamp(level, 2, 4);
  body_ += fmt::format("<h{0}>{1}</h{0}>\n", level, html_escape(text));
  return *this;
}

HtmlReport& HtmlReport::paragraph(const std::string& text) {
  body_ += fmt::format("<p>{}</p>\n", html_escape(text));
  return *this;
}

HtmlReport& HtmlReport::settings(const std::vector<std::pair<std::string, std::string>>& items) {
  body_ += "<dl class=\"settings\">\n";
  for (const auto& [name, value] : items)
    body_ += fmt::format("<dt>{}</dt><dd>{}</dd>\n", html_escape(name), html_escape(value));
  body_ += "</dl>\n";
  return *this;
}

HtmlReport& HtmlReport::table(const TextTable& table, const std::string& caption) {
  // The caption sits above the scrolling box, at the page's width: as a <caption> it would be as
  // narrow as a narrow table and scroll away with a wide one.
  body_ += "<figure class=\"table\">\n";
  if (!caption.empty()) body_ += fmt::format("<figcaption>{}</figcaption>\n", html_escape(caption));
  body_ += "<div class=\"scroll\">\n<table>\n";
  auto cells = [&](const std::vector<std::string>& row, const char* tag) {
    std::string out = "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      bool right = c < table.align.size() && table.align[c] == TextTable::Align::Right;
      out += fmt::format("<{0}{1}>{2}</{0}>", tag, right ? " class=\"num\"" : "", html_escape(row[c]));
    }
    return out + "</tr>\n";
  };
  if (!table.header.empty()) body_ += "<thead>" + cells(table.header, "th") + "</thead>\n";
  body_ += "<tbody>\n";
  for (const auto& row : table.rows) body_ += cells(row, "td");
  body_ += "</tbody>\n</table>\n</div>\n</figure>\n";
  return *this;
}

HtmlReport& HtmlReport::figure(const std::string& svg, const std::string& caption) {
  body_ += "<figure>\n" + svg;
  if (!caption.empty()) body_ += fmt::format("<figcaption>{}</figcaption>\n", html_escape(caption));
  body_ += "</figure>\n";
  return *this;
}

HtmlReport& HtmlReport::raw(const std::string& html) {
  body_ += html;
  return *this;
}

HtmlReport& HtmlReport::provenance(const Provenance& provenance) {
  footer_ = "<footer>\n" + provenance.html() + "</footer>\n";
  return *this;
}

std::string HtmlReport::html() const {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n"
      "body {{ font-family: Helvetica, Arial, sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; "
      "color: #222; }}\n"
      // A table wider than the page scrolls sideways in its own box, the page does not; long text
      // cells wrap rather than widen the table without end; numbers never break.
      "div.scroll {{ overflow-x: auto; max-width: 100%; }}\n"
      // ... with its first column (the row's name) kept in view while the rest scrolls.
      "div.scroll th:first-child, div.scroll td:first-child {{ position: sticky; left: 0; background: #fff; }}\n"
      "table {{ border-collapse: collapse; margin: 0.3em 0 1em; }}\n"
      "th, td {{ border-bottom: 1px solid #ddd; padding: 0.3em 0.8em; text-align: left; vertical-align: top; "
      "max-width: 24em; overflow-wrap: break-word; }}\n"
      "td.num, th.num {{ text-align: right; font-variant-numeric: tabular-nums; }} td.num {{ white-space: nowrap; }}\n"
      "figure {{ margin: 1em 0; max-width: 100%; overflow-x: auto; }} figcaption {{ color: #555; font-size: 0.9em; }}\n"
      "figure.table figcaption {{ color: #222; font-weight: bold; font-size: 1em; }}\n"
      "dl.settings {{ display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }}\n"
      "dl.settings dt {{ font-weight: bold; }} dl.settings dd {{ margin: 0; font-family: monospace; }}\n"
      "footer {{ margin-top: 3em; color: #555; font-size: 0.9em; }}\n"
      "</style>\n</head>\n<body>\n{}{}</body>\n</html>\n",
      html_escape(title_), body_, footer_);
}

void HtmlReport::write(const std::string& path) const {
  AtomicOutput out(path);
  out.stream() << html();
  out.commit();
}

}  // namespace invar::report
