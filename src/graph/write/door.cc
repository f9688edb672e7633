#include "graph/write/door.h"

#include <set>

#include <fmt/format.h>

#include "io/unpublished_objects.h"
#include "table/commit.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/random.h"

namespace omnigraph::graph {
namespace {

// A table effect after its detached commits: the pin to publish, and what
// the table cache can learn from it.
struct CommittedTable {
  const TableEntry* before = nullptr;
  table::Dataset tip;
  std::string transaction_uuid;  // of the tip
  std::vector<RecordBatchPtr> appended;  // non-empty: `tip` = `before` + these rows
};

std::string RelativeTo(const std::string& root, const std::string& key) {
  return root.empty() ? key : key.substr(root.size() + 1);
}

TablePin PinOf(const GraphStore& graph, const CommittedTable& committed) {
  TablePin pin;
  pin.staged_version = committed.tip.version();
  pin.transaction_uuid = committed.transaction_uuid;
  pin.row_count = committed.tip.CountRows();
  pin.manifest_path = RelativeTo(graph.root(), committed.tip.manifest_path());
  pin.manifest_size = committed.tip.manifest_size();
  return pin;
}

// The table keys `effects` touch, refusing two effects on one table and
// tables the captured snapshot lacks.
Result<std::vector<std::string>> TouchedTables(const WriteTxn& txn, const std::vector<Effect>& effects) {
  std::set<std::string> keys;
  for (const Effect& effect : effects) {
    const std::string* key = nullptr;
    if (auto* e = std::get_if<StagedOnPin>(&effect)) key = &e->table_key;
    if (auto* e = std::get_if<ChainTip>(&effect)) key = &e->table_key;
    if (auto* e = std::get_if<PointerSwitch>(&effect)) key = &e->table_key;
    if (auto* e = std::get_if<RetireTable>(&effect)) key = &e->table_key;
    if (auto* e = std::get_if<RegisterTable>(&effect)) key = &e->entry.table_key;
    if (key == nullptr) continue;
    if (!keys.insert(*key).second) return Internal(fmt::format("two effects on table '{}' in one write", *key));
    bool registers = std::holds_alternative<RegisterTable>(effect);
    if (!registers && txn.state().FindTable(*key) == nullptr) {
      return InvalidArgument(fmt::format("unknown table '{}'", *key));
    }
  }
  return std::vector<std::string>(keys.begin(), keys.end());
}

// Recheck the authority before any effect: a moved branch means the staging
// is stale, and committing it would only create garbage. (Its liveness was
// confirmed under the writers lock, which a deletion waits for.)
Status RecheckAuthority(GraphStore& graph, const WriteTxn& txn) {
  OG_ASSIGN_OR_RETURN(uint64_t latest, graph.manifests().LatestVersion(txn.ref(), /*confirm_known=*/false));
  if (latest != txn.authority_version()) {
    return Status(ErrorCode::kReadSetChanged,
                  fmt::format("read set changed: branch '{}' moved from manifest version {} to {} before the write "
                              "committed",
                              txn.ref().branch, txn.authority_version(), latest),
                  {{"member", fmt::format("graph_head:{}", txn.ref().branch)},
                   {"expected", std::to_string(txn.authority_version())},
                   {"actual", std::to_string(latest)}});
  }
  return Status::OK();
}

// Commits one detached version; its files join the publication's sync
// batch and the attempt's unpublished objects.
Result<table::Dataset> CommitDetachedLink(const table::StagedTransaction& staged, Publication* publication,
                                          std::vector<std::string>* unpublished) {
  table::CommitOptions options;
  options.deferred = &publication->sync_with;  // made durable by the publication's sync batch
  OG_ASSIGN_OR_RETURN(table::Dataset committed, table::CommitDetached(staged, options));
  unpublished->push_back(committed.manifest_path());
  OG_FAILPOINT(failpoint::kGraphAfterDetachedCommit);
  return committed;
}

// Commits every table effect detached and turns every effect into the
// publication's terms.
Status CommitEffects(GraphStore& graph, const WriteTxn& txn, std::vector<Effect>& effects, Publication* publication,
                     std::vector<CommittedTable>* committed, std::vector<std::string>* unpublished) {
  for (Effect& effect : effects) {
    if (auto* e = std::get_if<StagedOnPin>(&effect)) {
      const TableEntry* before = txn.state().FindTable(e->table_key);
      OG_ASSIGN_OR_RETURN(table::Dataset tip, CommitDetachedLink(e->transaction, publication, unpublished));
      committed->push_back(CommittedTable{before, tip, e->transaction.transaction.uuid, std::move(e->appended)});
    } else if (auto* e = std::get_if<ChainTip>(&effect)) {
      const TableEntry* before = txn.state().FindTable(e->table_key);
      OG_ASSIGN_OR_RETURN(table::Dataset tip, txn.base().OpenDataset(*before));
      std::string tip_uuid;
      for (const LinkStager& stage : e->links) {
        OG_ASSIGN_OR_RETURN(table::StagedTransaction link, stage(tip, DetachedStageOptions(txn)));
        unpublished->insert(unpublished->end(), link.written_files.begin(), link.written_files.end());
        OG_ASSIGN_OR_RETURN(tip, CommitDetachedLink(link, publication, unpublished));
        tip_uuid = link.transaction.uuid;
      }
      if (!e->links.empty()) committed->push_back(CommittedTable{before, tip, tip_uuid, {}});
    } else if (auto* e = std::get_if<PointerSwitch>(&effect)) {
      const TableEntry* before = txn.state().FindTable(e->table_key);
      if (!(before->identity == e->adopted.identity)) {
        return ReadSetChanged(fmt::format("branch_merge_dataset_identity:{}", e->table_key),
                              before->identity.ObjectId(), e->adopted.identity.ObjectId());
      }
      publication->updates.push_back(
          TableUpdate{e->table_key, before->identity, before->pin.published_version, e->adopted.pin, true});
    } else if (auto* e = std::get_if<RegisterTable>(&effect)) {
      publication->registrations.push_back(e->entry);
    } else if (auto* e = std::get_if<RetireTable>(&effect)) {
      publication->retirements.push_back(*e);
    } else if (auto* e = std::get_if<RenameTable>(&effect)) {
      publication->renames.push_back(*e);
    } else if (auto* e = std::get_if<ReplaceContract>(&effect)) {
      publication->schema = e->contract;
    } else if (auto* e = std::get_if<MergedParent>(&effect)) {
      publication->merged = std::move(*e);
    }
  }
  for (const CommittedTable& c : *committed) {
    publication->updates.push_back(TableUpdate{c.before->table_key, c.before->identity,
                                               c.before->pin.published_version, PinOf(graph, c), false});
  }
  return Status::OK();
}

}  // namespace

table::StageOptions DetachedStageOptions(const WriteTxn& txn) {
  table::StageOptions options;
  options.transaction_uuid = Uuid::Random().ToString();
  options.properties[std::string(kStagedAgainstBranchIncarnation)] = txn.ref().name;
  options.properties[std::string(kStagedAgainstGraphHead)] = txn.authority_head();
  return options;
}

Result<DoorOutcome> CommitThroughDoor(GraphStore& graph, const WriteTxn& txn, std::vector<Effect> effects,
                                      const DoorOptions& door_options) {
  std::vector<std::string> unpublished;
  for (const Effect& effect : effects) {
    if (auto* e = std::get_if<StagedOnPin>(&effect)) {
      unpublished.insert(unpublished.end(), e->transaction.written_files.begin(), e->transaction.written_files.end());
    }
  }
  auto attempt = [&]() -> Result<DoorOutcome> {
    OG_ASSIGN_OR_RETURN(std::vector<std::string> tables, TouchedTables(txn, effects));
    OG_FAILPOINT(failpoint::kGraphAfterStaging);

    // Gates in the fixed order: schema permit, branch, sorted tables.
    HeldGates gates(Gates::For(graph.uri()), door_options.schema_access, {txn.ref().branch},
                    tables);
    OG_RETURN_IF_ERROR(RecheckAuthority(graph, txn));

    // Commit each participant as a detached version of its pin.
    Publication publication;
    publication.ref = txn.ref();
    publication.expected_manifest_version = txn.authority_version();
    publication.expected_head = txn.authority_head();
    publication.intent_nonce = txn.intent_nonce();
    publication.actor_id = txn.actor_id();
    publication.created_at_us = txn.created_at_us();
    std::vector<CommittedTable> committed;
    OG_RETURN_IF_ERROR(CommitEffects(graph, txn, effects, &publication, &committed, &unpublished));

    if (door_options.proposal) {
      // Published as a proposal instead: the same rows, a detached version.
      OG_ASSIGN_OR_RETURN(Proposed proposed, Propose(graph, publication, *door_options.proposal));
      return DoorOutcome{Snapshot(&graph, proposed.state), proposed.state->head, std::move(proposed.tag)};
    }
    // The one publication.
    OG_ASSIGN_OR_RETURN(Published published, Publish(graph, publication));
    // In-memory bookkeeping only (nothing durable happens after the CAS):
    // this handle keeps the versions it just committed as opened pins, and
    // derives appended versions' data from the cached data of their base, so
    // its next read or write needs no store reads for them.
    for (const CommittedTable& c : committed) {
      const TableEntry* after = published.state->FindTable(c.before->table_key);
      if (after == nullptr) continue;
      graph.tables().RememberOpened(*after, c.tip);
      if (!c.appended.empty()) graph.tables().RememberAppend(*c.before, *after, c.appended);
    }
    return DoorOutcome{Snapshot(&graph, published.state), published.commit, std::nullopt};
  };
  Result<DoorOutcome> outcome = attempt();
  // A write that cannot have been published leaves nothing behind: its
  // staged files and detached versions are referenced by no version.
  if (!outcome.ok() && !PublicationMayHaveLanded(outcome.status())) DeleteUnpublished(graph.store().get(), unpublished);
  return outcome;
}

}  // namespace omnigraph::graph
