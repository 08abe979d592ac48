#pragma once
// Subcommands of `invar metric` that live in their own tools/cmd_*.cpp (cmd_metric.cpp adds them).
#include <CLI/CLI.hpp>

namespace invar::cli {

void setup_bertscore(CLI::App& metric);
// meteor, wmd, wvcos
void setup_meteor_and_word_vector_metrics(CLI::App& metric);

}  // namespace invar::cli
