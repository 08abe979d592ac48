#include "run/row_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/version.hpp"
#include "run/ranks.hpp"

namespace invar::run {
namespace {

std::optional<std::pair<RunHeader, Chunks>>& merge_source() {
  // Per thread: C API jobs on other threads run their own RowRuns meanwhile.
  thread_local std::optional<std::pair<RunHeader, Chunks>> source;
  return source;
}

class Hasher {
 public:
  Hasher() : state_(XXH3_createState()) { XXH3_128bits_reset(state_); }
  ~Hasher() { XXH3_freeState(state_); }
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  void add(std::string_view bytes) {
    const std::uint64_t size = bytes.size();  // length-prefixed: ("ab", "c") and ("a", "bc") differ
    XXH3_128bits_update(state_, &size, sizeof size);
    XXH3_128bits_update(state_, bytes.data(), bytes.size());
  }
  // A folder (lip's --data-dir) is its regular files, by their paths inside it in sorted order.
  void add_file(const std::string& path) {
    namespace fs = std::filesystem;
    if (fs::is_directory(path)) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::recursive_directory_iterator(path))
        if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), path));
      std::sort(files.begin(), files.end());
      for (const auto& file : files) {
        add(file.generic_string());
        add_file((fs::path(path) / file).string());
      }
      return;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("{}: cannot open: {}", path, std::strerror(errno));
    std::vector<char> buffer(1 << 20);
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
      XXH3_128bits_update(state_, buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  std::string hex() const {
    const XXH128_hash_t hash = XXH3_128bits_digest(state_);
    return fmt::format("{:016x}{:016x}", hash.high64, hash.low64);
  }

 private:
  XXH3_state_t* state_;
};

// Empty when an input is standard input (it cannot be read twice).
std::string fingerprint(const std::vector<std::string>& line, const std::vector<std::string>& inputs,
                        const RowRunSpec& spec) {
  Hasher hasher;
  hasher.add(kVersion);
  hasher.add(std::to_string(spec.chunk));
  bool input_value = false;
  for (const auto& word : line) {
    if (input_value) {
      if (word == "-") return {};
      hasher.add_file(word);
    }
    hasher.add(word);
    input_value = std::find(inputs.begin(), inputs.end(), word) != inputs.end();
  }
  for (const auto& bytes : spec.content) hasher.add(bytes);
  return hasher.hex();
}

// A device, FIFO or socket (-o /dev/null, a named pipe) is written to directly (core/io.hpp's
// AtomicOutput), and nothing is created beside it: no progress is kept.
bool writes_to_device(const std::string& output) {
  if (output == "-") return false;
  std::error_code error;
  const auto status = std::filesystem::status(output, error);
  return std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
         !std::filesystem::is_directory(status);
}

std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  std::size_t k = 0, n = 0;
  char slash = 0, rest = 0;
  if (std::sscanf(text.c_str(), "%zu%c%zu%c", &k, &slash, &n, &rest) != 3 || slash != '/' || n == 0 || k >= n ||
      text.find_first_not_of("0123456789/") != std::string::npos)
    fail("--shard must be K/N with 0 <= K < N (e.g. 0/4 for the first of four), got '{}'", text);
  return {k, n};
}

}  // namespace

void merge_from(RunHeader header, Chunks chunks) { merge_source() = std::pair{std::move(header), std::move(chunks)}; }

namespace {

bool same_run(const RunHeader& a, const RunHeader& b) {
  return a.fingerprint == b.fingerprint && a.rows == b.rows && a.chunk == b.chunk && a.shards == b.shards &&
         a.command == b.command;
}

}  // namespace

RunHeader merge_parts(const std::vector<std::string>& paths) {
  if (paths.empty()) fail("no partial results to merge");
  std::map<std::size_t, std::string> seen;  // shard -> its part; not sized by a count read from a file
  RunHeader first;
  Chunks chunks;
  for (const auto& path : paths) {
    RunFile part = read_run_file(path);
    if (part.header.kind != "partial") fail("{}: not a partial result (--shard writes those)", path);
    if (seen.empty()) {
      first = part.header;
    } else if (!same_run(part.header, first)) {
      fail("{}: a part of another run than {} (other command, input, options or shard count)", path, paths.front());
    }
    auto& owner = seen[part.header.shard];
    if (!owner.empty()) fail("{}: shard {}/{} is already given by {}", path, part.header.shard, first.shards, owner);
    owner = path;
    chunks.merge(part.chunks);
  }
  std::size_t missing = 0;
  while (seen.count(missing)) ++missing;
  if (missing < first.shards) fail("shard {}/{} is missing: give all {} parts", missing, first.shards, first.shards);
  merge_from(first, std::move(chunks));
  return first;
}

RowRun::RowRun(RowRunSpec spec) : spec_(std::move(spec)) {
  command_ = spec_.control.command;
  const bool from_standard_input = spec_.control.standard_input;
  const Ranks processes = ranks();
  // Taken at once, so that a run that fails before process() leaves none for the thread's next run.
  merge_ = std::move(merge_source());
  merge_source().reset();
  merging_ = merge_.has_value();
  sharded_ = !spec_.control.shard.empty();
  if (sharded_ && processes.size > 1) fail("--shard splits the input for separate jobs, mpirun for ranks: choose one");
  if (sharded_) std::tie(part_, parts_) = parse_shard(spec_.control.shard);
  if (processes.size > 1) std::tie(part_, parts_) = std::pair<std::size_t, std::size_t>(processes.rank, processes.size);
  const bool split = sharded_ || processes.size > 1;
  if (from_standard_input && (split || spec_.control.resume || merging_))
    fail("--resume, --shard and mpirun read the input by its name: give it as a file, not standard input");
  if (spec_.control.resume && spec_.output == "-")
    fail("--resume continues from the progress file beside the output: give {} FILE", spec_.output_option);
  const bool to_device = writes_to_device(spec_.output);
  if (spec_.control.resume && to_device)
    fail("--resume continues from the progress file beside the output, and {} is a device or pipe, beside which "
         "none is kept: give {} a file",
         spec_.output, spec_.output_option);
  if (spec_.output != "-" && !to_device) {
    const std::filesystem::path target(spec_.output);
    const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    if (!std::filesystem::is_directory(dir)) fail("{}: directory {} does not exist", spec_.output, dir.string());
  }
  const bool keeps_progress = spec_.output != "-" && !to_device && !from_standard_input && !merging_;
  // Hashing the inputs reads them all once more: only a run that records or checks them pays it
  // (a plain run to standard output, e.g. `invar metric bleu`, does not).
  if (!from_standard_input && (split || merging_ || keeps_progress))
    fingerprint_ = fingerprint(command_, spec_.inputs, spec_);
  if (keeps_progress)
    progress_path_ = spec_.output + ".invar-progress" +
                     (processes.size > 1 ? fmt::format(".{}-of-{}", processes.rank, processes.size) : "");
}

RowRun::~RowRun() = default;

RunHeader RowRun::header(std::size_t part, const std::string& kind) const {
  return {.kind = kind, .fingerprint = fingerprint_, .rows = spec_.rows, .chunk = spec_.chunk, .shard = part,
          .shards = parts_, .command = command_};
}

std::vector<std::string> RowRun::run_chunk(const Work& work, std::size_t index) {
  const std::size_t begin = index * spec_.chunk, end = std::min(spec_.rows, begin + spec_.chunk);
  auto records = work(begin, end);
  if (records.size() != end - begin)
    fail("internal: rows {} to {} gave {} records", begin + 1, end, records.size());
  if (appender_) appender_->append(chunk_block(fingerprint_, index, records));
  return records;
}

// The chunks an earlier run of the same input and options finished (--resume); the progress file
// starts anew otherwise.
void RowRun::load_progress(Chunks& done) {
  if (!spec_.control.resume || !std::filesystem::exists(progress_path_)) {
    appender_.emplace(progress_path_, header(part_, "progress"));
    return;
  }
  RunFile file = read_run_file(progress_path_);
  if (file.header.fingerprint != fingerprint_ || file.header.rows != spec_.rows || file.header.chunk != spec_.chunk ||
      file.header.shard != part_ || file.header.shards != parts_)
    fail("{}: cannot resume: the progress there belongs to a run with other input or options (its command: {}); "
         "run without --resume to start over",
         progress_path_, fmt::join(file.header.command, " "));
  done = std::move(file.chunks);
  appender_.emplace(progress_path_, header(part_, "progress"), file.complete_bytes);
}

bool RowRun::process(const Work& work) {
  Chunks mine;
  if (merging_) {
    auto [header, chunks] = std::move(*merge_);
    merge_.reset();
    if (header.fingerprint != fingerprint_ || header.rows != spec_.rows || header.chunk != spec_.chunk)
      fail("the partial results were made from other input files or options than these (their command: {})",
           fmt::join(header.command, " "));
    collect(chunks);
    return true;
  }
  if (!progress_path_.empty()) load_progress(mine);
  const auto [first, last] = part_chunks(header(part_, "progress"));
  for (std::size_t c = first; c < last; ++c)
    if (!mine.count(c)) mine[c] = run_chunk(work, c);
  appender_.reset();
  return hand_over(mine);
}

// Single process: keeps the records. --shard: writes them as a partial result. MPI: gathers them on rank 0.
bool RowRun::hand_over(const Chunks& mine) {
  std::string blocks;
  for (const auto& [index, records] : mine) blocks += chunk_block(fingerprint_, index, records);
  if (sharded_) {
    AtomicOutput out(spec_.output);
    out.stream() << header_line(header(part_, "partial")) << blocks;
    out.commit();
    close();
    return false;
  }
  if (parts_ == 1) {
    collect(mine);
    return true;
  }
  const auto gathered = gather_on_first(blocks);
  if (gathered.empty()) {
    close();
    return false;
  }
  Chunks all;
  for (std::size_t rank = 0; rank < gathered.size(); ++rank)
    read_chunk_blocks(gathered[rank], header(rank, ""), fmt::format("rank {}", rank), all);
  collect(all);
  return true;
}

void RowRun::collect(const Chunks& all) {
  records_.clear();
  records_.reserve(spec_.rows);
  for (std::size_t c = 0; c < chunk_count(header(0, "")); ++c) {
    const auto found = all.find(c);
    const std::size_t expected = std::min(spec_.rows, (c + 1) * spec_.chunk) - c * spec_.chunk;
    if (found == all.end() || found->second.size() != expected)
      fail("rows {} to {} are missing from the partial results", c * spec_.chunk + 1, c * spec_.chunk + expected);
    records_.insert(records_.end(), found->second.begin(), found->second.end());
  }
}

void RowRun::write_lines() {
  AtomicOutput out(spec_.output);
  for (const auto& record : records_) out.write_line(record);
  out.commit();
  close();
}

void RowRun::close() {
  if (parts_ > 1 && !sharded_) wait_for_every_rank();
  if (!progress_path_.empty()) std::filesystem::remove(progress_path_);
}

}  // namespace invar::run
