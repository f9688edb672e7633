#include "graph/table_data.h"

namespace omnigraph::graph {

TableData::TableData(RecordBatchPtr rows)
    : schema_(rows->schema()), num_rows_(rows->num_rows()), memory_bytes_(rows->MemoryBytes()) {
  ids_ = rows->GetColumn("id");
  rows_ = std::move(rows);
  std::call_once(rows_once_, [] {});  // rows are present from the start
}

TableDataPtr TableData::Append(const TableDataPtr& base, const std::vector<RecordBatchPtr>& appended) {
  for (const RecordBatchPtr& batch : appended) {
    if (!batch->schema()->Equals(*base->schema_)) return nullptr;
  }
  std::shared_ptr<TableData> data(new TableData());
  data->schema_ = base->schema_;
  data->prefix_ = base->prefix_ ? base->prefix_ : base;
  if (base->prefix_) data->base_ = base;
  data->appended_ = base->appended_;
  data->appended_.insert(data->appended_.end(), appended.begin(), appended.end());
  // Counts carry forward from the base, so a write adds only its own rows.
  data->num_rows_ = base->num_rows_;
  data->memory_bytes_ = base->prefix_ ? base->memory_bytes_ : 0;
  for (const RecordBatchPtr& batch : appended) {
    data->num_rows_ += batch->num_rows();
    data->memory_bytes_ += batch->MemoryBytes();
  }
  if (data->num_rows_ - data->prefix_->num_rows_ > kMaxAppendedRows) {
    // Too many appended rows to re-index on every write: start over from
    // one materialized batch.
    return std::make_shared<const TableData>(data->rows());
  }
  return data;
}

const RecordBatchPtr& TableData::rows() const {
  std::call_once(rows_once_, [this] {
    std::vector<RecordBatchPtr> parts = {prefix_->rows()};
    parts.insert(parts.end(), appended_.begin(), appended_.end());
    rows_ = ConcatBatches(schema_, parts);
    ids_ = rows_->GetColumn("id");
  });
  return rows_;
}

const Array& TableData::ids() const {
  rows();
  return *ids_;
}

void TableData::IndexIds(const Array& ids, int64_t first_row, IdIndex* index) {
  for (int64_t r = 0; r < ids.length(); ++r) index->Insert(ids.GetView(r), first_row + r);
}

void TableData::BuildIndex() const {
  std::call_once(index_once_, [this] {
    if (!prefix_) {
      index_.Reserve(static_cast<size_t>(num_rows_));
      IndexIds(*ids_, 0, &index_);
      return;
    }
    int64_t first_row = prefix_->num_rows_;
    size_t first_batch = 0;
    if (TableDataPtr base = base_.lock(); base && base->index_built_.load(std::memory_order_acquire)) {
      // The base's batches are this version's leading batches.
      index_ = base->index_;
      first_batch = base->appended_.size();
      first_row = base->num_rows_;
    }
    for (size_t b = first_batch; b < appended_.size(); ++b) {
      IndexIds(*appended_[b]->GetColumn("id"), first_row, &index_);
      first_row += appended_[b]->num_rows();
    }
  });
  index_built_.store(true, std::memory_order_release);
}

int64_t TableData::RowOf(std::string_view id) const {
  if (!prefix_ && !index_built_.load(std::memory_order_acquire) &&
      scanned_lookups_.fetch_add(1, std::memory_order_relaxed) < kScannedLookups) {
    const Array& ids = *ids_;
    for (int64_t r = 0; r < ids.length(); ++r) {
      if (ids.GetView(r) == id) return r;
    }
    return -1;
  }
  BuildIndex();
  if (int64_t row = index_.Find(id); row >= 0) return row;
  return prefix_ ? prefix_->RowOf(id) : -1;
}

void TableData::RowsOf(const std::vector<std::string_view>& ids, std::vector<int64_t>* rows) const {
  if (ids.size() <= static_cast<size_t>(kScannedLookups) && !index_built()) {
    // A handful of ids (an edge table with few rows, a cold 1-hop): scans,
    // as RowOf does, instead of hashing every id of this table first.
    rows->resize(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) (*rows)[i] = RowOf(ids[i]);
    return;
  }
  BuildIndex();
  index_.FindMany(ids, rows);
  if (!prefix_) return;
  // Derived data indexes only its appended rows; the rest live in the prefix.
  std::vector<std::string_view> missing;
  std::vector<size_t> where;
  for (size_t i = 0; i < ids.size(); ++i) {
    if ((*rows)[i] < 0) {
      missing.push_back(ids[i]);
      where.push_back(i);
    }
  }
  std::vector<int64_t> found;
  prefix_->RowsOf(missing, &found);
  for (size_t k = 0; k < where.size(); ++k) (*rows)[where[k]] = found[k];
}

const Array* TableData::Column(std::string_view name) const {
  ArrayPtr column = rows()->GetColumn(name);
  return column.get();
}

}  // namespace omnigraph::graph
