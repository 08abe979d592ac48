#pragma once
// Two binaries run invar's commands. `invar` is the front: it holds the commands that load no model
// (BLEU, chrF, TER, statistics), is linked with only their libraries, and hands every other command
// over to `invar-full` beside it, which holds them all. Start-up is most of a short metric run, and
// the dynamic loader's work on the model libraries (OpenBLAS, oneDNN, OpenCL, MPI, Graphviz, ...)
// was most of start-up (docs/performance.md, "Metrics").
#include <CLI/CLI.hpp>

namespace invar::cli {

// Returns when this binary runs the command named by argv itself; otherwise replaces this process
// with invar-full, given the same arguments (same process, standard streams and exit status).
// `app` holds the commands this binary has. tools/front/hand_over_exec.cpp is the front's;
// tools/hand_over_none.cpp, where every command is at hand, returns at once.
void run_here_or_hand_over(const CLI::App& app, int argc, char** argv);

}  // namespace invar::cli
