// A snapshot: the immutable graph state of one (branch incarnation,
// `__manifest` version), and access to its tables at their pins
// (spec/engine.md §1.7; spec/branches.md BR-1, BR-7).
//
// A query holds one snapshot for its whole life and never re-reads the
// head; a write prepares and validates against the snapshot its WriteTxn
// captured. Building one costs no table I/O: tables are opened lazily, at
// exactly the pin the snapshot names, through the graph's table cache.
#pragma once

#include <functional>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <optional>
#include <vector>
#include <mutex>

#include "graph/manifest/graph_state.h"
#include "graph/table_data.h"
#include "table/dataset.h"

namespace omnigraph::graph {

class GraphStore;

// One column a reader of a rebound table sees: `field` (its current name
// and type), read from the physical column `source`, or all null when the
// pinned version has no such column (a property added later).
struct BoundColumn {
  Field field;
  std::optional<std::string> source;
};

// How the tables of a snapshot published under an older schema contract
// read under the current one (engine.md §2.5: historical reads bind by
// stable identity; branches.md BR-7). Built by the executor, which knows the
// catalogs; conformed tables are cached here by exact version.
class ReadBinding {
 public:
  // `tables`: by table location, the columns readers see, in order.
  explicit ReadBinding(std::map<std::string, std::vector<BoundColumn>> tables) : tables_(std::move(tables)) {}

  const std::vector<BoundColumn>* Find(const std::string& location) const;
  // `rows` (a pinned version's physical columns) as `columns` describe.
  // Errors: CorruptData when a source column is missing.
  static Result<RecordBatchPtr> Conform(const RecordBatch& rows, const std::vector<BoundColumn>& columns);
  // The conformed data of `table`, from its physical `data` (cached).
  Result<TableDataPtr> Bound(const TableEntry& table, const TableDataPtr& data) const;

 private:
  std::map<std::string, std::vector<BoundColumn>> tables_;
  mutable std::mutex mutex_;
  mutable std::map<std::pair<std::string, uint64_t>, TableDataPtr> bound_;  // guarded by mutex_
};

class Snapshot {
 public:
  Snapshot() = default;
  // REQUIRES: `graph` outlives the snapshot.
  Snapshot(GraphStore* graph, std::shared_ptr<const GraphState> state)
      : graph_(graph), state_(std::move(state)) {}

  GraphStore& graph() const { return *graph_; }
  const GraphState& state() const { return *state_; }
  const std::shared_ptr<const GraphState>& shared_state() const { return state_; }

  const std::string& branch() const { return state_->branch; }
  uint64_t manifest_version() const { return state_->manifest_version; }
  // The effective head (BR-1).
  const CommitRecord& head() const { return state_->head; }
  const std::map<std::string, TableEntry>& tables() const { return state_->tables; }
  const TableEntry* FindTable(std::string_view table_key) const { return state_->FindTable(table_key); }

  // This snapshot read through `binding`, with `state` (its rows with
  // tables keyed by their current aliases) in place of its own.
  Snapshot Rebound(std::shared_ptr<const GraphState> state, std::shared_ptr<const ReadBinding> binding) const {
    Snapshot rebound(graph_, std::move(state));
    rebound.binding_ = std::move(binding);
    return rebound;
  }
  bool rebound() const { return binding_ != nullptr; }

  // Table access at the pins of this snapshot (graph/table_cache.h). On a
  // rebound snapshot CachedRows and ReadAllRows return the bound columns;
  // OpenDataset is always the physical version.
  Result<table::Dataset> OpenDataset(const TableEntry& table) const;
  Result<TableDataPtr> CachedRows(const TableEntry& table) const;
  Result<RecordBatchPtr> ReadAllRows(const TableEntry& table) const;
  // ReadAllRows a batch of at most `batch_rows` rows at a time, in storage
  // order, handed to `visit` (a one-pass reader that must not hold a whole
  // table). Stops at, and returns, the first error of `visit`. Errors:
  // those of ReadAllRows.
  Status ScanRows(const TableEntry& table, int64_t batch_rows,
                  const std::function<Status(const RecordBatch& rows)>& visit) const;

 private:
  GraphStore* graph_ = nullptr;
  std::shared_ptr<const GraphState> state_;
  std::shared_ptr<const ReadBinding> binding_;
};

}  // namespace omnigraph::graph
