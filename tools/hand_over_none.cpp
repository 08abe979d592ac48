// invar-full: every command is here.
#include "tools/hand_over.hpp"

namespace invar::cli {

void run_here_or_hand_over(const CLI::App&, int, char**) {}

}  // namespace invar::cli
