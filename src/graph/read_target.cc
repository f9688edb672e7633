#include "graph/read_target.h"

#include <fmt/format.h>

#include "graph/history/commit_id.h"
#include "graph/proposals.h"
#include "util/utf8.h"

namespace omnigraph::graph {
namespace {

// The commit `id` (or its nonce) among the head and the manifest's buffer of
// recent ancestors, which answer most lookups (`--snapshot` of a recent
// commit) without loading the archived history; nullptr when not there.
const CommitRecord* RecentCommit(const GraphState& state, std::string_view id) {
  auto matches = [&](const CommitRecord& c) { return c.id == id || NonceOf(c.id) == id; };
  if (matches(state.head)) return &state.head;
  for (const CommitRecord& c : state.settled) {
    if (matches(c)) return &c;
  }
  return nullptr;
}

// The commit `id` in the reachable set of `branch`'s latest snapshot, or nullopt.
Result<std::optional<CommitRecord>> FindOnBranch(GraphStore& graph, std::string_view branch, std::string_view id) {
  OG_ASSIGN_OR_RETURN(Snapshot snapshot, graph.Latest(branch));
  if (const CommitRecord* recent = RecentCommit(snapshot.state(), id)) return std::optional<CommitRecord>(*recent);
  OG_ASSIGN_OR_RETURN(CommitGraphPtr commits, graph.Commits(snapshot));
  const CommitRecord* found = commits->Find(id);
  return found ? std::optional<CommitRecord>(*found) : std::nullopt;
}

}  // namespace

Result<CommitRecord> FindCommit(GraphStore& graph, std::string_view id, std::string_view first_branch) {
  OG_RETURN_IF_ERROR(ValidateCommitId(id));
  // No commit has an empty id (and a genesis id's nonce is empty).
  if (id.empty()) return NotFound("commit '' not found");
  OG_ASSIGN_OR_RETURN(std::optional<CommitRecord> found, FindOnBranch(graph, first_branch, id));
  if (found) return *found;
  OG_ASSIGN_OR_RETURN(std::vector<LiveRef> live, graph.manifests().ListLive());
  std::vector<std::string> branches{std::string(kMainBranch)};
  for (const LiveRef& r : live) branches.push_back(r.ref.branch);
  for (const std::string& branch : branches) {
    if (branch == first_branch) continue;
    auto on_branch = FindOnBranch(graph, branch, id);
    // A branch deleted or re-created meanwhile is simply not searched.
    if (!on_branch.ok() && on_branch.status().details().count("kind") &&
        on_branch.status().details().at("kind") == "branch_not_found") {
      continue;
    }
    OG_ASSIGN_OR_RETURN(found, std::move(on_branch));
    if (found) return *found;
  }
  return NotFound(fmt::format("commit '{}' not found", utf8::ShortenForMessage(id)));
}

Status ManifestVersionReclaimed(const NativeRef& ref, uint64_t version, const Status& cause) {
  return Status(ErrorCode::kVersionReclaimed, fmt::format("historical published dataset version {} was reclaimed", version),
                {{"published_dataset_version", std::to_string(version)},
                 {"table_key", "__manifest"},
                 {"branch", ref.branch},
                 {"dataset_version", std::to_string(version)},
                 {"cause", cause.message()}});
}

Result<Snapshot> SnapshotOfCommit(GraphStore& graph, const CommitRecord& commit) {
  NativeRef ref{commit.graph_branch.value_or(std::string(kMainBranch)), std::string(commit.NativeRef())};
  auto snapshot = graph.AtRef(ref, commit.manifest_version);
  if (!snapshot.ok() || snapshot->head().id != commit.id) {
    // A live proposal's candidate commit heads its own detached rows.
    OG_ASSIGN_OR_RETURN(std::optional<Snapshot> proposed, LiveProposalSnapshot(graph, commit.id));
    if (proposed && proposed->head().id == commit.id) return std::move(*proposed);
  }
  if (!snapshot.ok()) {
    if (snapshot.status().code() != ErrorCode::kNotFound) return snapshot.status();
    // A live branch keeps its later versions: this one was reclaimed by a
    // cleanup. A retired incarnation's rows are simply gone (BR-7 HistoryGap).
    Status live = graph.manifests().CheckLive(ref);
    if (live.ok()) {
      return ManifestVersionReclaimed(ref, commit.manifest_version, snapshot.status())
          .WithDetail("graph_commit_id", commit.id);
    }
    if (live.code() != ErrorCode::kNotFound) return live;
    return Status(ErrorCode::kHistoryGap, fmt::format("history gap at commits '{}'", commit.id),
                  {{"graph_commit_ids", commit.id}, {"cause", snapshot.status().message()}});
  }
  if (snapshot->head().id != commit.id) {
    return InvalidArgument(fmt::format("commit '{}' has no persisted native-branch incarnation witness at the reopened "
                                       "snapshot; the branch was deleted and recreated since this handle resolved it",
                                       commit.id));
  }
  return snapshot;
}

}  // namespace omnigraph::graph
