// Showing, publishing, dropping and listing proposals: unpublished commits
// (spec/branches.md BR-11) and unattached snapshots (BR-12). Proposals are
// written by the mutation and merge writers (graph/write/publisher.h
// Propose) and stored as graph/proposals.h describes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph_store.h"

namespace omnigraph::exec {

// A commit as the front ends show it (CommitOutput with the Ext fields).
struct CommitView {
  graph::CommitRecord commit;
  bool published = true;
  std::optional<std::string> unattached_root;  // set for an unattached snapshot
};

// BR-6.2, BR-11.2, BR-12.3: the published commit `id` (looked up as
// graph::FindCommit does, from `first_branch`), else the live proposal
// `id`. Errors: those of FindCommit (NotFound "commit '<id>' not found"
// also for an expired or dropped proposal; InvalidArgument for an `hb1.`
// id that does not parse); storage errors.
Result<CommitView> ShowCommitOrProposal(graph::GraphStore& graph, std::string_view id,
                                        std::string_view first_branch = graph::kMainBranch);

// BR-11.3: publishes the unpublished commit `id` on its recorded target
// with the same id, pins, schema, parents, actor and creation time, then
// removes its tag. Idempotent: an `id` already published answers that
// commit (published true). Errors: InvalidArgument (unparsable `hb1.`
// id); NotFound "commit '<id>' not found" (no proposal, or its target
// incarnation retired); Conflict "commit '<id>' is an unattached snapshot
// and cannot be published" (details commit_refusal=unattached_cannot_publish,
// graph_commit_id); PreconditionFailed (details branch, expected = the
// captured parent, actual = the current head) when the target's head moved;
// Internal when the recomputed id differs; storage errors.
Result<CommitView> PublishCommit(graph::GraphStore& graph, const std::string& id);

// BR-11.4, BR-12.4: drops the proposal `id`; for an unattached snapshot,
// with its whole subtree, children before parents. Returns the dropped ids
// in removal order. Errors: InvalidArgument (unparsable `hb1.` id);
// Conflict "commit '<id>' is published and cannot be dropped"; NotFound
// "commit '<id>' not found" (unknown, already dropped, an expired
// unattached snapshot); storage errors.
Result<std::vector<std::string>> DropCommit(graph::GraphStore& graph, const std::string& id);

// BR-11.5: the live proposals and unattached snapshots of `branch`'s
// current incarnation, newest first (created_at descending, then id
// descending). Errors: InvalidArgument (empty or reserved name); NotFound
// (kind branch_not_found); storage errors.
Result<std::vector<CommitView>> ListUnpublished(graph::GraphStore& graph, const std::string& branch);

}  // namespace omnigraph::exec
