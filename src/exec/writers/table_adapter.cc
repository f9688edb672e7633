#include "exec/writers/table_adapter.h"

#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "graph/write/door.h"
#include "io/unpublished_objects.h"

namespace omnigraph::exec {
namespace {

// Whether two rows of `batches` share an id (the merge then decides which
// wins, so it cannot become an append).
bool HasDuplicateIds(const std::vector<RecordBatchPtr>& batches) {
  std::unordered_set<std::string_view> seen;
  for (const RecordBatchPtr& b : batches) {
    const Array& ids = *b->GetColumn("id");
    for (int64_t r = 0; r < ids.length(); ++r) {
      if (!seen.insert(ids.GetView(r)).second) return true;
    }
  }
  return false;
}

bool IsKeyedWrite(const TableChange& change) {
  return change.kind == TableChange::Kind::kUpsert || change.kind == TableChange::Kind::kStrictInsert;
}

Status KeyConflictIn(const graph::TableEntry& entry, const Status& cause) {
  const std::string& id = cause.details().at("key");
  return Status(ErrorCode::kKeyConflict,
                fmt::format("{} type '{}' already has this id: '{}'", entry.is_node() ? "node" : "edge",
                            entry.type_name(), id),
                {{"entity_kind", entry.is_node() ? "node" : "edge"},
                 {"type_name", entry.type_name()},
                 {"entity_id", id}});
}

// Whether every id of `change` is new to `committed` and unique in the
// change: the keyed write is then exactly an append.
bool OnlyNewIds(const graph::TableData& committed, const TableChange& change) {
  for (const RecordBatchPtr& b : change.rows) {
    const Array& ids = *b->GetColumn("id");
    for (int64_t r = 0; r < ids.length(); ++r) {
      if (committed.RowOf(ids.GetView(r)) >= 0) return false;
    }
  }
  return !HasDuplicateIds(change.rows);
}

}  // namespace

Result<table::StagedTransaction> StageOnVersion(graph::GraphStore& graph, const graph::TableEntry& entry,
                                                const table::Dataset& base, const TableChange& change,
                                                table::StageOptions options) {
  switch (change.kind) {
    case TableChange::Kind::kUpsert:
    case TableChange::Kind::kStrictInsert: {
      table::MergeInsertOptions merge;
      merge.key_column = "id";
      merge.mode = change.kind == TableChange::Kind::kUpsert ? table::MergeInsertMode::kUpsert
                                                             : table::MergeInsertMode::kStrictInsert;
      auto transaction = table::StageMergeInsert(base, change.rows, merge, options);
      if (!transaction.ok() && transaction.status().code() == ErrorCode::kKeyConflict) {
        return KeyConflictIn(entry, transaction.status());
      }
      return transaction;
    }
    case TableChange::Kind::kOverwrite:
      return table::StageOverwrite(base, change.rows, std::nullopt, options);
    case TableChange::Kind::kDeleteIds: {
      UnpublishedObjects side_file(graph.store().get());
      nlohmann::json ids = change.delete_ids;
      std::string text = ids.dump();
      if (text.size() <= graph::kDeletedIdsInlineBytes) {
        options.properties[std::string(graph::kDeletedIds)] = std::move(text);
      } else {
        // Large id sets live in a side file written before the commit.
        std::string path = graph::layout::DeletedIdsFile(entry.location, options.transaction_uuid);
        OG_RETURN_IF_ERROR(graph.store()->Put(graph.Key(path), text));
        side_file.keys()->push_back(graph.Key(path));
        options.properties[std::string(graph::kDeletedIdsPath)] = path;
      }
      std::vector<Scalar> keys;
      keys.reserve(change.delete_ids.size());
      for (const std::string& id : change.delete_ids) keys.push_back(Scalar::String(id));
      OG_ASSIGN_OR_RETURN(table::StagedTransaction deletion, table::StageDeleteIds(base, "id", keys, options));
      std::vector<std::string> kept = side_file.Keep();
      deletion.written_files.insert(deletion.written_files.end(), kept.begin(), kept.end());
      return deletion;
    }
  }
  return Internal("unknown table change kind");
}

Status CheckKeyedWriteBudgets(const std::vector<TableChange>& changes) {
  uint64_t total_bytes = 0;
  for (const TableChange& change : changes) {
    if (!IsKeyedWrite(change)) continue;
    uint64_t rows = 0, bytes = 0;
    for (const RecordBatchPtr& b : change.rows) {
      rows += static_cast<uint64_t>(b->num_rows());
      for (int c = 0; c < b->num_columns(); ++c) bytes += static_cast<uint64_t>(b->column(c)->MemoryBytes());
    }
    if (rows > kKeyedWriteMaxRows) {
      return ResourceLimitExceeded(fmt::format("keyed entities for {}", change.table_key), kKeyedWriteMaxRows, rows);
    }
    if (bytes > kKeyedWriteMaxBytes) {
      return ResourceLimitExceeded(fmt::format("keyed parsed entity bytes for {}", change.table_key),
                                   kKeyedWriteMaxBytes, bytes);
    }
    total_bytes += bytes;
  }
  if (total_bytes > kKeyedWriteMaxBytes) {
    return ResourceLimitExceeded("keyed parsed entity bytes across tables", kKeyedWriteMaxBytes, total_bytes);
  }
  return Status::OK();
}

Result<graph::StagedOnPin> StageChange(const graph::WriteTxn& txn, const TableChange& change) {
  const graph::TableEntry* entry = txn.state().FindTable(change.table_key);
  if (entry == nullptr) return InvalidArgument(fmt::format("unknown table '{}'", change.table_key));
  OG_ASSIGN_OR_RETURN(table::Dataset base, txn.base().OpenDataset(*entry));
  table::StageOptions options = graph::DetachedStageOptions(txn);
  if (change.kind == TableChange::Kind::kUpsert || change.kind == TableChange::Kind::kStrictInsert) {
    // When the pinned rows hold none of the ids (the common insert), the
    // keyed merge is exactly an append: stage that and skip the table
    // store's scan of every key in the table.
    OG_ASSIGN_OR_RETURN(graph::TableDataPtr committed, txn.base().CachedRows(*entry));
    if (OnlyNewIds(*committed, change)) {
      OG_ASSIGN_OR_RETURN(table::StagedTransaction append, table::StageAppend(base, change.rows, options));
      return graph::StagedOnPin{change.table_key, std::move(append), change.rows};
    }
  }
  OG_ASSIGN_OR_RETURN(table::StagedTransaction staged,
                      StageOnVersion(txn.base().graph(), *entry, base, change, std::move(options)));
  return graph::StagedOnPin{change.table_key, std::move(staged), {}};
}

}  // namespace omnigraph::exec

namespace omnigraph::exec {

Result<std::vector<graph::Effect>> StageChanges(const graph::WriteTxn& txn, const std::vector<TableChange>& changes) {
  OG_RETURN_IF_ERROR(CheckKeyedWriteBudgets(changes));
  UnpublishedObjects staged_files(txn.base().graph().store().get());
  std::vector<graph::Effect> effects;
  for (const TableChange& change : changes) {
    OG_ASSIGN_OR_RETURN(graph::StagedOnPin staged, StageChange(txn, change));
    staged_files.keys()->insert(staged_files.keys()->end(), staged.transaction.written_files.begin(),
                                staged.transaction.written_files.end());
    effects.push_back(std::move(staged));
  }
  staged_files.Keep();  // the door owns them now
  return effects;
}

}  // namespace omnigraph::exec
