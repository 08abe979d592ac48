#pragma once
// The file format behind --resume, --shard and `invar merge` (format 2): a header line (JSON) and
// finished chunks of rows, each a block "#chunk INDEX ROWS BYTES CRC\n" followed by ROWS records of
// one line each (BYTES in all). CRC is the CRC-32 (core/crc32.hpp, as in .invar files) of the run's
// fingerprint, "INDEX ROWS BYTES" and the records, as 8 hex digits: a damaged chunk, or one taken
// from another run, fails it. A block is written whole and flushed before the next begins, so a run
// killed mid-write leaves at most one incomplete block at the end of a progress file, which the
// reader drops. Run files travel between machines and sit in shared folders: the reader takes them
// as untrusted input (every count checked against the header and the file's size before use).
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace invar::run {

struct RunHeader {
  std::string kind;         // "progress" (a run's side file, for --resume) or "partial" (--shard, MPI)
  std::string fingerprint;  // input content and the options that change the output
  std::size_t rows = 0;     // rows of the whole input
  std::size_t chunk = 0;    // rows per chunk
  std::size_t shard = 0;    // this part: shard `shard` of `shards`
  std::size_t shards = 1;
  std::vector<std::string> command;  // the command line without run-control options (merge re-runs it)
};

using Chunks = std::map<std::size_t, std::vector<std::string>>;  // chunk index -> one record per row

// The chunks of a run of `header`'s rows and chunk size, and those of its part `header.shard`:
// [first, last).
std::size_t chunk_count(const RunHeader& header);
std::pair<std::size_t, std::size_t> part_chunks(const RunHeader& header);

// A chunk's block in a run of `fingerprint`; a record must not hold a line break.
std::string chunk_block(const std::string& fingerprint, std::size_t index, const std::vector<std::string>& records);
std::string header_line(const RunHeader& header);

struct RunFile {
  RunHeader header;
  Chunks chunks;
  std::uintmax_t complete_bytes = 0;  // the header and the complete blocks; what follows is cut off
};
// Fails naming the file (and the chunk) when it is not such a file, a chunk is damaged or not one
// of its part's, or a partial result lacks one of its part's chunks; drops an incomplete last block
// of a progress file. Memory is bounded by the file's size.
RunFile read_run_file(const std::string& path);
// Adds the blocks in `bytes` of the part `header` describes, every one whole (as chunk_block writes
// them; `where` names their origin in errors).
void read_chunk_blocks(const std::string& bytes, const RunHeader& header, const std::string& where, Chunks& chunks);

// Appends blocks to a file and flushes each, so that a killed run keeps every finished chunk.
class ChunkAppender {
 public:
  // Starts the file anew with `header`, or keeps its first `keep_bytes` and appends after them.
  ChunkAppender(const std::string& path, const RunHeader& header, std::uintmax_t keep_bytes = 0);
  ~ChunkAppender();
  ChunkAppender(const ChunkAppender&) = delete;
  ChunkAppender& operator=(const ChunkAppender&) = delete;
  void append(const std::string& block);

 private:
  void write(const std::string& bytes);
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace invar::run
