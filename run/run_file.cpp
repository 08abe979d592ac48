#include "run/run_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace invar::run {

std::string chunk_block(std::size_t index, const std::vector<std::string>& records) {
  std::string payload;
  for (const auto& record : records) {
    if (record.find('\n') != std::string::npos) fail("internal: a record of chunk {} holds a line break", index);
    payload += record;
    payload += '\n';
  }
  return fmt::format("#chunk {} {} {}\n", index, records.size(), payload.size()) + payload;
}

std::string header_line(const RunHeader& header) {
  const nlohmann::ordered_json json{{"invar", header.kind},          {"fingerprint", header.fingerprint},
                                    {"rows", header.rows},           {"chunk", header.chunk},
                                    {"shard", header.shard},         {"shards", header.shards},
                                    {"command", header.command}};
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

RunHeader parse_header(const std::string& line, const std::string& path) {
  try {
    const auto json = nlohmann::json::parse(line);
    RunHeader header;
    header.kind = json.at("invar").get<std::string>();
    header.fingerprint = json.at("fingerprint").get<std::string>();
    header.rows = json.at("rows").get<std::size_t>();
    header.chunk = json.at("chunk").get<std::size_t>();
    header.shard = json.at("shard").get<std::size_t>();
    header.shards = json.at("shards").get<std::size_t>();
    header.command = json.at("command").get<std::vector<std::string>>();
    if ((header.kind != "progress" && header.kind != "partial") || header.chunk == 0 || header.shards == 0 ||
        header.shard >= header.shards)
      fail("bad values");
    return header;
  } catch (const std::exception& e) {
    fail("{}:1: not a partial result or progress file of invar ({})", path, e.what());
  }
}

// One block at `offset`, or false when the bytes from there do not hold a whole one.
bool next_block(const std::string& bytes, std::size_t& offset, const std::string& where, Chunks& chunks) {
  const auto eol = bytes.find('\n', offset);
  if (eol == std::string::npos) return false;
  std::istringstream fields(bytes.substr(offset, eol - offset));
  std::string tag;
  std::size_t index = 0, rows = 0, size = 0;
  if (!(fields >> tag >> index >> rows >> size) || tag != "#chunk")
    fail("{}: byte {}: expected a '#chunk INDEX ROWS BYTES' line", where, offset);
  if (size > bytes.size() - eol - 1) return false;
  const std::string payload = bytes.substr(eol + 1, size);
  std::vector<std::string> records;
  for (std::size_t start = 0; start < payload.size();) {
    const auto end = payload.find('\n', start);
    if (end == std::string::npos) break;
    records.push_back(payload.substr(start, end - start));
    start = end + 1;
  }
  if (records.size() != rows || (size > 0 && payload.back() != '\n'))
    fail("{}: chunk {} holds {} records, its line says {}", where, index, records.size(), rows);
  chunks[index] = std::move(records);
  offset = eol + 1 + size;
  return true;
}

}  // namespace

void read_chunk_blocks(const std::string& bytes, const std::string& where, Chunks& chunks) {
  std::size_t offset = 0;
  while (offset < bytes.size())
    if (!next_block(bytes, offset, where, chunks)) fail("{}: byte {}: incomplete chunk", where, offset);
}

RunFile read_run_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open: {}", path, std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  const auto eol = bytes.find('\n');
  if (eol == std::string::npos) fail("{}:1: not a partial result or progress file of invar (no header line)", path);
  RunFile file;
  file.header = parse_header(bytes.substr(0, eol), path);
  std::size_t offset = eol + 1;
  while (offset < bytes.size() && next_block(bytes, offset, path, file.chunks)) {
  }
  file.complete_bytes = offset;
  return file;
}

// The file is never opened through a symbolic link: anyone who may create files in the output's
// folder could otherwise point the progress file at another file of the user's and have the run
// overwrite it. A new file replaces whatever is at the path (a link itself, not its target) and is
// created exclusively.
ChunkAppender::ChunkAppender(const std::string& path, const RunHeader& header, std::uintmax_t keep_bytes)
    : path_(path) {
  int fd = -1;
  if (keep_bytes > 0) {
    fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && (::ftruncate(fd, static_cast<off_t>(keep_bytes)) != 0 || ::lseek(fd, 0, SEEK_END) < 0)) {
      const int error = errno;
      ::close(fd);
      fail("{}: cannot write: {}", path, std::strerror(error));
    }
  } else {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) fail("{}: cannot replace: {}", path, std::strerror(errno));
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  }
  if (fd < 0) {
    if (errno == ELOOP) fail("{}: is a symbolic link; progress files are not written through links", path);
    fail("{}: cannot write: {}", path, std::strerror(errno));
  }
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int error = errno;
    ::close(fd);
    fail("{}: cannot write: {}", path, std::strerror(error));
  }
  if (keep_bytes == 0) write(header_line(header));
}

ChunkAppender::~ChunkAppender() {
  if (file_) std::fclose(file_);
}

void ChunkAppender::append(const std::string& block) { write(block); }

void ChunkAppender::write(const std::string& bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() || std::fflush(file_) != 0)
    fail("{}: cannot write: {}", path_, std::strerror(errno));
}

}  // namespace invar::run
