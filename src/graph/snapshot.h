// A snapshot: the immutable graph state of one (branch incarnation,
// `__manifest` version), and access to its tables at their pins
// (spec/engine.md §1.7; spec/branches.md BR-1, BR-7).
//
// A query holds one snapshot for its whole life and never re-reads the
// head; a write prepares and validates against the snapshot its WriteTxn
// captured. Building one costs no table I/O: tables are opened lazily, at
// exactly the pin the snapshot names, through the graph's table cache.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "graph/manifest/graph_state.h"
#include "graph/table_data.h"
#include "table/dataset.h"

namespace omnigraph::graph {

class GraphStore;

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

  // Table access at the pins of this snapshot (graph/table_cache.h).
  Result<table::Dataset> OpenDataset(const TableEntry& table) const;
  Result<TableDataPtr> CachedRows(const TableEntry& table) const;
  Result<RecordBatchPtr> ReadAllRows(const TableEntry& table) const;

 private:
  GraphStore* graph_ = nullptr;
  std::shared_ptr<const GraphState> state_;
};

}  // namespace omnigraph::graph
