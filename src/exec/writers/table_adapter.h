// The physical adapter of load and mutation writers: one logical table
// change becomes one exact transaction staged on the table's captured pin
// (design/write-path.md writer table, "Mutation / Load"; spec/engine.md §5.2
// and §5.3 budgets).
#pragma once

#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "graph/write/effect.h"
#include "graph/write/write_txn.h"

namespace omnigraph::exec {

// One table's logical change, fully validated by the writer.
struct TableChange {
  enum class Kind {
    kUpsert,        // rows replace same-id rows, others are inserted
    kStrictInsert,  // every id must be new (KeyConflict otherwise)
    kOverwrite,     // the rows become the table's whole content
    kDeleteIds,     // remove the rows whose id is in delete_ids
  };
  std::string table_key;
  Kind kind = Kind::kUpsert;
  std::vector<RecordBatchPtr> rows;     // physical schema of the table
  std::vector<std::string> delete_ids;  // kDeleteIds
};

// The keyed budgets (engine.md §5.3): per table 8,192 entities and 32 MiB
// of Arrow data, and the bytes summed over every keyed table of the write.
// Checked before anything is staged. Errors: ResourceLimitExceeded naming
// the resource ("keyed entities for <key>", "keyed parsed entity bytes for
// <key>", "keyed parsed entity bytes across tables").
Status CheckKeyedWriteBudgets(const std::vector<TableChange>& changes);

// Stages `change` on `txn`'s pin of its table. A keyed write whose ids are
// all new to the pinned rows stages an append (and says so in
// StagedOnPin::appended); a delete records its ids in the transaction
// (inline, or in a side file beyond kDeletedIdsInlineBytes).
// Errors: KeyConflict (strict insert of an existing id; details
// entity_kind, type_name, entity_id), InvalidArgument (unknown table), the
// table store's staging errors. Files written before a failure are deleted.
Result<graph::StagedOnPin> StageChange(const graph::WriteTxn& txn, const TableChange& change);

// Stages `change` on `base`, a version of table `entry` (its pin, or a
// link of a chain staged on it), without the append shortcut: keyed rows by
// merge-insert, an overwrite, or a delete recording its ids.
// Errors: as StageChange.
Result<table::StagedTransaction> StageOnVersion(graph::GraphStore& graph, const graph::TableEntry& entry,
                                                const table::Dataset& base, const TableChange& change,
                                                table::StageOptions options);

inline constexpr uint64_t kKeyedWriteMaxRows = 8192;
inline constexpr uint64_t kKeyedWriteMaxBytes = 32u << 20;

}  // namespace omnigraph::exec

namespace omnigraph::exec {

// StageChange for each of `changes`, after CheckKeyedWriteBudgets. On a
// failure every file already staged is deleted.
Result<std::vector<graph::Effect>> StageChanges(const graph::WriteTxn& txn, const std::vector<TableChange>& changes);

}  // namespace omnigraph::exec
