#include "graph/table_cache.h"

#include <fmt/format.h>

#include "table/scanner.h"

namespace omnigraph::graph {
namespace {

// The entry of `cache` least recently used among those `select` accepts
// (cache.end() when none is): caches hold a few entries per table, so a
// scan is cheap.
template <typename Cache, typename Select>
typename Cache::iterator LeastRecentlyUsed(Cache& cache, typename Cache::iterator first, Select select) {
  auto oldest = cache.end();
  for (auto it = first; it != cache.end() && select(it); ++it) {
    if (oldest == cache.end() || it->second.last_use < oldest->second.last_use) oldest = it;
  }
  return oldest;
}

// The least recently used version of `location` in `cache` when it holds
// more than `limit` of them, else cache.end().
template <typename Cache>
typename Cache::iterator SurplusVersion(Cache& cache, const std::string& location, size_t limit) {
  auto first = cache.lower_bound(std::make_pair(location, uint64_t{0}));
  size_t versions = 0;
  for (auto it = first; it != cache.end() && it->first.first == location; ++it) ++versions;
  if (versions <= limit) return cache.end();
  return LeastRecentlyUsed(cache, first, [&](auto it) { return it->first.first == location; });
}

}  // namespace

Status PinnedVersionGone(const TableEntry& table, const Status& cause) {
  // The message is BR-7's; which table and what was missing go in details.
  return Status(ErrorCode::kVersionReclaimed,
                fmt::format("historical published dataset version {} was reclaimed", table.pin.published_version),
                {{"published_dataset_version", std::to_string(table.pin.published_version)},
                 {"table_key", table.table_key},
                 {"dataset_version", std::to_string(table.pin.LanceVersion())},
                 {"cause", cause.message()}});
}

TableVersionCache::Counts TableVersionCache::counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  return Counts{datasets_.size(), data_.size(), data_bytes_};
}

std::optional<table::Dataset> TableVersionCache::FindDataset(const Key& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = datasets_.find(key);
  if (it == datasets_.end()) return std::nullopt;
  it->second.last_use = ++clock_;
  return it->second.dataset;
}

void TableVersionCache::CacheDataset(const Key& key, const table::Dataset& dataset) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!datasets_.emplace(key, CachedDataset{dataset, ++clock_}).second) return;
  if (auto surplus = SurplusVersion(datasets_, key.first, limits_.versions_per_table); surplus != datasets_.end()) {
    datasets_.erase(surplus);
  }
  if (datasets_.size() > limits_.datasets) {
    datasets_.erase(LeastRecentlyUsed(datasets_, datasets_.begin(), [](auto) { return true; }));
  }
}

TableDataPtr TableVersionCache::FindData(const Key& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = data_.find(key);
  if (it == data_.end()) return nullptr;
  it->second.last_use = ++clock_;
  return it->second.data;
}

TableDataPtr TableVersionCache::CacheData(const Key& key, TableDataPtr data) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = data_.find(key); it != data_.end()) return it->second.data;  // lost a load race
  data_bytes_ += data->MemoryBytes();
  data_[key] = CachedData{data, ++clock_};
  auto evict = [&](auto it) {
    data_bytes_ -= it->second.data->MemoryBytes();
    data_.erase(it);
  };
  if (auto surplus = SurplusVersion(data_, key.first, limits_.versions_per_table); surplus != data_.end()) {
    evict(surplus);
  }
  while (data_bytes_ > limits_.table_data_bytes && data_.size() > 1) {
    evict(LeastRecentlyUsed(data_, data_.begin(), [](auto) { return true; }));
  }
  return data;
}

TableCache::TableCache(ObjectStorePtr store, std::string root, TableVersionCachePtr versions)
    : store_(std::move(store)),
      root_(std::move(root)),
      root_uri_(store_->Uri(root_)),
      versions_(versions ? std::move(versions) : std::make_shared<TableVersionCache>()) {}

std::string TableCache::StoreKeyOf(const TableEntry& table) const { return JoinPath(root_, table.location); }

TableVersionCache::Key TableCache::CacheKeyOf(const TableEntry& table) const {
  // By URI, not store key: a shared cache holds the tables of many roots.
  return std::make_pair(JoinPath(root_uri_, table.location), table.pin.LanceVersion());
}

void TableCache::RememberOpened(const TableEntry& table, const table::Dataset& committed) {
  versions_->CacheDataset(CacheKeyOf(table), committed);
}

Result<table::Dataset> TableCache::OpenDataset(const TableEntry& table) {
  TableVersionCache::Key key = CacheKeyOf(table);
  if (std::optional<table::Dataset> cached = versions_->FindDataset(key)) return *std::move(cached);
  auto opened = table::Dataset::Open(store_, StoreKeyOf(table), table::VersionRef::Version(key.second));
  if (!opened.ok()) {
    if (opened.status().code() == ErrorCode::kNotFound && table.pin.staged_version) {
      return PinnedVersionGone(table, opened.status());
    }
    return opened.status();
  }
  // The opened manifest must be the pinned transaction, not a look-alike.
  if (!table.pin.transaction_uuid.empty()) {
    auto uuid = opened->ReadTransactionUuid();
    if (!uuid.ok() || *uuid != table.pin.transaction_uuid) {
      return CorruptData(fmt::format("{}: version {} is not the pinned transaction {}", opened->manifest_path(),
                                     key.second, table.pin.transaction_uuid));
    }
  }
  versions_->CacheDataset(key, *opened);
  return *opened;
}

Result<TableDataPtr> TableCache::CachedRows(const TableEntry& table) {
  TableVersionCache::Key key = CacheKeyOf(table);
  if (TableDataPtr cached = versions_->FindData(key)) return cached;
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, ReadAllRows(table));
  if (!rows->GetColumn("id")) return CorruptData(fmt::format("table '{}' has no id column", table.table_key));
  return versions_->CacheData(key, std::make_shared<const TableData>(std::move(rows)));
}

Result<RecordBatchPtr> TableCache::ReadAllRows(const TableEntry& table) {
  OG_ASSIGN_OR_RETURN(table::Dataset dataset, OpenDataset(table));
  auto read = dataset.ToBatch({});
  if (!read.ok() && read.status().code() == ErrorCode::kNotFound) return PinnedVersionGone(table, read.status());
  return read;
}

void TableCache::RememberAppend(const TableEntry& before, const TableEntry& after,
                                const std::vector<RecordBatchPtr>& appended) {
  TableDataPtr base = versions_->FindData(CacheKeyOf(before));
  if (!base) return;
  if (TableDataPtr derived = TableData::Append(base, appended)) versions_->CacheData(CacheKeyOf(after), std::move(derived));
}

}  // namespace omnigraph::graph
