#pragma once
// The one encoding of the records a row run keeps (run/row_run.hpp): a record is fields separated
// by tabs, written by RecordWriter and read back by RecordReader in the same order and types.
// Floats and doubles are the hex digits of their bits, so a value reads back to the very bits (NaN's
// sign and payload, infinities, -0): output written from records equals output written from the
// computed numbers. Integers are decimal; strings have '\\', tab, line feed and carriage return
// escaped; a vector of floats or doubles is its elements' hex digits separated by commas.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace invar::run {

class RecordWriter {
 public:
  RecordWriter& put(float value);
  RecordWriter& put(double value);
  RecordWriter& put(std::uint64_t value);
  RecordWriter& put(std::int64_t value);
  RecordWriter& put(bool value);
  RecordWriter& put(std::string_view value);
  RecordWriter& put(const char* value) { return put(std::string_view(value)); }
  RecordWriter& put(const std::vector<float>& values);
  RecordWriter& put(const std::vector<double>& values);
  const std::string& str() const { return record_; }

 private:
  std::string& field();
  std::string record_;
  bool first_ = true;
};

// Reads the fields of one record; a field that is not what RecordWriter writes for the type asked
// (a damaged record) fails naming `what` (the command whose record it is).
class RecordReader {
 public:
  RecordReader(std::string_view record, std::string_view what);
  float get_float();
  double get_double();
  std::uint64_t get_uint();
  std::int64_t get_int();
  bool get_bool();
  std::string get_string();
  std::vector<float> get_floats();
  std::vector<double> get_doubles();
  // Fails when fields are left: the record was written with more than was read.
  void finish() const;

 private:
  std::string_view next();
  template <typename T>
  T get_integer(std::string_view expected);
  [[noreturn]] void bad(std::string_view field, std::string_view expected) const;
  std::string_view record_, what_;
  std::size_t at_ = 0;
  bool done_ = false;
};

}  // namespace invar::run
