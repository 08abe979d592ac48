#pragma once
// Process CPU time (every thread's), beside wall time in the benchmarks and tools: the two differ
// when threads wait or the machine is shared.
#include <time.h>

namespace invar::bench {

inline double cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace invar::bench
