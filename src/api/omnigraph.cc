#include "api/omnigraph.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/catalog.h"
#include "exec/schema_binding.h"
#include "compiler/params.h"
#include "compiler/source.h"
#include "compiler/typecheck.h"
#include "exec/export.h"
#include "exec/loader.h"
#include "exec/query_executor.h"
#include "exec/writers/branch_merge.h"
#include "exec/writers/load_writer.h"
#include "exec/writers/mutation_writer.h"
#include "graph/branches.h"
#include "graph/init.h"
#include "graph/proposals.h"
#include "graph/read_target.h"
#include "io/export_exclusion.h"
#include "io/local_store.h"

namespace omnigraph::api {
namespace {

exec::LoadMode ToExecMode(LoadMode mode) {
  switch (mode) {
    case LoadMode::kOverwrite: return exec::LoadMode::kOverwrite;
    case LoadMode::kAppend: return exec::LoadMode::kAppend;
    case LoadMode::kMerge: return exec::LoadMode::kMerge;
  }
  return exec::LoadMode::kMerge;
}

}  // namespace

std::optional<LoadMode> ParseLoadMode(std::string_view name) {
  if (name == "overwrite") return LoadMode::kOverwrite;
  if (name == "append") return LoadMode::kAppend;
  if (name == "merge") return LoadMode::kMerge;
  return std::nullopt;
}

std::string_view LoadModeName(LoadMode mode) {
  switch (mode) {
    case LoadMode::kOverwrite: return "overwrite";
    case LoadMode::kAppend: return "append";
    case LoadMode::kMerge: return "merge";
  }
  return "?";
}

Omnigraph::Omnigraph(std::string uri, EnginePtr engine, std::shared_ptr<graph::GraphStore> graph)
    : uri_(std::move(uri)), engine_(std::move(engine)), graph_(std::move(graph)) {}

Omnigraph::~Omnigraph() = default;

Status Omnigraph::ValidateActorId(std::string_view actor) {
  if (compiler::FirstInvalidUtf8(actor) != std::string_view::npos) {
    return InvalidArgument(fmt::format("the actor id {} is not valid UTF-8", compiler::EscapeForDisplay(actor)));
  }
  if (std::any_of(actor.begin(), actor.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; })) {
    std::string shown = compiler::EscapeForDisplay(actor);
    // EscapeForDisplay keeps tabs; the refusal names every control character.
    for (size_t at = shown.find('\t'); at != std::string::npos; at = shown.find('\t', at + 4)) shown.replace(at, 1, "\\x09");
    return InvalidArgument(fmt::format("the actor id {} contains control characters", shown));
  }
  return Status::OK();
}

Status Omnigraph::set_actor(std::optional<std::string> actor) {
  if (actor) OG_RETURN_IF_ERROR(ValidateActorId(*actor));
  actor_ = std::move(actor);
  return Status::OK();
}

Result<std::unique_ptr<Omnigraph>> Omnigraph::Init(const std::string& uri, std::string_view schema_source,
                                                   std::string_view schema_file, bool replace_orphan_schema_files,
                                                   EnginePtr engine) {
  if (!engine) engine = Engine::Process();
  OG_ASSIGN_OR_RETURN(compiler::Catalog catalog, compiler::CompileSchema(schema_source, schema_file));
  auto already_initialized = [&](std::string message) {
    return Status(ErrorCode::kAlreadyExists, std::move(message), {{"kind", "already_initialized"}});
  };
  std::error_code ec;
  // A published __manifest version makes a graph; a root an init left
  // unfinished (killed, out of space) is initialized afresh.
  OG_ASSIGN_OR_RETURN(bool initialized, graph::GraphStore::IsInitialized(LocalStore::Make(uri).get(), ""));
  if (initialized) {
    return already_initialized(fmt::format("graph '{}' is already initialized", uri));
  }
  // Root schema files of a legacy (v6) graph whose __manifest is gone: a
  // new graph would leave them beside it, misleading anyone who reads them.
  std::vector<std::string> orphans;
  for (const char* name : {"_schema.pg", "_schema.ir.json", "__schema_state.json"}) {
    if (std::filesystem::exists(std::filesystem::path(uri) / name, ec)) orphans.push_back(name);
  }
  if (!orphans.empty() && !replace_orphan_schema_files) {
    return already_initialized(fmt::format("'{}' holds schema files of another graph ({}); pass --force to replace them",
                                           uri, fmt::join(orphans, ", ")));
  }
  for (const std::string& name : orphans) {
    if (!std::filesystem::remove(std::filesystem::path(uri) / name, ec) || ec) {
      return IoError(fmt::format("cannot remove '{}/{}': {}", uri, name, ec ? ec.message() : "not removed"));
    }
  }
  auto store = LocalStore::Make(uri);
  // The root's own entry (and any parent init creates) must be durable
  // before init is acknowledged, like everything in it.
  if (Status created = store->CreateRoot(); !created.ok()) {
    return IoError(fmt::format("cannot create '{}': {}", uri, created.message()));
  }
  std::vector<graph::TableSpec> tables;
  for (const compiler::NodeType& node : catalog.nodes()) {
    tables.push_back({node.TableKey(), node.stable_id, catalog.NodeTableSchema(node)});
  }
  for (const compiler::EdgeType& edge : catalog.edges()) {
    tables.push_back({edge.TableKey(), edge.stable_id, catalog.EdgeTableSchema(edge)});
  }
  graph::SchemaContract contract{std::string(schema_source), catalog.ToIrJson(), catalog.IrHash()};
  auto graph = graph::InitGraph(store, "", std::move(contract), tables, engine->tables());
  if (!graph.ok()) {
    if (graph.status().details().count("kind") && graph.status().details().at("kind") == "already_initialized") {
      return Status(ErrorCode::kAlreadyExists, fmt::format("graph '{}' is already initialized", uri),
                    {{"kind", "already_initialized"}});
    }
    return graph.status();
  }
  return std::unique_ptr<Omnigraph>(new Omnigraph(uri, std::move(engine), *graph));
}

Result<std::unique_ptr<Omnigraph>> Omnigraph::Open(const std::string& uri, EnginePtr engine) {
  if (!engine) engine = Engine::Process();
  // Named as GraphStore::Open names an empty directory: by absolute path.
  // A path that cannot be examined at all (a symlink loop, a name too
  // long, a directory on the way the user may not search) is an I/O error
  // naming why, not a missing graph.
  struct stat st;
  if (::stat(uri.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT && err != ENOTDIR) return IoError(fmt::format("cannot open graph '{}': {}", uri, std::strerror(err)));
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(uri, ec)) return NotFound(fmt::format("no graph at '{}'", LocalStore(uri).Uri("")));
  OG_ASSIGN_OR_RETURN(auto graph, graph::GraphStore::Open(LocalStore::Make(uri), "", engine->tables()));
  return std::unique_ptr<Omnigraph>(new Omnigraph(uri, std::move(engine), std::move(graph)));
}

Result<std::shared_ptr<const compiler::Catalog>> Omnigraph::Catalog() {
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, graph_->Latest());
  return catalogs_.CatalogFor(snapshot.state());
}

Result<std::string> Omnigraph::SchemaSource() {
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, graph_->Latest());
  return snapshot.state().schema.source;
}

Result<exec::SchemaChangeResult> Omnigraph::PlanSchema(std::string_view source, std::string_view source_file,
                                                       bool allow_data_loss) {
  return exec::PlanSchema(*graph_, catalogs_,
                          {std::string(source), std::string(source_file), allow_data_loss, actor_});
}

Status Omnigraph::Enforce(policy::Action action, std::optional<std::string> branch,
                          std::optional<std::string> target_branch) const {
  if (!policy_) return Status::OK();
  std::string action_name(policy::ActionName(action));
  if (!actor_) {
    return Status(ErrorCode::kPolicyDenied, "no actor for engine-layer policy check of action '" + action_name +
                                                "'; a graph with a policy bundle accepts writes only from an actor");
  }
  if (branch) branch = graph::TrimBranchName(*branch);
  if (target_branch) target_branch = graph::TrimBranchName(*target_branch);
  policy::Decision decision = policy_->Decide(policy::Request{*actor_, action, branch, target_branch});
  if (!decision.allowed) return Status(ErrorCode::kPolicyDenied, decision.message);
  return Status::OK();
}

Result<exec::SchemaChangeResult> Omnigraph::ApplySchema(std::string_view source, std::string_view source_file,
                                                        bool allow_data_loss) {
  OG_RETURN_IF_ERROR(Enforce(policy::Action::kSchemaApply, std::nullopt, std::string(graph::kMainBranch)));
  return exec::ApplySchema(*graph_, catalogs_,
                           {std::string(source), std::string(source_file), allow_data_loss, actor_});
}

Result<LoadReport> Omnigraph::Load(std::string_view data, std::string_view file_name, LoadMode mode,
                                   const std::string& branch, const exec::LoadProgress& progress,
                                   const std::optional<std::string>& create_from, exec::LoadSyntax syntax) {
  LoadReport report;
  report.branch = graph::TrimBranchName(branch);
  report.mode = mode;
  exec::LoadRequest request{data, file_name, ToExecMode(mode), report.branch, actor_, progress, &blob_policy_, syntax};
  if (create_from) {
    auto live = graph_->manifests().Resolve(report.branch);
    if (!live.ok() && live.status().code() == ErrorCode::kNotFound) {
      OG_RETURN_IF_ERROR(Enforce(policy::Action::kBranchCreate, *create_from, report.branch));
      OG_RETURN_IF_ERROR(Enforce(policy::Action::kChange, report.branch, std::nullopt));
      // The new branch starts as the base's head: input the load would
      // refuse there is refused before the branch exists, so a bad load
      // leaves the graph as it was.
      OG_RETURN_IF_ERROR(exec::CheckLoad(*graph_, catalogs_, request, graph::TrimBranchName(*create_from)));
      OG_RETURN_IF_ERROR(graph::CreateBranch(*graph_, report.branch, *create_from).status());
      report.branch_created = true;
    } else {
      OG_RETURN_IF_ERROR(live.status());
    }
  }
  OG_RETURN_IF_ERROR(Enforce(policy::Action::kChange, report.branch, std::nullopt));
  OG_ASSIGN_OR_RETURN(exec::LoadOutcome outcome, exec::RunLoad(*graph_, catalogs_, request));
  for (const auto& [name, n] : outcome.node_records) report.nodes.push_back({name, n});
  for (const auto& [name, n] : outcome.edge_records) report.edges.push_back({name, n});
  report.total_entities = outcome.total_records;
  report.commit = outcome.commit;
  return report;
}

namespace {

std::map<std::string, Scalar> ParamScalars(const compiler::ParamMap& params) {
  std::map<std::string, Scalar> out;
  for (const auto& [name, p] : params) out.emplace(name, p.value);
  return out;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<MutationReport> Omnigraph::Mutate(std::string_view source, std::string_view source_file, const std::string& name,
                                         std::string_view params_json, const std::string& branch,
                                         const std::optional<std::string>& if_commit) {
  exec::MutationRequest request;
  request.source = source;
  request.source_file = source_file;
  request.name = name;
  request.params_json = params_json;
  request.branch = graph::TrimBranchName(branch);
  OG_RETURN_IF_ERROR(Enforce(policy::Action::kChange,
                             request.branch.empty() ? std::string(graph::kMainBranch) : request.branch, std::nullopt));
  request.if_commit = if_commit;
  request.actor_id = actor_;
  request.now_ms = NowMillis();  // now() is taken once per mutation request
  request.blob_policy = &blob_policy_;
  OG_ASSIGN_OR_RETURN(exec::MutationOutcome outcome, exec::RunMutation(*graph_, catalogs_, request));
  MutationReport report;
  report.branch = !outcome.branch.empty() ? outcome.branch
                  : request.branch.empty() ? std::string(graph::kMainBranch)
                                           : request.branch;
  report.query_name = outcome.query_name;
  report.affected_nodes = outcome.affected_nodes;
  report.affected_edges = outcome.affected_edges;
  report.commit = outcome.commit;
  report.published = outcome.published;
  report.unattached_root = outcome.unattached_root;
  return report;
}

namespace {

// The commit `id`: published (FindCommit), else a live proposal's candidate.
Result<graph::CommitRecord> FindCommitOrProposal(graph::GraphStore& graph, const std::string& id,
                                                 const std::string& first_branch) {
  auto found = graph::FindCommit(graph, id, first_branch);
  if (found.ok() || found.status().code() != ErrorCode::kNotFound) return found;
  OG_ASSIGN_OR_RETURN(std::optional<graph::Snapshot> proposed, graph::LiveProposalSnapshot(graph, id));
  if (proposed) return proposed->head();
  return found;
}

}  // namespace

Result<graph::Snapshot> Omnigraph::Resolve(const ReadTarget& target) {
  if (!target.snapshot) return graph_->Latest(graph::TrimBranchName(target.branch));
  auto commit = graph::FindCommit(*graph_, *target.snapshot, bound_branch_);
  if (!commit.ok() && commit.status().code() == ErrorCode::kNotFound) {
    // BR-11.2, BR-12.3: a live proposal reads as its own snapshot.
    OG_ASSIGN_OR_RETURN(std::optional<graph::Snapshot> proposed,
                        graph::LiveProposalSnapshot(*graph_, *target.snapshot));
    if (proposed) return std::move(*proposed);
  }
  OG_RETURN_IF_ERROR(commit.status());
  return graph::SnapshotOfCommit(*graph_, *commit);
}

Result<exec::QueryResult> Omnigraph::QuerySnapshot(const graph::Snapshot& snapshot, std::string_view source,
                                                   std::string_view source_file, const std::string& name,
                                                   std::string_view params_json) {
  // Historical reads type-check against the current accepted schema (BR-7).
  OG_ASSIGN_OR_RETURN(graph::Snapshot current, graph_->Latest());
  OG_ASSIGN_OR_RETURN(auto catalog, catalogs_.CatalogFor(current.state()));
  OG_ASSIGN_OR_RETURN(auto compiled, catalogs_.CompiledQuery(current.state(), *catalog, source, source_file, name));
  const compiler::ir::QueryIR& query = *compiled;
  if (query.is_mutation) {
    return InvalidArgument(fmt::format("query '{}' is a mutation; run it with `mutate`", query.name));
  }
  OG_ASSIGN_OR_RETURN(compiler::ParamMap params, compiler::BindParams(query, params_json));
  std::map<std::string, Scalar> values = ParamScalars(params);
  OG_ASSIGN_OR_RETURN(graph::Snapshot bound, exec::BindToCatalog(snapshot, *catalog));
  exec::QueryContext context{&bound, catalog.get(), &values, &engine_->topologies()};
  OG_ASSIGN_OR_RETURN(exec::QueryResult result, exec::ExecuteRead(query, context));
  result.query_name = query.name;
  result.branch = snapshot.branch();
  result.graph_commit_id = snapshot.head().id;
  return result;
}

Result<exec::QueryResult> Omnigraph::Query(std::string_view source, std::string_view source_file,
                                           const std::string& name, std::string_view params_json,
                                           const ReadTarget& target) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, Resolve(target));
  OG_ASSIGN_OR_RETURN(exec::QueryResult result, QuerySnapshot(snapshot, source, source_file, name, params_json));
  if (target.snapshot) result.snapshot = *target.snapshot;
  return result;
}

Result<exec::QueryResult> Omnigraph::QueryAt(const std::string& branch, uint64_t version, std::string_view source,
                                             std::string_view source_file, const std::string& name,
                                             std::string_view params_json) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, graph_->AtVersion(graph::TrimBranchName(branch), version));
  return QuerySnapshot(snapshot, source, source_file, name, params_json);
}

Result<std::string> Omnigraph::Export(const ReadTarget& target, const std::vector<std::string>& types) {
  std::string out;
  OG_RETURN_IF_ERROR(ExportTo(target, types, [&out](std::string_view piece) {
    out += piece;
    return Status::OK();
  }));
  return out;
}

Status Omnigraph::ExportTo(const ReadTarget& target, const std::vector<std::string>& types,
                           const exec::ExportSink& sink) {
  // Held until the last piece is handed over, so the root cannot be
  // removed under a reader (cluster.md §4.4 step 7).
  OG_ASSIGN_OR_RETURN(ExportRootExclusion reserved,
                      ReserveExportRoot(*graph_->store(), graph_->root(), ExportRootUse::kExport));
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, Resolve(target));
  // A branch head holds the accepted schema (schema apply refuses while a
  // non-main branch is live), so only a past snapshot needs binding to it
  // (BR-7), and only it pays for reading main's head.
  if (!target.snapshot) return exec::ExportGraphTo(snapshot, types, sink, &engine_->ordered_scans());
  OG_ASSIGN_OR_RETURN(graph::Snapshot current, graph_->Latest());
  OG_ASSIGN_OR_RETURN(auto catalog, catalogs_.CatalogFor(current.state()));
  OG_ASSIGN_OR_RETURN(graph::Snapshot bound, exec::BindToCatalog(snapshot, *catalog));
  return exec::ExportGraphTo(bound, types, sink, &engine_->ordered_scans());
}

SnapshotInfo DescribeSnapshot(const graph::Snapshot& snapshot) {
  SnapshotInfo info;
  info.graph_branch = snapshot.branch();
  info.graph_manifest_version = snapshot.manifest_version();
  info.head_commit_id = snapshot.head().id;
  for (const auto& [key, table] : snapshot.tables()) {
    info.datasets.push_back(DatasetInfo{table.is_node() ? "node" : "edge", table.type_name(), table.location,
                                        table.pin.published_version, table.pin.row_count});
  }
  return info;
}

Result<SnapshotInfo> Omnigraph::Snapshot(const std::string& branch) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, graph_->Latest(graph::TrimBranchName(branch)));
  return DescribeSnapshot(snapshot);
}

Result<SnapshotInfo> Omnigraph::SnapshotAt(const std::string& branch, uint64_t version) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, graph_->AtVersion(graph::TrimBranchName(branch), version));
  return DescribeSnapshot(snapshot);
}

Result<RecordBatchPtr> Omnigraph::EntityAt(const std::string& branch, const std::string& type_key,
                                           const std::string& id, uint64_t version) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, graph_->AtVersion(graph::TrimBranchName(branch), version));
  const graph::TableEntry* table = snapshot.FindTable(type_key);
  if (table == nullptr) return NotFound(fmt::format("type '{}' is not part of the snapshot", type_key));
  OG_ASSIGN_OR_RETURN(graph::TableDataPtr rows, snapshot.CachedRows(*table));
  int64_t row = rows->RowOf(id);
  if (row < 0) return RecordBatchPtr();
  return rows->rows()->Slice(row, 1);
}

Result<std::vector<graph::CommitRecord>> Omnigraph::ListCommits(const std::string& branch) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, graph_->Latest(graph::TrimBranchName(branch)));
  OG_ASSIGN_OR_RETURN(graph::CommitGraphPtr commits, graph_->Commits(snapshot));
  std::vector<graph::CommitRecord> out;
  out.reserve(commits->size());
  for (const graph::CommitRecord* c : commits->NewestFirst()) out.push_back(*c);
  return out;
}

Result<graph::CommitRecord> Omnigraph::ShowCommit(const std::string& id) {
  return graph::FindCommit(*graph_, id, bound_branch_);
}

Result<exec::CommitView> Omnigraph::DescribeCommit(const std::string& id) {
  return exec::ShowCommitOrProposal(*graph_, id, bound_branch_);
}

Status Omnigraph::EnforceChangeOfCommit(const std::string& id) {
  if (!policy_) return Status::OK();
  // Publishing or dropping a proposal changes its recorded target branch.
  OG_ASSIGN_OR_RETURN(exec::CommitView view, DescribeCommit(id));
  return Enforce(policy::Action::kChange, view.commit.graph_branch.value_or(std::string(graph::kMainBranch)),
                 std::nullopt);
}

Result<exec::CommitView> Omnigraph::CommitPublish(const std::string& id) {
  OG_RETURN_IF_ERROR(EnforceChangeOfCommit(id));
  return exec::PublishCommit(*graph_, id);
}

Result<std::vector<std::string>> Omnigraph::CommitDrop(const std::string& id) {
  OG_RETURN_IF_ERROR(EnforceChangeOfCommit(id));
  return exec::DropCommit(*graph_, id);
}

Result<std::vector<exec::CommitView>> Omnigraph::ListUnpublished(const std::string& branch) {
  return exec::ListUnpublished(*graph_, branch);
}

Result<BranchCreateReport> Omnigraph::BranchCreate(const std::string& name, const std::string& from) {
  OG_RETURN_IF_ERROR(Enforce(policy::Action::kBranchCreate, from, name));
  OG_ASSIGN_OR_RETURN(graph::CreatedBranch created, graph::CreateBranch(*graph_, name, from));
  return BranchCreateReport{uri_, created.from, created.name, actor_};
}

Result<std::vector<std::string>> Omnigraph::BranchList() { return graph::ListBranches(*graph_); }

Result<graph::CleanupReport> Omnigraph::Cleanup(const graph::CleanupPolicy& policy) {
  return graph::RunCleanup(*graph_, policy);
}

Status Omnigraph::BranchDelete(const std::string& name) {
  OG_RETURN_IF_ERROR(Enforce(policy::Action::kBranchDelete, std::nullopt, name));
  return graph::DeleteBranch(*graph_, name, bound_branch_);
}

Result<BranchMergeReport> Omnigraph::BranchMerge(const std::string& source, const std::string& target,
                                                 const BranchMergeOptions& options) {
  if (options.as_commit && options.delete_branch) {
    return InvalidArgument("--as-commit cannot be combined with --delete-branch");
  }
  OG_RETURN_IF_ERROR(Enforce(policy::Action::kBranchMerge, source, target));
  OG_ASSIGN_OR_RETURN(exec::MergeResult merged,
                      exec::RunBranchMerge(*graph_, catalogs_, {source, target, actor_, options.as_commit}));
  BranchMergeReport report;
  report.source = merged.source;
  report.target = merged.target;
  report.outcome = std::string(exec::MergeOutcomeName(merged.outcome));
  report.actor_id = actor_;
  report.commit = merged.commit;
  report.published = merged.published;
  if (options.delete_branch) {
    Status deleted = BranchDelete(merged.source);
    report.branch_deleted = deleted.ok();
    if (!deleted.ok()) report.branch_delete_error = deleted.message();
  }
  return report;
}

// ---- Maintenance (engine.md §8)

Result<exec::OptimizeResult> Omnigraph::Optimize() {
  exec::OptimizeOptions options;
  options.actor_id = actor_;
  return exec::RunOptimize(*graph_, options);
}

Result<std::vector<exec::TableDrift>> Omnigraph::Repair() { return exec::ClassifyDrift(*graph_); }

// ---- Diffs and the change feed (BR-10)

Result<exec::CommitChangesPage> Omnigraph::CommitChanges(const std::string& id,
                                                         const exec::CommitChangesRequest& request) {
  OG_ASSIGN_OR_RETURN(graph::CommitRecord commit, FindCommitOrProposal(*graph_, id, bound_branch_));
  return exec::ListCommitChanges(*graph_, commit, request);
}

Result<exec::ChangeFeedPage> Omnigraph::ChangesPoll(const std::string& branch, const exec::FeedPosition& position,
                                                    const exec::ChangeFeedRequest& request) {
  std::string name = graph::TrimBranchName(branch);
  OG_RETURN_IF_ERROR(graph::CheckPublicBranchName(name, "changes_poll"));
  return exec::PollChanges(*graph_, name, position, request);
}

Result<exec::ChangeBaseline> Omnigraph::ChangesBaseline(const std::string& branch, const exec::ChangeFilter& filter) {
  std::string name = graph::TrimBranchName(branch);
  OG_RETURN_IF_ERROR(graph::CheckPublicBranchName(name, "changes_baseline"));
  // A baseline is an export (server.md §1.6): its root stays reserved
  // while it is read, as ExportTo's does.
  OG_ASSIGN_OR_RETURN(ExportRootExclusion reserved,
                      ReserveExportRoot(*graph_->store(), graph_->root(), ExportRootUse::kExport));
  return exec::CaptureBaseline(*graph_, name, filter, &engine_->ordered_scans());
}

Result<exec::ChangeSet> Omnigraph::DiffBetween(const ReadTarget& from, const ReadTarget& to,
                                               const exec::ChangeFilter& filter) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot before, Resolve(from));
  OG_ASSIGN_OR_RETURN(graph::Snapshot after, Resolve(to));
  return exec::DiffSnapshots(before, after, filter);
}

Result<exec::ChangeSet> Omnigraph::DiffCommits(const std::string& a, const std::string& b,
                                               const exec::ChangeFilter& filter) {
  return DiffBetween(ReadTarget{std::string(graph::kMainBranch), a}, ReadTarget{std::string(graph::kMainBranch), b},
                     filter);
}

}  // namespace omnigraph::api
