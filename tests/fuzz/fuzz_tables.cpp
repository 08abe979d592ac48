// libFuzzer target: the table readers every command reads its inputs with (core/io): TSV, CSV
// (quoted fields, doubled quotes, newlines inside quotes), JSONL and plain lines, through
// read_table, read_text_columns and read_labelled_texts. The first input byte picks the format and
// whether the first row is a header; the rest is the file. Any bytes must be accepted or rejected
// with an invar::Error: never a crash, hang, leak or another exception.
#include <array>
#include <string>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/lip/labelled_texts.hpp"
#include "fuzz_support.hpp"

namespace {

constexpr std::array<const char*, 4> kExtensions{".tsv", ".csv", ".jsonl", ".txt"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = invar::fuzz::scratch() + "/input" + kExtensions[data[0] % kExtensions.size()];
  const bool header = (data[0] / kExtensions.size()) % 2 == 1;
  invar::fuzz::write_file(path, invar::fuzz::as_text(data + 1, size - 1));
  try {
    invar::TableOptions options;
    options.format = invar::table_format_from_path(path);
    options.header = header;
    options.fields = {"text", "label"};
    options.text_fields = {"text"};
    const invar::Table table = invar::read_table(path, options);
    for (std::size_t row = 0; row < table.rows.size(); ++row) table.where(row);
  } catch (const invar::Error&) {
  }
  try {
    invar::read_text_columns(path, {{.role = "sentence", .tsv_default = "1", .jsonl_default = "text"},
                                    invar::label_column("label", "", "2")},
                             header);
  } catch (const invar::Error&) {
  }
  try {
    invar::read_labelled_texts(path, {.text = header ? "text" : "", .label = "", .header = header});
  } catch (const invar::Error&) {
  }
  return 0;
}
