#include "exec/changes/commit_diff.h"

#include <fmt/format.h>

#include "graph/read_target.h"

namespace omnigraph::exec {
namespace {

Status SchemaBoundary(const graph::CommitRecord& commit, const std::string& type_name) {
  return Status(ErrorCode::kChangeDiffRefused,
                fmt::format("the entity changes of commit '{}' cannot be proven: the schema of type '{}' changed in "
                            "this commit",
                            commit.id, type_name),
                {{"reason", "schema_boundary"},
                 {"kind", "change_schema_boundary"},
                 {"graph_commit_id", commit.id},
                 {"type_name", type_name}});
}

// Whether two versions of one table have the same columns: names, types,
// nullability and field ids (a column dropped and added again under its
// name gets a new field id and holds other values).
bool SameColumns(const Schema& a, const Schema& b) {
  if (a.num_fields() != b.num_fields()) return false;
  for (int i = 0; i < a.num_fields(); ++i) {
    if (!a.field(i).Equals(b.field(i), /*compare_ids=*/true)) return false;
  }
  return true;
}

// BR-10.1 "an unprovable schema change between parent and child": rows
// can only be diffed as entities while the type's columns are the ones its
// rows were written with. Only a commit that replaced the schema contract
// can change them.
Status CheckSchemaBoundary(const graph::Snapshot& parent, const graph::Snapshot& child,
                           const graph::CommitRecord& commit, const ChangeFilter& filter) {
  if (parent.state().schema.ir_hash == child.state().schema.ir_hash) return Status::OK();
  for (const LifetimePair& pair : PairLifetimes(parent.state(), child.state())) {
    const graph::TableEntry& named = pair.after ? *pair.after : *pair.before;
    if (!filter.AdmitsTable(named.is_node() ? EntityKind::kNode : EntityKind::kEdge, named.type_name())) continue;
    if (pair.before == nullptr || pair.after == nullptr) {
      // A type added or dropped with rows in it is evolution, not inserts
      // or deletes; an empty one changes no entity.
      if (named.pin.row_count > 0) return SchemaBoundary(commit, named.type_name());
      continue;
    }
    if (pair.before->pin == pair.after->pin) continue;
    OG_ASSIGN_OR_RETURN(table::Dataset before, parent.OpenDataset(*pair.before));
    OG_ASSIGN_OR_RETURN(table::Dataset after, child.OpenDataset(*pair.after));
    if (!SameColumns(*before.schema(), *after.schema())) return SchemaBoundary(commit, named.type_name());
  }
  return Status::OK();
}

Result<SnapshotDiff> DiffSnapshotsOf(graph::GraphStore& graph, const graph::CommitRecord& parent,
                                     const graph::CommitRecord& commit, const ChangeFilter& filter) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot before, graph::SnapshotOfCommit(graph, parent));
  OG_ASSIGN_OR_RETURN(graph::Snapshot after, graph::SnapshotOfCommit(graph, commit));
  OG_RETURN_IF_ERROR(CheckSchemaBoundary(before, after, commit, filter));
  return SnapshotDiff::Compute(before, after, filter, ChangeOrder::kCommit);
}

}  // namespace

Status AsFeedGap(const Status& status, const graph::CommitRecord& commit) {
  if (status.code() != ErrorCode::kHistoryGap && status.code() != ErrorCode::kVersionReclaimed) return status;
  Status::Details details{{"first_unreadable_commit_id", commit.id}};
  if (auto it = status.details().find("published_dataset_version"); it != status.details().end()) {
    details.emplace(it->first, it->second);
  }
  return Status(ErrorCode::kChangeFeedGap,
                fmt::format("change feed gap at commit '{}': it can no longer be reconstructed ({})", commit.id,
                            status.message()),
                std::move(details));
}

Status ParentlessCommit(const graph::CommitRecord& commit) {
  return Status(ErrorCode::kChangeDiffRefused,
                fmt::format("commit '{}' has no parent to diff against; start from a baseline instead", commit.id),
                {{"reason", "parentless_commit"}, {"kind", "commit_has_no_parent"}, {"graph_commit_id", commit.id}});
}

Result<SnapshotDiff> DiffCommit(graph::GraphStore& graph, const graph::CommitRecord& parent,
                                const graph::CommitRecord& commit, const ChangeFilter& filter) {
  auto diff = DiffSnapshotsOf(graph, parent, commit, filter);
  if (!diff.ok()) return AsFeedGap(diff.status(), commit);
  return diff;
}

}  // namespace omnigraph::exec
