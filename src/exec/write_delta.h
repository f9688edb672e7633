// The in-memory effect of one write (a load or a mutation) before it is
// staged, and its end-of-write validation (spec/surface.md §3.2 "End-of-query
// validation", shared by load and mutations).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "columnar/record_batch.h"
#include "compiler/catalog.h"
#include "exec/writers/table_adapter.h"
#include "graph/snapshot.h"

namespace omnigraph::exec {

// The pending effect on one table.
struct TableDelta {
  std::string table_key;
  // Overwrite: the committed rows are gone; `upserts` is the whole content.
  bool replace_all = false;
  // Full row images (the table's physical schema), one per id. A row whose
  // id exists replaces the committed row.
  RecordBatchPtr upserts;
  // How `upserts` must be staged: kUpsert or kStrictInsert (ignored when
  // replace_all).
  TableChange::Kind insert_kind = TableChange::Kind::kUpsert;
  // Committed ids removed by the write.
  std::unordered_set<std::string> deleted_ids;

  int64_t upsert_count() const { return upserts ? upserts->num_rows() : 0; }
};

// By table key.
using WriteDelta = std::map<std::string, TableDelta>;

// Validates `delta` against `base` in this order, returning the first
// violation as InvalidArgument with the documented message:
//   1. value constraints of written rows: enum membership, @range, @check;
//   2. @unique tuples within the delta and against surviving committed rows
//      (rows with a NULL in the tuple are exempt);
//   3. edge referential integrity of written edges, and of committed edges
//      stranded by node deletions or replaced node types;
//   4. @card for every source touched by the write.
// A violation caused by a row of the delta names it in the details
// (table_key, entity_id) so a loader can report the input line.
Status ValidateWrite(const graph::Snapshot& base, const compiler::Catalog& catalog, const WriteDelta& delta);

// One constraint violation of a write, as a validation that collects them
// all reports it (a merge reports every conflict at once, BR-9.7).
struct Violation {
  enum class Kind { kValueConstraint, kUnique, kOrphanEdge, kCardinality };
  Kind kind = Kind::kValueConstraint;
  std::string table_key;                 // the table the violating row belongs to
  std::optional<std::string> entity_id;  // the row at fault (an orphan edge: the edge)
  std::string message;                   // the same text ValidateWrite reports
};

// Every violation ValidateWrite would stop at the first of, in the order it
// checks them. Errors: only storage errors reading the snapshot's tables.
Result<std::vector<Violation>> CollectViolations(const graph::Snapshot& base, const compiler::Catalog& catalog,
                                                 const WriteDelta& delta);

// One TableChange per table in the delta (overwrite, upsert / strict insert,
// or delete).
std::vector<TableChange> ToTableChanges(const WriteDelta& delta);

}  // namespace omnigraph::exec
