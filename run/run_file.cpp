#include "run/run_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <new>
#include <filesystem>

#include "core/crc32.hpp"
#include "core/error.hpp"
#include "core/io.hpp"

namespace invar::run {

namespace {

constexpr int kFormat = 2;  // 1 (no "format" field): chunks without checksums, refused

std::uint32_t crc_of(std::uint32_t crc, std::string_view bytes) {
  return crc32_of(crc, reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
}

// The chunk's checksum covers the run's fingerprint too: a chunk copied in from another run fails it.
std::uint32_t chunk_crc(const std::string& fingerprint, std::string_view counts, std::string_view records) {
  return crc_of(crc_of(crc_of(0, fingerprint), counts), records);
}

// What to do about a damaged file, by its kind.
std::string remedy(const std::string& kind) {
  if (kind == "progress") return "; run without --resume to start over";
  if (kind == "partial") return "; run its shard again";
  return "";
}

}  // namespace

std::size_t chunk_count(const RunHeader& header) {
  return header.rows / header.chunk + (header.rows % header.chunk != 0 ? 1 : 0);
}

std::pair<std::size_t, std::size_t> part_chunks(const RunHeader& header) {
  // 128 bits: a header read from a file may hold any 64-bit counts.
  const unsigned __int128 chunks = chunk_count(header);
  return {static_cast<std::size_t>(header.shard * chunks / header.shards),
          static_cast<std::size_t>((header.shard + 1) * chunks / header.shards)};
}

std::string chunk_block(const std::string& fingerprint, std::size_t index, const std::vector<std::string>& records) {
  std::string payload;
  for (const auto& record : records) {
    if (record.find('\n') != std::string::npos) fail("internal: a record of chunk {} holds a line break", index);
    payload += record;
    payload += '\n';
  }
  const std::string counts = fmt::format("{} {} {}", index, records.size(), payload.size());
  return fmt::format("#chunk {} {:08x}\n", counts, chunk_crc(fingerprint, counts, payload)) + payload;
}

std::string header_line(const RunHeader& header) {
  const nlohmann::ordered_json json{{"invar", header.kind},     {"format", kFormat},
                                    {"fingerprint", header.fingerprint}, {"rows", header.rows},
                                    {"chunk", header.chunk},    {"shard", header.shard},
                                    {"shards", header.shards},  {"command", header.command}};
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

RunHeader parse_header(const std::string& line, const std::string& path) {
  RunHeader header;
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(line);
    header.kind = json.at("invar").get<std::string>();
  } catch (const std::exception& e) {
    fail("{}:1: not a partial result or progress file of invar ({})", path, e.what());
  }
  if (header.kind != "progress" && header.kind != "partial")
    fail("{}:1: not a partial result or progress file of invar (\"invar\" is not \"progress\" or \"partial\")", path);
  if (!json.contains("format"))
    fail("{}:1: a {} file of an earlier invar, whose chunks carry no checksums{}", path, header.kind,
         remedy(header.kind));
  int format = 0;
  try {
    format = json.at("format").get<int>();
    header.fingerprint = json.at("fingerprint").get<std::string>();
    header.rows = json.at("rows").get<std::size_t>();
    header.chunk = json.at("chunk").get<std::size_t>();
    header.shard = json.at("shard").get<std::size_t>();
    header.shards = json.at("shards").get<std::size_t>();
    header.command = json.at("command").get<std::vector<std::string>>();
  } catch (const std::exception& e) {
    fail("{}:1: not a partial result or progress file of invar ({})", path, e.what());
  }
  if (format != kFormat)
    fail("{}:1: run file format {}; this invar reads format {}{}", path, format, kFormat, remedy(header.kind));
  if (header.chunk == 0 || header.shards == 0 || header.shard >= header.shards)
    fail("{}:1: not a partial result or progress file of invar (chunk 0, or shard not below shards)", path);
  return header;
}

bool parse_count(std::string_view text, std::size_t& value, int base = 10) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

// The blocks from `offset` on, each checked against `header`'s part; returns where the whole blocks
// end. A progress file's last block may be cut off (a killed run): it is left out. Nothing is
// allocated from a count before the count is checked against the bytes there are.
std::size_t read_blocks(std::string_view bytes, std::size_t offset, const RunHeader& header, const std::string& where,
                        bool last_may_be_cut, Chunks& chunks) {
  const std::size_t count = chunk_count(header);
  const auto [first, last] = part_chunks(header);
  const std::string fix = remedy(header.kind);
  constexpr std::string_view kTag = "#chunk ";
  constexpr std::size_t kLongestLine = kTag.size() + 3 * 21 + 8;
  while (offset < bytes.size()) {
    const std::size_t eol = bytes.find('\n', offset);
    if (eol == std::string_view::npos) {
      if (last_may_be_cut && bytes.size() - offset <= kLongestLine) return offset;
      fail("{}: byte {}: a chunk line cut off (the file is cut off or damaged){}", where, offset, fix);
    }
    const std::string_view line = bytes.substr(offset, eol - offset);
    std::size_t index = 0, rows = 0, size = 0, crc = 0;
    std::vector<std::string_view> fields;
    if (line.starts_with(kTag)) {
      for (std::size_t at = kTag.size(); at <= line.size();) {
        const std::size_t space = std::min(line.find(' ', at), line.size());
        fields.push_back(line.substr(at, space - at));
        at = space + 1;
      }
    }
    if (fields.size() != 4 || !parse_count(fields[0], index) || !parse_count(fields[1], rows) ||
        !parse_count(fields[2], size) || fields[3].size() != 8 || !parse_count(fields[3], crc, 16))
      fail("{}: byte {}: not a '#chunk INDEX ROWS BYTES CRC' line{}", where, offset, fix);
    if (index >= count) fail("{}: chunk {}: no such chunk (the run has {}){}", where, index, count, fix);
    if (index < first || index >= last)
      fail("{}: chunk {}: not a chunk of shard {}/{} (its chunks are {} to {}){}", where, index, header.shard,
           header.shards, first, last == 0 ? 0 : last - 1, fix);
    const std::size_t expected = std::min(header.chunk, header.rows - index * header.chunk);
    if (rows != expected)
      fail("{}: chunk {}: its line says {} rows, the chunk has {}{}", where, index, rows, expected, fix);
    if (size < rows)
      fail("{}: chunk {}: its line says {} bytes for {} rows, each a line{}", where, index, size, rows, fix);
    const std::string_view rest = bytes.substr(eol + 1);
    if (size > rest.size()) {
      // A kill cuts the records short: fewer than ROWS line breaks follow. More is a wrong count.
      if (last_may_be_cut && static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n')) < rows) return offset;
      fail("{}: chunk {}: its line says {} bytes, {} follow it (the file is cut off or damaged){}", where, index, size,
           rest.size(), fix);
    }
    const std::string_view payload = rest.substr(0, size);
    if (chunk_crc(header.fingerprint, line.substr(kTag.size(), line.size() - kTag.size() - 9), payload) != crc)
      fail("{}: chunk {}: damaged (its CRC-32 does not match){}", where, index, fix);
    if (chunks.count(index)) fail("{}: chunk {}: given twice{}", where, index, fix);
    std::vector<std::string> records;
    for (std::size_t start = 0; start < payload.size() && records.size() < rows;) {
      const std::size_t end = std::min(payload.find('\n', start), payload.size());
      records.emplace_back(payload.substr(start, end - start));
      start = end + 1;
    }
    if (records.size() != rows || payload.back() != '\n' ||
        static_cast<std::size_t>(std::count(payload.begin(), payload.end(), '\n')) != rows)
      fail("{}: chunk {}: its line says {} rows, its bytes hold other lines{}", where, index, rows, fix);
    chunks.emplace(index, std::move(records));
    offset = eol + 1 + size;
  }
  return offset;
}

RunFile read_regular_run_file(const std::string& path) {
  const std::string bytes = read_whole_file(path);
  const auto eol = bytes.find('\n');
  if (eol == std::string::npos) fail("{}:1: not a partial result or progress file of invar (no header line)", path);
  RunFile file;
  file.header = parse_header(bytes.substr(0, eol), path);
  file.complete_bytes = read_blocks(bytes, eol + 1, file.header, path, file.header.kind == "progress", file.chunks);
  // A partial result is written whole (atomically): a chunk of its part it lacks was cut off.
  if (file.header.kind == "partial") {
    auto [expected, last] = part_chunks(file.header);
    for (const auto& [index, records] : file.chunks) {
      if (index != expected) break;
      ++expected;
    }
    if (expected != last) {
      const std::size_t begin = expected * file.header.chunk;
      fail("{}: rows {} to {} (chunk {}) are missing from this part of shard {}/{}: the file is cut off or "
           "damaged{}",
           path, begin + 1, begin + std::min(file.header.chunk, file.header.rows - begin), expected,
           file.header.shard, file.header.shards, remedy("partial"));
    }
  }
  return file;
}

}  // namespace

void read_chunk_blocks(const std::string& bytes, const RunHeader& header, const std::string& where, Chunks& chunks) {
  read_blocks(bytes, 0, header, where, false, chunks);
}

RunFile read_run_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    if (!std::filesystem::exists(path, error)) fail("{}: cannot open: no such file", path);
    fail("{}: not a regular file (a partial result or progress file of invar is one)", path);
  }
  // Its bytes and records take about three times its size.
  try {
    return read_regular_run_file(path);
  } catch (const std::bad_alloc&) {
    fail("{}: out of memory reading this run file of {} bytes", path, std::filesystem::file_size(path, error));
  }
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
