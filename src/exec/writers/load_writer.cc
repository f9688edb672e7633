#include "exec/writers/load_writer.h"

#include "exec/writer_loop.h"
#include "exec/writers/table_adapter.h"
#include "graph/write/door.h"

namespace omnigraph::exec {

Result<LoadOutcome> RunLoad(graph::GraphStore& graph, CatalogCache& catalogs, const LoadRequest& r) {
  LoadOutcome outcome;
  Status written = RunWriter(graph, r.branch, r.actor_id, [&](const graph::WriteTxn& txn, RetryPolicy* policy) {
    OG_ASSIGN_OR_RETURN(auto catalog, catalogs.CatalogFor(txn.state()));
    // PlanLoad validates the whole delta itself, so errors name input lines.
    OG_ASSIGN_OR_RETURN(LoadPlan plan, PlanLoad(txn.base(), *catalog, r.data, r.file_name, r.mode, r.progress,
                                                 r.blob_policy ? *r.blob_policy : DenyExternalBlobs(), r.syntax));
    policy->re_prepare_on_read_set_changed = r.mode != LoadMode::kOverwrite;
    OG_ASSIGN_OR_RETURN(std::vector<graph::Effect> effects, StageChanges(txn, ToTableChanges(plan.delta)));
    OG_ASSIGN_OR_RETURN(graph::DoorOutcome published, graph::CommitThroughDoor(graph, txn, std::move(effects)));
    outcome.node_records = std::move(plan.node_records);
    outcome.edge_records = std::move(plan.edge_records);
    outcome.total_records = plan.total_records;
    outcome.commit = published.commit;
    return Status::OK();
  });
  OG_RETURN_IF_ERROR(written);
  return outcome;
}

Status CheckLoad(graph::GraphStore& graph, CatalogCache& catalogs, const LoadRequest& r, std::string_view branch) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot head, graph.Latest(branch));
  OG_ASSIGN_OR_RETURN(auto catalog, catalogs.CatalogFor(head.state()));
  OG_ASSIGN_OR_RETURN(LoadPlan plan, PlanLoad(head, *catalog, r.data, r.file_name, r.mode, {},
                                              r.blob_policy ? *r.blob_policy : DenyExternalBlobs(), r.syntax));
  // The per-commit ceilings staging applies (413), checked here too.
  return CheckKeyedWriteBudgets(ToTableChanges(plan.delta));
}

}  // namespace omnigraph::exec
