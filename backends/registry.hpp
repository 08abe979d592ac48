#pragma once
// The backends compiled into this build, for the code that picks one (engine/, capi/, tools/).
// backends/registry.cpp is the only file that knows which they are: adding a backend is a folder
// under backends/ with a BackendFactory (backends/factory.hpp), plus one line there.
#include <memory>
#include <string>
#include <vector>

#include "backends/factory.hpp"

namespace invar {

const std::vector<BackendFactory>& backend_factories();

// The backend for a --device name; fails naming the devices this build takes.
std::unique_ptr<Backend> make_backend(const std::string& device, const BackendOptions& options = {});
std::vector<std::string> backend_names();

// The most threads --threads and the C API's `threads` take: far above any machine's cores, low
// enough that a typo (1000000) is refused before the system is asked for the threads.
inline constexpr int kMaxThreads = 1024;
// A thread count as --threads takes it: 0 = every core.
int thread_count(int requested);

}  // namespace invar
