// The embedded C++ API: one handle per graph. Every front end (CLI, server)
// goes through it (architecture.md §2 api).
//
// Reads resolve one snapshot (branch + __manifest version) and read every
// table at its pin; writes go through the one publication door
// (graph/write_txn.h). Errors are typed Status values (util/status.h) with
// stable codes and HTTP statuses.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "exec/loader.h"
#include "exec/result_format.h"
#include "graph/graph_store.h"

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

// Where a read happens: the latest state of a branch, or a past commit.
struct ReadTarget {
  std::string branch = "main";
  std::optional<std::string> snapshot;  // a graph commit id
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
  // or orphan schema files, IoError.
  static Result<std::unique_ptr<Omnigraph>> Init(const std::string& uri, std::string_view schema_source,
                                                 std::string_view schema_file = "schema.pg",
                                                 bool replace_orphan_schema_files = false);
  // Opens an existing graph. Errors: NotFound, Unsupported (stamp), CorruptData.
  static Result<std::unique_ptr<Omnigraph>> Open(const std::string& uri);

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
  graph::GraphStore& store() { return *graph_; }

  // The accepted schema (compiled from the head's schema contract).
  Result<std::shared_ptr<const compiler::Catalog>> Catalog();
  Result<std::string> SchemaSource();

  // Strict NDJSON load (spec/surface.md §4): validates everything, then one
  // atomic commit. `file_name` names the input in errors ("data.jsonl:7: …").
  // `progress`, when set, is called every exec::kLoadProgressLines lines
  // with (bytes read, total bytes) while records are parsed.
  Result<LoadReport> Load(std::string_view data, std::string_view file_name, LoadMode mode,
                          const std::string& branch = "main", const exec::LoadProgress& progress = {});

  // Runs read query `name` from `.gq` source (the only query when `name` is
  // empty). `params_json` is a JSON object.
  Result<exec::QueryResult> Query(std::string_view source, std::string_view source_file, const std::string& name,
                                  std::string_view params_json, const ReadTarget& target = {});

  // Runs mutation `name`. `if_commit`: publish only if the branch head is
  // still that commit; otherwise PreconditionFailed (412, no effect, never
  // retried) with the message "precondition failed on branch '<b>':
  // expected head '<if_commit>' but current is <head>" and details branch,
  // expected and actual (branches.md BR-8).
  Result<MutationReport> Mutate(std::string_view source, std::string_view source_file, const std::string& name,
                                std::string_view params_json, const std::string& branch = "main",
                                const std::optional<std::string>& if_commit = std::nullopt);

  // NDJSON export (spec/surface.md §4.5); `types` empty = every type.
  Result<std::string> Export(const std::string& branch, const std::vector<std::string>& types);

  Result<SnapshotInfo> Snapshot(const std::string& branch = "main");
  Result<std::vector<graph::CommitRecord>> ListCommits(const std::string& branch = "main");
  Result<graph::CommitRecord> ShowCommit(const std::string& id);

 private:
  Omnigraph(std::string uri, std::shared_ptr<graph::GraphStore> graph);
  Result<std::shared_ptr<const compiler::Catalog>> CatalogFor(const graph::GraphState& state);
  // CompileQuery of `name` in `source` against the schema `state` holds,
  // cached: an agent repeating one query or mutation compiles it once.
  Result<std::shared_ptr<const compiler::ir::QueryIR>> CompiledQuery(const graph::GraphState& state,
                                                                       const compiler::Catalog& catalog,
                                                                       std::string_view source,
                                                                       std::string_view source_file,
                                                                       const std::string& name);

  std::string uri_;
  std::shared_ptr<graph::GraphStore> graph_;
  std::optional<std::string> actor_;
  // Compiled catalogs by schema IR hash (immutable; disposable cache).
  std::map<std::string, std::shared_ptr<const compiler::Catalog>> catalogs_;
  // Compiled queries by (schema IR hash, file name, query name, source);
  // cleared when it reaches kMaxCompiledQueries entries.
  std::map<std::string, std::shared_ptr<const compiler::ir::QueryIR>> compiled_queries_;
  static constexpr size_t kMaxCompiledQueries = 64;
  std::mutex caches_mutex_;  // guards catalogs_ and compiled_queries_
};

}  // namespace omnigraph::api
