// Every live row of one table at one pin, decoded once and shared by the
// executor and write validation. Pins are immutable, so the data is cached
// by exact physical identity (location, Lance version) and never
// invalidated, only evicted.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "columnar/record_batch.h"

namespace omnigraph::graph {

class TableData {
 public:
  explicit TableData(RecordBatchPtr rows);

  const RecordBatchPtr& rows() const { return rows_; }
  int64_t num_rows() const { return rows_->num_rows(); }
  // The `id` column (Utf8, never null).
  const Array& ids() const { return *ids_; }
  // Row of `id`, or -1. Built on first use; thread-safe.
  int64_t RowOf(std::string_view id) const;
  // A column by name, or nullptr.
  const Array* Column(std::string_view name) const;

  int64_t MemoryBytes() const { return rows_->MemoryBytes(); }

 private:
  RecordBatchPtr rows_;
  ArrayPtr ids_;
  mutable std::once_flag index_once_;
  mutable std::unordered_map<std::string_view, int64_t> index_;
};

using TableDataPtr = std::shared_ptr<const TableData>;

}  // namespace omnigraph::graph
