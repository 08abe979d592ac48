#pragma once
// What made a report: the invar version, the command line, the date, the models, the data files and
// the settings. The CLI fills one record per run (tools/provenance.hpp) and hands it to every
// writer of a report or table, which records it in its format: JSON as a "provenance" object, CSV
// and LaTeX as leading comment lines, HTML as a details section at the page's end.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace invar::report {

struct Provenance {
  struct Model {
    std::string option;  // the option that named it, e.g. "--model"
    std::string path;
    std::string format;      // "huggingface" or "invar" (loaders/fingerprint.hpp)
    std::string model_type;  // empty when unknown
    std::uint64_t bytes = 0;
    std::string modified;    // ISO 8601, UTC
    std::string data_crc32;  // an .invar file's recorded data CRC-32
  };
  struct DataFile {
    std::string option;
    std::string path;
    std::uint64_t bytes = 0;
    std::string modified;
    std::string crc32;  // of the whole file, where it is small enough to read at once (describe_data_file)
  };

  std::string version;  // invar's
  std::string command;  // the command line, each argument quoted for a POSIX shell where it needs it
  std::string date;     // when the run started: ISO 8601, UTC, to the second
  std::vector<Model> models;
  std::vector<DataFile> data;
  std::vector<std::pair<std::string, std::string>> settings;  // option → value, as given or defaulted

  nlohmann::ordered_json json() const;
  // "# key: value" lines (CSV: `prefix` "#"; LaTeX: "%"), the first one "# invar: VERSION", which
  // is how invar's own table readers (core/io.hpp) recognise the block and skip it.
  std::string comment_lines(const std::string& prefix) const;
  // A <details> section, escaped.
  std::string html() const;
};

// Seconds since the epoch as ISO 8601 UTC ("2026-11-27T17:42:57Z").
std::string iso8601_utc(std::int64_t seconds);
// One argument as a POSIX shell reads it back: bare when safe, otherwise in single quotes.
std::string shell_quote(const std::string& argument);
// A data file's size, modification time and, up to kDataHashLimit bytes, CRC-32. A path that is
// not a regular file keeps only its path.
inline constexpr std::uint64_t kDataHashLimit = 64ull << 20;
Provenance::DataFile describe_data_file(const std::string& option, const std::string& path);

}  // namespace invar::report
