// Row predicates for scans and deletes: comparisons, IS [NOT] NULL, IN,
// starts_with, combined with AND / OR / NOT, evaluated with SQL three-valued
// logic (a comparison with NULL is unknown, and unknown rows are not
// selected).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "columnar/scalar.h"
#include "util/status.h"

namespace omnigraph::table {

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

class Predicate {
 public:
  enum class Kind { kTrue, kCompare, kIsNull, kIsNotNull, kIn, kStartsWith, kAnd, kOr, kNot };

  // Matches every row.
  Predicate();
  static Predicate True() { return Predicate(); }
  static Predicate Compare(std::string column, CompareOp op, Scalar value);
  static Predicate Eq(std::string column, Scalar value) { return Compare(std::move(column), CompareOp::kEq, std::move(value)); }
  static Predicate Ne(std::string column, Scalar value) { return Compare(std::move(column), CompareOp::kNe, std::move(value)); }
  static Predicate Lt(std::string column, Scalar value) { return Compare(std::move(column), CompareOp::kLt, std::move(value)); }
  static Predicate Le(std::string column, Scalar value) { return Compare(std::move(column), CompareOp::kLe, std::move(value)); }
  static Predicate Gt(std::string column, Scalar value) { return Compare(std::move(column), CompareOp::kGt, std::move(value)); }
  static Predicate Ge(std::string column, Scalar value) { return Compare(std::move(column), CompareOp::kGe, std::move(value)); }
  static Predicate IsNull(std::string column);
  static Predicate IsNotNull(std::string column);
  // `column IN (values...)`; null values in the list never match.
  static Predicate In(std::string column, std::vector<Scalar> values);
  static Predicate StartsWith(std::string column, std::string prefix);
  static Predicate And(Predicate a, Predicate b);
  static Predicate Or(Predicate a, Predicate b);
  static Predicate Not(Predicate a);

  Kind kind() const;
  bool is_true() const { return kind() == Kind::kTrue; }

  // Top-level columns the predicate reads.
  std::set<std::string> Columns() const;

  // Checks that every column exists and every literal is comparable with
  // its column's type. InvalidArgument names the column.
  Status Validate(const Schema& schema) const;

  // Rows of `batch` for which the predicate is TRUE (not false, not unknown),
  // as ascending row indices. The batch must contain every column in
  // Columns().
  Result<std::vector<int64_t>> Select(const RecordBatch& batch) const;

  // SQL-like text, e.g. `(age >= 18 AND name IS NOT NULL)`; recorded as the
  // predicate of Delete transactions.
  std::string ToString() const;

 private:
  struct Node;
  explicit Predicate(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};

}  // namespace omnigraph::table
