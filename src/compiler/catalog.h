// The compiled schema (spec/surface.md §1.3–§1.8): node, edge and interface
// types with resolved properties, constraints, annotations, stable ids and
// physical table layouts. Built only by CompileSchema; immutable afterwards.
//
// Identity (stable ids). A freshly compiled schema allocates ids from one
// sequence starting at 1, in this order:
//   1. type ids: interfaces, then nodes, then edges, each group in lexical
//      order of the type name;
//   2. property ids: for each type in the same order, its properties in
//      lexical order of the property name.
// `next_identity_id()` is the first unused value (schema evolution and table
// incarnations continue the sequence). Hence property ids within a type
// increase with the property name, which orders composite keys (§1.7).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columnar/data_type.h"
#include "compiler/schema_ast.h"
#include "compiler/source.h"
#include "compiler/types.h"
#include "util/status.h"

namespace omnigraph::compiler {

// Field metadata key carrying a property's stable id (decimal).
inline constexpr std::string_view kStablePropertyIdKey = "omnigraph.stable_property_id";

// An annotation as kept in the catalog (custom annotations have no effect
// but are preserved; §1.4).
struct Annotation {
  std::string name;
  std::optional<std::string> value;                          // positional argument text (decoded)
  std::vector<std::pair<std::string, std::string>> kwargs;  // in source order
};

struct Property {
  std::string name;
  PropertyType type;
  uint32_t stable_id = 0;
  // Every annotation written on the property (including @key/@unique/@index/
  // @embed/@description/@rename_from and custom ones), in source order.
  std::vector<Annotation> annotations;
  std::optional<std::string> description;
  std::optional<std::string> rename_from;
  // @embed("source", model="m"): the String property embedded into this
  // Vector property, and the required model if any.
  std::optional<std::string> embed_source;
  std::optional<std::string> embed_model;
  // False when injected from an interface; `interfaces` lists every
  // interface that declares it.
  bool declared_directly = true;
  std::vector<std::string> interfaces;
  SourceLocation location;
};

// One @range bound: inclusive, integer or float as written.
struct RangeBoundValue {
  bool is_float = false;
  bool is_unsigned = false;  // an integer above the I64 range, in uint_value
  int64_t int_value = 0;
  uint64_t uint_value = 0;
  double float_value = 0;

  double AsDouble() const {
    return is_float ? float_value : is_unsigned ? static_cast<double>(uint_value) : static_cast<double>(int_value);
  }
  // `-5`, `18446744073709551000`, `10.5` (shortest round-trip for floats).
  std::string ToString() const;
};

struct RangeConstraint {
  std::string property;
  std::optional<RangeBoundValue> min;
  std::optional<RangeBoundValue> max;
};

// A regex the property's value must match somewhere (unanchored search).
// The pattern is validated when a write is validated (§1.4).
struct CheckConstraint {
  std::string property;
  std::string pattern;
};

struct InterfaceType {
  std::string name;
  uint32_t stable_id = 0;
  std::vector<Property> properties;  // lexical order by name
  SourceLocation location;

  const Property* FindProperty(std::string_view name) const;
};

struct NodeType {
  std::string name;
  uint32_t stable_id = 0;
  // Every property, including ones injected from interfaces, in lexical
  // order of the name (§1.6) — also the physical column order after `id`.
  std::vector<Property> properties;
  // Key property names ordered by stable property id; empty = unkeyed.
  std::vector<std::string> key;
  // Column tuples; the key is also listed in `indexes` (it implies an index).
  // Duplicate tuples are listed once. Order: body constraints in source
  // order, then property-level sugar, then interface-injected constraints.
  std::vector<std::vector<std::string>> uniques;
  std::vector<std::vector<std::string>> indexes;
  std::vector<RangeConstraint> ranges;
  std::vector<CheckConstraint> checks;
  std::vector<Annotation> annotations;  // type-level
  std::vector<std::string> implements;
  std::optional<std::string> description;
  std::optional<std::string> instruction;
  std::optional<std::string> rename_from;
  SourceLocation location;

  const Property* FindProperty(std::string_view name) const;
  bool keyed() const { return !key.empty(); }
  // True when `name` is one of the key properties.
  bool IsKeyProperty(std::string_view name) const;
  // "node:<name>".
  std::string TableKey() const { return "node:" + name; }
};

struct EdgeType {
  std::string name;
  uint32_t stable_id = 0;
  std::string from_type;
  std::string to_type;
  // @card(min..max): outgoing edges per source node; default 0.. (unbounded).
  uint32_t card_min = 0;
  std::optional<uint32_t> card_max;
  std::vector<Property> properties;  // lexical order by name
  // May name `src` / `dst` besides properties.
  std::vector<std::vector<std::string>> uniques;
  std::vector<std::vector<std::string>> indexes;
  std::vector<Annotation> annotations;
  std::optional<std::string> description;
  std::optional<std::string> instruction;
  std::optional<std::string> rename_from;
  SourceLocation location;

  const Property* FindProperty(std::string_view name) const;
  // From-type equals to-type (undirected traversal and multi-hop allowed).
  bool same_endpoints() const { return from_type == to_type; }
  // "edge:<name>".
  std::string TableKey() const { return "edge:" + name; }
};

struct AcceptedIdentity;  // catalog_identity.cc

class Catalog {
 public:
  Catalog() = default;

  // Types in lexical order of their names.
  const std::vector<NodeType>& nodes() const { return nodes_; }
  const std::vector<EdgeType>& edges() const { return edges_; }
  const std::vector<InterfaceType>& interfaces() const { return interfaces_; }

  // Exact (case-sensitive) node lookup; nullptr if absent. Interfaces are
  // not node types.
  const NodeType* FindNode(std::string_view name) const;
  // Case-insensitive edge lookup (§2.1: `knows`, `KNOWS` → `Knows`).
  const EdgeType* FindEdge(std::string_view name) const;
  const InterfaceType* FindInterface(std::string_view name) const;
  // Edge types whose from-type or to-type is `node_name`, lexical order
  // (the cascade set of a node delete, §3.2).
  std::vector<const EdgeType*> IncidentEdges(std::string_view node_name) const;

  // The accepted .pg text and the file name it was compiled from.
  const std::string& source() const { return source_; }
  const std::string& file_name() const { return file_name_; }
  uint64_t next_identity_id() const { return next_identity_id_; }

  // Canonical, deterministic JSON of the compiled schema (byte-stable for a
  // given source): {"ir_version":1,"next_identity_id":N,"interfaces":[...],
  // "nodes":[...],"edges":[...]}; see catalog.cc for every member.
  std::string ToIrJson() const;
  // Hex XXH3-64 (16 lower-case hex digits) of ToIrJson().
  std::string IrHash() const;

  // Physical table schemas (§1.6). Node: `id` Utf8 NOT NULL (primary key),
  // then every property in lexical order. Edge: `id`, `src`, `dst` Utf8 NOT
  // NULL, then properties. Property fields carry kStablePropertyIdKey; a
  // Blob property's LargeBinary field also names the `lance.blob.v2`
  // extension (columnar/blob_cell.h: persisted as a Lance blob v2 column).
  Schema NodeTableSchema(const NodeType& node) const;
  Schema EdgeTableSchema(const EdgeType& edge) const;

  // Schema evolution identity (surface.md §1.9, engine.md §1.2;
  // catalog_identity.cc). A desired schema compiled fresh numbers its ids
  // from 1; before it is compared with or replaces the accepted schema it
  // must carry the accepted identities:
  //
  // Gives every type and property of this catalog the id of the accepted
  // declaration of the same kind and name, or, when its own name is not
  // accepted, of the accepted declaration its @rename_from names (unless a
  // declaration of that name also exists here: then the old one is kept,
  // not renamed). Everything else is new and continues the accepted
  // sequence (`accepted.next_identity_id()`), in the fresh allocation order.
  // A dropped and re-added property therefore never shares an id.
  void InheritIdentity(const Catalog& accepted);
  // Restores the ids recorded in `ir_json` (a ToIrJson of an evolved
  // catalog) on a compile of the same source, by exact name.
  // Errors: CorruptData when the IR does not parse or names a different set
  // of types or properties.
  Status AdoptIrIdentity(std::string_view ir_json);

 private:
  friend class CatalogBuilder;
  // Assigns ids from `accepted`: by name, and through @rename_from when
  // `follow_renames` (otherwise every name must be accepted).
  Status AssignIdentity(const AcceptedIdentity& accepted, bool follow_renames);
  std::vector<InterfaceType> interfaces_;
  std::vector<NodeType> nodes_;
  std::vector<EdgeType> edges_;
  std::map<std::string, size_t, std::less<>> node_index_;
  std::map<std::string, size_t, std::less<>> edge_index_;  // lower-cased name
  std::map<std::string, size_t, std::less<>> interface_index_;
  std::string source_;
  std::string file_name_;
  uint64_t next_identity_id_ = 1;
};

// Parses and compiles a schema (§1). `file_name` is used in error messages.
// Errors (kInvalidArgument, with line:column and caret, source.h):
//   "parse error: ..."   syntax and every annotation/constraint rule of §1.4,
//                        interface rules of §1.5, reserved names of §1.8;
//   "catalog error: ..." duplicate node/edge/interface names, unknown edge
//                        endpoint types, edge names colliding after
//                        lower-casing.
Result<Catalog> CompileSchema(std::string_view source, std::string_view file_name);

// Compiles an already parsed file (used by CompileSchema).
Result<Catalog> CompileSchemaFile(const schema::SchemaFile& file, std::string_view source,
                                  std::string_view file_name);

}  // namespace omnigraph::compiler
