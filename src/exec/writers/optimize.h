// The optimize writer (spec/engine.md §8.1; spec/surface.md §5.2 `optimize`;
// design/write-path.md writer table "Optimize" and "Optimize plans each
// table's compaction from its pin").
//
// Runs on main only. Per table it plans a compaction from the table's pin
// (table::PlanCompaction: fragments with deleted rows, runs of small
// fragments, every fragment still holding a dropped column's values) and
// stages it as one detached Rewrite on that pin; tables with nothing to
// compact are no-ops. All productive tables publish once, as one main
// commit, through the door, whose exact compare-and-swap on the captured
// manifest version is the "pins it planned from" precondition: a pin moved
// meanwhile fails the run with ReadSetChanged and the next run re-plans
// (optimize never re-prepares). Nothing productive: nothing is published.
// Rows, ids, values (NULL stays NULL, empty stays empty) and counts are
// unchanged; optimize never deletes a version, so time travel to an earlier
// commit still reads the old files.
//
// Not built yet: index reconciliation (pending_indexes is always empty)
// and the in-place `__manifest` compaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph_store.h"

namespace omnigraph::exec {

struct OptimizeOptions {
  std::optional<std::string> actor_id;
  // Compaction target: rows per fragment and per written file.
  uint64_t target_rows_per_fragment = 1 << 20;
};

struct PendingIndex {
  std::string property;
  std::string reason;
};

// One table's result (surface.md §5.2 optimize JSON `datasets[]`).
struct OptimizeTableStats {
  std::string type_key;  // "node:Person"
  uint64_t fragments_removed = 0;
  uint64_t fragments_added = 0;
  bool committed = false;  // its rewrite was published
  // Set when the table was not planned at all, with the reason.
  std::optional<std::string> skipped;
  uint64_t published_dataset_version = 0;  // the pin's after the run
  uint64_t lance_head_version = 0;         // the table's linear HEAD
  std::vector<PendingIndex> pending_indexes;
};

struct OptimizeResult {
  std::vector<OptimizeTableStats> tables;     // by table key
  std::optional<graph::CommitRecord> commit;  // nullopt when no table was productive
};

// Compacts every table of main. Errors: ReadSetChanged (another writer
// published on main between the capture and the publication; nothing was
// published, run again), NotFound (kind branch_not_found) when main is gone,
// CorruptData / VersionReclaimed for an unreadable pin, IoError, and those
// of graph::CommitThroughDoor.
Result<OptimizeResult> RunOptimize(graph::GraphStore& graph, const OptimizeOptions& options = {});

}  // namespace omnigraph::exec
