#include "exec/changes/baseline.h"

#include "exec/changes/change_tokens.h"
#include "exec/export.h"

namespace omnigraph::exec {

Result<ChangeBaseline> CaptureBaseline(graph::GraphStore& graph, std::string_view branch, const ChangeFilter& filter,
                                       OrderedScanBudget* budget) {
  // One snapshot serves the export and the cursor: a commit published
  // meanwhile is in neither, so the resumed feed delivers it.
  OG_ASSIGN_OR_RETURN(graph::Snapshot head, graph.Latest(branch));
  OG_ASSIGN_OR_RETURN(graph::CommitGraphPtr history, graph.Commits(head));
  std::vector<const graph::CommitRecord*> chain = history->FirstParentChain();

  ChangeBaseline baseline;
  baseline.snapshot_commit_id = head.head().id;
  FeedScope scope{chain.back()->id, head.state().branch_identity, filter.Fingerprint()};
  baseline.resume_cursor = EncodeFeedCursor(FeedCursor{scope, head.head().id});

  auto admitted = [&filter](const graph::TableEntry& table) {
    return filter.AdmitsTable(table.is_node() ? EntityKind::kNode : EntityKind::kEdge, table.type_name());
  };
  OG_ASSIGN_OR_RETURN(baseline.snapshot, ExportTables(head, admitted, budget));
  return baseline;
}

}  // namespace omnigraph::exec
