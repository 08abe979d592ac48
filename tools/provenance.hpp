#pragma once
// The run's provenance (eval/report/provenance.hpp), filled once from the parsed command line and
// handed by each command to every report and table writer.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "eval/report/provenance.hpp"

namespace invar::cli {

// Fills the record from the command being run (`root`'s chain of parsed subcommands) and the
// command line as typed: every option given or with a default is a setting; a value naming a model
// folder or .invar file is a model, one naming another existing file (NAME=FILE too) a data file,
// except the values of output options (-o, --report, --csv FILE, …: those whose help says they write).
// Files are described (size, time, CRC-32) when provenance() is first called, not before.
void record_provenance(const CLI::App& root, const std::vector<std::string>& command_line);
const report::Provenance& provenance();

}  // namespace invar::cli
