// The net entity changes between two snapshots of any branches
// (spec/branches.md BR-10.4; spec/engine.md §6.2).
//
// Tables pair by lifetime identity (TableIdentity), never by name: a
// renamed type is one lifetime and diffs by its rows alone (a rename with
// no row change yields nothing), while a type dropped and added again
// under one name is two lifetimes, the old one all deletes and the new
// one all inserts. A lifetime whose pin is the same on both sides is
// skipped unread: a pin names one immutable table version. Node deletes
// bring their cascaded edge deletes because the delete moved the edge
// table's pin too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "exec/changes/change.h"
#include "exec/changes/table_diff.h"
#include "graph/snapshot.h"

namespace omnigraph::exec {

// One table lifetime in two graph states: `before` and/or `after` present.
struct LifetimePair {
  const graph::TableEntry* before = nullptr;
  const graph::TableEntry* after = nullptr;
};
// Every lifetime of `from` and `to`, paired by identity (in identity order).
std::vector<LifetimePair> PairLifetimes(const graph::GraphState& from, const graph::GraphState& to);

enum class ChangeOrder {
  // BR-10.1's frozen order: nodes before edges, then type id, entity id, op.
  kCommit,
  // BR-10.4: table key ascending (so edges before nodes), a lifetime that
  // left before the one that took its name; ids ascending within a table.
  kTableKey,
};

class SnapshotDiff {
 public:
  // The changes from `from` to `to` that `filter` admits, in `order`.
  // Memory: the compared table versions (shared with the table cache) and
  // a few words per change. Errors: those of TableDiff::Compare.
  static Result<SnapshotDiff> Compute(const graph::Snapshot& from, const graph::Snapshot& to,
                                      const ChangeFilter& filter, ChangeOrder order);

  size_t size() const { return order_.size(); }
  EntityChange Render(size_t i) const { return tables_[order_[i].table].Render(order_[i].row); }
  ChangeKey KeyAt(size_t i) const;
  // The position of the first change ordered after `key`.
  // REQUIRES: the diff was computed in ChangeOrder::kCommit.
  size_t PositionAfter(const ChangeKey& key) const;

 private:
  struct Ref {
    size_t table;
    size_t row;
  };
  std::vector<TableDiff> tables_;
  std::vector<Ref> order_;
};

// The net difference of two snapshots as the diff API returns it
// (BR-10.4; spec/engine.md §6.1 ChangeSet).
struct ChangeSet {
  std::string from_commit_id;  // the effective heads of the two snapshots
  std::string to_commit_id;
  std::vector<EntityChange> changes;  // ChangeOrder::kTableKey
  struct Stats {
    uint64_t inserts = 0;
    uint64_t updates = 0;
    uint64_t deletes = 0;
    bool operator==(const Stats&) const = default;
  } stats;
};

// Every change from `from` to `to` that `filter` admits, rendered.
// Errors: those of SnapshotDiff::Compute.
Result<ChangeSet> DiffSnapshots(const graph::Snapshot& from, const graph::Snapshot& to, const ChangeFilter& filter);

}  // namespace omnigraph::exec
