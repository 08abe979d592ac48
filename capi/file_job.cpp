#include "capi/file_job.hpp"

#include <fmt/format.h>

#include "capi/guard.hpp"
#include "core/io.hpp"
#include "run/row_run.hpp"

namespace invar::capi {

void run_file_job(const FileJob& job) {
  require(job.input, "input");
  require(job.output, "output");
  invar_run_options defaults;
  invar_run_options_init(&defaults);
  const invar_run_options& run = job.run != nullptr ? *job.run : defaults;
  if (run.shards > 1 && run.shard >= run.shards)
    throw ArgumentError(fmt::format("run->shard is {}, and must be below run->shards ({})", run.shard, run.shards));
  if (run.part_count > 0) require_texts(run.parts, run.part_count, "run->parts");
  if (run.part_count > 0 && (run.shards > 1 || run.resume))
    throw ArgumentError("run->parts joins finished shards: give neither run->shards nor run->resume with it");
  const Table table = read_table(job.input, {.format = TableFormat::Text});
  std::vector<std::string> lines;
  for (const auto& row : table.rows) lines.push_back(row.front());
  std::vector<std::string> command = job.settings;
  command.insert(command.end(), {"--input", job.input});
  if (run.part_count > 0) run::merge_parts({run.parts, run.parts + run.part_count});
  run::RowRun row_run({.inputs = {"--input"},
                       .output = job.output,
                       .rows = lines.size(),
                       .chunk = job.chunk,
                       .output_option = "output",
                       .control = {.command = command,
                                   .resume = run.resume != 0,
                                   .shard = run.shards > 1 ? fmt::format("{}/{}", run.shard, run.shards) : ""}});
  std::size_t done = 0;
  const bool writes = row_run.process([&](std::size_t begin, std::size_t end) {
    if (run.progress != nullptr && run.progress(done, lines.size(), run.user) != 0)
      throw Stopped(fmt::format("{}: stopped by the progress callback after {} of {} lines; resume continues",
                                job.output, done, lines.size()));
    auto records = job.work(std::span(lines).subspan(begin, end - begin), begin);
    done += end - begin;
    return records;
  });
  if (writes) row_run.write_lines();
}

}  // namespace invar::capi

extern "C" {

void invar_run_options_init(invar_run_options* options) {
  if (options == nullptr) return;
  *options = invar_run_options{.resume = 0,
                               .shard = 0,
                               .shards = 0,
                               .parts = nullptr,
                               .part_count = 0,
                               .progress = nullptr,
                               .user = nullptr};
}

}  // extern "C"
