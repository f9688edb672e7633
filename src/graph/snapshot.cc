#include "graph/snapshot.h"

#include <fmt/format.h>

#include "graph/graph_store.h"
#include "table/scanner.h"

namespace omnigraph::graph {

const std::vector<BoundColumn>* ReadBinding::Find(const std::string& location) const {
  auto it = tables_.find(location);
  return it == tables_.end() ? nullptr : &it->second;
}

Result<RecordBatchPtr> ReadBinding::Conform(const RecordBatch& rows, const std::vector<BoundColumn>& columns) {
  std::vector<Field> fields;
  std::vector<ArrayPtr> arrays;
  for (const BoundColumn& column : columns) {
    fields.push_back(column.field);
    if (!column.source) {
      arrays.push_back(MakeNullArray(column.field.type, rows.num_rows()));
      continue;
    }
    ArrayPtr source = rows.GetColumn(*column.source);
    if (!source) return CorruptData(fmt::format("pinned table version has no column '{}'", *column.source));
    arrays.push_back(std::move(source));
  }
  return std::make_shared<const RecordBatch>(std::make_shared<const Schema>(std::move(fields)), rows.num_rows(),
                                             std::move(arrays));
}

Result<TableDataPtr> ReadBinding::Bound(const TableEntry& table, const TableDataPtr& data) const {
  const std::vector<BoundColumn>* columns = Find(table.location);
  if (columns == nullptr) return data;
  auto key = std::make_pair(table.location, table.pin.LanceVersion());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = bound_.find(key); it != bound_.end()) return it->second;
  }
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, Conform(*data->rows(), *columns));
  auto bound = std::make_shared<const TableData>(std::move(rows));
  std::lock_guard<std::mutex> lock(mutex_);
  return bound_.emplace(key, std::move(bound)).first->second;
}

Result<table::Dataset> Snapshot::OpenDataset(const TableEntry& table) const {
  return graph_->tables().OpenDataset(table);
}

Result<TableDataPtr> Snapshot::CachedRows(const TableEntry& table) const {
  OG_ASSIGN_OR_RETURN(TableDataPtr data, graph_->tables().CachedRows(table));
  if (binding_ == nullptr) return data;
  return binding_->Bound(table, data);
}

Status Snapshot::ScanRows(const TableEntry& table, int64_t batch_rows,
                          const std::function<Status(const RecordBatch& rows)>& visit) const {
  OG_ASSIGN_OR_RETURN(table::Dataset dataset, graph_->tables().OpenDataset(table));
  table::ScanOptions options;
  options.batch_rows = batch_rows;
  // A file the pinned version names may be gone (a cleanup reclaimed it).
  auto gone = [&](Status status) {
    return status.code() == ErrorCode::kNotFound ? PinnedVersionGone(table, status) : status;
  };
  auto scanner = dataset.Scan(options);
  if (!scanner.ok()) return gone(scanner.status());
  const std::vector<BoundColumn>* columns = binding_ ? binding_->Find(table.location) : nullptr;
  while (true) {
    auto batch = (*scanner)->Next();
    if (!batch.ok()) return gone(batch.status());
    if (*batch == nullptr) return Status::OK();
    if (columns == nullptr) {
      OG_RETURN_IF_ERROR(visit(**batch));
      continue;
    }
    OG_ASSIGN_OR_RETURN(RecordBatchPtr bound, ReadBinding::Conform(**batch, *columns));
    OG_RETURN_IF_ERROR(visit(*bound));
  }
}

Result<RecordBatchPtr> Snapshot::ReadAllRows(const TableEntry& table) const {
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, graph_->tables().ReadAllRows(table));
  const std::vector<BoundColumn>* columns = binding_ ? binding_->Find(table.location) : nullptr;
  if (columns == nullptr) return rows;
  return ReadBinding::Conform(*rows, *columns);
}

}  // namespace omnigraph::graph
