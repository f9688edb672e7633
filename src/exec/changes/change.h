// The vocabulary of entity changes (spec/branches.md BR-10; spec/engine.md
// §6.1): what changed (kind, type, id, op, before and after images), why
// (the commit's cause) and which changes a caller asked for (the filter).
//
// Values in images are the export encoding (exec/export.h): a consumer that
// bootstraps from a baseline (an export) applies changes whose values are
// spelled exactly as the baseline spells them.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/manifest/graph_state.h"
#include "util/status.h"

namespace omnigraph::exec {

// Declared in the frozen output order: nodes before edges, and insert <
// update < delete (BR-10.1), so the defaulted comparisons below are that order.
enum class EntityKind : uint8_t { kNode = 0, kEdge = 1 };
enum class ChangeOp : uint8_t { kInsert = 0, kUpdate = 1, kDelete = 2 };

std::string_view EntityKindName(EntityKind kind);  // "node" | "edge"
std::string_view ChangeOpName(ChangeOp op);        // "insert" | "update" | "delete"
// Errors: InvalidArgument "unknown change kind '<k>' (expected node | edge)".
Result<EntityKind> ParseEntityKind(std::string_view text);
// Errors: InvalidArgument "unknown change op '<o>' (expected insert | update | delete)".
Result<ChangeOp> ParseChangeOp(std::string_view text);

// A type as changes name it: `id` is opaque and survives renames (the
// table's stable id as 16 lower-case hex digits), `name` is the type's name
// in the newer of the two snapshots compared.
struct EntityType {
  std::string id;
  std::string name;
  bool operator==(const EntityType&) const = default;
};

// The opaque, rename-stable type id of a table lifetime.
std::string TypeIdOf(const graph::TableIdentity& identity);

struct Endpoints {
  std::string from;
  std::string to;
  bool operator==(const Endpoints&) const = default;
};

// One entity as one snapshot holds it.
struct EntityImage {
  // User properties (every column but `id`, and `src`/`dst` for edges) in
  // table column order, each value as compact export JSON; nulls included.
  std::vector<std::pair<std::string, std::string>> properties;
  std::optional<Endpoints> endpoints;  // edges only
  bool operator==(const EntityImage&) const = default;
};

struct EntityChange {
  EntityKind kind = EntityKind::kNode;
  EntityType type;
  std::string id;
  ChangeOp op = ChangeOp::kInsert;
  std::optional<EntityImage> before;  // update and delete
  std::optional<EntityImage> after;   // insert and update
  bool operator==(const EntityChange&) const = default;
};

// A change's place in the frozen per-commit order (BR-10.1): kind, type id,
// entity id, op. Page tokens resume after a key.
struct ChangeKey {
  EntityKind kind = EntityKind::kNode;
  std::string type_id;
  std::string id;
  ChangeOp op = ChangeOp::kInsert;
  auto operator<=>(const ChangeKey&) const = default;
};
inline ChangeKey KeyOf(const EntityChange& c) { return ChangeKey{c.kind, c.type.id, c.id, c.op}; }

// Bytes of the change's compact wire JSON (BR-10.1 `{kind, type, id, op,
// before?, after?}`, as api/wire/changes_json.h writes it); pages are
// packed by this measure.
uint64_t WireBytes(const EntityChange& change);

// Why a block of changes exists: the commit (BR-10.1 cause).
struct ChangeCause {
  std::string graph_commit_id;
  std::optional<std::string> parent_commit_id;
  std::optional<std::string> merged_parent_commit_id;
  std::string authored_branch;  // the branch it was published on; "main" for main
  std::optional<std::string> actor_id;
  int64_t authored_at_us = 0;
  bool operator==(const ChangeCause&) const = default;
};
ChangeCause CauseOf(const graph::CommitRecord& commit);

// Which changes a caller wants; an empty list admits everything. Type
// names are matched against the name a change reports; a name no type has
// simply matches nothing (types come and go over a feed's life).
struct ChangeFilter {
  std::vector<EntityKind> kinds;
  std::vector<std::string> types;
  std::vector<ChangeOp> ops;

  bool AdmitsTable(EntityKind kind, std::string_view type_name) const;
  bool AdmitsOp(ChangeOp op) const;
  bool empty() const { return kinds.empty() && types.empty() && ops.empty(); }
  // Identity of the filter as a set: equal for filters that admit the same
  // changes however they were spelled (order, repetition). Cursors and page
  // tokens are bound to it.
  std::string Fingerprint() const;
};

}  // namespace omnigraph::exec
