// One graph root: the store it lives in and the readers and caches every
// operation on it shares (spec/engine.md §1; design/structure.md P1).
//
//   manifests()  resolves branches to native refs and decodes `__manifest`
//                versions (graph/manifest/manifest_reader.h);
//   tables()     opens tables at their pins (graph/table_cache.h);
//   history()    reads and writes archived commit history
//                (graph/history/history_segments.h).
//
// It publishes nothing itself: every graph-content write goes through the
// door (graph/write/door.h) and its one publication (graph/write/publisher.h);
// branch control is graph/branches.h; init is graph/init.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "graph/history/commit_graph.h"
#include "graph/history/history_segments.h"
#include "graph/manifest/graph_state.h"
#include "graph/manifest/manifest_reader.h"
#include "graph/snapshot.h"
#include "graph/table_cache.h"
#include "io/object_store.h"

namespace omnigraph::graph {

class GraphStore {
 public:
  // Whether a graph is initialized at `root`: some __manifest version is
  // published. An init that died before publishing leaves none.
  // Errors: whatever listing __manifest's versions fails with other than
  // NotFound (a damaged graph is neither initialized nor free to init).
  static Result<bool> IsInitialized(ObjectStore* store, const std::string& root);

  // Opens an existing graph and checks its storage stamp.
  // Errors: NotFound (no graph at root, or an init that never finished
  // there; a published graph missing one of its objects reports that
  // object instead), Unsupported (stamp), CorruptData.
  // `versions` caches opened and decoded table versions; it may be shared
  // by every graph of a process (api/engine.h). nullptr: a private cache.
  static Result<std::shared_ptr<GraphStore>> Open(ObjectStorePtr store, std::string root,
                                                  TableVersionCachePtr versions = nullptr);
  // A handle on `root` without reading anything (init uses it).
  static std::shared_ptr<GraphStore> Attach(ObjectStorePtr store, std::string root,
                                            TableVersionCachePtr versions = nullptr);

  const ObjectStorePtr& store() const { return store_; }
  const std::string& root() const { return root_; }
  // store()->Uri(root()), computed once: the graph's identity in caches
  // shared by many graphs.
  const std::string& uri() const { return uri_; }
  // Store key of a path under the graph root.
  std::string Key(std::string_view relative) const { return JoinPath(root_, relative); }

  ManifestReader& manifests() { return manifests_; }
  TableCache& tables() { return tables_; }
  HistoryStore& history() { return history_; }

  // The latest snapshot of `branch`. Errors: NotFound (kind
  // branch_not_found) for a branch that is not live, Conflict for two live
  // incarnations, and those of ManifestReader::LatestVersion / At.
  Result<Snapshot> Latest(std::string_view branch = kMainBranch);
  // The snapshot at `version` of `branch` (BR-7 "by manifest version").
  // Errors: NotFound "graph manifest version <v> not found on branch '<b>'",
  // and those of Latest.
  Result<Snapshot> AtVersion(std::string_view branch, uint64_t version);
  // The snapshot at `version` of the native ref `ref`, live or not (a
  // deleted branch's tree stays until cleanup). Errors: those of
  // ManifestReader::At.
  Result<Snapshot> AtRef(const NativeRef& ref, uint64_t version);

  // The commit graph of `snapshot` (cached per ref and version).
  // Errors: those of CommitGraph::Load.
  Result<CommitGraphPtr> Commits(const Snapshot& snapshot);

  // The writers lock of a branch and the branch's native ref, confirmed
  // live once the lock was taken.
  struct BranchWriters {
    std::unique_ptr<ObjectStore::Lock> lock;  // nullptr: proceeding unordered
    NativeRef ref;
  };
  // Orders writers of `branch` across processes: held from a write's capture
  // to its publication, so cooperating writers never race each other's
  // compare-and-swap (a writer that loses it must re-prepare, and with many
  // writers some lost every attempt), and a branch deletion waits for the
  // writes in flight. The publication's conditional put still decides;
  // stores without locks give no lock, and neither does a wait longer than
  // kWriterQueueMaxWait (the writer then proceeds unordered).
  // The ref is confirmed live under the lock, once per write: the only
  // liveness probe of a write (a deletion that overtakes the write after it
  // is ordered after the write, whose commit then lands on the retired tree
  // the deletion removed from every read).
  // Errors: NotFound (kind branch_not_found) before any file is made,
  // NotFound when the branch was deleted while waiting, Conflict (two live
  // incarnations), IoError.
  Result<BranchWriters> LockBranchWriters(std::string_view branch);

  // Entries in the per-identity table caches, of every graph sharing them
  // (for tests and diagnostics).
  TableCache::Counts cache_counts() { return tables_.counts(); }

 private:
  GraphStore(ObjectStorePtr store, std::string root, TableVersionCachePtr versions);

  ObjectStorePtr store_;
  std::string root_;
  std::string uri_;
  ManifestReader manifests_;
  TableCache tables_;
  HistoryStore history_;
  std::mutex commits_mutex_;
  std::map<std::pair<std::string, uint64_t>, CommitGraphPtr> commit_graphs_;  // by (ref, version)
  static constexpr size_t kCachedCommitGraphs = 8;
};

// How long a writer queues behind another writer of its branch before it
// proceeds without the queue (the __manifest CAS still decides): a stopped
// writer process must not stall every other writer indefinitely.
inline constexpr std::chrono::milliseconds kWriterQueueMaxWait{10'000};

}  // namespace omnigraph::graph
