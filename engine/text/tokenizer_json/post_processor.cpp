#include "engine/text/tokenizer_json/post_processor.hpp"

#include <fmt/format.h>

#include <optional>

namespace invar::tokenizer_json {
namespace {

// A [token, id] pair of BertProcessing / RobertaProcessing, checked against the vocabulary.
std::int32_t token_pair(const Node& node, const Vocab& vocab) {
  const auto pair = node.elements();
  if (pair.size() != 2) node.fail_here("must be [token, id]");
  const auto token = pair[0].string();
  const auto id = pair[1].integer(0, INT32_MAX);
  const auto known = vocab.find(token);
  if (!known || *known != id)
    node.fail_here(fmt::format("names '{}' with id {}, but the vocabulary gives it {}", token, id,
                               known ? std::to_string(*known) : std::string("none")));
  return static_cast<std::int32_t>(id);
}

// One template ([CLS]:0 $A:0 [SEP]:0 ...) cut at its sequences: the special ids before, between
// and after them, with the type id of each item.
struct Cut {
  std::vector<std::vector<std::int32_t>> blocks;  // one more than the sequences
  std::vector<std::vector<std::int64_t>> block_types;
  std::vector<std::int64_t> sequence_types;
};

Cut cut_template(const Node& items, const Node& specials, const Vocab& vocab, char expected_first) {
  Cut cut;
  cut.blocks.emplace_back();
  cut.block_types.emplace_back();
  char next = expected_first;
  for (const auto& item : items.elements()) {
    if (item.has("Sequence")) {
      const auto sequence = item["Sequence"];
      const auto name = sequence.string("id");
      if (name != std::string(1, next))
        sequence.unsupported("id", fmt::format("invar frames the sequences in the order A, B; expected {}", next));
      ++next;
      cut.sequence_types.push_back(sequence["type_id"].integer(0, 1));
      cut.blocks.emplace_back();
      cut.block_types.emplace_back();
    } else if (item.has("SpecialToken")) {
      const auto special = item["SpecialToken"];
      const auto name = special.string("id");
      const auto entry = specials[name];
      if (entry.is_null()) special.fail_here(fmt::format("names '{}', which special_tokens does not define", name));
      const auto type = special["type_id"].integer(0, 1);
      for (const auto& id_node : entry["ids"].elements()) {
        const auto id = static_cast<std::int32_t>(id_node.integer(0, INT32_MAX));
        if (!vocab.token(id)) id_node.fail_here(fmt::format("id {} is not in the vocabulary", id));
        cut.blocks.back().push_back(id);
        cut.block_types.back().push_back(type);
      }
    } else {
      item.fail_here("must be {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    }
  }
  return cut;
}

bool all_equal(const std::vector<std::int64_t>& types, std::int64_t value) {
  for (auto type : types)
    if (type != value) return false;
  return true;
}

SpecialLayout template_layout(const Node& node, const Vocab& vocab) {
  const auto specials = node["special_tokens"];
  const auto single = cut_template(node["single"], specials, vocab, 'A');
  const auto pair = cut_template(node["pair"], specials, vocab, 'A');
  if (single.sequence_types.size() != 1) node["single"].fail_here("must hold the sequence $A once");
  if (pair.sequence_types.size() != 2) node["pair"].fail_here("must hold the sequences $A and $B once each");
  SpecialLayout layout;
  layout.prefix = single.blocks[0];
  layout.suffix = single.blocks[1];
  layout.middle = pair.blocks[1];
  const std::int64_t second = pair.sequence_types[1];
  layout.segment_type_ids = second == 1;
  const bool fits = pair.blocks[0] == layout.prefix && pair.blocks[2] == layout.suffix && all_equal(single.block_types[0], 0) &&
                    all_equal(single.block_types[1], 0) && single.sequence_types[0] == 0 && all_equal(pair.block_types[0], 0) &&
                    pair.sequence_types[0] == 0 && all_equal(pair.block_types[1], 0) && all_equal(pair.block_types[2], second);
  if (!fits)
    node["pair"].fail_here(
        "is not supported: invar frames pairs as the single template's tokens around $A, then tokens and $B, with type "
        "id 0 up to $B and one type id from $B to the end");
  return layout;
}

}  // namespace

SpecialLayout read_post_processor(const Node& node, const Vocab& vocab) {
  if (node.is_null()) return {};
  const auto type = node.type();
  if (type == "TemplateProcessing") return template_layout(node, vocab);
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    const auto cls = token_pair(node["cls"], vocab);
    const auto sep = token_pair(node["sep"], vocab);
    SpecialLayout layout;
    layout.prefix = {cls};
    layout.suffix = {sep};
    if (type == "BertProcessing") {
      layout.middle = {sep};
      layout.segment_type_ids = true;
    } else {
      layout.middle = {sep, sep};
    }
    return layout;
  }
  if (type == "ByteLevel") return {};  // it trims offsets, which invar does not report
  if (type == "Sequence") {
    std::optional<SpecialLayout> found;
    for (const auto& step : node["processors"].elements()) {
      if (step.type() == "ByteLevel") continue;
      if (found) step.fail_here("is a second post-processor that adds tokens, which invar does not combine");
      found = read_post_processor(step, vocab);
    }
    return found.value_or(SpecialLayout{});
  }
  node.unsupported_type();
}

}  // namespace invar::tokenizer_json
