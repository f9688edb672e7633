// The entity changes of one table lifetime between two snapshots
// (spec/engine.md §6.2 "classification per id"; spec/branches.md BR-10.4).
//
// Both versions' rows are compared by id: an id only in the newer version
// is an insert, one only in the older a delete, one in both whose user
// values or endpoints differ an update. Values compare typed, cell by cell
// (columnar ElementsEqual): null differs from an empty string, and how the
// rows are laid out (fragments, row order, compaction) never matters, so a
// physical-only rewrite yields no change. The comparison keeps row numbers
// only; images are rendered when a page asks for them, so a diff holds the
// two table versions and a few bytes per changed row.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "exec/changes/change.h"
#include "graph/snapshot.h"

namespace omnigraph::exec {

class TableDiff {
 public:
  // One side of the comparison: the lifetime's entry in a snapshot, or
  // absent (entry == nullptr) when the snapshot does not hold it.
  struct Side {
    const graph::Snapshot* snapshot = nullptr;
    const graph::TableEntry* entry = nullptr;
  };

  // Compares `before` and `after` (at least one present; both present
  // means one lifetime, paired by identity) keeping the ops `filter`
  // admits. Reads both versions' rows (Snapshot::CachedRows).
  // Errors: VersionReclaimed when a pinned version is gone, CorruptData for
  // a table without its id (or, for edges, src/dst) column, storage errors.
  static Result<TableDiff> Compare(const Side& before, const Side& after, const ChangeFilter& filter);

  EntityKind kind() const { return kind_; }
  const EntityType& type() const { return type_; }
  size_t size() const { return rows_.size(); }
  // The i-th change, in id order.
  std::string_view id(size_t i) const { return rows_[i].id; }
  ChangeOp op(size_t i) const { return rows_[i].op; }
  EntityChange Render(size_t i) const;

 private:
  struct Version {
    graph::TableDataPtr data;
    const Array* src = nullptr;  // edges only
    const Array* dst = nullptr;
    std::vector<int> properties;  // user columns in table order
  };
  struct Row {
    std::string_view id;  // into a Version's id column
    ChangeOp op;
    int64_t before = -1;
    int64_t after = -1;
  };

  static Result<Version> Load(const Side& side, bool is_edge);
  EntityImage ImageOf(const Version& version, int64_t row) const;
  // Whether before_[b] and after_[a] differ in an endpoint or a user value.
  bool Differs(int64_t b, int64_t a) const;

  EntityKind kind_ = EntityKind::kNode;
  EntityType type_;
  Version before_;
  Version after_;
  // For each user column of `after_`, its column in `before_` (-1 when
  // before_ lacks it); and the user columns only before_ has.
  std::vector<int> before_column_of_;
  std::vector<int> before_only_;
  std::vector<Row> rows_;
};

}  // namespace omnigraph::exec
