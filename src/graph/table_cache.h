// Opening graph tables at their pins, and the two caches that make repeated
// reads cheap (design/structure.md P1: `graph/table_cache`).
//
// Both caches are keyed by exact physical identity: (table location, Lance
// version). A pin names a detached version with a random id (or a table's
// creation version), which no other table version of any branch shares, so
// an entry is valid for every branch and every snapshot that pins it, and
// nothing cached is ever stale; entries are only evicted.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "graph/manifest/graph_state.h"
#include "graph/table_data.h"
#include "io/object_store.h"
#include "table/dataset.h"

namespace omnigraph::graph {

class TableCache {
 public:
  TableCache(ObjectStorePtr store, std::string root) : store_(std::move(store)), root_(std::move(root)) {}

  // Opens `table` at its pin (cached). Errors: VersionReclaimed when the
  // pinned manifest is gone, CorruptData when the opened transaction is not
  // the pinned one, IoError.
  Result<table::Dataset> OpenDataset(const TableEntry& table);
  // Every live row of `table` at its pin, read now and not cached (a
  // one-pass reader such as export). Errors: those of OpenDataset;
  // VersionReclaimed when a file the pinned version names is gone.
  Result<RecordBatchPtr> ReadAllRows(const TableEntry& table);
  // ReadAllRows, decoded once and cached (bounded by kTableDataCacheBytes
  // and kCachedVersionsPerTable, least recently used first out).
  Result<TableDataPtr> CachedRows(const TableEntry& table);

  // Records that `after` is `before` plus `appended` rows, so the data of
  // `after` is derived from cached data of `before` instead of being read.
  // Does nothing when `before` is not cached.
  void RememberAppend(const TableEntry& before, const TableEntry& after, const std::vector<RecordBatchPtr>& appended);
  // Records `committed` as the opened dataset of `table`'s pin (the writer
  // that committed it already holds it), so OpenDataset need not read it.
  void RememberOpened(const TableEntry& table, const table::Dataset& committed);

  // Entries in the caches (for tests and diagnostics).
  struct Counts {
    size_t datasets = 0;           // opened table versions
    size_t table_data = 0;         // decoded table versions
    int64_t table_data_bytes = 0;  // as accounted by TableData::MemoryBytes
  };
  Counts counts();

 private:
  using Key = std::pair<std::string, uint64_t>;  // (store key of the table, Lance version)
  Key KeyOf(const TableEntry& table) const;
  // REQUIRES: mutex_ held.
  void CacheDataset(const Key& key, const table::Dataset& dataset);
  // Adds `data`; returns the cached entry (an earlier one when another
  // thread cached the same key first).
  TableDataPtr CacheTableData(const Key& key, TableDataPtr data);

  ObjectStorePtr store_;
  std::string root_;
  std::mutex mutex_;
  struct CachedDataset {
    table::Dataset dataset;
    uint64_t last_use = 0;
  };
  struct CachedData {
    TableDataPtr data;
    uint64_t last_use = 0;
  };
  std::map<Key, CachedDataset> datasets_;  // guarded by mutex_
  std::map<Key, CachedData> data_;         // guarded by mutex_
  uint64_t clock_ = 0;
  int64_t data_bytes_ = 0;
};

inline constexpr int64_t kTableDataCacheBytes = int64_t{512} << 20;
// Versions of one table each cache keeps (the least recently used go
// first). Pins never change, so nothing cached is ever stale, but a table's
// older versions are read again only by readers still holding an older
// snapshot, while every commit adds one: without this bound, 5,000 one-row
// inserts kept 460 MB of versions nobody read.
inline constexpr size_t kCachedVersionsPerTable = 8;
inline constexpr size_t kCachedDatasets = 512;

// The error for a pinned table version whose objects are missing (reclaimed
// by a cleanup, or removed from the store); `cause` names the missing object.
// Code VersionReclaimed (HTTP 500, BR-7), message "historical published
// dataset version <v> was reclaimed", details published_dataset_version,
// table_key, dataset_version and cause.
Status PinnedVersionGone(const TableEntry& table, const Status& cause);

}  // namespace omnigraph::graph
