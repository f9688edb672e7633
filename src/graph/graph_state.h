// The `__manifest` catalog: logical rows and their fold into one immutable
// graph state (spec/engine.md §1.1, §1.4, §1.7; design/write-path.md).
//
// One `__manifest` version holds, for one branch: a `table` row per table
// identity (registration + pin), the head `graph_commit` row and the
// `schema_contract` row. Logical fields are top-level columns and `metadata`
// is JSON text (architecture.md §3.6), so Lance itself can list a graph.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/record_batch.h"
#include "util/status.h"

namespace omnigraph::graph {

inline constexpr std::string_view kManifestDir = "__manifest";
inline constexpr std::string_view kInitClaim = "__init_claim.json";
// Storage stamp served by this build (spec/engine.md §1.8, Appendix A).
inline constexpr uint32_t kStorageStamp = 14;
inline constexpr std::string_view kStampKey = "omnigraph:internal_schema_version";
inline constexpr std::string_view kMainBranch = "main";

// Immutable identity of one table lifetime.
struct TableIdentity {
  uint64_t stable_id = 0;       // survives renames; non-zero
  uint64_t incarnation_id = 0;  // new for every drop + re-add; non-zero

  // "table:{stable:016x}:{incarnation:016x}"
  std::string ObjectId() const;
  bool operator==(const TableIdentity&) const = default;
  bool operator<(const TableIdentity& o) const {
    return stable_id != o.stable_id ? stable_id < o.stable_id : incarnation_id < o.incarnation_id;
  }
};

// "nodes/{stable:016x}-{incarnation:016x}" for "node:*" keys, "edges/…" for
// "edge:*" keys: the path depends on the identity only.
std::string TableLocation(std::string_view table_key, const TableIdentity& identity);

// The exact table version a branch reads (a "pin").
struct TablePin {
  // Logical counter: base + 1 per publishing write (names no Lance version).
  uint64_t published_version = 1;
  // Detached Lance version readers open; nullopt = linear version
  // `last_linear_version` (the creation version for a never-written table).
  std::optional<uint64_t> staged_version;
  // UUID of the pinned transaction; the opened manifest must carry it.
  std::string transaction_uuid;
  uint64_t last_linear_version = 1;
  uint64_t row_count = 0;
  // Identity witness of the pinned Lance manifest (path relative to the graph root).
  std::string manifest_path;
  uint64_t manifest_size = 0;

  // The Lance version to open: staged_version, else last_linear_version.
  uint64_t LanceVersion() const { return staged_version.value_or(last_linear_version); }
  bool operator==(const TablePin&) const = default;
};

struct TableEntry {
  TableIdentity identity;
  std::string table_key;  // "node:Person" / "edge:Knows" (mutable alias)
  std::string location;   // TableLocation(table_key, identity)
  TablePin pin;

  bool is_node() const { return table_key.rfind("node:", 0) == 0; }
  std::string type_name() const { return table_key.substr(table_key.find(':') + 1); }
};

// One graph commit (spec/engine.md §1.5, §2.3).
struct CommitRecord {
  std::string id;  // genesis: ULID; later: hb1.<block>.<slot>.<nonce>
  std::optional<std::string> parent_id;
  std::optional<std::string> merged_parent_id;
  std::optional<std::string> actor_id;
  int64_t created_at_us = 0;              // authorship time, µs since the Unix epoch
  std::optional<std::string> graph_branch;  // nullopt = main
  uint64_t manifest_version = 0;           // the __manifest version this commit published
  uint64_t generation = 0;                 // max parent generation + 1; genesis 0
  // History block bookkeeping for the next commit id.
  std::string block;
  uint32_t slot = 0;
};

struct SchemaContract {
  std::string source;  // accepted .pg text, byte exact
  std::string ir;      // compiled IR JSON, byte exact
  std::string ir_hash;
};

// The fold of one __manifest version of one branch.
struct GraphState {
  std::string branch = std::string(kMainBranch);
  // Identity of the branch's lifetime (main: "main"; later branches:
  // "{logical}.{ULID}"), so a deleted and re-created branch is detected.
  std::string branch_identity = std::string(kMainBranch);
  uint64_t manifest_version = 0;
  std::map<std::string, TableEntry> tables;  // by table key
  CommitRecord head;
  SchemaContract schema;

  const TableEntry* FindTable(std::string_view table_key) const;
};

// Arrow schema of the __manifest dataset (object_id is the primary key; the
// storage stamp is schema metadata).
SchemaPtr ManifestSchema();

// Rows of `state` (one batch). Every field round-trips through Decode.
Result<RecordBatchPtr> EncodeGraphState(const GraphState& state);

// Folds the rows of one __manifest version. `where` names the version in
// errors. Errors: CorruptData (missing head or contract row, two heads,
// malformed metadata JSON, two pinned identities with one alias).
Result<GraphState> DecodeGraphState(const RecordBatch& rows, std::string_view where);

}  // namespace omnigraph::graph
