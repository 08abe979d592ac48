// The record codec of run control (run/record.hpp): every value reads back to the very value it
// was written from, and a record that is not what the writer wrote is refused.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "core/error.hpp"
#include "run/record.hpp"

namespace invar {
namespace {

using run::RecordReader;
using run::RecordWriter;

TEST(RunRecord, FloatsAndDoublesReadBackToTheirBits) {
  const float quiet_nan = std::bit_cast<float>(std::uint32_t{0xffc00001});  // negative, with a payload
  const std::vector<float> floats{0.1f, -0.0f, std::numeric_limits<float>::infinity(), quiet_nan,
                                  std::numeric_limits<float>::denorm_min()};
  const std::vector<double> doubles{1.0 / 3.0, -std::numeric_limits<double>::infinity(),
                                    std::bit_cast<double>(std::uint64_t{0x7ff0000000000123})};
  RecordWriter writer;
  writer.put(floats).put(doubles).put(floats[3]).put(doubles[2]).put(std::vector<float>{});
  RecordReader reader(writer.str(), "test");
  const auto f = reader.get_floats();
  const auto d = reader.get_doubles();
  ASSERT_EQ(f.size(), floats.size());
  for (std::size_t i = 0; i < f.size(); ++i) EXPECT_EQ(std::bit_cast<std::uint32_t>(f[i]), std::bit_cast<std::uint32_t>(floats[i]));
  ASSERT_EQ(d.size(), doubles.size());
  for (std::size_t i = 0; i < d.size(); ++i) EXPECT_EQ(std::bit_cast<std::uint64_t>(d[i]), std::bit_cast<std::uint64_t>(doubles[i]));
  EXPECT_EQ(std::bit_cast<std::uint32_t>(reader.get_float()), 0xffc00001u);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(reader.get_double()), 0x7ff0000000000123u);
  EXPECT_TRUE(reader.get_floats().empty());
  reader.finish();
}

TEST(RunRecord, StringsKeepTabsLineBreaksAndBackslashesOnOneLine) {
  const std::string text = "a\tb\nc\\d\re\\t", empty;
  RecordWriter writer;
  writer.put(text).put(empty).put("x").put(std::uint64_t{18446744073709551615u}).put(std::int64_t{-7}).put(true).put(false);
  EXPECT_EQ(writer.str().find('\n'), std::string::npos);
  RecordReader reader(writer.str(), "test");
  EXPECT_EQ(reader.get_string(), text);
  EXPECT_EQ(reader.get_string(), empty);
  EXPECT_EQ(reader.get_string(), "x");
  EXPECT_EQ(reader.get_uint(), 18446744073709551615u);
  EXPECT_EQ(reader.get_int(), -7);
  EXPECT_TRUE(reader.get_bool());
  EXPECT_FALSE(reader.get_bool());
  reader.finish();
}

TEST(RunRecord, DamagedRecordsAreRefusedNamingTheCommand) {
  const auto message = [](const std::function<void()>& read) {
    try {
      read();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // A flipped hex digit is still a float; one too few, a letter beyond f or a missing field is not.
  EXPECT_NE(message([] { RecordReader("3f80000", "bleu").get_float(); }).find("a bleu record holds '3f80000'"),
            std::string::npos);
  EXPECT_NE(message([] { RecordReader("3f80000g", "bleu").get_float(); }).find("hex digits of a float"), std::string::npos);
  EXPECT_NE(message([] { RecordReader("3f800000,3f80000", "embed").get_floats(); }).find("embed"), std::string::npos);
  EXPECT_NE(message([] { RecordReader("12x", "lip").get_uint(); }).find("a count"), std::string::npos);
  EXPECT_NE(message([] { RecordReader("2", "lip").get_bool(); }).find("0 or 1"), std::string::npos);
  EXPECT_NE(message([] { RecordReader("a\\qb", "isometry").get_string(); }).find("escapes"), std::string::npos);
  EXPECT_NE(message([] {
              RecordReader reader("1", "lip");
              reader.get_uint();
              reader.get_uint();
            }).find("ends before all its fields"),
            std::string::npos);
  EXPECT_NE(message([] {
              RecordReader reader("1\t2", "lip");
              reader.get_uint();
              reader.finish();
            }).find("more fields"),
            std::string::npos);
}

}  // namespace
}  // namespace invar
