#pragma once
// Report building blocks shared by the evaluation commands: a plain-text table for the terminal and
// a self-contained HTML page (inline CSS, SVG figures from eval/report/chart.hpp, no scripts or external
// resources) written atomically.
#include <string>
#include <string_view>
#include <vector>

namespace invar::report {

struct Provenance;

// Escapes & < > " ' for HTML/SVG text and attribute values.
std::string html_escape(std::string_view text);

// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
std::string csv_field(const std::string& text);
// A number in a CSV cell: the shortest text that reads back as the same double (4.6, not
// 4.5999999999999996), as json_number_text writes JSON; an empty cell for NaN (no value).
std::string csv_number(double value);
// Text for a LaTeX table cell: & % $ # _ { } \ ~ ^ escaped.
std::string latex_escape(const std::string& text);

// A p-value for every report: four decimals from 0.0001 up, scientific notation below (3.20e-07, as
// scipy's users read it: never 0.0000 for a p that is not 0), "nan" when undefined.
std::string format_p(double p);

// A metric's name in a header, a legend or on an axis, marked "↓" when lower values are better.
std::string directed_name(const std::string& name, bool higher_is_better);
inline constexpr const char* kLowerIsBetterNote = "↓: lower is better";

// Columns padded to their display width (code points, East Asian wide characters count 2).
struct TextTable {
  enum class Align { Left, Right };
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<Align> align;  // per column; missing entries are Left

  // Left-aligned label columns, then right-aligned numbers.
  static TextTable numeric(std::vector<std::string> header, std::size_t label_columns);

  std::string render() const;  // header, a rule, the rows; every line ends with "\n"
};

// Display width of UTF-8 text in terminal cells.
std::size_t display_width(std::string_view text);

class HtmlReport {
 public:
  explicit HtmlReport(std::string title);

  HtmlReport& heading(const std::string& text, int level = 2);
  HtmlReport& paragraph(const std::string& text);
  // A definition list of settings: name → value.
  HtmlReport& settings(const std::vector<std::pair<std::string, std::string>>& items);
  HtmlReport& table(const TextTable& table, const std::string& caption = "");
  HtmlReport& figure(const std::string& svg, const std::string& caption = "");
  // Markup added as it is (already escaped by the caller).
  HtmlReport& raw(const std::string& html);
  // What made the report (eval/report/provenance.hpp), shown at the page's end.
  HtmlReport& provenance(const Provenance& provenance);

  std::string html() const;
  void write(const std::string& path) const;  // via AtomicOutput: the page appears only when complete

 private:
  std::string title_;
  std::string body_;
  std::string footer_;
};

}  // namespace invar::report
