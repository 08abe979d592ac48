// libFuzzer target: the tables of `invar st-eval` (eval/style_transfer/data): the paper's
// meta-evaluation layout (system_name, informal_input, system_output, the human columns with None,
// reference columns), and the same bytes as the line-aligned files and a system's judgement table.
// Byte 0 picks TSV (even) or CSV (odd); the rest is the file. Any bytes must be read or refused with
// an invar::Error: never a crash, hang, leak or another exception.
#include <string>

#include "core/error.hpp"
#include "eval/style_transfer/data.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  namespace st = invar::style_transfer;
  const std::string path = invar::fuzz::scratch() + (data[0] % 2 == 0 ? "/judgements.tsv" : "/judgements.csv");
  invar::fuzz::write_file(path, invar::fuzz::as_text(data + 1, size - 1));
  try {
    const auto segments = st::read_judgement_table(path, "group");
    st::systems_of(segments);
    st::groups_of(segments);
    st::check_outputs(segments);
  } catch (const invar::Error&) {
  }
  try {
    const auto segments =
        st::read_aligned_files(path, {{.name = "system", .outputs = path, .judgements = path}}, {path}, "");
    st::check_outputs(segments);
  } catch (const invar::Error&) {
  }
  return 0;
}
