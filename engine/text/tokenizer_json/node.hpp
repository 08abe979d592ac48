#pragma once
// A position in tokenizer.json: the value and its JSON path ("pre_tokenizer.pretokenizers[1]"),
// so that every refusal names the file and the field it is about.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace invar::tokenizer_json {

class Node {
 public:
  Node(const nlohmann::json& value, std::string file, std::string path)
      : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

  const nlohmann::json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  bool is_null() const { return value_->is_null(); }

  // The member `key`; a missing member reads as null.
  Node operator[](std::string_view key) const;
  bool has(std::string_view key) const;  // present and not null
  // The elements of an array (fails when this is not one).
  std::vector<Node> elements() const;
  // The members of an object, in the file's order (fails when this is not one).
  std::vector<std::pair<std::string, Node>> members() const;

  // Typed reads of this value; they fail naming the path when the type is wrong.
  std::string string() const;
  bool boolean() const;
  std::int64_t integer(std::int64_t min, std::int64_t max) const;
  double number() const;

  // Typed reads of a member, with a fallback where it is absent or null.
  std::string string(std::string_view key) const { return (*this)[key].string(); }
  std::optional<std::string> optional_string(std::string_view key) const;
  bool boolean(std::string_view key, bool fallback) const;

  // The object's "type" (required).
  std::string type() const { return string("type"); }

  [[noreturn]] void fail_here(std::string_view what) const;
  // "<file>: <path>.type 'X' is not supported".
  [[noreturn]] void unsupported_type() const;
  // "<file>: <path>.<key> <value> is not supported (<why>)".
  [[noreturn]] void unsupported(std::string_view key, std::string_view why) const;

 private:
  const nlohmann::json* value_;
  std::string file_;
  std::string path_;
};

}  // namespace invar::tokenizer_json
