#include "eval/report/provenance.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>

#include "core/crc32.hpp"
#include "core/io.hpp"
#include "core/printable.hpp"
#include "eval/report/report.hpp"

namespace invar::report {
namespace {

namespace fs = std::filesystem;

std::string model_text(const Provenance::Model& m) {
  std::string out = fmt::format("{} {} ({}", m.option, m.path, m.format);
  if (!m.model_type.empty()) out += ", " + m.model_type;
  out += fmt::format(", {} bytes, modified {}", m.bytes, m.modified);
  if (!m.data_crc32.empty()) out += ", data CRC-32 " + m.data_crc32;
  return out + ")";
}

std::string data_text(const Provenance::DataFile& d) {
  std::string out = fmt::format("{} {}", d.option, d.path);
  if (d.modified.empty()) return out;
  out += fmt::format(" ({} bytes, modified {}", d.bytes, d.modified);
  if (!d.crc32.empty()) out += ", CRC-32 " + d.crc32;
  return out + ")";
}

// Every entry as (key, text), in the order every format shows them.
std::vector<std::pair<std::string, std::string>> entries(const Provenance& p) {
  std::vector<std::pair<std::string, std::string>> out{{"invar", p.version}, {"command", p.command}, {"date", p.date}};
  for (const auto& m : p.models) out.emplace_back("model", model_text(m));
  for (const auto& d : p.data) out.emplace_back("data", data_text(d));
  for (const auto& [name, value] : p.settings) out.emplace_back("setting", name + " = " + value);
  return out;
}

}  // namespace

std::string iso8601_utc(std::int64_t seconds) {
  const auto time = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&time, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string shell_quote(const std::string& argument) {
  const bool safe = !argument.empty() && argument.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                                     "0123456789@%+=:,./-_") == std::string::npos;
  if (safe) return argument;
  std::string out = "'";
  for (char c : argument) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Provenance::DataFile describe_data_file(const std::string& option, const std::string& path) {
  Provenance::DataFile out{.option = option, .path = path};
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return out;
  out.bytes = fs::file_size(path, error);
  const auto modified = fs::last_write_time(path, error);
  if (error) return out;
  out.modified = iso8601_utc(std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::file_clock::to_sys(modified).time_since_epoch()).count());
  if (out.bytes <= kDataHashLimit) {
    try {
      const std::string bytes = read_whole_file(path);
      out.crc32 = fmt::format("{:08x}", crc32_of(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
    } catch (const std::exception&) {
      // Unreadable now: the command that reads it names the problem.
    }
  }
  return out;
}

nlohmann::ordered_json Provenance::json() const {
  nlohmann::ordered_json out{{"invar", version}, {"command", command}, {"date", date}};
  auto& model_list = out["models"] = nlohmann::ordered_json::array();
  for (const auto& m : models) {
    nlohmann::ordered_json entry{{"option", m.option}, {"path", m.path},       {"format", m.format},
                                 {"model_type", m.model_type}, {"bytes", m.bytes}, {"modified", m.modified}};
    if (!m.data_crc32.empty()) entry["data_crc32"] = m.data_crc32;
    model_list.push_back(std::move(entry));
  }
  auto& data_list = out["data"] = nlohmann::ordered_json::array();
  for (const auto& d : data) {
    nlohmann::ordered_json entry{{"option", d.option}, {"path", d.path}};
    if (!d.modified.empty()) {
      entry["bytes"] = d.bytes;
      entry["modified"] = d.modified;
    }
    if (!d.crc32.empty()) entry["crc32"] = d.crc32;
    data_list.push_back(std::move(entry));
  }
  auto& setting_list = out["settings"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : settings) setting_list[name] = value;
  return out;
}

std::string Provenance::comment_lines(const std::string& prefix) const {
  std::string out;
  // printable(): a newline in a file name would end the comment and start a live line.
  for (const auto& [key, text] : entries(*this)) out += fmt::format("{} {}: {}\n", prefix, key, printable(text));
  return out;
}

std::string Provenance::html() const {
  std::string out = "<details class=\"provenance\">\n<summary>How this report was made</summary>\n<dl class=\"settings\">\n";
  for (const auto& [key, text] : entries(*this))
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", html_escape(key), html_escape(text));
  return out + "</dl>\n</details>\n";
}

}  // namespace invar::report
