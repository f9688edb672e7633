#include "support/batches.h"

#include <cstdio>
#include <cstdlib>

namespace omnigraph::testing {

RecordBatchPtr MakeBatch(const SchemaPtr& schema, const std::vector<Row>& rows) {
  std::vector<ArrayPtr> columns;
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::vector<Scalar> values;
    values.reserve(rows.size());
    for (const Row& row : rows) values.push_back(row.at(c));
    auto array = ArrayFromScalars(schema->field(c).type, values);
    if (!array.ok()) {
      std::fprintf(stderr, "MakeBatch column %d: %s\n", c, array.status().ToString().c_str());
      std::abort();
    }
    columns.push_back(*array);
  }
  auto batch = RecordBatch::Make(schema, std::move(columns));
  if (!batch.ok()) {
    std::fprintf(stderr, "MakeBatch: %s\n", batch.status().ToString().c_str());
    std::abort();
  }
  return *batch;
}

std::vector<Row> Rows(const RecordBatch& batch) {
  std::vector<Row> rows(batch.num_rows());
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    for (int c = 0; c < batch.num_columns(); ++c) rows[r].push_back(GetScalar(*batch.column(c), r));
  }
  return rows;
}

std::string RowsToString(const std::vector<Row>& rows) {
  std::string out;
  for (const Row& row : rows) {
    out += Scalar::Nested(row).ToString();
    out += "\n";
  }
  return out;
}

}  // namespace omnigraph::testing
