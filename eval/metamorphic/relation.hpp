#pragma once
// Metamorphic relations as plain data, and their drawing in the paper's graphical notation
// (Manino et al. 2022, §3, Figures 1, 2, 4 and 5): circles for texts, squares for numeric outputs, source
// inputs shaded, arrows for the model f and the transformations t, dashed lines joining the nodes
// a property constrains. Built-in relations and user-defined ones (a JSON file) are drawn the same
// way: the relation becomes DOT text, Graphviz lays it out and renders SVG in-process.
#include <string>
#include <vector>

#include "eval/metamorphic/single.hpp"

namespace invar::metamorphic {

enum class NodeKind { Text, Numeric };

struct Node {
  std::string id;     // unique within the relation
  std::string label;  // shown in the drawing; the id when empty
  NodeKind kind = NodeKind::Text;
  bool source = false;  // a source input (shaded)
};

struct Arrow {  // from → to, labelled with the function applied (f, t, g, ...)
  std::string from, to, label;
};

struct Constraint {  // a dashed line joining the nodes a property relates
  std::vector<std::string> nodes;  // two or more; three or more are drawn joined at one point
  std::string label;
};

struct Relation {
  std::string name;
  std::vector<Node> nodes;
  std::vector<Arrow> arrows;
  std::vector<Constraint> constraints;
};

// The built-in relations of `invar metamorphic`.
Relation single_relation(Property property);
Relation pairwise_relation(Property property);
// Figure 4: f = f₂ ∘ f₁, the probe g reading f₁'s representations.
Relation compositionality_relation();
// Figure 5: pair texts (a, b), (b, c), (a, c) from the sources, one property on f's three outputs.
Relation transitivity_relation();
// "single-equivalence", "single-similarity", "single-order", "pairwise-equivalence",
// "pairwise-similarity", "pairwise-order", "compositionality", "transitivity".
std::vector<std::string> builtin_relation_names();
Relation builtin_relation(const std::string& name);

// A user-defined relation: {"name": ..., "nodes": [{"id", "label", "kind": "text"|"numeric",
// "source": bool}], "arrows": [{"from", "to", "label"}], "constraints": [{"nodes": [...], "label"}]}.
// Fails naming the file and the field for an empty relation, duplicate or unknown node ids.
Relation read_relation(const std::string& path);
// Fails (naming `where`) when the relation has no nodes, no source, or refers to unknown nodes.
void validate_relation(const Relation& relation, const std::string& where);

std::string relation_dot(const Relation& relation);
// The DOT laid out by Graphviz's dot engine and rendered as one <svg> element (no XML prologue).
// Not thread-safe (neither is Graphviz): call it from one thread.
std::string relation_svg(const Relation& relation);

}  // namespace invar::metamorphic
