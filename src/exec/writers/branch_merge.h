// The branch merge writer (spec/branches.md BR-9; spec/engine.md §4;
// design/write-path.md writer table "BranchMerge").
//
// A merge captures the source once and the target through its WriteTxn,
// finds the merge base over both commit graphs, and decides the outcome:
// already up to date (nothing published), fast forward or merged (one
// target commit with parents (target head, source head)). Per table it
// keeps the target, adopts the source's pin (a pointer switch: no row is
// written), or merges rows three ways by entity id; the merged result is
// validated with the evaluator loads and mutations use, and every conflict
// is reported at once. All or nothing: a failure leaves target and source
// exactly as they were.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/catalog_cache.h"
#include "graph/graph_store.h"

namespace omnigraph::exec {

enum class MergeOutcome { kAlreadyUpToDate, kFastForward, kMerged };
// "already_up_to_date" | "fast_forward" | "merged"
std::string_view MergeOutcomeName(MergeOutcome outcome);

struct MergeRequest {
  std::string source;
  std::string target = "main";
  std::optional<std::string> actor_id;
  // BR-11.1: write the merge commit as an unpublished commit (both
  // parents, the merged rows, the lineage import) instead of publishing it.
  bool as_commit = false;
};

struct MergeResult {
  std::string source;
  std::string target;
  MergeOutcome outcome = MergeOutcome::kAlreadyUpToDate;
  std::optional<graph::CommitRecord> commit;  // null for already_up_to_date
  bool published = true;  // false for a merge as commit that wrote a proposal
};

// One conflict of a refused merge (BR-9.6, BR-9.7).
struct MergeConflict {
  std::string entity_kind;  // "node" | "edge"
  std::string type_name;
  std::optional<std::string> entity_id;
  // divergent_insert | divergent_update | delete_vs_update | orphan_edge |
  // unique_violation | cardinality_violation | value_constraint_violation
  std::string kind;
  std::string message;
};

// Merges `request.source` into `request.target` (BR-9).
// Errors, in the order BR-9.1 checks them: InvalidArgument "branch_merge
// does not allow internal system refs ('<s>' -> '<t>')", "branch_merge
// requires distinct source and target branches"; NotFound "branch '<b>' not
// found". Then: InvalidArgument "captured branch commits are unavailable or
// have no common ancestor"; HistoryGap (the base snapshot cannot be read);
// MergeConflicts (409, message "merge conflicts: …", detail merge_conflicts:
// the JSON array of MergeConflict objects, see MergeConflictsJson);
// ResourceLimitExceeded (chunk, transaction or validation ceilings, before
// any effect); ReadSetChanged (member branch_merge_source_incarnation:<s>,
// branch_merge_source_schema, branch_merge_dataset_identity:<key>,
// graph_head:<t>); storage errors.
Result<MergeResult> RunBranchMerge(graph::GraphStore& graph, CatalogCache& catalogs, const MergeRequest& request);

// The conflicts a MergeConflicts error carries (its merge_conflicts detail).
Result<std::vector<MergeConflict>> ConflictsOf(const Status& merge_conflicts);

// Merge ceilings (spec/engine.md §5.3, Appendix A).
inline constexpr size_t kMergeChunkRows = 8192;
inline constexpr uint64_t kMergeChunkBytes = 32u << 20;
inline constexpr size_t kMergeMaxTransactionsPerTable = 1024;
inline constexpr uint64_t kMergeMaxValidationBytes = 32u << 20;

}  // namespace omnigraph::exec
