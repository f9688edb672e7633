// `changes baseline` (spec/branches.md BR-10.3): how a consumer starts, or
// starts over after a ChangeFeedGap. One snapshot of the branch is
// captured; its export is the exact entity state at that head, and the
// cursor resumes the feed right after the head, so baseline + feed cover
// every commit exactly once.
#pragma once

#include <string>
#include <string_view>

#include "exec/changes/change.h"
#include "exec/ordered_scan_budget.h"
#include "graph/graph_store.h"

namespace omnigraph::exec {

struct ChangeBaseline {
  // NDJSON, byte-identical to exec::ExportGraph of the captured snapshot
  // restricted to the types the filter's kinds and types admit (its ops
  // only scope the cursor).
  std::string snapshot;
  std::string snapshot_commit_id;  // the captured head
  std::string resume_cursor;       // a feed cursor bound to `filter`
};

// `budget`: the ordered-scan envelope the export's sorts draw from
// (exec/export.h), nullptr for none. Errors: NotFound (kind
// branch_not_found), the storage errors of reading the head
// (VersionReclaimed when a pinned version is gone), the ordered scan's
// (ResourceLimitExceeded ordered_scan_scratch_bytes).
Result<ChangeBaseline> CaptureBaseline(graph::GraphStore& graph, std::string_view branch, const ChangeFilter& filter,
                                       OrderedScanBudget* budget = nullptr);

}  // namespace omnigraph::exec
