#include "engine/text/tokenizer_json/node.hpp"

#include "core/error.hpp"

namespace invar::tokenizer_json {
namespace {

const nlohmann::json kNull = nullptr;

std::string member_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string shown(const nlohmann::json& value) {
  auto text = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

}  // namespace

Node Node::operator[](std::string_view key) const {
  if (!value_->is_object()) fail_here("must be a JSON object");
  auto it = value_->find(key);
  return Node(it == value_->end() ? kNull : *it, file_, member_path(path_, key));
}

bool Node::has(std::string_view key) const { return !(*this)[key].is_null(); }

std::vector<Node> Node::elements() const {
  if (!value_->is_array()) fail_here("must be a list");
  std::vector<Node> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i)
    out.emplace_back((*value_)[i], file_, fmt::format("{}[{}]", path_, i));
  return out;
}

std::vector<std::pair<std::string, Node>> Node::members() const {
  if (!value_->is_object()) fail_here("must be a JSON object");
  std::vector<std::pair<std::string, Node>> out;
  out.reserve(value_->size());
  for (const auto& [key, value] : value_->items()) out.emplace_back(key, Node(value, file_, member_path(path_, key)));
  return out;
}

std::string Node::string() const {
  if (!value_->is_string()) fail_here("must be a string");
  return value_->get<std::string>();
}

bool Node::boolean() const {
  if (!value_->is_boolean()) fail_here("must be true or false");
  return value_->get<bool>();
}

std::int64_t Node::integer(std::int64_t min, std::int64_t max) const {
  const auto bad = [&] { fail_here(fmt::format("must be an integer from {} to {}", min, max)); };
  if (!value_->is_number_integer()) bad();
  if (value_->is_number_unsigned() && value_->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) bad();
  const auto value = value_->get<std::int64_t>();
  if (value < min || value > max) bad();
  return value;
}

double Node::number() const {
  if (!value_->is_number()) fail_here("must be a number");
  return value_->get<double>();
}

std::optional<std::string> Node::optional_string(std::string_view key) const {
  auto member = (*this)[key];
  if (member.is_null()) return std::nullopt;
  return member.string();
}

bool Node::boolean(std::string_view key, bool fallback) const {
  auto member = (*this)[key];
  return member.is_null() ? fallback : member.boolean();
}

void Node::fail_here(std::string_view what) const { fail("{}: {} {}", file_, path_.empty() ? "(top level)" : path_, what); }

void Node::unsupported_type() const {
  fail("{}: {}.type '{}' is not supported", file_, path_, (*this)["type"].string());
}

void Node::unsupported(std::string_view key, std::string_view why) const {
  fail("{}: {} {} is not supported ({})", file_, member_path(path_, key), shown((*this)[key].json()), why);
}

}  // namespace invar::tokenizer_json
