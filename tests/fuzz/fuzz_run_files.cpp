// libFuzzer target: the progress and partial-result files of --resume, --shard and `invar merge`
// (run/run_file.hpp), which travel between machines and sit in shared folders: the header line,
// chunk lines and their checksums, cut-off last blocks. The input is read as a file, and its bytes
// after the first line as the blocks another MPI rank sends. Any bytes must be read or refused
// with an invar::Error: never a crash, hang, leak, another exception, or memory beyond the
// file's size.
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "run/run_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = invar::fuzz::scratch() + "/run-file";
  const std::string bytes(invar::fuzz::as_text(data, size));
  invar::fuzz::write_file(path, bytes);
  try {
    const invar::run::RunFile file = invar::run::read_run_file(path);
    if (file.complete_bytes > size) std::abort();
    // What was read can be written again (a resumed run appends to it), and holds only its part's chunks.
    std::string again = invar::run::header_line(file.header);
    for (const auto& [index, records] : file.chunks)
      again += invar::run::chunk_block(file.header.fingerprint, index, records);
    const auto [first, last] = invar::run::part_chunks(file.header);
    if (first > last || file.chunks.size() > last - first) std::abort();
  } catch (const invar::Error&) {
  }
  try {
    invar::run::Chunks chunks;
    const invar::run::RunHeader header{.kind = "", .fingerprint = "f", .rows = 1000, .chunk = 7, .shard = 1,
                                       .shards = 3, .command = {}};
    const std::size_t eol = bytes.find('\n');
    invar::run::read_chunk_blocks(bytes.substr(eol == std::string::npos ? 0 : eol + 1), header, "rank 1", chunks);
  } catch (const invar::Error&) {
  }
  return 0;
}
