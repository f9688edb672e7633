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
#include "compiler/params.h"
#include "compiler/source.h"
#include "compiler/typecheck.h"
#include "exec/mutation_executor.h"
#include "exec/query_executor.h"
#include "exec/export.h"
#include "exec/loader.h"
#include "exec/write_delta.h"
#include "graph/write_txn.h"
#include "io/local_store.h"

namespace omnigraph::api {
namespace {

// Insert-only writers (append/merge loads, insert mutations) re-prepare from
// a fresh capture when the branch moved before any effect (engine.md §5.2).
constexpr int kMaxRePrepareAttempts = 32;

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

Omnigraph::Omnigraph(std::string uri, std::shared_ptr<graph::GraphStore> graph)
    : uri_(std::move(uri)), graph_(std::move(graph)) {}

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
                                                   std::string_view schema_file, bool replace_orphan_schema_files) {
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
  std::vector<graph::GraphStore::TableSpec> tables;
  for (const compiler::NodeType& node : catalog.nodes()) {
    tables.push_back({node.TableKey(), node.stable_id, catalog.NodeTableSchema(node)});
  }
  for (const compiler::EdgeType& edge : catalog.edges()) {
    tables.push_back({edge.TableKey(), edge.stable_id, catalog.EdgeTableSchema(edge)});
  }
  graph::SchemaContract contract{std::string(schema_source), catalog.ToIrJson(), catalog.IrHash()};
  auto graph = graph::GraphStore::Init(store, "", std::move(contract), tables);
  if (!graph.ok()) {
    if (graph.status().details().count("kind") && graph.status().details().at("kind") == "already_initialized") {
      return Status(ErrorCode::kAlreadyExists, fmt::format("graph '{}' is already initialized", uri),
                    {{"kind", "already_initialized"}});
    }
    return graph.status();
  }
  return std::unique_ptr<Omnigraph>(new Omnigraph(uri, *graph));
}

Result<std::unique_ptr<Omnigraph>> Omnigraph::Open(const std::string& uri) {
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
  OG_ASSIGN_OR_RETURN(auto graph, graph::GraphStore::Open(LocalStore::Make(uri), ""));
  return std::unique_ptr<Omnigraph>(new Omnigraph(uri, std::move(graph)));
}

Result<std::shared_ptr<const compiler::Catalog>> Omnigraph::CatalogFor(const graph::GraphState& state) {
  std::lock_guard<std::mutex> lock(caches_mutex_);
  if (auto it = catalogs_.find(state.schema.ir_hash); it != catalogs_.end()) return it->second;
  auto compiled = compiler::CompileSchema(state.schema.source, "schema.pg");
  if (!compiled.ok()) {
    return CorruptData(fmt::format("the graph's accepted schema no longer compiles: {}", compiled.status().message()));
  }
  if (compiled->IrHash() != state.schema.ir_hash) {
    return CorruptData(fmt::format("the graph's schema contract hash {} does not match its source (hash {})",
                                   state.schema.ir_hash, compiled->IrHash()));
  }
  auto catalog = std::make_shared<const compiler::Catalog>(std::move(compiled).value());
  catalogs_[state.schema.ir_hash] = catalog;
  return catalog;
}

Result<std::shared_ptr<const compiler::ir::QueryIR>> Omnigraph::CompiledQuery(const graph::GraphState& state,
                                                                                const compiler::Catalog& catalog,
                                                                                std::string_view source,
                                                                                std::string_view source_file,
                                                                                const std::string& name) {
  std::string key = fmt::format("{}\n{}\n{}\n{}", state.schema.ir_hash, source_file, name, source);
  {
    std::lock_guard<std::mutex> lock(caches_mutex_);
    if (auto it = compiled_queries_.find(key); it != compiled_queries_.end()) return it->second;
  }
  OG_ASSIGN_OR_RETURN(compiler::ir::QueryIR query, compiler::CompileQuery(catalog, source, source_file, name));
  auto compiled = std::make_shared<const compiler::ir::QueryIR>(std::move(query));
  std::lock_guard<std::mutex> lock(caches_mutex_);
  if (compiled_queries_.size() >= kMaxCompiledQueries) compiled_queries_.clear();
  compiled_queries_.emplace(std::move(key), compiled);
  return compiled;
}

Result<std::shared_ptr<const compiler::Catalog>> Omnigraph::Catalog() {
  OG_ASSIGN_OR_RETURN(graph::GraphState state, graph_->ReadState());
  return CatalogFor(state);
}

Result<std::string> Omnigraph::SchemaSource() {
  OG_ASSIGN_OR_RETURN(graph::GraphState state, graph_->ReadState());
  return state.schema.source;
}

Result<LoadReport> Omnigraph::Load(std::string_view data, std::string_view file_name, LoadMode mode,
                                   const std::string& branch, const exec::LoadProgress& progress) {
  for (int attempt = 0;; ++attempt) {
    OG_ASSIGN_OR_RETURN(auto writers, graph_->LockBranchWriters(branch));
    OG_ASSIGN_OR_RETURN(graph::WriteTxn txn, graph::WriteTxn::Capture(*graph_, branch));
    txn.actor_id = actor_;
    OG_ASSIGN_OR_RETURN(auto catalog, CatalogFor(txn.base));
    // PlanLoad validates the whole delta itself, so errors name input lines.
    OG_ASSIGN_OR_RETURN(exec::LoadPlan plan,
                        exec::PlanLoad(*graph_, txn.base, *catalog, data, file_name, ToExecMode(mode), progress));
    auto written = graph::CommitTableChanges(*graph_, txn, exec::ToTableChanges(plan.delta));
    if (!written.ok()) {
      bool retry = written.status().code() == ErrorCode::kReadSetChanged && mode != LoadMode::kOverwrite &&
                   attempt + 1 < kMaxRePrepareAttempts;
      if (retry) continue;
      return written.status();
    }
    LoadReport report;
    report.branch = branch;
    report.mode = mode;
    for (const auto& [name, n] : plan.node_records) report.nodes.push_back({name, n});
    for (const auto& [name, n] : plan.edge_records) report.edges.push_back({name, n});
    report.total_entities = plan.total_records;
    report.commit = written->commit;
    return report;
  }
}

namespace {

std::map<std::string, Scalar> ParamScalars(const compiler::ParamMap& params) {
  std::map<std::string, Scalar> out;
  for (const auto& [name, p] : params) out.emplace(name, p.value);
  return out;
}

// `--if-commit` lost: the head of `branch` is `actual`, not `expected`
// (branches.md BR-8, whose message and details this is; the front ends
// render it through api/wire/error_json.h). `actual` is nullopt when there
// is no head to report, shown as "<absent>" and left out of the details.
Status HeadIsNot(const std::string& branch, const std::string& expected, const std::optional<std::string>& actual) {
  Status::Details details{{"branch", branch}, {"expected", expected}};
  if (actual) details.emplace("actual", *actual);
  return Status(ErrorCode::kPreconditionFailed,
                fmt::format("precondition failed on branch '{}': expected head '{}' but current is {}", branch,
                            expected, actual.value_or("<absent>")),
                std::move(details));
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<MutationReport> Omnigraph::Mutate(std::string_view source, std::string_view source_file, const std::string& name,
                                         std::string_view params_json, const std::string& branch,
                                         const std::optional<std::string>& if_commit) {
  // now() is taken once per mutation request, stable across re-prepares.
  compiler::BindOptions bind;
  bind.now_ms = NowMillis();
  if (if_commit) OG_RETURN_IF_ERROR(graph::ValidateCommitId(*if_commit));
  for (int attempt = 0;; ++attempt) {
    OG_ASSIGN_OR_RETURN(auto writers, graph_->LockBranchWriters(branch));
    OG_ASSIGN_OR_RETURN(graph::WriteTxn txn, graph::WriteTxn::Capture(*graph_, branch));
    txn.actor_id = actor_;
    OG_ASSIGN_OR_RETURN(auto catalog, CatalogFor(txn.base));
    OG_ASSIGN_OR_RETURN(auto compiled, CompiledQuery(txn.base, *catalog, source, source_file, name));
    const compiler::ir::QueryIR& query = *compiled;
    if (!query.is_mutation) {
      return InvalidArgument(fmt::format("query '{}' is a read query; run it with `query`", query.name));
    }
    OG_ASSIGN_OR_RETURN(compiler::ParamMap params, compiler::BindParams(query, params_json, bind));
    // The request is valid in itself; only now does the head decide (a query
    // that could never run is reported as such, not as a lost race).
    if (if_commit && txn.base.head.id != *if_commit) return HeadIsNot(branch, *if_commit, txn.base.head.id);
    OG_ASSIGN_OR_RETURN(exec::MutationPlan plan,
                        exec::PlanMutation(*graph_, txn.base, *catalog, query, ParamScalars(params)));
    MutationReport report;
    report.branch = branch;
    report.query_name = query.name;
    report.affected_nodes = plan.affected_nodes;
    report.affected_edges = plan.affected_edges;
    if (!plan.changes_anything()) return report;  // nothing changed: no commit
    OG_RETURN_IF_ERROR(exec::ValidateWrite(*graph_, txn.base, *catalog, plan.delta));
    auto written = graph::CommitTableChanges(*graph_, txn, exec::ToTableChanges(plan.delta));
    if (!written.ok()) {
      bool retry = written.status().code() == ErrorCode::kReadSetChanged && plan.insert_only && !if_commit &&
                   attempt + 1 < kMaxRePrepareAttempts;
      if (retry) continue;
      if (if_commit && written.status().code() == ErrorCode::kReadSetChanged) {
        // The head moved between the check above and the publication: the
        // compare-and-swap on the head was lost (§3.2: 412, CLI exit 4).
        // When the new head cannot be read, the loss is still certain and
        // is reported without one, rather than as a made-up id.
        auto now = graph_->ReadState(branch);
        return HeadIsNot(branch, *if_commit, now.ok() ? std::optional<std::string>(now->head.id) : std::nullopt);
      }
      return written.status();
    }
    report.commit = written->commit;
    return report;
  }
}

Result<exec::QueryResult> Omnigraph::Query(std::string_view source, std::string_view source_file,
                                           const std::string& name, std::string_view params_json,
                                           const ReadTarget& target) {
  graph::GraphState state;
  if (target.snapshot) {
    // Time travel: the commit names the __manifest version that published it.
    OG_ASSIGN_OR_RETURN(graph::CommitRecord commit, graph_->FindCommit(*target.snapshot, target.branch));
    OG_ASSIGN_OR_RETURN(state, graph_->ReadState(target.branch, commit.manifest_version));
    if (state.head.id != commit.id) {
      return CorruptData(fmt::format("manifest version {} of branch '{}' does not hold commit '{}' (found '{}')",
                                     commit.manifest_version, target.branch, commit.id, state.head.id));
    }
  } else {
    OG_ASSIGN_OR_RETURN(state, graph_->ReadState(target.branch));
  }
  OG_ASSIGN_OR_RETURN(auto catalog, CatalogFor(state));
  OG_ASSIGN_OR_RETURN(auto compiled, CompiledQuery(state, *catalog, source, source_file, name));
  const compiler::ir::QueryIR& query = *compiled;
  if (query.is_mutation) {
    return InvalidArgument(fmt::format("query '{}' is a mutation; run it with `mutate`", query.name));
  }
  OG_ASSIGN_OR_RETURN(compiler::ParamMap params, compiler::BindParams(query, params_json));
  std::map<std::string, Scalar> values = ParamScalars(params);
  exec::QueryContext context{graph_.get(), &state, catalog.get(), &values};
  OG_ASSIGN_OR_RETURN(exec::QueryResult result, exec::ExecuteRead(query, context));
  result.query_name = query.name;
  result.branch = state.branch;
  result.graph_commit_id = state.head.id;
  if (target.snapshot) result.snapshot = *target.snapshot;
  return result;
}

Result<std::string> Omnigraph::Export(const std::string& branch, const std::vector<std::string>& types) {
  OG_ASSIGN_OR_RETURN(graph::GraphState state, graph_->ReadState(branch));
  return exec::ExportGraph(*graph_, state, types);
}

Result<SnapshotInfo> Omnigraph::Snapshot(const std::string& branch) {
  OG_ASSIGN_OR_RETURN(graph::GraphState state, graph_->ReadState(branch));
  SnapshotInfo info;
  info.graph_branch = state.branch;
  info.graph_manifest_version = state.manifest_version;
  info.head_commit_id = state.head.id;
  for (const auto& [key, table] : state.tables) {
    info.datasets.push_back(DatasetInfo{table.is_node() ? "node" : "edge", table.type_name(), table.location,
                                        table.pin.published_version, table.pin.row_count});
  }
  return info;
}

Result<std::vector<graph::CommitRecord>> Omnigraph::ListCommits(const std::string& branch) {
  return graph_->ListCommits(branch);
}

Result<graph::CommitRecord> Omnigraph::ShowCommit(const std::string& id) { return graph_->FindCommit(id); }

}  // namespace omnigraph::api
