#include "run/record.hpp"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <type_traits>

#include "core/error.hpp"

namespace invar::run {
namespace {

template <typename T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <typename T>
void append_bits(std::string& out, T value) {
  fmt::format_to(std::back_inserter(out), "{:0{}x}", std::bit_cast<Bits<T>>(value), 2 * sizeof(T));
}

template <typename T>
bool parse_bits(std::string_view field, T& value) {
  Bits<T> bits = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), bits, 16);
  if (ec != std::errc() || end != field.data() + field.size() || field.size() != 2 * sizeof(T)) return false;
  value = std::bit_cast<T>(bits);
  return true;
}

template <typename T>
void append_vector(std::string& out, const std::vector<T>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    append_bits(out, values[i]);
  }
}

template <typename T>
bool parse_vector(std::string_view field, std::vector<T>& values) {
  values.clear();
  if (field.empty()) return true;
  if ((field.size() + 1) % (2 * sizeof(T) + 1) != 0) return false;
  values.resize((field.size() + 1) / (2 * sizeof(T) + 1));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::size_t at = i * (2 * sizeof(T) + 1);
    if (i > 0 && field[at - 1] != ',') return false;
    if (!parse_bits(field.substr(at, 2 * sizeof(T)), values[i])) return false;
  }
  return true;
}

}  // namespace

std::string& RecordWriter::field() {
  if (!first_) record_ += '\t';
  first_ = false;
  return record_;
}

RecordWriter& RecordWriter::put(float value) {
  append_bits(field(), value);
  return *this;
}
RecordWriter& RecordWriter::put(double value) {
  append_bits(field(), value);
  return *this;
}
RecordWriter& RecordWriter::put(std::uint64_t value) {
  fmt::format_to(std::back_inserter(field()), "{}", value);
  return *this;
}
RecordWriter& RecordWriter::put(std::int64_t value) {
  fmt::format_to(std::back_inserter(field()), "{}", value);
  return *this;
}
RecordWriter& RecordWriter::put(bool value) {
  field() += value ? '1' : '0';
  return *this;
}
RecordWriter& RecordWriter::put(std::string_view value) {
  std::string& out = field();
  for (const char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return *this;
}
RecordWriter& RecordWriter::put(const std::vector<float>& values) {
  append_vector(field(), values);
  return *this;
}
RecordWriter& RecordWriter::put(const std::vector<double>& values) {
  append_vector(field(), values);
  return *this;
}

RecordReader::RecordReader(std::string_view record, std::string_view what) : record_(record), what_(what) {}

std::string_view RecordReader::next() {
  if (done_) fail("a {} record ends before all its fields: '{}'", what_, record_);
  const auto tab = record_.find('\t', at_);
  const std::string_view field = record_.substr(at_, tab == std::string_view::npos ? std::string_view::npos : tab - at_);
  if (tab == std::string_view::npos) done_ = true;
  else at_ = tab + 1;
  return field;
}

void RecordReader::bad(std::string_view field, std::string_view expected) const {
  fail("a {} record holds '{}' where {} belongs (a damaged record)", what_, field, expected);
}

float RecordReader::get_float() {
  const auto field = next();
  float value = 0;
  if (!parse_bits(field, value)) bad(field, "the 8 hex digits of a float");
  return value;
}

double RecordReader::get_double() {
  const auto field = next();
  double value = 0;
  if (!parse_bits(field, value)) bad(field, "the 16 hex digits of a double");
  return value;
}

template <typename T>
T RecordReader::get_integer(std::string_view expected) {
  const auto field = next();
  T value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || ec != std::errc() || end != field.data() + field.size()) bad(field, expected);
  return value;
}

std::uint64_t RecordReader::get_uint() { return get_integer<std::uint64_t>("a count"); }
std::int64_t RecordReader::get_int() { return get_integer<std::int64_t>("an integer"); }

bool RecordReader::get_bool() {
  const auto field = next();
  if (field != "0" && field != "1") bad(field, "0 or 1");
  return field == "1";
}

std::string RecordReader::get_string() {
  const auto field = next();
  std::string value;
  value.reserve(field.size());
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\') {
      value += field[i];
      continue;
    }
    const char escaped = i + 1 < field.size() ? field[++i] : '\0';
    switch (escaped) {
      case '\\': value += '\\'; break;
      case 't': value += '\t'; break;
      case 'n': value += '\n'; break;
      case 'r': value += '\r'; break;
      default: bad(field, "a string with \\\\, \\t, \\n or \\r escapes");
    }
  }
  return value;
}

std::vector<float> RecordReader::get_floats() {
  const auto field = next();
  std::vector<float> values;
  if (!parse_vector(field, values)) bad(field, "floats as comma-separated hex digits");
  return values;
}

std::vector<double> RecordReader::get_doubles() {
  const auto field = next();
  std::vector<double> values;
  if (!parse_vector(field, values)) bad(field, "doubles as comma-separated hex digits");
  return values;
}

void RecordReader::finish() const {
  if (!done_) fail("a {} record holds more fields than it should: '{}'", what_, record_);
}

}  // namespace invar::run
