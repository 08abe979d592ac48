#include "loaders/fingerprint.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "loaders/invar_file.hpp"

namespace invar {
namespace {

namespace fs = std::filesystem;

// Bounds on what is read: a header or config.json beyond them is not a model's (the loader says why).
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
constexpr std::uint64_t kMaxConfigBytes = 16'000'000;

std::int64_t seconds_since_epoch(fs::file_time_type time) {
  const auto system = std::chrono::file_clock::to_sys(time);
  return std::chrono::duration_cast<std::chrono::seconds>(system.time_since_epoch()).count();
}

std::uint64_t little_endian(const unsigned char* bytes, int size) {
  std::uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) value = value << 8 | bytes[i];
  return value;
}

std::string model_type_of(const nlohmann::json& config) {
  if (!config.is_object()) return "";
  if (auto it = config.find("model_type"); it != config.end() && it->is_string()) return it->get<std::string>();
  if (auto it = config.find("architectures"); it != config.end() && it->is_array() && !it->empty() && it->front().is_string())
    return it->front().get<std::string>();
  return "";
}

// Null for text that is not JSON; values nested deeper than any config or header are dropped, so a
// hostile file cannot build a deep tree.
nlohmann::json parse_or_null(const std::string& text) {
  const nlohmann::json::parser_callback_t shallow = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    return depth <= 8;
  };
  return nlohmann::json::parse(text, shallow, false);
}

std::string read_range(std::ifstream& in, std::uint64_t offset, std::uint64_t size) {
  std::string bytes(size, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  return in ? bytes : std::string();
}

ModelFingerprint folder_fingerprint(const fs::path& folder) {
  ModelFingerprint out{.format = "huggingface"};
  std::error_code error;
  for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (!it->is_regular_file(error)) continue;
    out.bytes += it->file_size(error);
    out.modified = std::max(out.modified, seconds_since_epoch(it->last_write_time(error)));
  }
  std::ifstream config(folder / "config.json", std::ios::binary);
  if (config && fs::file_size(folder / "config.json", error) <= kMaxConfigBytes) {
    std::string text((std::istreambuf_iterator<char>(config)), std::istreambuf_iterator<char>());
    out.model_type = model_type_of(parse_or_null(text));
  }
  return out;
}

// The preamble (docs/model-format.md) gives the header's and data section's places and the data
// CRC; the header lists config.json's range in the data section.
std::optional<ModelFingerprint> invar_fingerprint(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<unsigned char, kInvarPreambleBytes> preamble{};
  if (!in.read(reinterpret_cast<char*>(preamble.data()), preamble.size()) ||
      std::memcmp(preamble.data(), kInvarMagic, sizeof kInvarMagic) != 0)
    return std::nullopt;
  std::error_code error;
  ModelFingerprint out{.format = "invar"};
  out.bytes = fs::file_size(path, error);
  out.modified = seconds_since_epoch(fs::last_write_time(path, error));
  out.data_crc32 = fmt::format("{:08x}", little_endian(&preamble[52], 4));
  const std::uint64_t header_offset = little_endian(&preamble[16], 8), header_size = little_endian(&preamble[24], 8);
  const std::uint64_t data_offset = little_endian(&preamble[32], 8);
  if (header_size > kMaxHeaderBytes || header_offset > out.bytes || header_size > out.bytes - header_offset) return out;
  const auto header = parse_or_null(read_range(in, header_offset, header_size));
  if (!header.is_object() || !header.contains("files") || !header["files"].is_array()) return out;
  for (const auto& file : header["files"]) {
    if (!file.is_object() || file.value("name", nlohmann::json()) != "config.json") continue;
    const auto offset = file.value("offset", nlohmann::json()), size = file.value("size", nlohmann::json());
    if (!offset.is_number_unsigned() || !size.is_number_unsigned()) break;
    const std::uint64_t begin = offset.get<std::uint64_t>(), bytes = size.get<std::uint64_t>();
    // Each bound checked apart: a hostile header's sums could wrap around.
    if (bytes > kMaxConfigBytes || data_offset > out.bytes || begin > out.bytes - data_offset ||
        bytes > out.bytes - data_offset - begin)
      break;
    out.model_type = model_type_of(parse_or_null(read_range(in, data_offset + begin, bytes)));
  }
  return out;
}

}  // namespace

std::optional<ModelFingerprint> fingerprint_model(const std::string& path) {
  std::error_code error;
  const fs::path p(path);
  if (fs::is_directory(p, error)) {
    if (!fs::is_regular_file(p / "config.json", error)) return std::nullopt;
    return folder_fingerprint(p);
  }
  if (!fs::is_regular_file(p, error)) return std::nullopt;
  return invar_fingerprint(p);
}

}  // namespace invar
