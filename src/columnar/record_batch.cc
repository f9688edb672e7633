#include "columnar/record_batch.h"

#include <fmt/format.h>

namespace omnigraph {

Result<RecordBatchPtr> RecordBatch::Make(SchemaPtr schema, std::vector<ArrayPtr> columns) {
  if (static_cast<int>(columns.size()) != schema->num_fields()) {
    return InvalidArgument(fmt::format("batch has {} columns but the schema has {} fields", columns.size(),
                                       schema->num_fields()));
  }
  int64_t rows = columns.empty() ? 0 : columns.front()->length();
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& field = schema->field(static_cast<int>(i));
    if (!columns[i]->type()->Equals(*field.type)) {
      return InvalidArgument(fmt::format("column '{}' has type {} but the schema says {}", field.name,
                                         columns[i]->type()->ToString(), field.type->ToString()));
    }
    if (columns[i]->length() != rows) {
      return InvalidArgument(fmt::format("column '{}' has {} rows, expected {}", field.name, columns[i]->length(), rows));
    }
    if (!field.nullable && columns[i]->null_count() > 0) {
      return InvalidArgument(fmt::format("column '{}' is not nullable but holds {} nulls", field.name,
                                         columns[i]->null_count()));
    }
  }
  return std::make_shared<const RecordBatch>(std::move(schema), rows, std::move(columns));
}

ArrayPtr RecordBatch::GetColumn(std::string_view name) const {
  int i = schema_->FieldIndex(name);
  return i < 0 ? nullptr : columns_[i];
}

RecordBatchPtr RecordBatch::Slice(int64_t start, int64_t length) const {
  std::vector<ArrayPtr> columns;
  columns.reserve(columns_.size());
  for (const ArrayPtr& c : columns_) columns.push_back(SliceArray(*c, start, length));
  return std::make_shared<const RecordBatch>(schema_, length, std::move(columns));
}

RecordBatchPtr RecordBatch::Take(const std::vector<int64_t>& indices) const {
  std::vector<ArrayPtr> columns;
  columns.reserve(columns_.size());
  for (const ArrayPtr& c : columns_) columns.push_back(TakeArray(*c, indices));
  return std::make_shared<const RecordBatch>(schema_, static_cast<int64_t>(indices.size()), std::move(columns));
}

bool RecordBatch::Equals(const RecordBatch& other) const {
  if (num_rows_ != other.num_rows_ || columns_.size() != other.columns_.size()) return false;
  if (!schema_->Equals(*other.schema_)) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i]->Equals(*other.columns_[i])) return false;
  }
  return true;
}

int64_t RecordBatch::MemoryBytes() const {
  int64_t total = 0;
  for (const ArrayPtr& c : columns_) total += c->MemoryBytes();
  return total;
}

std::string RecordBatch::ToString() const {
  std::string out = fmt::format("RecordBatch({} rows)", num_rows_);
  for (size_t i = 0; i < columns_.size(); ++i) {
    out += fmt::format("\n  {}: {}", schema_->field(static_cast<int>(i)).name, columns_[i]->ToString());
  }
  return out;
}

RecordBatchPtr ConcatBatches(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches) {
  if (batches.size() == 1) return batches.front();
  std::vector<ArrayPtr> columns;
  int64_t rows = 0;
  for (const RecordBatchPtr& b : batches) rows += b->num_rows();
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::vector<ArrayPtr> parts;
    for (const RecordBatchPtr& b : batches) parts.push_back(b->column(c));
    columns.push_back(parts.empty() ? MakeNullArray(schema->field(c).type, 0) : ConcatArrays(schema->field(c).type, parts));
  }
  return std::make_shared<const RecordBatch>(schema, rows, std::move(columns));
}

}  // namespace omnigraph
