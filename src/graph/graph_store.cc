#include "graph/graph_store.h"

#include <fmt/format.h>

#include "graph/layout.h"
#include "graph/read_target.h"
#include "table/dataset.h"
#include "util/utf8.h"

namespace omnigraph::graph {

GraphStore::GraphStore(ObjectStorePtr store, std::string root, TableVersionCachePtr versions)
    : store_(store),
      root_(root),
      uri_(store->Uri(root)),
      manifests_(store, JoinPath(root, layout::kManifestDir)),
      tables_(store, root, std::move(versions)),
      history_(store, root) {}

std::shared_ptr<GraphStore> GraphStore::Attach(ObjectStorePtr store, std::string root, TableVersionCachePtr versions) {
  return std::shared_ptr<GraphStore>(new GraphStore(std::move(store), std::move(root), std::move(versions)));
}

Result<bool> GraphStore::IsInitialized(ObjectStore* store, const std::string& root) {
  auto latest = table::Dataset::LatestVersion(store, JoinPath(root, layout::kManifestDir));
  if (latest.ok()) return true;
  if (latest.status().code() == ErrorCode::kNotFound) return false;
  return latest.status();
}

Result<std::shared_ptr<GraphStore>> GraphStore::Open(ObjectStorePtr store, std::string root,
                                                     TableVersionCachePtr versions) {
  std::shared_ptr<GraphStore> graph = Attach(store, root, std::move(versions));
  // Reading main's head checks the storage stamp and warms the caches.
  auto head = graph->Latest(kMainBranch);
  if (!head.ok()) {
    // A published graph missing an object names that object; only a root
    // without any __manifest version holds no graph.
    if (head.status().code() != ErrorCode::kNotFound) return head.status();
    Result<bool> initialized = IsInitialized(store.get(), root);
    if (!initialized.ok() || *initialized) return head.status();
    if (store->Head(graph->Key(layout::kInitClaim)).ok()) {
      return NotFound(fmt::format("no graph at '{}': an init there has not finished ({} remains); unless one is "
                                  "running, run `omnigraph init` on it again",
                                  store->Uri(root), layout::kInitClaim));
    }
    return NotFound(fmt::format("no graph at '{}'", store->Uri(root)));
  }
  return graph;
}

Result<Snapshot> GraphStore::Latest(std::string_view branch) {
  OG_ASSIGN_OR_RETURN(NativeRef ref, manifests_.Resolve(branch));
  OG_ASSIGN_OR_RETURN(uint64_t version, manifests_.LatestVersion(ref));
  return AtRef(ref, version);
}

Result<Snapshot> GraphStore::AtVersion(std::string_view branch, uint64_t version) {
  OG_ASSIGN_OR_RETURN(NativeRef ref, manifests_.Resolve(branch));
  auto snapshot = AtRef(ref, version);
  if (!snapshot.ok() && snapshot.status().code() == ErrorCode::kNotFound) {
    // Between the ref's first version (1 on main, the creation version on
    // a branch) and its latest, a missing version was reclaimed by a cleanup.
    uint64_t first = 1;
    if (!ref.is_main()) {
      OG_ASSIGN_OR_RETURN(std::vector<LiveRef> live, manifests_.ListLive());
      first = ~uint64_t{0};
      for (const LiveRef& r : live) {
        if (r.ref.name == ref.name) first = r.parent_version;
      }
    }
    auto latest = manifests_.LatestVersion(ref);
    if (latest.ok() && version >= first && version < *latest) {
      return ManifestVersionReclaimed(ref, version, snapshot.status());
    }
    return NotFound(fmt::format("graph manifest version {} not found on branch '{}'", version,
                                utf8::ShortenForMessage(branch)));
  }
  return snapshot;
}

Result<Snapshot> GraphStore::AtRef(const NativeRef& ref, uint64_t version) {
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr decoded, manifests_.At(ref, version));
  return Snapshot(this, decoded->state);
}

Result<CommitGraphPtr> GraphStore::Commits(const Snapshot& snapshot) {
  // Keyed by head too: a proposal's rows report the version they would occupy.
  auto key = std::make_pair(snapshot.state().branch_identity + "#" + snapshot.head().id, snapshot.manifest_version());
  {
    std::lock_guard<std::mutex> lock(commits_mutex_);
    if (auto it = commit_graphs_.find(key); it != commit_graphs_.end()) return it->second;
  }
  OG_ASSIGN_OR_RETURN(CommitGraphPtr graph, CommitGraph::Load(history_, snapshot.state()));
  std::lock_guard<std::mutex> lock(commits_mutex_);
  if (commit_graphs_.size() >= kCachedCommitGraphs) commit_graphs_.erase(commit_graphs_.begin());
  commit_graphs_[key] = graph;
  return graph;
}

Result<GraphStore::BranchWriters> GraphStore::LockBranchWriters(std::string_view branch) {
  // Refused before its lock file is made: a name that is no branch would
  // leave a file behind (or be too long to name one). A name this reader
  // already resolved costs no store call here; it is confirmed below.
  OG_RETURN_IF_ERROR(manifests_.ResolveRemembered(branch).status());
  BranchWriters writers;
  OG_ASSIGN_OR_RETURN(writers.lock, store_->LockExclusive(Key(layout::BranchWritersLock(branch)), kWriterQueueMaxWait));
  OG_ASSIGN_OR_RETURN(writers.ref, manifests_.Resolve(branch));
  return writers;
}

}  // namespace omnigraph::graph
