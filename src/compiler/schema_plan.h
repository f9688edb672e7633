// The schema-evolution planner (spec/surface.md §1.9, §6.5): the ordered
// steps that turn the accepted schema into a desired one, each either
// metadata-only (supported in v1) or an `unsupported_change` with its
// OG-* lint code.
//
// Identity decides what a step is: declarations are matched by stable id
// (Catalog::InheritIdentity), so `years @rename_from("age")` is a
// rename_property and a dropped-then-re-added property is a drop plus an add.
//
// Adding a Blob property to an existing type that has none is an
// unsupported_change: that type's table stores Lance file format 2.1, a
// Blob is a Lance blob v2 column that needs 2.2, and Lance refuses a table
// whose data files mix both versions (engine.md §1.2). A type that already
// has a Blob (its table is 2.2) may gain more.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/catalog.h"

namespace omnigraph::compiler {

struct SchemaStep {
  // add_type | rename_type | drop_type | add_property | rename_property |
  // drop_property | add_constraint | extend_enum | update_type_metadata |
  // update_property_metadata | unsupported_change
  std::string kind;
  std::string type_kind;  // "interface" | "node" | "edge"
  std::string type_name;  // the type's desired name (accepted name for a drop)
  std::optional<std::string> from;      // renames: the accepted name
  std::optional<std::string> property;  // property steps: its desired name (accepted for a drop)
  std::optional<std::string> mode;      // drops: "soft" | "hard"
  std::optional<std::vector<std::string>> columns;  // add_constraint: the @index tuple
  // unsupported_change: what, why, and the §6.5 code and tier when one applies.
  std::optional<std::string> entity;
  std::optional<std::string> reason;
  std::optional<std::string> code;
  std::optional<std::string> tier;

  // One human line (surface.md §5.2 `schema plan`), e.g. "rename property
  // Person.age -> years", "unsupported change on Person.age [OG-MF-106,
  // destructive]: ...".
  std::string Describe() const;
};

struct SchemaPlan {
  bool supported = true;  // false when any step is unsupported_change
  std::vector<SchemaStep> steps;
};

// Whether the accepted table `table_key` ("node:T" / "edge:E") holds rows.
using PopulatedTable = std::function<bool(std::string_view table_key)>;

// Plans `accepted` -> `desired`. `desired` must carry accepted identities
// (Catalog::InheritIdentity). Dropping a populated type or property is
// unsupported (OG-DS-102/103/104) unless `allow_data_loss`, which makes the
// drop `hard`; an unpopulated one is a `soft` drop.
SchemaPlan PlanSchemaChange(const Catalog& accepted, const Catalog& desired, const PopulatedTable& populated,
                            bool allow_data_loss);

}  // namespace omnigraph::compiler
