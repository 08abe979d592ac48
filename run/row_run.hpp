#pragma once
// Run control for the line-aligned commands: one mechanism behind --resume, --shard K/N,
// `invar merge` and `mpirun -n N invar ...`. A command hands RowRun its row count and a function
// that turns a range of rows into one output record per row; RowRun splits the rows into chunks
// of a fixed size (so a row's result never depends on which process computed it or what ran
// before), runs the chunks this process owns and has not finished, keeps each finished chunk in a
// progress file beside the output, and brings the records of every chunk to the one process that
// writes the output. The progress file and the partial results are fingerprinted with the
// content of the input files and every option that is given, except the run-control ones.
// Nothing here knows a command-line parser: tools/run_control.hpp turns the parsed options into
// a RunControl.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "run/run_file.hpp"

namespace invar::run {

// What a run takes from its command line, as plain data.
struct RunControl {
  // The command's path from the root ("metric", "bleu") and its given options in declaration
  // order, the run-control ones (output, --resume, --shard) left out: a command line that runs it
  // again (`invar merge` does), fingerprinted with the content of its input files.
  std::vector<std::string> command;
  bool resume = false;
  std::string shard;            // "K/N", K in 0..N-1; empty = the whole input
  bool standard_input = false;  // an input is standard input (it cannot be read twice)
};

struct RowRunSpec {
  std::vector<std::string> inputs;     // options naming input files, fingerprinted by their content
  // Further bytes the fingerprint covers: what the rows read that no input option names as a file
  // (e.g. texts made from files named inside an option's value).
  std::vector<std::string> content;
  std::string output;                  // the output file ("-" = standard output)
  std::size_t rows = 0;
  std::size_t chunk = 1;               // rows per chunk
  std::string output_option = "--output";  // the option naming `output`, for messages
  // Last: callers give the fields above by designated initializers and leave this to
  // tools/run_control.hpp (GCC 12 warns of a defaulted first member maybe used uninitialized).
  RunControl control;
};

class RowRun {
 public:
  explicit RowRun(RowRunSpec spec);
  ~RowRun();
  RowRun(const RowRun&) = delete;
  RowRun& operator=(const RowRun&) = delete;

  // Records of rows [begin, end), one per row, none holding a line break.
  using Work = std::function<std::vector<std::string>(std::size_t begin, std::size_t end)>;
  // Runs `work` on the chunks this process owns and has not finished. True when this process
  // writes the command's output (then records() holds every row's record); false when its part
  // went elsewhere (--shard: the partial result in the output file; MPI ranks other than 0).
  bool process(const Work& work);
  const std::vector<std::string>& records() const { return records_; }
  // After the output is committed: the progress file is no longer needed.
  void close();
  // For commands whose records are their output lines: writes them to the output, then close().
  void write_lines();

 private:
  // The run's header for its part `part` (a file of `kind`).
  RunHeader header(std::size_t part, const std::string& kind) const;
  std::vector<std::string> run_chunk(const Work& work, std::size_t index);
  void load_progress(Chunks& done);
  bool hand_over(const Chunks& mine);
  void collect(const Chunks& all);

  RowRunSpec spec_;
  std::vector<std::string> command_;  // the command line without run-control options
  std::string fingerprint_;
  std::size_t part_ = 0, parts_ = 1;  // the shard or rank this process runs, of how many
  bool sharded_ = false, merging_ = false;
  std::optional<std::pair<RunHeader, Chunks>> merge_;  // the partial results a merge takes (merge_from)
  std::string progress_path_;  // empty = no progress file (standard output, or input from standard input)
  std::optional<ChunkAppender> appender_;
  std::vector<std::string> records_;
};

// `invar merge` hands the partial results over here, then re-runs their command: its RowRun then
// takes the records from them instead of computing. Per thread: the next RowRun this thread makes.
void merge_from(RunHeader header, Chunks chunks);

// Reads the partial results at `paths` (one of each shard, all of one run, in any order; fails
// naming the part that is not) and hands them to merge_from(). Their header, whose command the
// caller runs again.
RunHeader merge_parts(const std::vector<std::string>& paths);

}  // namespace invar::run
