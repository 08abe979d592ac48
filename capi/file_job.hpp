#pragma once
// The C API's file jobs (invar_embed_file, invar_translate_file) on run::RowRun: the lines of an
// input file computed in chunks, kept beside the output for invar_run_options' resume, split into
// shards and joined from their parts as `invar COMMAND --shard K/N` and `invar merge` do.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "invar/invar.h"

namespace invar::capi {

struct FileJob {
  const char* input = nullptr;
  const char* output = nullptr;
  const invar_run_options* run = nullptr;  // NULL = the defaults
  // The job and every setting that changes its output, for the fingerprint of its progress and parts.
  std::vector<std::string> settings;
  std::size_t chunk = 1;  // lines per chunk
  // The output lines of `lines`, the input's lines from index `first` on.
  std::function<std::vector<std::string>(std::span<const std::string> lines, std::size_t first)> work;
};

// Runs the job; the output is written unless the job is a shard (then the partial result is).
// Throws Stopped when the progress callback returns nonzero.
void run_file_job(const FileJob& job);

}  // namespace invar::capi
