// Test helpers: build record batches from rows of scalars and read datasets
// back as rows.
#pragma once

#include <string>
#include <vector>

#include "columnar/builder.h"
#include "columnar/record_batch.h"
#include "columnar/scalar.h"

namespace omnigraph::testing {

using Row = std::vector<Scalar>;

// A batch of `rows` (each row one scalar per schema field). Aborts the test
// binary on a mismatch, which is a bug in the test itself.
RecordBatchPtr MakeBatch(const SchemaPtr& schema, const std::vector<Row>& rows);

// Every row of `batch` as scalars.
std::vector<Row> Rows(const RecordBatch& batch);

// Rows rendered one per line, e.g. `[1, "a", null]`, for readable failures.
std::string RowsToString(const std::vector<Row>& rows);

inline Scalar I(int64_t v) { return Scalar::Int(v); }
inline Scalar S(std::string v) { return Scalar::String(std::move(v)); }
inline Scalar D(double v) { return Scalar::Double(v); }
inline Scalar B(bool v) { return Scalar::Bool(v); }
inline Scalar N() { return Scalar::Null(); }
inline Scalar L(std::vector<Scalar> items) { return Scalar::Nested(std::move(items)); }

}  // namespace omnigraph::testing
