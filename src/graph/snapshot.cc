#include "graph/snapshot.h"

#include "graph/graph_store.h"

namespace omnigraph::graph {

Result<table::Dataset> Snapshot::OpenDataset(const TableEntry& table) const {
  return graph_->tables().OpenDataset(table);
}

Result<TableDataPtr> Snapshot::CachedRows(const TableEntry& table) const { return graph_->tables().CachedRows(table); }

Result<RecordBatchPtr> Snapshot::ReadAllRows(const TableEntry& table) const {
  return graph_->tables().ReadAllRows(table);
}

}  // namespace omnigraph::graph
