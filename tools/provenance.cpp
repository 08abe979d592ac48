#include "tools/provenance.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "core/version.hpp"
#include "loaders/fingerprint.hpp"

namespace invar::cli {
namespace {

// What the parse gave, kept until a writer first asks: describing files reads them (a CRC-32), which
// a run that writes no report should not pay for.
struct Recorded {
  report::Provenance provenance;
  std::vector<std::pair<std::string, std::string>> files;  // option, value
  bool described = false;
};

Recorded& recorded() {
  static Recorded r;
  return r;
}

bool writes(const CLI::Option& option) {
  std::string help = option.get_description();
  std::transform(help.begin(), help.end(), help.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto names = option.get_lnames();
  return help.find("write") != std::string::npos || help.find("written") != std::string::npos ||
         std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.rfind("save-", 0) == 0; });
}

// Seconds since 1970 for the record's date: now, or SOURCE_DATE_EPOCH where it is set
// (reproducible-builds.org's variable, which asks for an error on a malformed value), so that two
// runs of one command can write byte-identical reports.
std::int64_t run_date() {
  const char* fixed = std::getenv("SOURCE_DATE_EPOCH");
  if (fixed == nullptr)
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  std::int64_t seconds = 0;
  const char* end = fixed + std::strlen(fixed);
  const auto [at, error] = std::from_chars(fixed, end, seconds);
  constexpr std::int64_t kLastSecondOf9999 = 253402300799;  // ISO 8601's four-digit years
  if (*fixed == '\0' || error != std::errc() || at != end || seconds < 0 || seconds > kLastSecondOf9999)
    fail("SOURCE_DATE_EPOCH: '{}' is not a whole number of seconds from 1970-01-01 to 9999-12-31 UTC", fixed);
  return seconds;
}

void add_file(report::Provenance& p, const std::string& option, const std::string& value) {
  std::error_code error;
  std::vector<std::string> candidates{value};
  // NAME=FILE (st-eval's --system, --table): the file after the name.
  if (const auto equals = value.find('='); equals != std::string::npos && !std::filesystem::exists(value, error))
    candidates.push_back(value.substr(equals + 1));
  for (const auto& path : candidates) {
    if (const auto model = fingerprint_model(path)) {
      p.models.push_back({.option = option, .path = path, .format = model->format, .model_type = model->model_type,
                          .bytes = model->bytes, .modified = report::iso8601_utc(model->modified),
                          .data_crc32 = model->data_crc32});
      return;
    }
    if (std::filesystem::is_regular_file(path, error)) {
      p.data.push_back(report::describe_data_file(option, path));
      return;
    }
  }
}

void record_options(Recorded& r, const CLI::App& app) {
  report::Provenance& p = r.provenance;
  for (const CLI::Option* option : app.get_options()) {
    // get_name() is empty for a hidden option (an alias such as --beam-size): its first long name.
    const auto& longs = option->get_lnames();
    const auto& shorts = option->get_snames();
    const std::string name = !longs.empty() ? "--" + longs.front() : !shorts.empty() ? "-" + shorts.front() : option->get_name();
    if (name == "--help" || name == "--version" || name == "--help-all") continue;
    if (option->count() == 0) {
      if (!option->get_default_str().empty()) p.settings.emplace_back(name, option->get_default_str());
      continue;
    }
    const auto& values = option->results();
    // A repeated or comma-separated option's values, comma-separated as --label-map takes them.
    p.settings.emplace_back(name, fmt::format("{}", fmt::join(values, ",")));
    if (option->get_expected_min() == 0 || writes(*option)) continue;
    for (const auto& value : values) r.files.emplace_back(name, value);
  }
}

}  // namespace

void record_provenance(const CLI::App& root, const std::vector<std::string>& command_line) {
  Recorded r;
  report::Provenance& p = r.provenance;
  p.version = kVersion;
  std::vector<std::string> quoted;
  for (const auto& argument : command_line) quoted.push_back(report::shell_quote(argument));
  p.command = fmt::format("{}", fmt::join(quoted, " "));
  p.date = report::iso8601_utc(run_date());
  for (const CLI::App* app = &root;;) {
    record_options(r, *app);
    const auto chosen = app->get_subcommands();
    if (chosen.empty()) break;
    app = chosen.front();
  }
  recorded() = std::move(r);
}

const report::Provenance& provenance() {
  Recorded& r = recorded();
  if (!r.described) {
    for (const auto& [option, value] : r.files) add_file(r.provenance, option, value);
    r.described = true;
  }
  return r.provenance;
}

}  // namespace invar::cli
