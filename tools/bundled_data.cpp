#include "tools/bundled_data.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "core/error.hpp"

namespace invar::cli {

std::string bundled_path(const std::string& relative) {
  namespace fs = std::filesystem;
  std::vector<fs::path> roots;
  std::error_code error;
  auto executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) roots.push_back(executable.parent_path().parent_path() / "share" / "invar");
  roots.push_back(fs::path(INVAR_SOURCE_DIR));
  std::vector<std::string> searched;
  for (const auto& root : roots) {
    auto candidate = root / relative;
    if (fs::is_directory(candidate, error)) return candidate.string();
    searched.push_back(candidate.string());
  }
  fail("bundled data {} not found (searched {})", relative, fmt::join(searched, ", "));
}

}  // namespace invar::cli
