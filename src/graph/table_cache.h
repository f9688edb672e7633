// Opening graph tables at their pins, and the two caches that make repeated
// reads cheap (design/structure.md P1: `graph/table_cache`).
//
// Both caches are keyed by exact physical identity: (table URI, Lance
// version). A pin names a detached version with a random id (or a table's
// creation version), which no other table version of any branch shares, so
// an entry is valid for every branch and every snapshot that pins it, and
// nothing cached is ever stale; entries are only evicted.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/manifest/graph_state.h"
#include "graph/table_data.h"
#include "io/object_store.h"
#include "table/dataset.h"

namespace omnigraph::graph {

// Limits of a TableVersionCache. The defaults suit one process serving a
// few graphs with a few hundred MiB for caches.
struct TableCacheLimits {
  // Decoded rows (TableData::MemoryBytes) kept across every graph sharing
  // the cache; the least recently used table version goes first. A single
  // version larger than the budget is still kept while it is the only one.
  int64_t table_data_bytes = int64_t{512} << 20;
  // Opened table versions (a manifest each, a few KiB).
  size_t datasets = 512;
  // Versions of one table each map keeps. Pins never change, so nothing
  // cached is ever stale, but a table's older versions are read again only
  // by readers still holding an older snapshot, while every commit adds
  // one: without this bound, 5,000 one-row inserts kept 460 MB of versions
  // nobody read.
  size_t versions_per_table = 8;
};

// The entries behind TableCache: opened datasets and decoded rows keyed by
// exact physical identity (the table's absolute URI, Lance version), each
// map in one least-recently-used order, the rows under one byte budget.
// One instance may be shared by every handle on every graph of a process
// (api/engine.h): a table version one handle read is decoded once for all
// of them, and a server's cache memory has one bound. Thread-safe.
class TableVersionCache {
 public:
  explicit TableVersionCache(TableCacheLimits limits = {}) : limits_(limits) {}

  const TableCacheLimits& limits() const { return limits_; }

  struct Counts {
    size_t datasets = 0;           // opened table versions
    size_t table_data = 0;         // decoded table versions
    int64_t table_data_bytes = 0;  // as accounted by TableData::MemoryBytes
  };
  Counts counts();

 private:
  friend class TableCache;
  using Key = std::pair<std::string, uint64_t>;  // (absolute URI of the table, Lance version)

  std::optional<table::Dataset> FindDataset(const Key& key);
  void CacheDataset(const Key& key, const table::Dataset& dataset);
  TableDataPtr FindData(const Key& key);
  // Adds `data`; returns the cached entry (an earlier one when another
  // thread cached the same key first).
  TableDataPtr CacheData(const Key& key, TableDataPtr data);

  const TableCacheLimits limits_;
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
  uint64_t clock_ = 0;                     // guarded by mutex_
  int64_t data_bytes_ = 0;                 // guarded by mutex_
};

using TableVersionCachePtr = std::shared_ptr<TableVersionCache>;

// Opens the tables of one graph root at their pins, through a
// TableVersionCache.
class TableCache {
 public:
  // `versions` may be shared with other graphs; nullptr gives this root a
  // private cache with the default limits.
  TableCache(ObjectStorePtr store, std::string root, TableVersionCachePtr versions);

  // Opens `table` at its pin (cached). Errors: VersionReclaimed when the
  // pinned manifest is gone, CorruptData when the opened transaction is not
  // the pinned one, IoError.
  Result<table::Dataset> OpenDataset(const TableEntry& table);
  // Every live row of `table` at its pin, read now and not cached (a
  // one-pass reader such as export). Errors: those of OpenDataset;
  // VersionReclaimed when a file the pinned version names is gone.
  Result<RecordBatchPtr> ReadAllRows(const TableEntry& table);
  // ReadAllRows, decoded once and cached (bounded by the cache's
  // TableCacheLimits, least recently used first out).
  Result<TableDataPtr> CachedRows(const TableEntry& table);

  // Records that `after` is `before` plus `appended` rows, so the data of
  // `after` is derived from cached data of `before` instead of being read.
  // Does nothing when `before` is not cached.
  void RememberAppend(const TableEntry& before, const TableEntry& after, const std::vector<RecordBatchPtr>& appended);
  // Records `committed` as the opened dataset of `table`'s pin (the writer
  // that committed it already holds it), so OpenDataset need not read it.
  void RememberOpened(const TableEntry& table, const table::Dataset& committed);

  using Counts = TableVersionCache::Counts;
  // Entries of the underlying cache: of every graph sharing it (for tests
  // and diagnostics).
  Counts counts() { return versions_->counts(); }
  const TableVersionCachePtr& versions() const { return versions_; }

 private:
  // The table's key in its store.
  std::string StoreKeyOf(const TableEntry& table) const;
  TableVersionCache::Key CacheKeyOf(const TableEntry& table) const;

  ObjectStorePtr store_;
  std::string root_;
  std::string root_uri_;  // store_->Uri(root_), computed once: it is in every lookup's key
  TableVersionCachePtr versions_;
};

// The error for a pinned table version whose objects are missing (reclaimed
// by a cleanup, or removed from the store); `cause` names the missing object.
// Code VersionReclaimed (HTTP 500, BR-7), message "historical published
// dataset version <v> was reclaimed", details published_dataset_version,
// table_key, dataset_version and cause.
Status PinnedVersionGone(const TableEntry& table, const Status& cause);

}  // namespace omnigraph::graph
