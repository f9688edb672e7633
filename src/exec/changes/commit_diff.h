// The entity changes one commit made: its snapshot against its first
// parent's (spec/branches.md BR-10.1; spec/engine.md §6.3). A merge commit
// diffs against its target-side parent. Shared by `commit changes` and
// the change feed, which differ only in how they page and resume.
#pragma once

#include "exec/changes/snapshot_diff.h"
#include "graph/graph_store.h"

namespace omnigraph::exec {

// The diff of `commit` against `parent`, its first parent, in the frozen
// commit order, keeping what `filter` admits.
// REQUIRES: commit.parent_id == parent.id.
// Errors:
//   ChangeDiffRefused (409; details reason=schema_boundary,
//     kind=change_schema_boundary, graph_commit_id, type_name) when the
//     schema contract changed in the commit and an admitted type's physical
//     schema changed with it, or an admitted type holding rows appeared or
//     disappeared: such a commit is schema evolution, which is never
//     presented as entity changes;
//   ChangeFeedGap (410; details first_unreadable_commit_id = commit.id,
//     and published_dataset_version when a table version was reclaimed)
//     when either snapshot can no longer be rebuilt (HistoryGap) or read
//     (VersionReclaimed);
//   InvalidArgument when a snapshot's incarnation witness does not match
//     (graph::SnapshotOfCommit); storage errors.
Result<SnapshotDiff> DiffCommit(graph::GraphStore& graph, const graph::CommitRecord& parent,
                                const graph::CommitRecord& commit, const ChangeFilter& filter);

// `status` as ChangeFeedGap at `commit` (details as DiffCommit's) when it
// says a snapshot or table version can no longer be read (HistoryGap,
// VersionReclaimed); any other status unchanged. BR-7: change routes
// report a reclaimed version as 410 change_feed_gap.
Status AsFeedGap(const Status& status, const graph::CommitRecord& commit);

// The refusal for a parentless commit: ChangeDiffRefused (409; details
// reason=parentless_commit, kind=commit_has_no_parent, graph_commit_id).
Status ParentlessCommit(const graph::CommitRecord& commit);

// Whether DiffCommit's `status` is about the commit itself (a gap or a
// refused diff), which a feed reports only once it reaches that commit.
inline bool EndsFeedAt(const Status& status) {
  return status.code() == ErrorCode::kChangeFeedGap || status.code() == ErrorCode::kChangeDiffRefused;
}

}  // namespace omnigraph::exec
