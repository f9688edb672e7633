// The embedded C++ API: one handle per graph. Every front end (CLI, server)
// goes through it (architecture.md §2 api).
//
// Reads resolve one snapshot (branch + __manifest version) and read every
// table at its pin; writes go through the one publication door
// (graph/write/door.h). Errors are typed Status values (util/status.h) with
// stable codes and HTTP statuses.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/engine.h"
#include "exec/blob_read.h"
#include "exec/blob_value.h"
#include "exec/catalog_cache.h"
#include "exec/export.h"
#include "exec/changes/baseline.h"
#include "exec/changes/change_feed.h"
#include "exec/changes/commit_changes.h"
#include "exec/changes/snapshot_diff.h"
#include "exec/loader.h"
#include "exec/proposal_control.h"
#include "exec/repair.h"
#include "exec/result_format.h"
#include "exec/writers/optimize.h"
#include "exec/writers/schema_apply.h"
#include "graph/graph_store.h"
#include "graph/maintenance/collector.h"
#include "policy/evaluate.h"

namespace omnigraph::compiler {
class Catalog;
namespace ir {
struct QueryIR;
}
}

namespace omnigraph::api {

enum class LoadMode { kOverwrite, kAppend, kMerge };

// Parses "overwrite" | "append" | "merge".
std::optional<LoadMode> ParseLoadMode(std::string_view name);
std::string_view LoadModeName(LoadMode mode);

struct TypeCount {
  std::string name;
  uint64_t entities_loaded = 0;
};

struct LoadReport {
  std::string branch = "main";
  bool branch_created = false;  // `load --branch B --from BASE` created B
  LoadMode mode = LoadMode::kMerge;
  std::vector<TypeCount> nodes;  // sorted by name; counts input records
  std::vector<TypeCount> edges;
  uint64_t total_entities = 0;
  std::optional<graph::CommitRecord> commit;
};

struct MutationReport {
  std::string branch = "main";
  std::string query_name;
  uint64_t affected_nodes = 0;
  uint64_t affected_edges = 0;
  std::optional<graph::CommitRecord> commit;  // nullopt when nothing changed
  // false for a mutation declared `as commit` / `as unattached branch`:
  // `commit` is the proposal's candidate (BR-11.1, BR-12.2).
  bool published = true;
  std::optional<std::string> unattached_root;
};

struct DatasetInfo {
  std::string entity_kind;  // "node" | "edge"
  std::string type_name;
  std::string dataset_path;
  uint64_t published_dataset_version = 0;
  uint64_t entity_count = 0;
};

struct SnapshotInfo {
  std::string graph_branch = "main";
  uint64_t graph_manifest_version = 0;
  uint32_t internal_schema_version = graph::kStorageStamp;
  std::string head_commit_id;
  std::vector<DatasetInfo> datasets;  // sorted by internal key
};

// Where a read happens (spec/branches.md BR-7): the latest state of a
// branch, or the snapshot a commit heads (then `branch` is ignored).
struct ReadTarget {
  std::string branch = "main";
  std::optional<std::string> snapshot;  // a graph commit id
};

struct BranchCreateReport {
  std::string uri;
  std::string from;
  std::string name;
  std::optional<std::string> actor_id;
};

struct BranchMergeOptions {
  // After a successful merge (any outcome), delete the source as
  // BranchDelete would; a refusal never fails the merge (BR-9.10).
  bool delete_branch = false;
  // BR-11.1: write the merge commit as an unpublished commit. Refused
  // together with delete_branch.
  bool as_commit = false;
};

struct BranchMergeReport {
  std::string source;
  std::string target;
  std::string outcome;  // already_up_to_date | fast_forward | merged
  std::optional<std::string> actor_id;
  std::optional<graph::CommitRecord> commit;  // null for already_up_to_date
  bool published = true;  // false for a merge as commit (commit: the proposal)
  // Set only when delete_branch was asked: whether the source was deleted,
  // and the refusal's message when it was not.
  std::optional<bool> branch_deleted;
  std::optional<std::string> branch_delete_error;
};

// Where a Blob read happened (surface.md §5.2 `blob stat` `target`).
struct BlobTargetInfo {
  std::optional<std::string> branch;    // set for a branch target
  std::optional<std::string> snapshot;  // set for a snapshot target: the commit id given
  // The snapshot read: its head commit id, or for a head-less view the
  // synthetic `manifest:<branch>:v<N>` (engine.md §1.7; output only).
  std::string resolved_snapshot;
};

// What `blob stat` reports about one Blob cell.
struct BlobInfo {
  exec::BlobSelector selector;  // as resolved (an edge type in its canonical spelling)
  bool external = false;        // kind "external" (else "managed")
  std::optional<uint64_t> size;     // managed only
  std::optional<std::string> etag;  // managed only: strong, quoted content tag
  std::optional<std::string> uri;   // external only
  BlobTargetInfo target;
};

// One ranged read of a Blob cell (`blob get`).
struct BlobBytes {
  BlobInfo info;
  // Managed: the half-open range of the value `bytes` holds. External:
  // both 0 and `bytes` empty (the caller redirects to info.uri or refuses).
  uint64_t start = 0;
  uint64_t end = 0;
  std::string bytes;
};

class Omnigraph {
 public:
  // Creates a graph in directory `uri` (created if missing) from `.pg`
  // source (surface §5.2 init). A directory holding root schema files of a
  // legacy graph (`_schema.pg`, `_schema.ir.json`, `__schema_state.json`)
  // but no `__manifest` is refused unless `replace_orphan_schema_files`,
  // which deletes them first. Errors: compiler errors (InvalidArgument,
  // "parse error: …" / "catalog error: …" naming file:line:column),
  // AlreadyExists (details kind=already_initialized) for an existing graph
  // or orphan schema files, IoError. `engine`: as for Open.
  static Result<std::unique_ptr<Omnigraph>> Init(const std::string& uri, std::string_view schema_source,
                                                 std::string_view schema_file = "schema.pg",
                                                 bool replace_orphan_schema_files = false, EnginePtr engine = nullptr);
  // Opens an existing graph. `engine` holds the caches the handle reads
  // through, shared with every handle opened with it (api/engine.h);
  // nullptr: Engine::Process(). Errors: NotFound, Unsupported (stamp),
  // CorruptData.
  static Result<std::unique_ptr<Omnigraph>> Open(const std::string& uri, EnginePtr engine = nullptr);

  ~Omnigraph();

  const std::string& uri() const { return uri_; }

  // The actor recorded on every commit this handle makes (the CLI's
  // `--as`); nullopt records none. Reads ignore it.
  // Errors: InvalidArgument when `actor` is not valid UTF-8 or holds a
  // control character (it is stored as JSON text and printed one per line);
  // the previous actor stays.
  Status set_actor(std::optional<std::string> actor);
  // The check set_actor applies, for front ends that validate early.
  static Status ValidateActorId(std::string_view actor);
  const std::optional<std::string>& actor() const { return actor_; }
  // The engine-layer policy gate (spec/server.md §2.4 "Engine gate"; the
  // `*_as` writers): with a bundle installed, every mutating entry point
  // (Mutate, Load, BranchCreate, BranchDelete, BranchMerge, ApplySchema,
  // CommitPublish, CommitDrop) first decides its action for this handle's
  // actor, with the branch names normalized as the writers normalize them,
  // and refuses with PolicyDenied (403) and the decision's message; with no
  // actor set it refuses with PolicyDenied "no actor for engine-layer
  // policy check of action '<a>'; …". Null (the default) disables the gate.
  // The server installs its graph bundle here, so a write that passed the
  // HTTP check is checked again where it takes effect.
  void set_policy(std::shared_ptr<const policy::Evaluator> policy) { policy_ = std::move(policy); }
  // The branch this handle is bound to (BR-3.3: it cannot be deleted
  // through this handle). CLI and server handles stay bound to main.
  void set_bound_branch(std::string branch) { bound_branch_ = std::move(branch); }
  const std::string& bound_branch() const { return bound_branch_; }
  graph::GraphStore& store() { return *graph_; }

  // The accepted schema (compiled from main's schema contract).
  Result<std::shared_ptr<const compiler::Catalog>> Catalog();
  Result<std::string> SchemaSource();

  // `schema plan` (spec/surface.md §1.9, §5.2): the steps from main's
  // accepted schema to `source` (a .pg text named `source_file` in errors);
  // changes nothing. Errors: those of exec::PlanSchema.
  Result<exec::SchemaChangeResult> PlanSchema(std::string_view source, std::string_view source_file,
                                              bool allow_data_loss);
  // `schema apply`: plans and applies on main, metadata only, as one main
  // commit recording this handle's actor. Errors: those of exec::ApplySchema
  // (unsupported steps, live non-main branches, a moved head).
  Result<exec::SchemaChangeResult> ApplySchema(std::string_view source, std::string_view source_file,
                                               bool allow_data_loss);

  // Strict NDJSON load (spec/surface.md §4): validates everything, then one
  // atomic commit on `branch`. `file_name` names the input in errors
  // ("data.jsonl:7: …"). `progress`, when set, is called every
  // exec::kLoadProgressLines lines with (bytes read, total bytes).
  // `create_from`: a missing `branch` is first created from this branch
  // (BR-3.1 `load --branch B --from BASE`); without it a missing branch is
  // NotFound. Errors: those of exec::RunLoad and graph::CreateBranch.
  // `syntax` kLegacy reads `data` as the loader-compatible syntax of HTTP
  // /load and /ingest, CLI `ingest` and the SDK's load_as (§4.6,
  // exec/legacy_records.h); its errors cite "record N" and `file_name` is
  // unused. Everything past parsing is the same for both.
  Result<LoadReport> Load(std::string_view data, std::string_view file_name, LoadMode mode,
                          const std::string& branch = "main", const exec::LoadProgress& progress = {},
                          const std::optional<std::string>& create_from = std::nullopt,
                          exec::LoadSyntax syntax = exec::LoadSyntax::kStrict);

  // Runs read query `name` from `.gq` source (the only query when `name` is
  // empty) against `target`. `params_json` is a JSON object. Historical
  // reads type-check against the current accepted schema (BR-7).
  // Errors: compiler errors; NotFound (unknown branch or commit);
  // InvalidArgument (an `hb1.` id that does not parse); HistoryGap;
  // VersionReclaimed; storage errors.
  Result<exec::QueryResult> Query(std::string_view source, std::string_view source_file, const std::string& name,
                                  std::string_view params_json, const ReadTarget& target = {});
  // The same against manifest version `version` of `branch` (BR-7 "by
  // manifest version"). Errors: NotFound "graph manifest version <v> not
  // found on branch '<b>'", and those of Query.
  Result<exec::QueryResult> QueryAt(const std::string& branch, uint64_t version, std::string_view source,
                                    std::string_view source_file, const std::string& name,
                                    std::string_view params_json);

  // Runs mutation `name` on `branch`; an empty `branch` is "not given":
  // main, or for `as unattached branch on "<P>"` P's recorded target (a
  // given branch other than that target is InvalidArgument, BR-12.1).
  // `if_commit`: publish only if the branch head is
  // still that commit; otherwise PreconditionFailed (412, no effect, never
  // retried) with the message "precondition failed on branch '<b>':
  // expected head '<if_commit>' but current is <head>" and details branch,
  // expected and actual (branches.md BR-8).
  Result<MutationReport> Mutate(std::string_view source, std::string_view source_file, const std::string& name,
                                std::string_view params_json, const std::string& branch = "main",
                                const std::optional<std::string>& if_commit = std::nullopt);

  // NDJSON export (spec/surface.md §4.5) of `target`; `types` empty = every
  // type. The graph root is reserved for the export's whole run, shared
  // (io/export_exclusion.h): a `cluster apply` deleting this graph meanwhile
  // is refused with graph_delete_export_in_progress. Errors: Conflict
  // (detail reason = graph_root_deleting) while a delete of the root is
  // running, NotFound when it has removed the root; those of resolving the
  // target as Query does; InvalidArgument "unknown export type 'T'";
  // storage errors.
  Result<std::string> Export(const ReadTarget& target, const std::vector<std::string>& types);
  Result<std::string> Export(const std::string& branch, const std::vector<std::string>& types) {
    return Export(ReadTarget{branch, std::nullopt}, types);
  }
  // The same export handed to `sink` piece by piece (exec::ExportGraphTo):
  // the target is resolved and the types checked before the first piece,
  // so every ordinary failure comes before any output. Errors: as Export,
  // and the sink's own (which stop the export).
  Status ExportTo(const ReadTarget& target, const std::vector<std::string>& types, const exec::ExportSink& sink);

  Result<SnapshotInfo> Snapshot(const std::string& branch = "main");
  // BR-7: the snapshot at `version` of `branch`.
  Result<SnapshotInfo> SnapshotAt(const std::string& branch, uint64_t version);
  // BR-7: one entity of `type_key` ("node:Person") as of `version` of
  // `branch`, as a one-row batch of its table (nullptr when absent then).
  Result<RecordBatchPtr> EntityAt(const std::string& branch, const std::string& type_key, const std::string& id,
                                  uint64_t version);

  // BR-6.1: `branch`'s reachable commits, newest first.
  Result<std::vector<graph::CommitRecord>> ListCommits(const std::string& branch = "main");
  // BR-6.2: the commit `id`, looked up in the bound branch, then every live branch.
  Result<graph::CommitRecord> ShowCommit(const std::string& id);

  // BR-6.2 with the Ext fields: the published commit `id`, else the live
  // unpublished commit or unattached snapshot `id` (published false;
  // BR-11.2, BR-12.3). Errors: those of exec::ShowCommitOrProposal
  // (NotFound "commit '<id>' not found" also for an expired or dropped
  // proposal; InvalidArgument for an `hb1.` id that does not parse).
  Result<exec::CommitView> DescribeCommit(const std::string& id);

  // ---- Unpublished commits and unattached snapshots (spec/branches.md
  // BR-11 Ext-P, BR-12 Ext-U). They are written by mutations declared
  // `as commit` / `as unattached branch [on "<id>"]` (Mutate) and by
  // BranchMerge with as_commit; reads reach them by id (ReadTarget
  // snapshot, CommitChanges, DescribeCommit).

  // BR-11.3: publishes the unpublished commit `id` on its recorded target
  // as one ordinary commit with the same id, pins and parents, and removes
  // its tag; an already published `id` answers that commit (idempotent).
  // Errors: NotFound "commit '<id>' not found"; Conflict (409) "commit
  // '<id>' is an unattached snapshot and cannot be published" (detail
  // commit_refusal); PreconditionFailed (412, details expected = captured
  // parent, actual = current head) when the target's head moved;
  // InvalidArgument for an unparsable `hb1.` id; Internal when the id
  // recomputes differently (exec::PublishCommit).
  Result<exec::CommitView> CommitPublish(const std::string& id);
  // BR-11.4, BR-12.4: drops the proposal `id` (an unattached snapshot with
  // its subtree, children first) and returns the dropped ids in removal
  // order. Errors: Conflict (409) "commit '<id>' is published and cannot
  // be dropped"; NotFound "commit '<id>' not found" (unknown, dropped,
  // expired unattached); InvalidArgument for an unparsable `hb1.` id.
  Result<std::vector<std::string>> CommitDrop(const std::string& id);
  // BR-11.5: `branch`'s live unpublished commits and unattached snapshots,
  // newest first (created_at, then id, descending). Errors: InvalidArgument
  // (empty or reserved name), NotFound (kind branch_not_found).
  Result<std::vector<exec::CommitView>> ListUnpublished(const std::string& branch = "main");

  // ---- Blobs (spec/surface.md §1.3, §5.2 `blob get` / `blob stat`;
  // engine.md §5.3). Implemented in api/blob.cc.

  // The Blob cell `selector` names at `target` (read as Query resolves
  // it, against the schema of the snapshot read). Errors: those of
  // resolving the target (NotFound unknown branch or commit,
  // InvalidArgument, HistoryGap); those of exec::ReadBlobCell
  // (InvalidArgument bad entity or non-Blob property; NotFound unknown
  // type, property or id, and "… is null" for a NULL cell); storage errors.
  Result<BlobInfo> BlobStat(const exec::BlobSelector& selector, const ReadTarget& target = {});
  // BlobStat plus the bytes of `range` of a managed value: at most 4 MiB
  // per call (no length: from the offset to the end, clamped to 4 MiB;
  // read on from `end`). The range is checked before anything is read
  // (exec::CheckBlobRange: InvalidArgument for length 0 or an overflowing
  // end, ResourceLimitExceeded "Blob read range bytes" above 4 MiB); a
  // start at or past the end of a non-empty value is
  // BlobRangeNotSatisfiable (416, details start, end, length). An external
  // value answers its URI with no bytes. Errors: also those of BlobStat.
  Result<BlobBytes> BlobGet(const exec::BlobSelector& selector, const ReadTarget& target = {},
                            const exec::BlobRangeRequest& range = {});

  // The policy admitting external Blob URIs in this handle's loads and
  // mutations (engine.md §5.3; default: deny every URI). Build it with
  // exec::ExternalBlobPolicy::Allow.
  void set_external_blob_policy(exec::ExternalBlobPolicy policy) { blob_policy_ = std::move(policy); }
  const exec::ExternalBlobPolicy& external_blob_policy() const { return blob_policy_; }

  // BR-3: branch control (graph/branches.h for the errors).
  Result<BranchCreateReport> BranchCreate(const std::string& name, const std::string& from = "main");
  Result<std::vector<std::string>> BranchList();
  Status BranchDelete(const std::string& name);
  // BR-9: merges `source` into `target`. Errors: InvalidArgument "--as-commit
  // cannot be combined with --delete-branch" (BR-11.1) before anything
  // runs; those of exec::RunBranchMerge (the delete that `options` may ask
  // for never fails the merge: its refusal is reported in the report).
  Result<BranchMergeReport> BranchMerge(const std::string& source, const std::string& target = "main",
                                        const BranchMergeOptions& options = {});

  // ---- Maintenance (spec/engine.md §8; surface.md §5.2).

  // §8.1: compacts every table of main (exec::RunOptimize) and publishes
  // at most one main commit, recorded with this handle's actor; the report
  // lists every table by key. Errors: those of exec::RunOptimize
  // (ReadSetChanged when another writer published on main meanwhile:
  // nothing was published, run again).
  Result<exec::OptimizeResult> Optimize();
  // §8.3: the read-only drift classification of main's tables
  // (exec::ClassifyDrift); never writes. Errors: those of ClassifyDrift.
  Result<std::vector<exec::TableDrift>> Repair();
  // engine.md §8.2, surface.md §5.2 `cleanup`: runs the tracing collector
  // (graph/maintenance/collector.h) under `policy`; without
  // policy.confirm it only plans and reports (a preview). Reads of what it
  // reclaimed then answer VersionReclaimed (BR-7) or ChangeFeedGap.
  // Errors: those of graph::RunCleanup (InvalidArgument without a policy,
  // Conflict kind cleanup_view_changed, storage errors).
  Result<graph::CleanupReport> Cleanup(const graph::CleanupPolicy& policy);

  // ---- Diffs and the change feed (spec/branches.md BR-10; wire forms in
  // api/wire/changes_json.h).

  // BR-10.1: one page of the entity changes commit `id` made against its
  // first parent (the commit is looked up as ShowCommit does).
  // Errors: those of ShowCommit (NotFound "commit '<id>' not found",
  // InvalidArgument for an `hb1.` id that does not parse); then those of
  // exec::ListCommitChanges: ChangeDiffRefused (409) with detail reason
  // parentless_commit for genesis or schema_boundary (plus type_name);
  // InvalidArgument for a zero limit; ResourceLimitExceeded (413) above
  // 8,192 changes or 32 MiB per page; ChangeCursorRejected (400, "change
  // cursor rejected: …") for a damaged, foreign-commit or other-filter
  // page token; ChangeFeedGap (410, detail first_unreadable_commit_id)
  // when the commit or its parent can no longer be read; storage errors.
  Result<exec::CommitChangesPage> CommitChanges(const std::string& id, const exec::CommitChangesRequest& request = {});

  // BR-10.2: one page of `branch`'s change feed from `position` (exactly
  // one of cursor, start, page_token; none = start "now").
  // Errors: InvalidArgument for an empty or reserved branch name, several
  // positions ("cursor, start, and page_token are mutually exclusive"), an
  // unknown start ("start must be now | beginning | after:<commit_id>") or
  // zero limits; ResourceLimitExceeded (413) above the page ceilings or
  // 512 commits per poll; ChangeCursorRejected (400) for a start commit off
  // the first-parent chain or a cursor/page token that is damaged, of
  // another kind, or bound to another graph, branch, branch incarnation or
  // filter; ChangeFeedGap (410, details cursor and
  // first_unreadable_commit_id) and ChangeDiffRefused (409) when the poll's
  // first commit cannot be diffed (a later one ends the page, terminal with
  // caught_up false); NotFound (kind branch_not_found); storage errors.
  Result<exec::ChangeFeedPage> ChangesPoll(const std::string& branch, const exec::FeedPosition& position = {},
                                           const exec::ChangeFeedRequest& request = {});

  // BR-10.3: the export of `branch`'s head restricted to the filter's kinds
  // and types, its commit id, and the cursor that resumes the feed right
  // after it (bound to the whole filter, ops included).
  // The graph root is reserved while the baseline is read, as Export's is.
  // Errors: InvalidArgument for an empty or reserved branch name; NotFound
  // (kind branch_not_found); Conflict (detail reason = graph_root_deleting)
  // while a delete of the root is running; storage errors (VersionReclaimed).
  Result<exec::ChangeBaseline> ChangesBaseline(const std::string& branch, const exec::ChangeFilter& filter = {});

  // BR-10.4: the net entity difference between two read targets (any
  // branches or commits), in table-key order.
  // Errors: those of resolving each target as Query does (NotFound,
  // InvalidArgument, HistoryGap); VersionReclaimed when a compared table
  // version is gone; storage errors.
  Result<exec::ChangeSet> DiffBetween(const ReadTarget& from, const ReadTarget& to,
                                      const exec::ChangeFilter& filter = {});
  // BR-10.4: DiffBetween of the snapshots commits `a` and `b` head.
  // Errors: those of DiffBetween.
  Result<exec::ChangeSet> DiffCommits(const std::string& a, const std::string& b,
                                      const exec::ChangeFilter& filter = {});

 private:
  Omnigraph(std::string uri, EnginePtr engine, std::shared_ptr<graph::GraphStore> graph);
  // The snapshot a read target names (BR-7).
  Result<graph::Snapshot> Resolve(const ReadTarget& target);
  Result<exec::QueryResult> QuerySnapshot(const graph::Snapshot& snapshot, std::string_view source,
                                          std::string_view source_file, const std::string& name,
                                          std::string_view params_json);

  // The engine gate (set_policy): OK, or PolicyDenied.
  Status Enforce(policy::Action action, std::optional<std::string> branch,
                 std::optional<std::string> target_branch) const;
  // The gate for publishing or dropping proposal `id`: change on its branch.
  Status EnforceChangeOfCommit(const std::string& id);

  std::string uri_;
  EnginePtr engine_;
  std::shared_ptr<graph::GraphStore> graph_;
  std::optional<std::string> actor_;
  std::shared_ptr<const policy::Evaluator> policy_;
  std::string bound_branch_ = "main";
  exec::CatalogCache catalogs_;
  exec::ExternalBlobPolicy blob_policy_;  // default: deny
};

// The SnapshotInfo of `snapshot` (datasets sorted by table key).
SnapshotInfo DescribeSnapshot(const graph::Snapshot& snapshot);

}  // namespace omnigraph::api
