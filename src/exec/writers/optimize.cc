#include "exec/writers/optimize.h"

#include "exec/writer_loop.h"
#include "graph/write/door.h"
#include "io/unpublished_objects.h"
#include "table/compaction.h"
#include "table/staging.h"

namespace omnigraph::exec {
namespace {

// The table's linear HEAD (what repair compares with last_linear_version).
Result<uint64_t> LinearHead(graph::GraphStore& graph, const graph::TableEntry& entry) {
  return table::Dataset::LatestVersion(graph.store().get(), JoinPath(graph.root(), entry.location));
}

}  // namespace

Result<OptimizeResult> RunOptimize(graph::GraphStore& graph, const OptimizeOptions& options) {
  OptimizeResult result;
  Status written = RunWriter(graph, graph::kMainBranch, options.actor_id,
                             [&](const graph::WriteTxn& txn, RetryPolicy*) -> Status {
    // The default policy: a lost race is reported, never re-prepared (the
    // plan depends on the pins it read).
    result = OptimizeResult{};
    std::vector<graph::Effect> effects;
    std::vector<std::string> staged_files;  // deleted again if staging fails
    table::CompactionOptions compaction;
    compaction.target_rows_per_fragment = options.target_rows_per_fragment;
    auto stage_all = [&]() -> Status {
      for (const auto& [key, entry] : txn.state().tables) {
        OptimizeTableStats stats;
        stats.type_key = key;
        stats.published_dataset_version = entry.pin.published_version;
        OG_ASSIGN_OR_RETURN(stats.lance_head_version, LinearHead(graph, entry));
        OG_ASSIGN_OR_RETURN(table::Dataset pinned, txn.base().OpenDataset(entry));
        table::CompactionPlan plan = table::PlanCompaction(pinned, compaction);
        if (!plan.empty()) {
          table::StageOptions stage = graph::DetachedStageOptions(txn);
          stage.max_rows_per_file = options.target_rows_per_fragment;
          OG_ASSIGN_OR_RETURN(table::StagedTransaction staged, table::StageRewriteGroups(pinned, plan.groups, stage));
          staged_files.insert(staged_files.end(), staged.written_files.begin(), staged.written_files.end());
          stats.fragments_removed = plan.fragments_removed();
          for (const auto& group : std::get<lance::RewriteOperation>(staged.transaction.operation).groups) {
            stats.fragments_added += group.new_fragments.size();
          }
          effects.push_back(graph::StagedOnPin{key, std::move(staged), {}});
        }
        result.tables.push_back(std::move(stats));
      }
      return Status::OK();
    };
    if (Status staged = stage_all(); !staged.ok()) {
      DeleteUnpublished(graph.store().get(), staged_files);
      return staged;
    }
    if (!effects.empty()) {
      OG_ASSIGN_OR_RETURN(graph::DoorOutcome published, graph::CommitThroughDoor(graph, txn, std::move(effects)));
      result.commit = published.commit;
      for (OptimizeTableStats& stats : result.tables) {
        if (stats.fragments_removed == 0) continue;
        stats.committed = true;
        if (const graph::TableEntry* after = published.published.state().FindTable(stats.type_key)) {
          stats.published_dataset_version = after->pin.published_version;
        }
      }
    }
    return Status::OK();
  });
  OG_RETURN_IF_ERROR(written);
  return result;
}

}  // namespace omnigraph::exec
