#pragma once
// The inputs of `invar metric`: its arguments, and hypothesis / reference / source files read as
// sacrebleu's CLI reads them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/run_control.hpp"

namespace invar::cli {

struct MetricArguments {
  std::vector<std::string> hyps;
  std::vector<std::string> refs;
  std::string source;
  std::string output = "-";
  bool sentence = false;
  bool commutative = false;
  bool json = false;
  bool score_only = false;
  bool short_signature = false;
  int width = 1;
  int threads = 0;
  bool confidence = false;
  int confidence_n = 1000;
  bool paired_bs = false;
  int paired_bs_n = 1000;
  bool paired_ar = false;
  int paired_ar_n = 10000;  // sacrebleu's --paired-ar-n default
  std::uint64_t seed = 12345;
  int num_refs = 1;
  std::string language_pair;
  bool raw_stats = false;
  std::string empty = "reference";  // --empty: an empty hypothesis scored as sacrebleu does, or an error
  RunControl control;
};

// One comparison: the hypotheses against the source (self-) or the references (ref-).
struct Comparison {
  std::string kind;  // "source" or "references"
  std::vector<std::vector<std::string>> refs;
};

// Lines as sacrebleu's CLI reads them: each rstrip()ped (Python whitespace).
std::vector<std::string> read_segments(const std::string& path);
void check_aligned(const std::string& path, std::size_t lines, const std::string& first, std::size_t expected);
// The --source comparison and the --ref one (several files, or --num-refs tab-separated fields).
std::vector<Comparison> read_comparisons(const MetricArguments& args, std::size_t segments);
// TRG of "SRC-TRG", or nullopt when the pair is not of that form.
std::optional<std::string> target_language(const std::string& pair);

}  // namespace invar::cli
