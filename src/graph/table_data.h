// Every live row of one table at one pin, decoded once and shared by the
// executor and write validation. Pins are immutable, so the data is cached
// by exact physical identity (location, Lance version) and never
// invalidated, only evicted.
//
// A version that only appends rows to a cached version is derived in
// memory instead of being read back (GraphStore::RememberAppend): it keeps
// the older data as a shared prefix, indexes only the appended rows, and
// concatenates the columns only when a reader asks for them. Row numbers
// are those of the concatenated batch, so prefix rows keep their numbers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "columnar/record_batch.h"
#include "graph/id_index.h"

namespace omnigraph::graph {

class TableData;
using TableDataPtr = std::shared_ptr<const TableData>;

class TableData {
 public:
  explicit TableData(RecordBatchPtr rows);

  // The data of `base` followed by `appended` (rows with base's columns, in
  // order). Returns nullptr when the columns differ, so the caller reads
  // the version from storage instead.
  static TableDataPtr Append(const TableDataPtr& base, const std::vector<RecordBatchPtr>& appended);

  // Every row (concatenated on first use for derived data); thread-safe.
  const RecordBatchPtr& rows() const;
  int64_t num_rows() const { return num_rows_; }
  // The `id` column (Utf8, never null).
  const Array& ids() const;
  // Row of `id`, or -1; thread-safe. The first kScannedLookups lookups in
  // a table read from storage scan the id column: a one-shot process (a CLI
  // query anchored on one key, a CLI insert checking its key) makes a few
  // and never pays for hashing every id, which costs as much as dozens of
  // scans. Later lookups build and use the id index.
  int64_t RowOf(std::string_view id) const;
  // Whether the id index has been built (RowOf's scans are over).
  bool index_built() const { return index_built_.load(std::memory_order_acquire); }
  // rows[i] = RowOf(ids[i]), with the lookups pipelined (IdIndex::FindMany);
  // up to kScannedLookups ids (none, for an empty edge table) go through
  // RowOf before any index exists.
  void RowsOf(const std::vector<std::string_view>& ids, std::vector<int64_t>* rows) const;
  // A column by name, or nullptr.
  const Array* Column(std::string_view name) const;

  // Bytes held, for cache accounting (a derived version counts its own
  // appended rows; the shared prefix is counted by its own entry).
  int64_t MemoryBytes() const { return memory_bytes_; }

 private:
  TableData() = default;
  static void IndexIds(const Array& ids, int64_t first_row, IdIndex* index);
  void BuildIndex() const;

  // Derived data appended after prefix_ (a table read from storage).
  TableDataPtr prefix_;
  // The derived version this one extends, if any: when its index is built,
  // this one copies it and hashes only its own rows. Weak, so a chain of
  // versions does not keep every older one alive.
  std::weak_ptr<const TableData> base_;
  std::vector<RecordBatchPtr> appended_;
  SchemaPtr schema_;
  int64_t num_rows_ = 0;
  int64_t memory_bytes_ = 0;

  mutable std::once_flag rows_once_;
  mutable RecordBatchPtr rows_;
  mutable ArrayPtr ids_;
  // Whole table for data read from storage; appended rows only when derived.
  mutable std::once_flag index_once_;
  mutable IdIndex index_;
  mutable std::atomic<bool> index_built_{false};
  mutable std::atomic<int> scanned_lookups_{0};
};

// Lookups by id answered by scanning before a table builds its id index
// (TableData::RowOf).
inline constexpr int kScannedLookups = 4;

// Appended rows a derived version may hold before it is materialized into
// one batch (bounds the per-write index rebuild).
inline constexpr int64_t kMaxAppendedRows = 1024;

}  // namespace omnigraph::graph
