// `commit changes ID` (spec/branches.md BR-10.1; spec/engine.md §6.3): the
// exact entity changes of one commit against its first parent, one page at
// a time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exec/changes/change.h"
#include "exec/changes/paging.h"
#include "graph/graph_store.h"

namespace omnigraph::exec {

struct CommitChangesRequest {
  ChangeFilter filter;
  PageLimits page;
  // Continues the listing a previous page of this commit and filter ended.
  std::optional<std::string> page_token;
};

struct CommitChangesPage {
  ChangeCause cause;
  std::vector<EntityChange> changes;  // the frozen order (BR-10.1)
  // Set when changes remain; valid only for this commit and filter.
  std::optional<std::string> next_page_token;
};

// One page of `commit`'s changes.
// Errors, in this order: ChangeDiffRefused (reason parentless_commit) for
// genesis; InvalidArgument / ResourceLimitExceeded (resource
// commit_changes_page_rows or commit_changes_page_bytes) for page limits
// (CheckPageLimits); ChangeCursorRejected for a page token that is damaged,
// of another kind, or issued for another commit or filter; NotFound /
// Internal when the parent's record cannot be found from the commit's
// history; and those of DiffCommit (ChangeDiffRefused schema_boundary,
// ChangeFeedGap, storage errors).
Result<CommitChangesPage> ListCommitChanges(graph::GraphStore& graph, const graph::CommitRecord& commit,
                                            const CommitChangesRequest& request);

}  // namespace omnigraph::exec
