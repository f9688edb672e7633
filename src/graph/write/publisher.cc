#include "graph/write/publisher.h"

#include <algorithm>

#include <fmt/format.h>

#include "graph/history/commit_id.h"
#include "graph/history/history_segments.h"
#include "graph/proposals.h"
#include "io/unpublished_objects.h"
#include "table/commit.h"
#include "table/staging.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph::graph {
namespace {

// Applies the table effects of `p` to `next` (a copy of the captured
// state), checking each against the captured registration: pin updates,
// retirements, renames, then registrations.
Status ApplyTableEffects(const Publication& p, GraphState* next) {
  for (const TableUpdate& update : p.updates) {
    auto it = next->tables.find(update.table_key);
    std::string member = fmt::format("dataset_binding:{}", update.identity.ObjectId());
    if (it == next->tables.end() || !(it->second.identity == update.identity)) {
      return ReadSetChanged(member, update.table_key,
                            it == next->tables.end() ? "absent" : it->second.identity.ObjectId());
    }
    if (it->second.pin.published_version != update.expected_published_version) {
      return ReadSetChanged(member, std::to_string(update.expected_published_version),
                            std::to_string(it->second.pin.published_version));
    }
    TablePin pin = update.new_pin;
    uint64_t next_version = update.expected_published_version + 1;
    pin.published_version = update.pointer_switch ? std::max(pin.published_version, next_version) : next_version;
    // Copied forward: the highest linear version any pin of the table reached.
    pin.last_linear_version = std::max(it->second.pin.last_linear_version, pin.last_linear_version);
    it->second.pin = std::move(pin);
  }
  for (const RetireTable& retired : p.retirements) {
    auto it = next->tables.find(retired.table_key);
    if (it == next->tables.end() || !(it->second.identity == retired.identity)) {
      return ReadSetChanged(fmt::format("dataset_binding:{}", retired.identity.ObjectId()), retired.table_key,
                            it == next->tables.end() ? "absent" : it->second.identity.ObjectId());
    }
    next->tables.erase(it);
  }
  for (const RenameTable& rename : p.renames) {
    auto it = next->tables.find(rename.from_key);
    if (it == next->tables.end() || !(it->second.identity == rename.identity)) {
      return ReadSetChanged(fmt::format("dataset_binding:{}", rename.identity.ObjectId()), rename.from_key,
                            it == next->tables.end() ? "absent" : it->second.identity.ObjectId());
    }
    TableEntry entry = std::move(it->second);
    next->tables.erase(it);
    entry.table_key = rename.to_key;
    if (!next->tables.emplace(rename.to_key, std::move(entry)).second) {
      return Status(ErrorCode::kConflict,
                    fmt::format("cannot rename table '{}' to '{}': the name is taken on branch '{}'", rename.from_key,
                                rename.to_key, p.ref.branch),
                    {{"kind", "manifest_conflict"}});
    }
  }
  // Last, so a new type may take a name a retirement or rename freed.
  for (const TableEntry& entry : p.registrations) {
    if (next->tables.count(entry.table_key)) {
      return Status(ErrorCode::kConflict,
                    fmt::format("cannot register table '{}': the name is taken on branch '{}'", entry.table_key,
                                p.ref.branch),
                    {{"kind", "manifest_conflict"}});
    }
    next->tables.emplace(entry.table_key, entry);
  }
  if (p.schema) next->schema = *p.schema;
  return Status::OK();
}

// The new head commit of `p` on top of `parent`.
CommitRecord NewHead(const Publication& p, const CommitRecord& parent) {
  CommitRecord head;
  CommitAddress address = NextCommitAddress(parent, p.ref.name, p.intent_nonce);
  head.block = address.block;
  head.slot = address.slot;
  head.id = MakeCommitId(head.block, head.slot, p.intent_nonce);
  head.parent_id = parent.id;
  head.generation = parent.generation + 1;
  if (p.merged) {
    head.merged_parent_id = p.merged->source_head.id;
    head.generation = std::max(parent.generation, p.merged->source_head.generation) + 1;
  }
  head.actor_id = p.actor_id;
  head.created_at_us = p.created_at_us;
  if (!p.ref.is_main()) {
    head.graph_branch = p.ref.branch;
    head.native_branch = p.ref.name;
  }
  return head;
}

// The conditional commit of `staged` as __manifest M+1 holding `next`, and
// the resolution of its outcome.
Result<Published> CommitPublication(GraphStore& graph, const Publication& p, const table::StagedTransaction& staged,
                                    const table::CommitOptions& options, std::shared_ptr<const GraphState> next) {
  const CommitRecord& head = next->head;
  // After the CAS, every kVersionHintInterval-th version, only the
  // best-effort version hint (unsynced, errors ignored): a cold reader finds
  // the head from it with a few Heads instead of listing every retained
  // __manifest version (ManifestReader::LatestVersion).
  table::CommitOptions commit_options = options;
  commit_options.write_version_hint = next->manifest_version % kVersionHintInterval == 0;
  OG_FAILPOINT(failpoint::kGraphBeforeCas);
  auto committed = table::CommitLinear(staged, commit_options);
  Status failed = committed.ok() ? failpoint::Hit(failpoint::kGraphAfterCas) : committed.status();
  if (failed.ok()) {
    graph.manifests().Remember(p.ref, next->manifest_version,
                               std::make_shared<const ManifestVersion>(ManifestVersion{std::move(*committed), next}));
    return Published{next, head};
  }
  if (failed.code() == ErrorCode::kCommitConflict) {
    return ReadSetChanged(fmt::format("graph_head:{}", p.ref.branch), p.expected_head,
                          fmt::format("another commit at manifest version {}", head.manifest_version));
  }
  // M+1 is visible but its directory entry may not survive a power cut:
  // never acknowledged, and not undone either (readers may have seen it).
  if (auto d = failed.details().find(std::string(kDurabilityDetail));
      d != failed.details().end() && d->second == "unconfirmed") {
    return failed.WithDetail("outcome", "indeterminate").WithDetail("commit", head.id);
  }
  // A lost acknowledgement: the put-if-absent of M+1 may have landed before
  // the error. Resolve it against the exact attempted version: it holds this
  // commit (published), is absent or holds another commit (not published),
  // or cannot be read (indeterminate).
  auto landed = graph.manifests().At(p.ref, head.manifest_version);
  if (landed.ok() && (*landed)->state->head.id == head.id) return Published{(*landed)->state, head};
  if (!landed.ok() && landed.status().code() != ErrorCode::kNotFound) {
    return failed.WithDetail("outcome", "indeterminate").WithDetail("commit", head.id);
  }
  return failed;
}

// The history of `next` once `previous_head` settles into `from`'s buffer;
// a new segment is written (unsynced: its keys join `*sync` and `*written`).
Status SettleInto(GraphStore& graph, const GraphState& from, const CommitRecord& previous_head,
                  const std::optional<MergedParent>& merged, GraphState* next, std::vector<std::string>* sync,
                  std::vector<std::string>* written, std::shared_ptr<HistorySegment>* new_segment) {
  static const std::vector<CommitRecord> kNoRecords;
  static const std::vector<std::string> kNoSegments;
  OG_ASSIGN_OR_RETURN(SettledHistory history,
                      SettleHistory(graph.history(), from, previous_head, merged ? merged->imported : kNoRecords,
                                    merged ? merged->imported_segments : kNoSegments));
  next->settled = std::move(history.settled);
  next->history_segments = std::move(history.segments);
  if (history.new_segment) {
    std::vector<std::string> segment_keys;
    OG_RETURN_IF_ERROR(graph.history().Write(*history.new_segment, &segment_keys));
    written->insert(written->end(), segment_keys.begin(), segment_keys.end());
    sync->insert(sync->end(), segment_keys.begin(), segment_keys.end());
  }
  *new_segment = std::move(history.new_segment);
  return Status::OK();
}

// The candidate commit of an unattached snapshot on `base` (BR-12.1): its
// id is the intent nonce, it never gets a history-block address.
CommitRecord UnattachedHead(const Publication& p, const GraphState& base) {
  CommitRecord head;
  head.id = p.intent_nonce;
  head.parent_id = base.head.id;
  head.generation = base.head.generation + 1;
  head.actor_id = p.actor_id;
  head.created_at_us = p.created_at_us;
  if (!p.ref.is_main()) {
    head.graph_branch = p.ref.branch;
    head.native_branch = p.ref.name;
  }
  head.manifest_version = base.manifest_version + 1;
  return head;
}

// Creates `tag` at `version` put-if-absent. An ambiguous failure is
// resolved by reading the tag back: at `version` it is success, elsewhere
// an integrity error, unreadable manifest_publish_in_doubt.
Status CreateTagConfirmed(GraphStore& graph, const table::Dataset& manifest, const std::string& tag, uint64_t version,
                          const std::optional<std::string>& branch) {
  Status created = manifest.CreateTag(tag, version, branch);
  if (created.ok()) return created;
  auto back = graph.manifests().AtTag(tag);
  if (back.ok()) {
    if ((*back)->dataset.version() == version) return Status::OK();
    return Internal(fmt::format("proposal tag '{}' exists at another __manifest version", tag));
  }
  if (created.code() == ErrorCode::kAlreadyExists || back.status().code() == ErrorCode::kNotFound) return created;
  return created.WithDetail("kind", "manifest_publish_in_doubt");
}

}  // namespace

Status ReadSetChanged(std::string member, std::string expected, std::string actual) {
  return Status(ErrorCode::kReadSetChanged,
                fmt::format("read set changed: {} was '{}' when the write was prepared and is now '{}'", member,
                            expected, actual),
                {{"member", member}, {"expected", expected}, {"actual", actual}});
}

bool PublicationMayHaveLanded(const Status& failure) {
  const auto& details = failure.details();
  auto outcome = details.find("outcome");
  return (outcome != details.end() && outcome->second == "indeterminate") ||
         details.count(std::string(kDurabilityDetail)) > 0;
}

Result<Published> Publish(GraphStore& graph, const Publication& p) {
  // The captured version M is the base. Whether M is still the latest is
  // decided by the put-if-absent of M+1 below, the only check that holds
  // across processes; re-reading the latest version first would only add a
  // store call. Liveness is not probed again either: the writer confirmed
  // its ref under the branch's writers lock, and a deletion that overtakes
  // it anyway is ordered after this commit, which lands on the retired tree.
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr base, graph.manifests().At(p.ref, p.expected_manifest_version));
  const GraphState& current = *base->state;
  if (current.head.id != p.expected_head) {
    return ReadSetChanged(fmt::format("graph_head:{}", p.ref.branch), p.expected_head, current.head.id);
  }

  auto next = std::make_shared<GraphState>(current);
  OG_RETURN_IF_ERROR(ApplyTableEffects(p, next.get()));
  next->head = NewHead(p, current.head);
  next->head.manifest_version = current.manifest_version + 1;
  next->manifest_version = next->head.manifest_version;

  std::vector<std::string> written;  // this publication's own objects
  table::CommitOptions options;
  options.sync_with = p.sync_with;
  std::shared_ptr<HistorySegment> new_segment;
  OG_RETURN_IF_ERROR(
      SettleInto(graph, current, current.head, p.merged, next.get(), &options.sync_with, &written, &new_segment));
  auto encoded = EncodeGraphState(*next);
  if (!encoded.ok()) {
    DeleteUnpublished(graph.store().get(), written);
    return encoded.status();
  }
  auto staged = table::StageOverwrite(base->dataset, {*encoded});
  if (!staged.ok()) {
    DeleteUnpublished(graph.store().get(), written);
    return staged.status();
  }
  written.insert(written.end(), staged->written_files.begin(), staged->written_files.end());
  // Only this engine writes __manifest and it never resolves conflicts by
  // rebasing, so nothing reads a transaction file there: the transaction
  // inline in the manifest suffices, saving a file and its sync barrier.
  options.write_transaction_file = false;
  Result<Published> published = CommitPublication(graph, p, *staged, options, next);
  if (!published.ok() && !PublicationMayHaveLanded(published.status())) {
    DeleteUnpublished(graph.store().get(), written);
  }
  if (published.ok() && new_segment) graph.history().Remember(std::move(new_segment));
  return published;
}

Result<Proposed> Propose(GraphStore& graph, const Publication& p, const ProposalForm& form) {
  OG_RETURN_IF_ERROR(graph.manifests().CheckLive(p.ref));
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr base, graph.manifests().At(p.ref, p.expected_manifest_version));
  const GraphState& current = *base->state;
  if (current.head.id != p.expected_head) {
    return ReadSetChanged(fmt::format("graph_head:{}", p.ref.branch), p.expected_head, current.head.id);
  }
  const GraphState& from = form.base ? *form.base : current;
  auto next = std::make_shared<GraphState>(from);
  OG_RETURN_IF_ERROR(ApplyTableEffects(p, next.get()));
  ProposalRecipe recipe;
  recipe.target = p.ref;
  recipe.captured_manifest_version = p.expected_manifest_version;
  recipe.captured_head = p.expected_head;
  if (form.unattached) {
    next->head = UnattachedHead(p, from);
    recipe.version = 2;
    recipe.root = form.root.value_or(next->head.id);
    recipe.parent = from.head.id;
  } else {
    // Exactly the commit an ordinary publication on the captured head makes.
    next->head = NewHead(p, current.head);
    next->head.manifest_version = current.manifest_version + 1;
  }
  recipe.id = next->head.id;
  next->manifest_version = next->head.manifest_version;

  std::vector<std::string> written;  // this proposal's own objects
  table::CommitOptions options;
  options.sync_with = p.sync_with;
  std::shared_ptr<HistorySegment> new_segment;
  auto fail = [&](Status failure) {
    DeleteUnpublished(graph.store().get(), written);
    return failure;
  };
  Status settled = SettleInto(graph, from, from.head, form.unattached ? std::nullopt : p.merged, next.get(),
                              &options.sync_with, &written, &new_segment);
  if (!settled.ok()) return fail(settled);
  auto encoded = EncodeGraphState(*next);
  if (!encoded.ok()) return fail(encoded.status());
  table::StageOptions stage;
  stage.properties[std::string(kUnpublishedCommitProperty)] = EncodeProposalRecipe(recipe);
  auto staged = table::StageOverwrite(base->dataset, {*encoded}, std::nullopt, stage);
  if (!staged.ok()) return fail(staged.status());
  written.insert(written.end(), staged->written_files.begin(), staged->written_files.end());
  OG_FAILPOINT(failpoint::kProposeBeforeDetached);
  auto detached = table::CommitDetached(*staged, options);
  if (!detached.ok()) return fail(detached.status());
  written.push_back(detached->manifest_path());
  std::string tag = form.unattached ? UnattachedTagName(*recipe.root, recipe.id) : UnpublishedTagName(recipe.id);
  Status tagged = CreateTagConfirmed(graph, base->dataset, tag, detached->version(), p.ref.lance_branch());
  if (!tagged.ok()) {
    if (tagged.details().count("kind")) return tagged;  // in doubt: leave everything for cleanup
    return fail(tagged);
  }
  OG_FAILPOINT(failpoint::kProposeAfterTag);
  // Acknowledged only while the target's authority is still the captured one.
  Status live = graph.manifests().CheckLive(p.ref);
  auto latest = live.ok() ? graph.manifests().LatestVersion(p.ref, /*confirm_known=*/false) : Result<uint64_t>(live);
  if (!latest.ok() || *latest != p.expected_manifest_version) {
    auto removed = base->dataset.DeleteTag(tag);
    (void)removed;  // an expired proposal's tag is cleanup's otherwise
    if (!latest.ok()) return latest.status();
    return ReadSetChanged(fmt::format("graph_head:{}", p.ref.branch), std::to_string(p.expected_manifest_version),
                          std::to_string(*latest));
  }
  if (new_segment) graph.history().Remember(std::move(new_segment));
  return Proposed{std::move(next), std::move(tag)};
}

Result<Published> PublishProposed(GraphStore& graph, const NativeRef& target, const std::string& captured_head,
                                  const GraphState& proposal) {
  OG_RETURN_IF_ERROR(graph.manifests().CheckLive(target));
  OG_ASSIGN_OR_RETURN(uint64_t latest, graph.manifests().LatestVersion(target));
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr base, graph.manifests().At(target, latest));
  const GraphState& current = *base->state;
  if (current.head.id != captured_head) {
    return ReadSetChanged(fmt::format("graph_head:{}", target.branch), captured_head, current.head.id);
  }
  const CommitRecord& candidate = proposal.head;
  std::string nonce = candidate.id.substr(candidate.id.rfind('.') + 1);
  CommitAddress address = NextCommitAddress(current.head, target.name, nonce);
  std::string recomputed = MakeCommitId(address.block, address.slot, nonce);
  if (recomputed != candidate.id) {
    return Internal(fmt::format("commit id recomputed as '{}', not '{}'", recomputed, candidate.id));
  }
  auto next = std::make_shared<GraphState>(proposal);
  next->branch = current.branch;
  next->branch_identity = current.branch_identity;
  next->manifest_version = current.manifest_version + 1;
  next->head.manifest_version = next->manifest_version;

  Publication p;
  p.ref = target;
  p.expected_manifest_version = current.manifest_version;
  p.expected_head = captured_head;
  OG_ASSIGN_OR_RETURN(RecordBatchPtr encoded, EncodeGraphState(*next));
  OG_ASSIGN_OR_RETURN(table::StagedTransaction staged, table::StageOverwrite(base->dataset, {encoded}));
  table::CommitOptions options;
  options.write_transaction_file = false;
  Result<Published> published = CommitPublication(graph, p, staged, options, next);
  if (!published.ok() && !PublicationMayHaveLanded(published.status())) {
    DeleteUnpublished(graph.store().get(), staged.written_files);
  }
  return published;
}

}  // namespace omnigraph::graph
