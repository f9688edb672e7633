// Every path a graph root owns, in one place (spec/engine.md §1.1;
// design/structure.md P1). Paths are relative to the graph root; a store key
// is JoinPath(root, path).
//
//   __manifest/                       the catalog: main is its main line,
//     _refs/branches/{ref}.json       every other branch a native ref
//     tree/{ref}/                     {logical}.{ULID} with its own versions
//   __history/segments/{id}.hist      immutable archived commit records
//   nodes/{stable:016x}-{incarnation:016x}/   one Lance dataset per node type lifetime
//   edges/{stable:016x}-{incarnation:016x}/   one Lance dataset per edge type lifetime
//     _deleted_ids/{transaction}.json large deleted-id sets of one delete
//   _locks/branch-{hex name}.lock     writer queue of one branch (this host)
//   _cache/topology/                  disposable traversal adjacency
//   __init_claim.json                 transient ownership of one init
#pragma once

#include <string>
#include <string_view>

namespace omnigraph::graph {

struct TableIdentity;

namespace layout {

inline constexpr std::string_view kManifestDir = "__manifest";
inline constexpr std::string_view kHistorySegmentsDir = "__history/segments";
inline constexpr std::string_view kInitClaim = "__init_claim.json";
inline constexpr std::string_view kLocksDir = "_locks";
inline constexpr std::string_view kTopologyCacheDir = "_cache/topology";

// "nodes/{stable:016x}-{incarnation:016x}" for "node:*" keys, "edges/…" for
// "edge:*" keys: the path depends on the identity only, so a rename never
// moves data and a re-added type never shares a directory.
std::string TableLocation(std::string_view table_key, const TableIdentity& identity);

// The side file holding the ids one delete removed when they exceed the
// inline transaction property (`{location}/_deleted_ids/{uuid}.json`).
std::string DeletedIdsFile(std::string_view table_location, std::string_view transaction_uuid);

// `_locks/branch-{hex of the logical name}.lock`: hex keeps any branch name
// a single, valid file name.
std::string BranchWritersLock(std::string_view branch);

// `__history/segments/{segment id}.hist`.
std::string HistorySegment(std::string_view segment_id);

}  // namespace layout
}  // namespace omnigraph::graph
