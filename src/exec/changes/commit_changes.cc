#include "exec/changes/commit_changes.h"

#include <fmt/format.h>

#include "exec/changes/change_tokens.h"
#include "exec/changes/commit_diff.h"
#include "graph/read_target.h"

namespace omnigraph::exec {
namespace {

// The record of `commit`'s first parent, from the history of the snapshot
// the commit heads (every branch holds the records it reaches: BR-5).
Result<graph::CommitRecord> FirstParentOf(graph::GraphStore& graph, const graph::CommitRecord& commit) {
  auto snapshot = graph::SnapshotOfCommit(graph, commit);
  if (!snapshot.ok()) return AsFeedGap(snapshot.status(), commit);
  auto history = graph.Commits(*snapshot);
  if (!history.ok()) return AsFeedGap(history.status(), commit);
  const graph::CommitRecord* parent = (*history)->Find(*commit.parent_id);
  if (parent == nullptr) {
    return Internal(fmt::format("commit '{}' is reachable from branch '{}' but has no record", *commit.parent_id,
                                snapshot->branch()));
  }
  return *parent;
}

}  // namespace

Result<CommitChangesPage> ListCommitChanges(graph::GraphStore& graph, const graph::CommitRecord& commit,
                                            const CommitChangesRequest& request) {
  if (!commit.parent_id) return ParentlessCommit(commit);
  OG_RETURN_IF_ERROR(CheckPageLimits(request.page, "commit_changes"));
  std::string filter = request.filter.Fingerprint();
  std::optional<ChangeKey> resume_after;
  if (request.page_token) {
    OG_ASSIGN_OR_RETURN(CommitPageToken token, DecodeCommitPageToken(*request.page_token, commit.id, filter));
    resume_after = std::move(token.after);
  }
  OG_ASSIGN_OR_RETURN(graph::CommitRecord parent, FirstParentOf(graph, commit));
  OG_ASSIGN_OR_RETURN(SnapshotDiff diff, DiffCommit(graph, parent, commit, request.filter));

  CommitChangesPage page;
  page.cause = CauseOf(commit);
  PageBudget budget(request.page);
  for (size_t i = resume_after ? diff.PositionAfter(*resume_after) : 0; i < diff.size(); ++i) {
    EntityChange change = diff.Render(i);
    uint64_t bytes = WireBytes(change);
    if (!budget.Fits(bytes)) {
      page.next_page_token = EncodeCommitPageToken(CommitPageToken{commit.id, filter, diff.KeyAt(i - 1)});
      break;
    }
    budget.Take(bytes);
    page.changes.push_back(std::move(change));
  }
  return page;
}

}  // namespace omnigraph::exec
