// The `__manifest` catalog: logical rows and their fold into one immutable
// graph state (spec/engine.md §1.1, §1.4, §1.5, §1.7; spec/branches.md BR-1;
// design/write-path.md).
//
// One `__manifest` version holds, for one branch incarnation: a `table` row
// per table identity (registration + pin), the head `graph_commit` row, the
// `schema_contract` row, and the branch's commit-history buffer: one
// `settled_commit` row per buffered ancestor of the head and one `history`
// row naming the archived history segments (history/history_segments.h).
// Logical fields are top-level columns and `metadata` is JSON text
// (architecture.md §3.6), so Lance itself can list a graph.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/record_batch.h"
#include "graph/layout.h"
#include "util/status.h"

namespace omnigraph::graph {

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

using layout::TableLocation;

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
  // Whole-registration equality (identity, path, pin): branches.md BR-9.5.
  bool operator==(const TableEntry&) const = default;
};

// One graph commit (spec/engine.md §1.5, §2.3; branches.md BR-1, BR-4).
struct CommitRecord {
  std::string id;  // genesis: ULID; later: hb1.<block>.<slot>.<nonce>
  std::optional<std::string> parent_id;
  std::optional<std::string> merged_parent_id;
  std::optional<std::string> actor_id;
  int64_t created_at_us = 0;                // authorship time, µs since the Unix epoch
  std::optional<std::string> graph_branch;  // logical branch it was published on; nullopt = main
  // Native ref of the incarnation that published it ("{logical}.{ULID}");
  // nullopt = main. Tells an exact head from an inherited one, and where its
  // snapshot lives once the logical name belongs to another incarnation.
  std::optional<std::string> native_branch;
  uint64_t manifest_version = 0;  // the __manifest version this commit created on its ref
  uint64_t generation = 0;        // max parent generation + 1; genesis 0
  // History block bookkeeping for the next commit id (BR-4.2).
  std::string block;
  uint32_t slot = 0;

  // The ref the commit's snapshot lives on: its native branch, or main.
  std::string_view NativeRef() const { return native_branch ? std::string_view(*native_branch) : kMainBranch; }
  bool operator==(const CommitRecord&) const = default;
};

struct SchemaContract {
  std::string source;  // accepted .pg text, byte exact
  std::string ir;      // compiled IR JSON, byte exact
  std::string ir_hash;
  bool operator==(const SchemaContract&) const = default;
};

// The fold of one __manifest version of one branch incarnation.
struct GraphState {
  // Logical branch name and the native ref of this incarnation ("main" for
  // main, "{logical}.{ULID}" otherwise). Set by the reader from the ref it
  // opened, never from the rows: a fresh branch's rows are its parent's.
  std::string branch = std::string(kMainBranch);
  std::string branch_identity = std::string(kMainBranch);
  uint64_t manifest_version = 0;
  std::map<std::string, TableEntry> tables;  // by table key
  // The effective head (BR-1): this incarnation's own last commit, or the
  // head it inherited at creation.
  CommitRecord head;
  SchemaContract schema;
  // Commit-history buffer: ancestors of the head not yet archived to a
  // history segment (oldest first), and the segments holding the rest.
  std::vector<CommitRecord> settled;
  std::vector<std::string> history_segments;

  const TableEntry* FindTable(std::string_view table_key) const;
  // Whether this incarnation published the head itself (BR-1 "exact head").
  bool has_exact_head() const { return head.NativeRef() == branch_identity; }
};

// Arrow schema of the __manifest dataset (object_id is the primary key; the
// storage stamp is schema metadata).
SchemaPtr ManifestSchema();

// Rows of `state` (one batch). Every field round-trips through Decode
// (except `branch`/`branch_identity`, which name the ref, not the rows).
Result<RecordBatchPtr> EncodeGraphState(const GraphState& state);

// Folds the rows of one __manifest version. `where` names the version in
// errors. `branch`/`branch_identity` default to the head's; the reader
// replaces them with the ref it opened. Errors: CorruptData (missing head or
// contract row, two heads, malformed metadata JSON, two pinned identities
// with one alias, a settled record without a version).
Result<GraphState> DecodeGraphState(const RecordBatch& rows, std::string_view where);

}  // namespace omnigraph::graph
