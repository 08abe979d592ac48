#include "eval/metamorphic/relation.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "core/io.hpp"

namespace invar::metamorphic {

namespace {

Node text(std::string id, std::string label, bool source = false) { return {std::move(id), std::move(label), NodeKind::Text, source}; }
Node numeric(std::string id, std::string label) { return {std::move(id), std::move(label), NodeKind::Numeric, false}; }

const char* property_symbol(Property property) {
  switch (property) {
    case Property::Equivalence: return "=";
    case Property::Similarity: return "≈δ";
    case Property::Order: return "≤";
  }
  return "?";
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string field_string(const nlohmann::json& object, const char* key, const std::string& where, bool required) {
  if (!object.contains(key)) {
    if (required) fail("{}: missing field '{}'", where, key);
    return "";
  }
  if (!object[key].is_string()) fail("{}.{}: expected a string", where, key);
  return object[key].get<std::string>();
}

const nlohmann::json& field_array(const nlohmann::json& object, const char* key, const std::string& where) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!object.contains(key)) return empty;
  if (!object[key].is_array()) fail("{}.{}: expected an array", where, key);
  return object[key];
}

// An xlabel with room on each side (see relation_dot).
std::string padded(const std::string& label) { return label.empty() ? label : "  " + label + "  "; }

}  // namespace

Relation single_relation(Property property) {
  Relation r{fmt::format("single-input {}", property_name(property)), {}, {}, {}};
  r.nodes = {text("x", "x", true), text("tx", "t(x)"), numeric("fx", "f(x)"), numeric("ftx", "f(t(x))")};
  r.arrows = {{"x", "tx", "t"}, {"x", "fx", "f"}, {"tx", "ftx", "f"}};
  r.constraints = {{{"fx", "ftx"}, property_symbol(property)}};
  return r;
}

Relation pairwise_relation(Property property) {
  Relation r{fmt::format("pairwise {}", property_name(property)), {}, {}, {}};
  r.nodes = {text("x1", "x₁", true), text("x2", "x₂", true), text("tx1", "t(x₁)"), text("tx2", "t(x₂)"),
             numeric("fx1", "f(x₁)"), numeric("fx2", "f(x₂)"), numeric("ftx1", "f(t(x₁))"), numeric("ftx2", "f(t(x₂))")};
  r.arrows = {{"x1", "tx1", "t"}, {"x2", "tx2", "t"}, {"x1", "fx1", "f"}, {"x2", "fx2", "f"},
              {"tx1", "ftx1", "f"}, {"tx2", "ftx2", "f"}};
  const std::string symbol = property_symbol(property);
  r.constraints = {{{"fx1", "fx2"}, "premise " + symbol}, {{"ftx1", "ftx2"}, "⇒ hypothesis " + symbol}};
  return r;
}

// The paper's Figure 4: the NLI model splits as f = f₂ ∘ f₁, f₁ giving the inputs' internal
// representations, which the probe g reads (hypernymy) and f₂ turns into the entailment scores.
// The NLI inputs x = (c[x], c[y]) are the sources; how they are built from a context and an
// insertion pair is not part of the relation.
Relation compositionality_relation() {
  Relation r{"pairwise compositionality (f = f₂ ∘ f₁)", {}, {}, {}};
  r.nodes = {text("x1", "x₁", true), text("x2", "x₂", true), numeric("h1", "f₁(x₁)"), numeric("h2", "f₁(x₂)"),
             numeric("g1", "g(f₁(x₁))"), numeric("g2", "g(f₁(x₂))"), numeric("f1", "f(x₁)"), numeric("f2", "f(x₂)")};
  r.arrows = {{"x1", "h1", "f₁"}, {"x2", "h2", "f₁"}, {"h1", "g1", "g"}, {"h2", "g2", "g"},
              {"h1", "f1", "f₂"}, {"h2", "f2", "f₂"}};
  r.constraints = {{{"g1", "g2"}, "premise ≤"}, {{"f1", "f2"}, "⇒ ≤ (downward) / ≥ (upward)"}};
  return r;
}

// The paper's Figure 5: the pair model f reads pair texts built from the three source words, and
// one property joins its three outputs.
Relation transitivity_relation() {
  Relation r{"three-way transitivity", {}, {}, {}};
  r.nodes = {text("a", "a", true), text("b", "b", true), text("c", "c", true),
             text("pab", "(a, b)"), text("pbc", "(b, c)"), text("pac", "(a, c)"),
             numeric("ab", "f(a, b)"), numeric("bc", "f(b, c)"), numeric("ac", "f(a, c)")};
  r.arrows = {{"a", "pab", ""}, {"b", "pab", ""}, {"b", "pbc", ""}, {"c", "pbc", ""}, {"a", "pac", ""}, {"c", "pac", ""},
              {"pab", "ab", "f"}, {"pbc", "bc", "f"}, {"pac", "ac", "f"}};
  r.constraints = {{{"ab", "bc", "ac"}, "R(a, b) ∧ R(b, c) ⇒ R(a, c)"}};
  return r;
}

std::vector<std::string> builtin_relation_names() {
  return {"single-equivalence", "single-similarity", "single-order", "pairwise-equivalence",
          "pairwise-similarity", "pairwise-order", "compositionality", "transitivity"};
}

Relation builtin_relation(const std::string& name) {
  for (auto property : {Property::Equivalence, Property::Similarity, Property::Order}) {
    if (name == std::string("single-") + property_name(property)) return single_relation(property);
    if (name == std::string("pairwise-") + property_name(property)) return pairwise_relation(property);
  }
  if (name == "compositionality") return compositionality_relation();
  if (name == "transitivity") return transitivity_relation();
  fail("unknown relation '{}' (built in: {})", name, fmt::join(builtin_relation_names(), ", "));
}

Relation read_relation(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail("{}: cannot open the relation file", path);
  nlohmann::json data;
  try {
    data = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    fail("{}: not valid JSON (byte {}): {}", path, e.byte, e.what());
  } catch (const nlohmann::json::exception& e) {  // a number out of range is not a parse_error
    fail("{}: not valid JSON: {}", path, e.what());
  }
  if (!data.is_object()) fail("{}: expected a JSON object describing a relation", path);
  Relation r;
  r.name = field_string(data, "name", path, false);
  const auto& nodes = field_array(data, "nodes", path);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto where = fmt::format("{}: nodes[{}]", path, i);
    if (!nodes[i].is_object()) fail("{}: expected an object", where);
    Node node{field_string(nodes[i], "id", where, true), field_string(nodes[i], "label", where, false), NodeKind::Text, false};
    const auto kind = field_string(nodes[i], "kind", where, false);
    if (kind == "numeric") node.kind = NodeKind::Numeric;
    else if (!kind.empty() && kind != "text") fail("{}.kind: expected \"text\" or \"numeric\", got \"{}\"", where, kind);
    if (nodes[i].contains("source")) {
      if (!nodes[i]["source"].is_boolean()) fail("{}.source: expected true or false", where);
      node.source = nodes[i]["source"].get<bool>();
    }
    r.nodes.push_back(std::move(node));
  }
  const auto& arrows = field_array(data, "arrows", path);
  for (std::size_t i = 0; i < arrows.size(); ++i) {
    const auto where = fmt::format("{}: arrows[{}]", path, i);
    if (!arrows[i].is_object()) fail("{}: expected an object", where);
    r.arrows.push_back({field_string(arrows[i], "from", where, true), field_string(arrows[i], "to", where, true),
                        field_string(arrows[i], "label", where, false)});
  }
  const auto& constraints = field_array(data, "constraints", path);
  for (std::size_t i = 0; i < constraints.size(); ++i) {
    const auto where = fmt::format("{}: constraints[{}]", path, i);
    if (!constraints[i].is_object()) fail("{}: expected an object", where);
    Constraint constraint{{}, field_string(constraints[i], "label", where, false)};
    for (const auto& id : field_array(constraints[i], "nodes", where)) {
      if (!id.is_string()) fail("{}.nodes: expected node ids (strings)", where);
      constraint.nodes.push_back(id.get<std::string>());
    }
    r.constraints.push_back(std::move(constraint));
  }
  validate_relation(r, path);
  return r;
}

void validate_relation(const Relation& relation, const std::string& where) {
  if (relation.nodes.empty()) fail("{}: the relation is empty (no nodes)", where);
  std::set<std::string> ids;
  bool any_source = false;
  for (std::size_t i = 0; i < relation.nodes.size(); ++i) {
    const auto& id = relation.nodes[i].id;
    if (id.empty()) fail("{}: nodes[{}].id is empty", where, i);
    if (!ids.insert(id).second) fail("{}: nodes[{}].id '{}' is used twice", where, i, id);
    any_source = any_source || relation.nodes[i].source;
  }
  if (!any_source) fail("{}: no node is a source input (\"source\": true)", where);
  auto known = [&](const std::string& id, const std::string& field) {
    if (!ids.count(id)) fail("{}: {} names an unknown node '{}'", where, field, id);
  };
  for (std::size_t i = 0; i < relation.arrows.size(); ++i) {
    known(relation.arrows[i].from, fmt::format("arrows[{}].from", i));
    known(relation.arrows[i].to, fmt::format("arrows[{}].to", i));
  }
  for (std::size_t i = 0; i < relation.constraints.size(); ++i) {
    if (relation.constraints[i].nodes.size() < 2) fail("{}: constraints[{}].nodes needs two or more nodes", where, i);
    for (const auto& id : relation.constraints[i].nodes) known(id, fmt::format("constraints[{}].nodes", i));
  }
}

std::string relation_dot(const Relation& relation) {
  std::string dot = fmt::format("digraph {} {{\n  label={}; labelloc=t; rankdir=LR; forcelabels=true; nodesep=0.4; ranksep=0.7;\n",
                                quoted("relation"), quoted(relation.name));
  dot += "  node [fontname=\"Helvetica\", fontsize=12, style=filled, fillcolor=white];\n";
  dot += "  edge [fontname=\"Helvetica\", fontsize=11];\n";
  for (const auto& node : relation.nodes) {
    const bool is_text = node.kind == NodeKind::Text;
    dot += fmt::format("  {} [label={}, shape={}, fillcolor={}];\n", quoted(node.id),
                       quoted(node.label.empty() ? node.id : node.label), is_text ? "circle" : "box",
                       node.source ? "\"#c8c8c8\"" : "white");
  }
  for (const auto& arrow : relation.arrows)
    dot += fmt::format("  {} -> {} [label={}];\n", quoted(arrow.from), quoted(arrow.to), quoted(arrow.label));
  // A constraint is not a computation: dashed, undirected and left out of the ranking. Its label is
  // an xlabel: Graphviz 2.42's dot corrupts its heap laying out labels of such same-rank edges.
  // Graphviz places xlabels edge to edge; two spaces on each side (which SVG does not draw) keep
  // neighbouring labels apart. A constraint on three or more nodes is one property, drawn as a point they all join (ranked
  // after them) that carries the label.
  std::set<std::string> ids;
  for (const auto& node : relation.nodes) ids.insert(node.id);
  for (std::size_t i = 0; i < relation.constraints.size(); ++i) {
    const auto& constraint = relation.constraints[i];
    if (constraint.nodes.size() > 2) {
      std::string name = fmt::format("property {}", i + 1);
      while (!ids.insert(name).second) name += "'";
      const std::string hub = name;
      dot += fmt::format("  {} [label=\"\", shape=point, width=0.08, color=\"#d55e00\", fillcolor=\"#d55e00\", fontcolor=\"#d55e00\", xlabel={}];\n",
                         quoted(hub), quoted(padded(constraint.label)));
      for (const auto& id : constraint.nodes)
        dot += fmt::format("  {} -> {} [style=dashed, dir=none, color=\"#d55e00\"];\n", quoted(id), quoted(hub));
      continue;
    }
    dot += fmt::format("  {} -> {} [style=dashed, dir=none, constraint=false, color=\"#d55e00\", fontcolor=\"#d55e00\", xlabel={}];\n",
                       quoted(constraint.nodes[0]), quoted(constraint.nodes[1]), quoted(padded(constraint.label)));
  }
  return dot + "}\n";
}

std::string relation_svg(const Relation& relation) {
  validate_relation(relation, relation.name.empty() ? "relation" : relation.name);
  const std::string dot = relation_dot(relation);
  // One context for the whole process: Graphviz 2.42 keeps a text-size cache across contexts that
  // a freed context leaves dangling (a use-after-free on the second diagram).
  static GVC_t* const context = gvContext();
  if (!context) fail("Graphviz could not start (gvContext failed)");
  std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> graph(agmemread(dot.c_str()), agclose);
  if (!graph) fail("Graphviz could not read the DOT of relation '{}'", relation.name);
  if (gvLayout(context, graph.get(), "dot") != 0)
    fail("Graphviz could not lay out relation '{}' (is the dot layout plugin installed? see `dot -c`)", relation.name);
  char* data = nullptr;
  unsigned int length = 0;
  const int rendered = gvRenderData(context, graph.get(), "svg", &data, &length);
  std::string svg = rendered == 0 && data ? std::string(data, length) : "";
  if (data) gvFreeRenderData(data);
  gvFreeLayout(context, graph.get());
  if (svg.empty()) fail("Graphviz could not render relation '{}' as SVG", relation.name);
  // The page embeds the <svg> element itself, without the XML prologue and DOCTYPE.
  const auto start = svg.find("<svg");
  if (start != std::string::npos) svg.erase(0, start);
  // Graphviz keeps labels off each other and off nodes, not off edges: a dashed constraint may run
  // through an arrow's label or its own. A white halo under every edge label keeps it readable.
  const auto open_end = svg.find('>');
  if (open_end != std::string::npos)
    svg.insert(open_end + 1, "\n<style>.edge text { paint-order: stroke; stroke: #ffffff; stroke-width: 4px; "
                             "stroke-linejoin: round; }</style>");
  return svg;
}

}  // namespace invar::metamorphic
