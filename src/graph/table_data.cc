#include "graph/table_data.h"

namespace omnigraph::graph {

TableData::TableData(RecordBatchPtr rows) : rows_(std::move(rows)), ids_(rows_->GetColumn("id")) {}

int64_t TableData::RowOf(std::string_view id) const {
  std::call_once(index_once_, [this] {
    index_.reserve(static_cast<size_t>(ids_->length()));
    for (int64_t r = 0; r < ids_->length(); ++r) index_.emplace(ids_->GetView(r), r);
  });
  auto it = index_.find(id);
  return it == index_.end() ? -1 : it->second;
}

const Array* TableData::Column(std::string_view name) const {
  ArrayPtr column = rows_->GetColumn(name);
  return column.get();
}

}  // namespace omnigraph::graph
