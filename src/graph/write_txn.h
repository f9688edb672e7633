// The graph-content write path of design/write-path.md, shared by every
// writer (load, mutations):
//
//   capture one immutable WriteTxn  ->  prepare + validate in memory (caller)
//   -> stage one exact transaction per touched table (no HEAD movement)
//   -> gates in the fixed order (schema permit, branch, sorted tables)
//   -> recheck the captured authority -> commit each table as a detached
//      version of its pin with omnigraph.staged_against_* properties
//   -> publish every pin and the new head commit in one __manifest CAS.
//
// Nothing happens after the CAS. A failure before it leaves the graph
// unchanged; the detached versions are unpublished staging.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "columnar/scalar.h"
#include "graph/graph_store.h"

namespace omnigraph::graph {

// Transaction property keys recorded on every detached table commit.
inline constexpr std::string_view kStagedAgainstBranchIncarnation = "omnigraph.staged_against_branch_incarnation";
inline constexpr std::string_view kStagedAgainstGraphHead = "omnigraph.staged_against_graph_head";
inline constexpr std::string_view kDeletedIds = "omnigraph.deleted_ids";
inline constexpr std::string_view kDeletedIdsPath = "omnigraph.deleted_ids_path";
// Deleted ids up to this size are recorded inline; larger sets go to a side file.
inline constexpr size_t kDeletedIdsInlineBytes = 64 * 1024;

// The immutable authority one write attempt captured (spec/engine.md §1.7).
struct WriteTxn {
  GraphState base;           // branch, exact head, branch identity, pins, schema contract
  std::string intent_nonce;  // ULID minted before any effect; wrapped into the commit id
  int64_t created_at_us = 0; // authorship time
  std::optional<std::string> actor_id;

  // Captures the latest state of `branch`.
  static Result<WriteTxn> Capture(GraphStore& graph, std::string_view branch = kMainBranch);
};

// One table's logical change, fully validated by the caller.
struct TableChange {
  enum class Kind {
    kUpsert,        // rows replace same-id rows, others are inserted
    kStrictInsert,  // every id must be new (KeyConflict otherwise)
    kOverwrite,     // the rows become the table's whole content
    kDeleteIds,     // remove the rows whose id is in delete_ids
  };
  std::string table_key;
  Kind kind = Kind::kUpsert;
  std::vector<RecordBatchPtr> rows;      // physical schema of the table
  std::vector<std::string> delete_ids;   // kDeleteIds
};

struct WriteResult {
  GraphState state;        // the published state
  CommitRecord commit;     // the new head
};

// Stages, commits detached and publishes `changes` (one transaction per
// table; several changes to one table must be merged by the caller).
// Errors: KeyConflict (strict insert of an existing id, details name the
// table and id), ReadSetChanged (authority moved; nothing published),
// ResourceLimitExceeded (engine.md §5.3 keyed budgets, per table and summed
// over tables, before anything is written), IoError. A failure after which
// the publication cannot have landed deletes every object the write created
// (PublicationMayHaveLanded tells the other kind). Returns the published
// state.
Result<WriteResult> CommitTableChanges(GraphStore& graph, const WriteTxn& txn, const std::vector<TableChange>& changes);

}  // namespace omnigraph::graph
