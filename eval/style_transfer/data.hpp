#pragma once
// The data of a style-transfer evaluation (Briakou et al. 2021, "Evaluating the Evaluation Metrics
// for Style Transfer"): per system output, its informal input, optional references and optional
// human judgements of three dimensions (meaning, formality, fluency) plus the paper's `combined`.
// Read from the paper's released meta-evaluation layout (one row per system output) or from
// line-aligned files (an input file, one output file per system, reference files, judgement files).
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace invar::style_transfer {

enum class Dimension { Meaning, Formality, Fluency, Combined };
inline constexpr std::array<Dimension, 4> kDimensions{Dimension::Meaning, Dimension::Formality, Dimension::Fluency,
                                                      Dimension::Combined};
const char* dimension_name(Dimension dimension);    // "meaning", "formality", "fluency", "combined"
const char* dimension_column(Dimension dimension);  // the paper's column: "meaning_human", …, "combined"

struct Segment {
  std::string group;  // language or data set; one group when empty
  std::string system;
  std::string input, output;
  std::vector<std::string> references;
  std::array<std::optional<double>, 4> human;  // by Dimension; nullopt = not judged (the paper's None)
  std::string where;  // FILE:LINE of the output, for errors
};

// The paper's layout: a TSV or CSV file with a header naming system_name, informal_input,
// system_output and any of meaning_human, formality_human, fluency_human, combined, plus reference
// columns named reference, reference_2, … (any name starting with "reference"). A human value is a
// number or None (that row is then left out for that dimension only). Any other column, a missing
// required one, an empty output or a value that is neither a number nor None fails naming FILE:LINE
// and the column. Every row gets `group`.
std::vector<Segment> read_judgement_table(const std::string& path, const std::string& group);

// Line-aligned files: `inputs` (one informal input per line), per system (name, output file), the
// reference files, and per system an optional judgement table (TSV/CSV with a header naming any of
// the human columns above, one row per output line).
struct SystemFiles {
  std::string name;
  std::string outputs;
  std::string judgements;  // empty = none
};
std::vector<Segment> read_aligned_files(const std::string& inputs, const std::vector<SystemFiles>& systems,
                                        const std::vector<std::string>& references, const std::string& group);

// Fails at the first empty output ("FILE:LINE: empty system output"), what BERTScore, METEOR and
// WMD would silently score 0 or infinity.
void check_outputs(const std::vector<Segment>& segments);

// Names in order of first appearance.
std::vector<std::string> systems_of(const std::vector<Segment>& segments);
std::vector<std::string> groups_of(const std::vector<Segment>& segments);

}  // namespace invar::style_transfer
