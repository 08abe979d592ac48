#pragma once
// Files shipped with invar (examples/): found beside an installed binary (PREFIX/share/invar/...), or
// in the source tree the binary was built from, so `build/invar lip --example` works in a fresh clone.
#include <string>

namespace invar::cli {

// The directory `relative` (e.g. "examples/lip") under the installed data directory or the source
// tree; fails listing the places searched.
std::string bundled_path(const std::string& relative);

}  // namespace invar::cli
