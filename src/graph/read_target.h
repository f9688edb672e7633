// Resolving what a read names (spec/branches.md BR-6.2, BR-7): a commit id
// to its record, and a commit to the snapshot it heads.
#pragma once

#include <string_view>

#include "graph/graph_store.h"

namespace omnigraph::graph {

// The commit `id` (an exact id, or an intent nonce an hb1 id wraps), looked
// up in `first_branch`'s reachable set, then in every live branch's.
// Errors: InvalidArgument "invalid canonical history-block commit id …" for
// an `hb1.` string that does not parse; NotFound "commit '<id>' not found";
// NotFound (branch_not_found) when `first_branch` is not live; history and
// storage errors.
Result<CommitRecord> FindCommit(GraphStore& graph, std::string_view id, std::string_view first_branch = kMainBranch);

// The error for version `version` of the live ref `ref` of `__manifest`
// gone while the ref's later versions remain: a cleanup reclaimed it
// (versions are created strictly in sequence, so it existed). Code
// VersionReclaimed with BR-7's message "historical published dataset
// version <version> was reclaimed"; details published_dataset_version,
// table_key "__manifest", branch, dataset_version and cause.
Status ManifestVersionReclaimed(const NativeRef& ref, uint64_t version, const Status& cause);

// The snapshot `commit` heads: version `commit.manifest_version` of the
// incarnation that published it, live or deleted. Errors: HistoryGap (410,
// detail graph_commit_ids) when that version of a retired incarnation can
// no longer be read; VersionReclaimed (ManifestVersionReclaimed, detail
// graph_commit_id) when a cleanup reclaimed it from a live branch;
// InvalidArgument "commit '<id>' has no persisted native-branch incarnation
// witness at the reopened snapshot; …" when the version holds another head.
// The candidate commit of a live proposal (graph/proposals.h) heads the
// proposal's snapshot (BR-11.2, BR-12.3).
Result<Snapshot> SnapshotOfCommit(GraphStore& graph, const CommitRecord& commit);

}  // namespace omnigraph::graph
