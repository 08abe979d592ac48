#pragma once
// `invar metric meteor|wmd|wvcos`, added to the `metric` command by tools/cmd_metric.cpp.
#include <CLI/CLI.hpp>

namespace invar::cli {

void add_meteor_and_word_vector_metrics(CLI::App& metric);

}  // namespace invar::cli
