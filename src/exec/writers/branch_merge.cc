#include "exec/writers/branch_merge.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "exec/write_delta.h"
#include "exec/writer_loop.h"
#include "exec/writers/table_adapter.h"
#include "graph/branches.h"
#include "graph/read_target.h"
#include "graph/write/door.h"
#include "graph/write/publisher.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/utf8.h"

namespace omnigraph::exec {
namespace {

using graph::TableDataPtr;
using graph::TableEntry;

// ---------------------------------------------------------------------------
// Row comparison and per-table deltas.

// Whether row `i` of `a` and row `j` of `b` hold the same entity image:
// every column but the id (user properties, and src/dst of edges) equal by
// type and value (BR-9.6). Absence is a value: two absent rows are equal.
bool SameRow(const RecordBatch* a, int64_t i, const RecordBatch* b, int64_t j) {
  if (i < 0 || j < 0) return i < 0 && j < 0;
  const Schema& schema = *a->schema();
  for (int c = 0; c < a->num_columns(); ++c) {
    const std::string& name = schema.field(c).name;
    if (name == "id") continue;
    const ArrayPtr& other = b->GetColumn(name);
    if (!other || !ElementsEqual(*a->column(c), i, *other, j)) return false;
  }
  return true;
}

// What the target of a merge must take from the source for one table.
struct RowChanges {
  std::vector<int64_t> inserts;       // source rows the target does not hold
  std::vector<int64_t> updates;       // source rows replacing target rows
  std::vector<std::string> deletes;   // target ids the source removed
  bool empty() const { return inserts.empty() && updates.empty() && deletes.empty(); }
};

struct TableRows {
  TableDataPtr data;
  const RecordBatch* rows() const { return data ? data->rows().get() : nullptr; }
  int64_t RowOf(std::string_view id) const { return data ? data->RowOf(id) : -1; }
};

MergeConflict RowConflict(const TableEntry& table, std::string_view id, std::string_view kind,
                          std::string_view what) {
  return MergeConflict{table.is_node() ? "node" : "edge", table.type_name(), std::string(id), std::string(kind),
                       fmt::format("{} for id '{}'", what, utf8::ShortenForMessage(id))};
}

// The three-way row rule (BR-9.6) for one table: `changes` receives what
// the target takes from the source, `conflicts` every row both sides
// changed differently.
void MergeRows(const TableEntry& table, const TableRows& base, const TableRows& source, const TableRows& target,
               RowChanges* changes, std::vector<MergeConflict>* conflicts) {
  auto decide = [&](std::string_view id) {
    int64_t b = base.RowOf(id), s = source.RowOf(id), t = target.RowOf(id);
    if (SameRow(source.rows(), s, base.rows(), b)) return;  // the source left it alone: keep the target
    if (SameRow(target.rows(), t, base.rows(), b)) {        // only the source changed it: take the source's
      if (s < 0) {
        if (t >= 0) changes->deletes.emplace_back(id);
      } else {
        (t < 0 ? changes->inserts : changes->updates).push_back(s);
      }
      return;
    }
    if (SameRow(source.rows(), s, target.rows(), t)) return;  // both changed it alike: converged
    if (b < 0) {
      conflicts->push_back(RowConflict(table, id, "divergent_insert", "divergent insert"));
    } else if (s < 0 || t < 0) {
      conflicts->push_back(RowConflict(table, id, "delete_vs_update", "delete/update conflict"));
    } else {
      conflicts->push_back(RowConflict(table, id, "divergent_update", "divergent update"));
    }
  };
  // Every id of the three versions once: the target's, then the source's
  // the target lacks, then the base's neither side holds.
  auto ids_of = [](const TableRows& rows) -> const Array* {
    return rows.rows() ? rows.rows()->GetColumn("id").get() : nullptr;
  };
  if (const Array* ids = ids_of(target)) {
    for (int64_t r = 0; r < ids->length(); ++r) decide(ids->GetView(r));
  }
  if (const Array* ids = ids_of(source)) {
    for (int64_t r = 0; r < ids->length(); ++r) {
      if (target.RowOf(ids->GetView(r)) < 0) decide(ids->GetView(r));
    }
  }
  if (const Array* ids = ids_of(base)) {
    for (int64_t r = 0; r < ids->length(); ++r) {
      std::string_view id = ids->GetView(r);
      if (target.RowOf(id) < 0 && source.RowOf(id) < 0) decide(id);
    }
  }
}

// The source-vs-base delta of an adopted table (BR-9.5 step 2).
RowChanges SourceDelta(const TableRows& base, const TableRows& source) {
  RowChanges delta;
  if (const RecordBatch* rows = source.rows()) {
    const Array& ids = *rows->GetColumn("id");
    for (int64_t r = 0; r < ids.length(); ++r) {
      int64_t b = base.RowOf(ids.GetView(r));
      if (b < 0) {
        delta.inserts.push_back(r);
      } else if (!SameRow(rows, r, base.rows(), b)) {
        delta.updates.push_back(r);
      }
    }
  }
  if (const RecordBatch* rows = base.rows()) {
    const Array& ids = *rows->GetColumn("id");
    for (int64_t r = 0; r < ids.length(); ++r) {
      if (source.RowOf(ids.GetView(r)) < 0) delta.deletes.emplace_back(ids.GetView(r));
    }
  }
  return delta;
}

// `changes` as the validation input for the target (write_delta.h).
TableDelta ToDelta(const std::string& table_key, const TableRows& source, const RowChanges& changes) {
  TableDelta delta;
  delta.table_key = table_key;
  std::vector<int64_t> rows = changes.inserts;
  rows.insert(rows.end(), changes.updates.begin(), changes.updates.end());
  if (!rows.empty()) delta.upserts = source.rows()->Take(rows);
  delta.deleted_ids.insert(changes.deletes.begin(), changes.deletes.end());
  return delta;
}

// ---------------------------------------------------------------------------
// Conflicts as an error.

std::string RenderConflict(const MergeConflict& c) {
  if (c.entity_id) return fmt::format("{} type '{}', entity id '{}' ({})", c.entity_kind, c.type_name, *c.entity_id, c.kind);
  return fmt::format("{} type '{}' ({})", c.entity_kind, c.type_name, c.kind);
}

Status MergeConflictsError(const std::vector<MergeConflict>& conflicts) {
  std::string message = "merge conflicts: ";
  for (size_t i = 0; i < conflicts.size() && i < 3; ++i) message += (i ? "; " : "") + RenderConflict(conflicts[i]);
  if (conflicts.size() > 3) message += fmt::format("; and {} more", conflicts.size() - 3);
  nlohmann::json list = nlohmann::json::array();
  for (const MergeConflict& c : conflicts) {
    list.push_back({{"entity_kind", c.entity_kind},
                    {"type_name", c.type_name},
                    {"entity_id", c.entity_id ? nlohmann::json(*c.entity_id) : nlohmann::json(nullptr)},
                    {"kind", c.kind},
                    {"message", c.message}});
  }
  return Status(ErrorCode::kMergeConflicts, message, {{"merge_conflicts", list.dump()}});
}

// Violations of the merged result as conflicts, ordered as BR-9.8 says:
// value constraints, then uniqueness per node type and per edge type (by
// name), then endpoints, then cardinality.
std::vector<MergeConflict> ValidationConflicts(const std::vector<Violation>& violations) {
  struct Ranked {
    int rank;
    MergeConflict conflict;
  };
  std::vector<Ranked> ranked;
  for (const Violation& v : violations) {
    bool node = v.table_key.rfind("node:", 0) == 0;
    std::string type = v.table_key.substr(v.table_key.find(':') + 1);
    MergeConflict c{node ? "node" : "edge", type, std::nullopt, "", v.message};
    int rank = 0;
    switch (v.kind) {
      case Violation::Kind::kValueConstraint: c.kind = "value_constraint_violation"; rank = 0; break;
      case Violation::Kind::kUnique: c.kind = "unique_violation"; c.entity_id = v.entity_id; rank = node ? 1 : 2; break;
      case Violation::Kind::kOrphanEdge: c.kind = "orphan_edge"; c.entity_id = v.entity_id; rank = 3; break;
      case Violation::Kind::kCardinality: c.kind = "cardinality_violation"; rank = 4; break;
    }
    ranked.push_back(Ranked{rank, std::move(c)});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    return (a.rank == 1 || a.rank == 2) && a.conflict.type_name < b.conflict.type_name;
  });
  std::vector<MergeConflict> out;
  for (Ranked& r : ranked) out.push_back(std::move(r.conflict));
  return out;
}

// ---------------------------------------------------------------------------
// Staging the rows a three-way table takes.

// `rows` of `source` in chunks of at most kMergeChunkRows rows and
// kMergeChunkBytes bytes. Errors: ResourceLimitExceeded for one row beyond
// the byte ceiling.
Result<std::vector<RecordBatchPtr>> Chunks(const RecordBatch& source, const std::vector<int64_t>& rows,
                                           const std::string& table_key) {
  std::vector<RecordBatchPtr> chunks;
  std::vector<std::vector<int64_t>> pending;
  for (size_t start = 0; start < rows.size(); start += kMergeChunkRows) {
    size_t end = std::min(rows.size(), start + kMergeChunkRows);
    pending.emplace_back(rows.begin() + static_cast<std::ptrdiff_t>(start), rows.begin() + static_cast<std::ptrdiff_t>(end));
  }
  while (!pending.empty()) {
    std::vector<int64_t> part = std::move(pending.back());
    pending.pop_back();
    RecordBatchPtr chunk = source.Take(part);
    uint64_t bytes = 0;
    for (int c = 0; c < chunk->num_columns(); ++c) bytes += static_cast<uint64_t>(chunk->column(c)->MemoryBytes());
    if (bytes <= kMergeChunkBytes) {
      chunks.push_back(std::move(chunk));
      continue;
    }
    if (part.size() == 1) {
      return ResourceLimitExceeded(fmt::format("merge chunk bytes for {}", table_key), kMergeChunkBytes, bytes);
    }
    size_t half = part.size() / 2;
    pending.emplace_back(part.begin() + static_cast<std::ptrdiff_t>(half), part.end());
    pending.emplace_back(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(half));
  }
  return chunks;
}

// The chain of detached commits writing `changes` into the target table
// (BR-9.9): new rows by strict insert, changed rows by upsert, deletes by
// id, each chunk one link. Errors: ResourceLimitExceeded beyond
// kMergeMaxTransactionsPerTable links.
Result<graph::ChainTip> ChainFor(graph::GraphStore& graph, const TableEntry& target, const TableRows& source,
                                 const RowChanges& changes) {
  graph::ChainTip chain{target.table_key, {}};
  auto add = [&](TableChange change) {
    chain.links.push_back([&graph, target, change = std::move(change)](const table::Dataset& base,
                                                                        const table::StageOptions& options) {
      return StageOnVersion(graph, target, base, change, options);
    });
  };
  for (auto [rows, kind] : {std::pair{&changes.inserts, TableChange::Kind::kStrictInsert},
                            std::pair{&changes.updates, TableChange::Kind::kUpsert}}) {
    OG_ASSIGN_OR_RETURN(std::vector<RecordBatchPtr> chunks, Chunks(*source.rows(), *rows, target.table_key));
    for (RecordBatchPtr& chunk : chunks) add(TableChange{target.table_key, kind, {std::move(chunk)}, {}});
  }
  for (size_t start = 0; start < changes.deletes.size(); start += kMergeChunkRows) {
    size_t end = std::min(changes.deletes.size(), start + kMergeChunkRows);
    add(TableChange{target.table_key, TableChange::Kind::kDeleteIds, {},
                    std::vector<std::string>(changes.deletes.begin() + static_cast<std::ptrdiff_t>(start),
                                             changes.deletes.begin() + static_cast<std::ptrdiff_t>(end))});
  }
  if (chain.links.size() > kMergeMaxTransactionsPerTable) {
    return ResourceLimitExceeded(fmt::format("merge data transactions for {}", target.table_key),
                                 kMergeMaxTransactionsPerTable, chain.links.size());
  }
  return chain;
}

// ---------------------------------------------------------------------------
// The merge plan.

struct MergePlan {
  std::vector<graph::Effect> effects;
  WriteDelta validation;                 // the merged delta, for a Merged outcome
  std::vector<MergeConflict> conflicts;  // row conflicts
};

Result<TableRows> RowsOf(const graph::Snapshot& snapshot, const TableEntry* table) {
  if (table == nullptr) return TableRows{};
  OG_ASSIGN_OR_RETURN(TableDataPtr data, snapshot.CachedRows(*table));
  return TableRows{std::move(data)};
}

// Classifies every table of base, source and target (BR-9.5) and plans its
// effect.
Result<MergePlan> PlanTables(graph::GraphStore& graph, const graph::Snapshot& base, const graph::Snapshot& source,
                             const graph::Snapshot& target, bool fast_forward) {
  MergePlan plan;
  std::set<std::string> keys;
  for (const graph::Snapshot* s : {&base, &source, &target}) {
    for (const auto& [key, table] : s->tables()) keys.insert(key);
  }
  for (const std::string& key : keys) {
    const TableEntry* b = base.FindTable(key);
    const TableEntry* s = source.FindTable(key);
    const TableEntry* t = target.FindTable(key);
    for (const TableEntry* other : {b, s}) {
      if (other && t && !(other->identity == t->identity)) {
        return graph::ReadSetChanged(fmt::format("branch_merge_dataset_identity:{}", key), t->identity.ObjectId(),
                                     other->identity.ObjectId());
      }
    }
    if (s == nullptr || t == nullptr) {
      // Schemas cannot diverge between branches (schema apply refuses while
      // any other branch lives), so a table only one side has is damage.
      return Internal(fmt::format("table '{}' is on only one side of the merge", key));
    }
    if (*s == *t || (b && *s == *b)) continue;  // nothing to bring
    if (fast_forward || (b && *t == *b)) {
      // Adopt: the target's table is the base's, so the result is the
      // source's rows; its registration takes the source's pin. An empty
      // source-vs-base delta leaves the registration untouched (BR-9.5
      // step 2), also in a fast forward. A fast forward validates nothing,
      // so it reads rows only when the delta can be empty: a table whose
      // entity count changed is switched without reading a row.
      if (!fast_forward || (b && s->pin.row_count == b->pin.row_count)) {
        OG_ASSIGN_OR_RETURN(TableRows base_rows, RowsOf(base, b));
        OG_ASSIGN_OR_RETURN(TableRows source_rows, RowsOf(source, s));
        RowChanges delta = SourceDelta(base_rows, source_rows);
        if (delta.empty()) continue;
        if (!fast_forward) plan.validation.emplace(key, ToDelta(key, source_rows, delta));
      }
      plan.effects.push_back(graph::PointerSwitch{key, *s});
      continue;
    }
    OG_ASSIGN_OR_RETURN(TableRows base_rows, RowsOf(base, b));
    OG_ASSIGN_OR_RETURN(TableRows source_rows, RowsOf(source, s));
    OG_ASSIGN_OR_RETURN(TableRows target_rows, RowsOf(target, t));
    RowChanges changes;
    size_t conflicts_before = plan.conflicts.size();
    MergeRows(*t, base_rows, source_rows, target_rows, &changes, &plan.conflicts);
    if (plan.conflicts.size() > conflicts_before || changes.empty()) continue;
    plan.validation.emplace(key, ToDelta(key, source_rows, changes));
    OG_ASSIGN_OR_RETURN(graph::ChainTip chain, ChainFor(graph, *t, source_rows, changes));
    plan.effects.push_back(std::move(chain));
  }
  std::stable_sort(plan.conflicts.begin(), plan.conflicts.end(), [](const MergeConflict& a, const MergeConflict& b) {
    std::string ka = a.entity_kind + ":" + a.type_name, kb = b.entity_kind + ":" + b.type_name;
    return ka != kb ? ka < kb : a.entity_id < b.entity_id;
  });
  return plan;
}

Status CheckValidationBudget(const WriteDelta& delta) {
  uint64_t bytes = 0;
  for (const auto& [key, d] : delta) {
    if (!d.upserts) continue;
    for (int c = 0; c < d.upserts->num_columns(); ++c) bytes += static_cast<uint64_t>(d.upserts->column(c)->MemoryBytes());
  }
  if (bytes > kMergeMaxValidationBytes) {
    return ResourceLimitExceeded("merge validation delta bytes", kMergeMaxValidationBytes, bytes);
  }
  return Status::OK();
}

// The records of the source's lineage the target does not hold (BR-5): the
// source's buffer and head; its segments are shared by name.
graph::MergedParent LineageImport(const graph::Snapshot& source, const graph::CommitGraph& target_commits) {
  graph::MergedParent merged{source.head(), {}, source.state().history_segments};
  for (const graph::CommitRecord& c : source.state().settled) {
    if (target_commits.Find(c.id) == nullptr) merged.imported.push_back(c);
  }
  if (target_commits.Find(source.head().id) == nullptr) merged.imported.push_back(source.head());
  return merged;
}

Status CheckNames(const std::string& source, const std::string& target) {
  auto internal = [](const std::string& name) {
    std::string_view first = std::string_view(name).substr(!name.empty() && name[0] == '/' ? 1 : 0);
    return first.rfind("__", 0) == 0;
  };
  if (internal(source) || internal(target)) {
    return InvalidArgument(fmt::format("branch_merge does not allow internal system refs ('{}' -> '{}')",
                                       utf8::ShortenForMessage(source), utf8::ShortenForMessage(target)));
  }
  if (source.empty() || target.empty()) return InvalidArgument("branch name cannot be empty");
  if (source == target) return InvalidArgument("branch_merge requires distinct source and target branches");
  return Status::OK();
}

}  // namespace

std::string_view MergeOutcomeName(MergeOutcome outcome) {
  switch (outcome) {
    case MergeOutcome::kAlreadyUpToDate: return "already_up_to_date";
    case MergeOutcome::kFastForward: return "fast_forward";
    case MergeOutcome::kMerged: return "merged";
  }
  return "unknown";
}

Result<std::vector<MergeConflict>> ConflictsOf(const Status& error) {
  auto it = error.details().find("merge_conflicts");
  if (error.code() != ErrorCode::kMergeConflicts || it == error.details().end()) {
    return InvalidArgument("not a merge-conflicts error");
  }
  nlohmann::json list = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  if (!list.is_array()) return Internal("malformed merge_conflicts detail");
  std::vector<MergeConflict> out;
  for (const nlohmann::json& c : list) {
    MergeConflict conflict{c.value("entity_kind", ""), c.value("type_name", ""), std::nullopt, c.value("kind", ""),
                           c.value("message", "")};
    if (c.contains("entity_id") && c["entity_id"].is_string()) conflict.entity_id = c["entity_id"].get<std::string>();
    out.push_back(std::move(conflict));
  }
  return out;
}

Result<MergeResult> RunBranchMerge(graph::GraphStore& graph, CatalogCache& catalogs, const MergeRequest& request) {
  MergeResult result;
  result.source = graph::TrimBranchName(request.source);
  result.target = graph::TrimBranchName(request.target);
  OG_RETURN_IF_ERROR(CheckNames(result.source, result.target));
  OG_RETURN_IF_ERROR(graph.manifests().Resolve(result.source).status());
  OG_RETURN_IF_ERROR(graph.manifests().Resolve(result.target).status());

  // A merge never re-prepares: a target that moved is the caller's to judge.
  Status merged = RunWriter(graph, result.target, request.actor_id, [&](const graph::WriteTxn& txn, RetryPolicy*) {
    // Capture the source once; later source writes neither affect nor refuse it.
    OG_ASSIGN_OR_RETURN(graph::NativeRef source_ref, graph.manifests().Resolve(result.source));
    OG_ASSIGN_OR_RETURN(uint64_t source_version, graph.manifests().LatestVersion(source_ref));
    OG_ASSIGN_OR_RETURN(graph::Snapshot source, graph.AtRef(source_ref, source_version));
    OG_FAILPOINT(failpoint::kMergeAfterCapture);
    const graph::Snapshot& target = txn.base();
    OG_ASSIGN_OR_RETURN(graph::CommitGraphPtr source_commits, graph.Commits(source));
    OG_ASSIGN_OR_RETURN(graph::CommitGraphPtr target_commits, graph.Commits(target));
    const graph::CommitRecord& source_head = source.head();
    const graph::CommitRecord& target_head = target.head();
    result.outcome = MergeOutcome::kAlreadyUpToDate;
    result.commit.reset();
    if (source_head.id == target_head.id) return Status::OK();
    const graph::CommitRecord* base = graph::MergeBase(*source_commits, *target_commits);
    if (base == nullptr) return InvalidArgument("captured branch commits are unavailable or have no common ancestor");
    if (base->id == source_head.id) return Status::OK();
    if (source.state().schema.ir_hash != target.state().schema.ir_hash) {
      return graph::ReadSetChanged("branch_merge_source_schema", target.state().schema.ir_hash,
                                   source.state().schema.ir_hash);
    }
    bool fast_forward = base->id == target_head.id;
    graph::Snapshot base_snapshot = target;
    if (!fast_forward) {
      auto opened = graph::SnapshotOfCommit(graph, *base);
      // BR-9.3: a base whose snapshot cannot be opened (cleanup keeps the
      // merge base of every pair of live heads, so only a version removed
      // by other means) is a history gap.
      if (!opened.ok() && opened.status().code() == ErrorCode::kVersionReclaimed) {
        return Status(ErrorCode::kHistoryGap, fmt::format("history gap at commits '{}'", base->id),
                      {{"graph_commit_ids", base->id}, {"cause", opened.status().message()}});
      }
      OG_ASSIGN_OR_RETURN(base_snapshot, std::move(opened));
    }

    OG_ASSIGN_OR_RETURN(MergePlan plan, PlanTables(graph, base_snapshot, source, target, fast_forward));
    if (!plan.conflicts.empty()) return MergeConflictsError(plan.conflicts);
    if (!fast_forward && !plan.validation.empty()) {
      // A fast forward validates nothing: the source's rows were validated
      // against a state that contains the whole target (BR-9.9).
      OG_RETURN_IF_ERROR(CheckValidationBudget(plan.validation));
      OG_ASSIGN_OR_RETURN(auto catalog, catalogs.CatalogFor(target.state()));
      OG_ASSIGN_OR_RETURN(std::vector<Violation> violations, CollectViolations(target, *catalog, plan.validation));
      if (!violations.empty()) return MergeConflictsError(ValidationConflicts(violations));
    }
    // The source must still be the incarnation that was captured.
    OG_ASSIGN_OR_RETURN(graph::NativeRef source_now, graph.manifests().Resolve(result.source));
    if (source_now.name != source_ref.name) {
      return graph::ReadSetChanged(fmt::format("branch_merge_source_incarnation:{}", result.source), source_ref.name,
                                   source_now.name);
    }
    plan.effects.push_back(LineageImport(source, *target_commits));
    graph::DoorOptions door;
    if (request.as_commit) door.proposal = graph::ProposalForm{};
    OG_ASSIGN_OR_RETURN(graph::DoorOutcome published,
                        graph::CommitThroughDoor(graph, txn, std::move(plan.effects), door));
    result.published = !request.as_commit;
    result.outcome = fast_forward ? MergeOutcome::kFastForward : MergeOutcome::kMerged;
    result.commit = published.commit;
    return Status::OK();
  });
  OG_RETURN_IF_ERROR(merged);
  return result;
}

}  // namespace omnigraph::exec
