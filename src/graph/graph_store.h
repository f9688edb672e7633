// One graph root: init, reading the `__manifest` state of a branch, opening
// tables at their pins, and the one publication door (spec/engine.md §1.6,
// §1.8, §2; design/write-path.md).
//
// A graph commit becomes visible exactly when one new `__manifest` version
// exists. Publish() is the only writer of `__manifest` content: it checks
// every captured precondition against version M (the captured one) and
// commits the complete new row set as exactly version M+1 with a
// put-if-absent, never retried. Losing that race is ReadSetChanged.
//
// Decoded `__manifest` versions are immutable, so they are cached by
// version: finding the latest state costs one listing of `_versions/`, and a
// handle that published version M+1 itself never reads it back.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph_state.h"
#include "graph/table_data.h"
#include "io/object_store.h"
#include "table/dataset.h"

namespace omnigraph::table {
struct CommitOptions;
struct StagedTransaction;
}  // namespace omnigraph::table

namespace omnigraph::graph {

// One table effect to publish: the table's new pin and the pin it was
// staged against.
struct TableUpdate {
  std::string table_key;
  TableIdentity identity;
  uint64_t expected_published_version = 0;  // the captured pin's published_version
  TablePin new_pin;                         // published_version is set by Publish (expected + 1)
};

// Whether a failed write's publication may still have landed (its error
// says outcome=indeterminate, or the object store could not confirm a
// visible name). Only when it cannot may the write delete its unpublished
// staging.
bool PublicationMayHaveLanded(const Status& failure);

// Everything one publication needs, captured before any effect.
struct Publication {
  std::string branch = std::string(kMainBranch);
  std::string expected_branch_identity = std::string(kMainBranch);
  std::string expected_head;                 // exact head commit id captured
  uint64_t expected_manifest_version = 0;    // M
  std::vector<TableUpdate> updates;
  std::optional<SchemaContract> schema;      // replacement contract, if any
  std::string intent_nonce;                  // ULID minted with the write intent
  std::optional<std::string> actor_id;
  int64_t created_at_us = 0;
  // Store keys (detached table versions, their data and deletion files)
  // that must be durable before the publication is; synced in the same
  // batch as the new __manifest version, before it becomes visible.
  std::vector<std::string> sync_with;
};

class GraphStore {
 public:
  struct TableSpec {
    std::string table_key;  // "node:Person"
    uint64_t stable_id = 0;
    Schema schema;          // physical columns (field ids assigned by Create)
  };

  // Whether a graph is initialized at `root`: some __manifest version is
  // published. An init that died before publishing leaves none.
  // Errors: whatever listing __manifest's versions fails with other than
  // NotFound (a damaged graph is neither initialized nor free to init).
  static Result<bool> IsInitialized(ObjectStore* store, const std::string& root);

  // Creates a graph at `root`: claims the root with __init_claim.json, creates
  // every table at version 1, then `__manifest` in one Create holding all
  // table rows, the schema contract and the genesis commit (ULID). A claim
  // whose owner died (an init killed or crashed before publishing) is taken
  // over; a failed init releases its claim.
  // Errors: AlreadyExists ("already initialized" when a __manifest version
  // exists, "initialization claimed" when a live init holds the claim),
  // IoError.
  static Result<std::shared_ptr<GraphStore>> Init(ObjectStorePtr store, std::string root, SchemaContract contract,
                                                  const std::vector<TableSpec>& tables);

  // Opens an existing graph and checks its storage stamp.
  // Errors: NotFound (no graph at root, or an init that never finished
  // there; a published graph missing one of its objects reports that
  // object instead), Unsupported (stamp), CorruptData.
  static Result<std::shared_ptr<GraphStore>> Open(ObjectStorePtr store, std::string root);

  const ObjectStorePtr& store() const { return store_; }
  const std::string& root() const { return root_; }

  // OK when `branch` exists; NotFound with detail kind=branch_not_found
  // otherwise (only `main` until branches land).
  Status CheckBranch(std::string_view branch) const;

  // The latest state of `branch` (LatestManifestVersion, then the cached
  // decode of that version), or the state at `manifest_version`.
  Result<GraphState> ReadState(std::string_view branch = kMainBranch,
                               std::optional<uint64_t> manifest_version = std::nullopt);

  // The latest __manifest version of main. Versions are created strictly in
  // sequence (put-if-absent of n+1), so from the newest version this handle
  // knows, probing for the next one with Head answers in one store call;
  // a handle that knows none, or is more than kMaxVersionProbes behind,
  // lists _versions/ instead.
  // `confirm_known`: first check, with one more Head, that the newest
  // version this handle knows is still the object it read. When it is not
  // (the graph was deleted and created again at this path by someone else),
  // every decoded __manifest version is dropped and the versions are
  // listed afresh, so the handle never reads or extends the old graph's
  // history. A write's recheck, a moment after its capture confirmed it,
  // skips this. Errors: NotFound (no graph), IoError.
  Result<uint64_t> LatestManifestVersion(bool confirm_known = true);

  // Opens `table` at its pin. Datasets are cached by exact physical identity
  // (location, Lance version), so repeated reads reuse opened manifests.
  // Errors: VersionReclaimed when the pinned manifest is gone, CorruptData
  // when the opened transaction is not the pinned one.
  Result<table::Dataset> OpenTable(const TableEntry& table);

  // Every live row of `table` at its pin, read now and not cached (a
  // one-pass reader such as export). Errors: those of OpenTable;
  // VersionReclaimed when a file the pinned version names is gone.
  Result<RecordBatchPtr> ReadTable(const TableEntry& table);

  // ReadTable, cached by exact identity (bounded by kTableDataCacheBytes
  // and kCachedVersionsPerTable, least recently used first out).
  Result<TableDataPtr> LoadTable(const TableEntry& table);

  // Records that `after` is `before` plus `appended` rows, so the data of
  // `after` is derived from cached data of `before` instead of being read.
  // Does nothing when `before` is not cached.
  void RememberAppend(const TableEntry& before, const TableEntry& after, const std::vector<RecordBatchPtr>& appended);
  // Records `committed` as the opened dataset of `table`'s pin (the writer
  // that committed it already holds it), so OpenTable need not read it.
  void RememberOpened(const TableEntry& table, const table::Dataset& committed);

  // The one publication door. Errors: ReadSetChanged (details: member,
  // expected, actual) when any captured precondition no longer holds or
  // another writer published version M+1 first; IoError. An error after
  // the put-if-absent may have landed is resolved by reading version M+1
  // back: holding this commit it is a success; an unreadable version keeps
  // the error with detail outcome=indeterminate. A failure that cannot have
  // published deletes the `__manifest` data file it staged; the caller's
  // detached table versions (`sync_with`) are the caller's to delete.
  Result<GraphState> Publish(const Publication& publication);

  // Commits reachable from `branch`'s head, newest first.
  Result<std::vector<CommitRecord>> ListCommits(std::string_view branch = kMainBranch);

  // Orders writers of `branch` across processes: held from a write's capture
  // to its publication, so cooperating writers never race each other's
  // compare-and-swap (a writer that loses it must re-prepare, and with many
  // writers some lost every attempt). The publication's conditional put
  // still decides; stores without locks return nullptr, and so does a wait
  // longer than kWriterQueueMaxWait (the writer then proceeds unordered).
  // The lock file lives at `_locks/branch-<hex of the name>.lock`.
  // Errors: NotFound (kind branch_not_found) before any file is made, IoError.
  Result<std::unique_ptr<ObjectStore::Lock>> LockBranchWriters(std::string_view branch);
  // The commit with `id` on `branch`'s history. NotFound when absent.
  Result<CommitRecord> FindCommit(std::string_view id, std::string_view branch = kMainBranch);

  // Entries in the per-identity caches (for tests and diagnostics).
  struct CacheCounts {
    size_t datasets = 0;           // opened table versions
    size_t table_data = 0;         // decoded table versions
    int64_t table_data_bytes = 0;  // as accounted by TableData::MemoryBytes
  };
  CacheCounts cache_counts();

  // Store key of a path under the graph root.
  std::string Key(std::string_view relative) const { return JoinPath(root_, relative); }

 private:
  // Init after the claim: every table at version 1, then __manifest v1.
  // `table_roots` receives each table's root as its creation starts.
  static Result<std::shared_ptr<GraphStore>> CreateClaimed(std::shared_ptr<GraphStore> graph, SchemaContract contract,
                                                           const std::vector<TableSpec>& tables,
                                                           std::vector<std::string>* table_roots);
  GraphStore(ObjectStorePtr store, std::string root) : store_(std::move(store)), root_(std::move(root)) {}
  // Publish's conditional commit of `staged` as __manifest M+1 holding `next`,
  // and the resolution of its outcome.
  Result<GraphState> CommitPublication(const Publication& publication, const table::StagedTransaction& staged,
                                       const table::CommitOptions& options, const GraphState& next);

  // One decoded __manifest version and the dataset handle a publication
  // stages on.
  struct ManifestVersion {
    table::Dataset dataset;
    GraphState state;
  };
  using ManifestVersionPtr = std::shared_ptr<const ManifestVersion>;
  // The decoded __manifest at exactly `version` of `branch` (cached).
  Result<ManifestVersionPtr> ManifestAt(std::string_view branch, uint64_t version);
  void RememberManifest(uint64_t version, ManifestVersionPtr decoded);
  // Adds `data` to the bounded table-data cache; returns the cached entry
  // (an earlier one when another thread cached the same key first).
  TableDataPtr CacheTableData(const std::pair<std::string, uint64_t>& key, TableDataPtr data);

  ObjectStorePtr store_;
  std::string root_;
  std::mutex cache_mutex_;
  // Both per-identity caches are keyed by (table location, Lance version)
  // and remember when each entry was last used (cache_clock_).
  struct CachedDataset {
    table::Dataset dataset;
    uint64_t last_use = 0;
  };
  std::map<std::pair<std::string, uint64_t>, CachedDataset> table_cache_;
  struct CachedData {
    TableDataPtr data;
    uint64_t last_use = 0;
  };
  // Adds an opened dataset to table_cache_ (cache_mutex_ held).
  void CacheDataset(const std::pair<std::string, uint64_t>& key, const table::Dataset& dataset);
  // Calls `visit` with the commits of `branch`, newest first, until it
  // returns false. Errors: those of ReadState.
  Status VisitCommits(std::string_view branch, const std::function<bool(const CommitRecord&)>& visit);

  std::map<std::pair<std::string, uint64_t>, CachedData> data_cache_;
  std::map<uint64_t, ManifestVersionPtr> manifest_cache_;  // main branch, by version
  // The identity (ObjectMeta::identity) of the newest manifest_cache_
  // version's file when LatestManifestVersion last confirmed it.
  std::pair<uint64_t, std::string> confirmed_newest_;
  uint64_t cache_clock_ = 0;
  int64_t data_cache_bytes_ = 0;
};

// "hb1.<block>.<slot>.<nonce>" (spec/engine.md §2.2).
std::string MakeCommitId(std::string_view block, uint32_t slot, std::string_view nonce);
// Checks a commit id a caller supplied (spec/engine.md §2.2): anything
// starting with "hb1." must be exactly "hb1.<ULID>.<slot>.<ULID>" with a
// decimal slot below kHistoryBlockSlots and no leading zeros; other text is
// a foreign id (a genesis ULID or an intent nonce) and passes.
// Errors: InvalidArgument naming the id and what is wrong with it.
Status ValidateCommitId(std::string_view id);
inline constexpr uint32_t kHistoryBlockSlots = 16384;
inline constexpr int64_t kTableDataCacheBytes = int64_t{512} << 20;
// Versions of one table each per-identity cache keeps (the least recently
// used go first). Pins never change, so nothing cached is ever stale, but a
// table's older versions are read again only by readers still holding an
// older snapshot, while every commit adds one: without this bound, 5,000
// one-row inserts kept 460 MB of versions nobody read.
inline constexpr size_t kCachedVersionsPerTable = 8;
inline constexpr size_t kCachedDatasets = 512;
inline constexpr size_t kManifestCacheVersions = 64;
inline constexpr int kMaxVersionProbes = 4;
// How long a writer queues behind another writer of its branch before it
// proceeds without the queue (the __manifest CAS still decides): a stopped
// writer process must not stall every other writer indefinitely.
inline constexpr std::chrono::milliseconds kWriterQueueMaxWait{10'000};

}  // namespace omnigraph::graph
