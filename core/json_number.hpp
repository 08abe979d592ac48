#pragma once
// Numbers in JSON output. JSON has no NaN or infinity (Python's json.loads rejects the bare `nan`
// and `inf` that printf-style formatting writes), so every writer turns a non-finite value into
// null, through these helpers.
#include <nlohmann/json.hpp>

#include <span>
#include <string>

namespace invar {

// The shortest text that reads back as the same value (fmt's "{}"), or "null".
std::string json_number_text(double value);
std::string json_number_text(float value);
// "[a, b, …]" of json_number_text.
std::string json_array_text(std::span<const float> values);
std::string json_array_text(std::span<const double> values);
// The value as a JSON number, or null.
nlohmann::ordered_json json_number(double value);

// Whether every value is finite (an output row that is not gets reported).
bool all_finite(std::span<const float> values);
bool all_finite(std::span<const double> values);

}  // namespace invar
