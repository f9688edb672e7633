// Staged transactions: every table write is prepared first (data and
// deletion files written durably, nothing referenced by any manifest, so
// nothing visible) and committed later against the exact version it was
// staged on (commit.h). This is the "stage exact table transaction" step of
// design/write-path.md and the staged-transaction primitive of
// spec/engine.md §0.2.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "columnar/scalar.h"
#include "lance/data_file.h"
#include "lance/transaction.h"
#include "table/dataset.h"
#include "table/predicate.h"

namespace omnigraph::table {

// Options shared by every staging call.
struct StageOptions {
  // Transaction UUID (canonical 36-character form); random when empty. The
  // caller chooses it so a publication can name the exact transaction.
  std::string transaction_uuid;
  // Persisted in the transaction file and the manifest's transaction section.
  std::map<std::string, std::string> properties;
  // Rows per new data file; larger inputs are split across fragments.
  uint64_t max_rows_per_file = 1 << 20;
  lance::DataFileWriterOptions file_options;
};

// A transaction whose files exist but which no manifest references. Commit it
// with CommitLinear or CommitDetached; dropping it leaves unreferenced files
// for cleanup to reclaim.
struct StagedTransaction {
  Dataset base;                    // the exact version it was staged against
  lance::Transaction transaction;  // read_version = base.version()
  // Schema of the version the commit will create.
  Schema new_schema;
  // Store keys of every file staging wrote (data and deletion files).
  std::vector<std::string> written_files;
  // Rows the operation adds, deletes and updates (for callers' accounting).
  uint64_t rows_inserted = 0;
  uint64_t rows_deleted = 0;
  uint64_t rows_updated = 0;
};

// Appends rows as new fragments. Errors: InvalidArgument when a batch does
// not match the dataset schema (names, types, nullability); IoError.
Result<StagedTransaction> StageAppend(const Dataset& base, const std::vector<RecordBatchPtr>& batches,
                                      const StageOptions& options = {});

// Replaces every row (and the schema, when `schema` is given) with `batches`.
Result<StagedTransaction> StageOverwrite(const Dataset& base, const std::vector<RecordBatchPtr>& batches,
                                         const std::optional<Schema>& schema = std::nullopt,
                                         const StageOptions& options = {});

// Deletes the live rows matching `predicate` by writing new deletion vectors
// (the union of the old and the new offsets). A fragment whose rows are all
// deleted is dropped. Errors: InvalidArgument for an invalid predicate.
Result<StagedTransaction> StageDelete(const Dataset& base, const Predicate& predicate,
                                      const StageOptions& options = {});

// Deletes the live rows whose `column` value is in `ids` (hash lookup).
Result<StagedTransaction> StageDeleteIds(const Dataset& base, const std::string& column,
                                         const std::vector<Scalar>& ids, const StageOptions& options = {});

enum class MergeInsertMode {
  // Every key must be absent from the base version; otherwise KeyConflict
  // naming the first existing key (details: "column", "key").
  kStrictInsert,
  // Rows whose key exists replace the existing row; others are inserted.
  kUpsert,
};

struct MergeInsertOptions {
  // Key column; empty = the schema's unenforced primary key.
  std::string key_column;
  MergeInsertMode mode = MergeInsertMode::kUpsert;
};

// Keyed merge-insert of `batches` (which must match the dataset schema).
// Errors: InvalidArgument (no key column, null or duplicate keys in the
// input, naming the key), KeyConflict (strict insert), IoError.
Result<StagedTransaction> StageMergeInsert(const Dataset& base, const std::vector<RecordBatchPtr>& batches,
                                           const MergeInsertOptions& merge_options, const StageOptions& options = {});

// Adds nullable columns (metadata only: existing rows read them as null).
// New field ids are assigned above every id the dataset ever used. A blob
// v2 field (columnar/blob_cell.h) makes a 2.1 table 2.2 (commit.cc), which
// is allowed only while the table has no data files.
// Errors: InvalidArgument for a non-nullable field or a name already in use;
// Unsupported for a blob v2 field on a 2.1 table with data files (Lance
// refuses a table mixing file versions).
Result<StagedTransaction> StageAddColumns(const Dataset& base, const std::vector<Field>& fields,
                                          const StageOptions& options = {});

// Renames (`renames`: old name -> new name) and drops top-level columns
// (metadata only; data files keep the bytes until a rewrite). `column_order`,
// when not empty, lists every remaining column (by its new name) in the
// order the new schema gives them.
// Errors: InvalidArgument for unknown names, collisions, dropping the
// primary key or every column, or an order that is not a permutation of
// the remaining columns.
Result<StagedTransaction> StageProject(const Dataset& base, const std::map<std::string, std::string>& renames,
                                       const std::vector<std::string>& drops, const StageOptions& options = {},
                                       const std::vector<std::string>& column_order = {});

// Compacts the given fragments (empty = every fragment) into new ones,
// dropping deleted rows and columns no longer in the schema: one Rewrite
// group (StageRewriteGroups). Errors: NotFound for an unknown fragment id,
// InvalidArgument when the dataset has no fragment.
Result<StagedTransaction> StageRewrite(const Dataset& base, const std::vector<uint64_t>& fragment_ids = {},
                                       const StageOptions& options = {});

// Compacts each group of fragments into new fragments of at most
// options.max_rows_per_file rows (one Rewrite group each; the optimize
// compaction, spec/engine.md §8.1). The new files hold the live rows of the
// current schema only: deleted rows and the values of dropped columns stay
// behind, and a column a fragment lacks (added by a metadata-only Merge) is
// written as nulls. The commit gives the new fragments ids above the
// base's high-water mark and puts each group's in place of its first old
// fragment, so rewriting contiguous fragments keeps the scan order.
// Errors: InvalidArgument (no group, an empty group, a fragment named
// twice), NotFound (a fragment id not in the base), IoError.
Result<StagedTransaction> StageRewriteGroups(const Dataset& base, const std::vector<std::vector<uint64_t>>& groups,
                                             const StageOptions& options = {});

}  // namespace omnigraph::table
