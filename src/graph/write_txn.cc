#include "graph/write_txn.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/unpublished_objects.h"
#include "table/commit.h"
#include "table/staging.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/random.h"
#include "util/ulid.h"

namespace omnigraph::graph {
namespace {

// Process-local gates of one graph root (design/write-path.md "gates"):
// they only order work inside this process; correctness across processes
// comes from the __manifest put-if-absent.
struct Gates {
  std::shared_mutex schema;
  std::mutex registry;
  std::map<std::string, std::unique_ptr<std::mutex>> branches;
  std::map<std::string, std::unique_ptr<std::mutex>> tables;

  std::mutex& Branch(const std::string& name) { return Named(branches, name); }
  std::mutex& Table(const std::string& key) { return Named(tables, key); }

 private:
  std::mutex& Named(std::map<std::string, std::unique_ptr<std::mutex>>& map, const std::string& name) {
    std::lock_guard<std::mutex> lock(registry);
    auto& slot = map[name];
    if (!slot) slot = std::make_unique<std::mutex>();
    return *slot;
  }
};

Gates& GatesFor(const std::string& graph_uri) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Gates>> all;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = all[graph_uri];
  if (!slot) slot = std::make_unique<Gates>();
  return *slot;
}

// Budgets of a keyed write (append, merge, mutation) per table (surface
// §4.3, §7.1 KEYED_WRITE_MAX_ROWS / KEYED_WRITE_MAX_BYTES).
constexpr uint64_t kKeyedWriteMaxRows = 8192;
constexpr uint64_t kKeyedWriteMaxBytes = 32u << 20;

struct StagedTable {
  const TableEntry* entry;
  const TableChange* change;
  table::StagedTransaction staged;
  bool appended = false;  // the transaction only appends change->rows
  std::optional<table::Dataset> committed;  // the detached version, once committed
};

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

// The budgets of keyed writes, checked before anything is staged: per
// table, and their bytes summed over every table of the write (engine.md
// §5.3: "the same budget aggregated across tables").
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

// Stages `change` on the table's pin; *appended tells whether the staged
// transaction only appends the change's rows.
Result<table::StagedTransaction> Stage(GraphStore& graph, const WriteTxn& txn, const TableEntry& entry,
                                       const TableChange& change, bool* appended,
                                       std::vector<std::string>* unpublished) {
  *appended = false;
  OG_ASSIGN_OR_RETURN(table::Dataset base, graph.OpenTable(entry));
  table::StageOptions options;
  options.transaction_uuid = Uuid::Random().ToString();
  options.properties[std::string(kStagedAgainstBranchIncarnation)] = txn.base.branch_identity;
  options.properties[std::string(kStagedAgainstGraphHead)] = txn.base.head.id;
  switch (change.kind) {
    case TableChange::Kind::kUpsert:
    case TableChange::Kind::kStrictInsert: {
      // When the pinned rows hold none of the ids (the common insert), the
      // keyed merge is exactly an append: stage that and skip the table
      // store's scan of every key in the table.
      OG_ASSIGN_OR_RETURN(TableDataPtr committed, graph.LoadTable(entry));
      bool all_new = true;
      for (const RecordBatchPtr& b : change.rows) {
        const Array& ids = *b->GetColumn("id");
        for (int64_t r = 0; all_new && r < ids.length(); ++r) all_new = committed->RowOf(ids.GetView(r)) < 0;
      }
      if (all_new && !HasDuplicateIds(change.rows)) {
        *appended = true;
        return table::StageAppend(base, change.rows, options);
      }
      table::MergeInsertOptions merge;
      merge.key_column = "id";
      merge.mode = change.kind == TableChange::Kind::kUpsert ? table::MergeInsertMode::kUpsert
                                                             : table::MergeInsertMode::kStrictInsert;
      auto staged = table::StageMergeInsert(base, change.rows, merge, options);
      if (!staged.ok() && staged.status().code() == ErrorCode::kKeyConflict) {
        const std::string& id = staged.status().details().at("key");
        return Status(ErrorCode::kKeyConflict,
                      fmt::format("{} type '{}' already has this id: '{}'", entry.is_node() ? "node" : "edge",
                                  entry.type_name(), id),
                      {{"entity_kind", entry.is_node() ? "node" : "edge"},
                       {"type_name", entry.type_name()},
                       {"entity_id", id}});
      }
      return staged;
    }
    case TableChange::Kind::kOverwrite:
      return table::StageOverwrite(base, change.rows, std::nullopt, options);
    case TableChange::Kind::kDeleteIds: {
      nlohmann::json ids = change.delete_ids;
      std::string text = ids.dump();
      if (text.size() <= kDeletedIdsInlineBytes) {
        options.properties[std::string(kDeletedIds)] = std::move(text);
      } else {
        // Large id sets live in a side file written before the commit.
        std::string path = fmt::format("{}/_deleted_ids/{}.json", entry.location, options.transaction_uuid);
        OG_RETURN_IF_ERROR(graph.store()->Put(graph.Key(path), text));
        unpublished->push_back(graph.Key(path));
        options.properties[std::string(kDeletedIdsPath)] = path;
      }
      std::vector<Scalar> keys;
      keys.reserve(change.delete_ids.size());
      for (const std::string& id : change.delete_ids) keys.push_back(Scalar::String(id));
      return table::StageDeleteIds(base, "id", keys, options);
    }
  }
  return Internal("unknown table change kind");
}

}  // namespace

Result<WriteTxn> WriteTxn::Capture(GraphStore& graph, std::string_view branch) {
  WriteTxn txn;
  OG_ASSIGN_OR_RETURN(txn.base, graph.ReadState(branch));
  txn.intent_nonce = Ulid::New().ToString();
  txn.created_at_us = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  return txn;
}

namespace {

// CommitTableChanges after the budgets; every object it writes before the
// publication is listed in `unpublished`.
Result<WriteResult> StageCommitAndPublish(GraphStore& graph, const WriteTxn& txn,
                                          const std::vector<TableChange>& changes,
                                          std::vector<std::string>* unpublished) {
  // Stage outside the gates.
  std::vector<StagedTable> staged;
  std::vector<std::string> keys;
  for (const TableChange& change : changes) {
    const TableEntry* entry = txn.base.FindTable(change.table_key);
    if (entry == nullptr) return InvalidArgument(fmt::format("unknown table '{}'", change.table_key));
    if (std::find(keys.begin(), keys.end(), change.table_key) != keys.end()) {
      return Internal(fmt::format("two changes to table '{}' in one write", change.table_key));
    }
    keys.push_back(change.table_key);
    bool appended = false;
    OG_ASSIGN_OR_RETURN(table::StagedTransaction transaction,
                        Stage(graph, txn, *entry, change, &appended, unpublished));
    unpublished->insert(unpublished->end(), transaction.written_files.begin(), transaction.written_files.end());
    staged.push_back(StagedTable{entry, &change, std::move(transaction), appended});
  }
  OG_FAILPOINT(failpoint::kGraphAfterStaging);

  // Gates in the fixed order: schema permit (shared), branch, sorted tables.
  Gates& gates = GatesFor(graph.store()->Uri(graph.root()));
  std::shared_lock<std::shared_mutex> schema_permit(gates.schema);
  std::lock_guard<std::mutex> branch_gate(gates.Branch(txn.base.branch));
  std::sort(keys.begin(), keys.end());
  std::vector<std::unique_lock<std::mutex>> table_gates;
  for (const std::string& key : keys) table_gates.emplace_back(gates.Table(key));

  // Recheck the authority before any effect: a moved branch means the
  // staging is stale, and committing it would only create garbage.
  OG_ASSIGN_OR_RETURN(uint64_t latest, graph.LatestManifestVersion(/*confirm_known=*/false));
  if (latest != txn.base.manifest_version) {
    return Status(ErrorCode::kReadSetChanged,
                  fmt::format("read set changed: branch '{}' moved from manifest version {} to {} before the write "
                              "committed", txn.base.branch, txn.base.manifest_version, latest),
                  {{"member", fmt::format("graph_head:{}", txn.base.branch)},
                   {"expected", std::to_string(txn.base.manifest_version)},
                   {"actual", std::to_string(latest)}});
  }

  // Commit each participant as a detached version of its pin.
  Publication publication;
  publication.branch = txn.base.branch;
  publication.expected_branch_identity = txn.base.branch_identity;
  publication.expected_head = txn.base.head.id;
  publication.expected_manifest_version = txn.base.manifest_version;
  publication.intent_nonce = txn.intent_nonce;
  publication.actor_id = txn.actor_id;
  publication.created_at_us = txn.created_at_us;
  for (StagedTable& s : staged) {
    table::CommitOptions options;
    options.deferred = &publication.sync_with;  // made durable by the publication's sync batch
    OG_ASSIGN_OR_RETURN(table::Dataset committed, table::CommitDetached(s.staged, options));
    unpublished->push_back(committed.manifest_path());
    s.committed = committed;
    OG_FAILPOINT(failpoint::kGraphAfterDetachedCommit);
    TableUpdate update;
    update.table_key = s.entry->table_key;
    update.identity = s.entry->identity;
    update.expected_published_version = s.entry->pin.published_version;
    update.new_pin.staged_version = committed.version();
    update.new_pin.transaction_uuid = s.staged.transaction.uuid;
    update.new_pin.row_count = committed.CountRows();
    update.new_pin.manifest_path = committed.manifest_path().substr(graph.root().empty() ? 0 : graph.root().size() + 1);
    update.new_pin.manifest_size = committed.manifest_size();
    publication.updates.push_back(std::move(update));
  }

  // The one publication door.
  OG_ASSIGN_OR_RETURN(GraphState published, graph.Publish(publication));
  // In-memory bookkeeping only (nothing durable happens after the CAS):
  // this handle keeps the versions it just committed as opened pins, and
  // derives appended versions' data from the cached data of their base, so
  // its next read or write needs no store reads for them.
  for (const StagedTable& s : staged) {
    const TableEntry* after = published.FindTable(s.entry->table_key);
    if (after == nullptr) continue;
    graph.RememberOpened(*after, *s.committed);
    if (s.appended) graph.RememberAppend(*s.entry, *after, s.change->rows);
  }
  CommitRecord head = published.head;
  return WriteResult{std::move(published), std::move(head)};
}

}  // namespace

Result<WriteResult> CommitTableChanges(GraphStore& graph, const WriteTxn& txn, const std::vector<TableChange>& changes) {
  OG_RETURN_IF_ERROR(CheckKeyedWriteBudgets(changes));
  std::vector<std::string> unpublished;
  Result<WriteResult> result = StageCommitAndPublish(graph, txn, changes, &unpublished);
  // A write that cannot have been published leaves nothing behind: its
  // staged files and detached versions are referenced by no version.
  if (!result.ok() && !PublicationMayHaveLanded(result.status())) DeleteUnpublished(graph.store().get(), unpublished);
  return result;
}

}  // namespace omnigraph::graph
