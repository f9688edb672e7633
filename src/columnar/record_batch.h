// A set of equal-length columns with a schema: the unit of scans and writes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "columnar/data_type.h"
#include "util/status.h"

namespace omnigraph {

class RecordBatch;
using RecordBatchPtr = std::shared_ptr<const RecordBatch>;

class RecordBatch {
 public:
  RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ArrayPtr> columns)
      : schema_(std::move(schema)), num_rows_(num_rows), columns_(std::move(columns)) {}

  // Checks that column count, types and lengths match the schema, and that
  // non-nullable fields hold no nulls. InvalidArgument names the column.
  static Result<RecordBatchPtr> Make(SchemaPtr schema, std::vector<ArrayPtr> columns);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ArrayPtr& column(int i) const { return columns_[i]; }
  const std::vector<ArrayPtr>& columns() const { return columns_; }
  // The column named `name`, or nullptr.
  ArrayPtr GetColumn(std::string_view name) const;

  // Rows [start, start + length) (copies).
  RecordBatchPtr Slice(int64_t start, int64_t length) const;
  // Rows at `indices` in order (copies).
  RecordBatchPtr Take(const std::vector<int64_t>& indices) const;

  bool Equals(const RecordBatch& other) const;
  int64_t MemoryBytes() const;
  std::string ToString() const;

 private:
  SchemaPtr schema_;
  int64_t num_rows_;
  std::vector<ArrayPtr> columns_;
};

// Concatenates batches that share one schema; an empty input gives an empty
// batch of `schema`.
RecordBatchPtr ConcatBatches(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches);

}  // namespace omnigraph
