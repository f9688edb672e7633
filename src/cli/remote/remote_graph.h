// One graph on an omnigraph-server, as the CLI's served commands address
// it (spec/surface.md §5.1 `--server NAME|URL --graph ID`, §5.5 operator
// config and token chain), with one function per route the CLI uses
// (spec/openapi.json; server.md §1.2).
//
// Every call returns the route's reply as it came (raw text or parsed
// JSON, key order kept), so a verb prints it through the same renderer as
// its local result. A reply other than 2xx becomes the Status a local run
// of the same operation returns (ServerErrorStatus), so it prints the same
// message and exits with the same code (§5.4: 412 → 4).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/context.h"
#include "cli/remote/http_client.h"
#include "util/status.h"

namespace omnigraph::cli::remote {

// Where a served command goes.
struct ServedTarget {
  ServerUrl server;
  std::string server_name;  // the operator-config server the URL belongs to; "" for none
  std::string graph_id;
  std::string token;        // bearer token, "" for none
};

// The value of header `name` (case-insensitive) in `reply`, or nullopt.
std::optional<std::string> HeaderValue(const HttpReply& reply, std::string_view name);

// The server and graph of `flags`: --server (a servers.<name> entry or a
// literal http(s) URL), else the profile's or defaults.server; --graph,
// else the profile's or defaults.default_graph; the token by BearerToken.
// Errors: UsageError when no server or no graph is given, or a server
// name is not in the operator config; as ParseServerUrl and BearerToken.
// With `need_graph` false the graph may be left empty (`graphs list`).
Result<ServedTarget> ResolveServedTarget(const GlobalFlags& flags, bool need_graph = true);

// GET /graphs on the server of `flags` (ResolveServedTarget without a
// graph) → {graphs:[{graph_id, uri}]}. Errors: as ResolveServedTarget,
// Send and ServerErrorStatus.
Result<nlohmann::ordered_json> ListGraphs(const GlobalFlags& flags);

// The Status of a refused request: the body's `error` message (else the
// HTTP status line) with an ErrorCode chosen by the HTTP status: 412 →
// kPreconditionFailed carrying precondition_failure's expected/actual,
// 404 → kNotFound, 409 → kConflict, 400/413/415/416 → kInvalidArgument,
// 401/403 → kPolicyDenied, others → kInternal. A parse or catalog error
// keeps its source excerpt on its own lines (Context::Fail).
Status ServerErrorStatus(int http_status, const std::string& body);

// `status` with the server's name for text sent in the request body
// (`server_name`: "<inline>" for a query, "<request body>" for load data)
// replaced by `source_file`, the name the CLI read it under, so a served
// parse or load error locates itself as a local one does.
Status WithSourceName(const Status& status, const std::string& source_file,
                      std::string_view server_name = "<inline>");

class RemoteGraph {
 public:
  explicit RemoteGraph(ServedTarget target) : target_(std::move(target)) {}

  // ResolveServedTarget(flags), then a handle on it. `positional` is the
  // verb's positional graph URI (or --uri): UsageError when it is given
  // too, since a served graph is named by --server/--graph alone.
  static Result<RemoteGraph> Open(const GlobalFlags& flags, const std::string& positional = "");

  // The server URL as given (echo lines, messages).
  const std::string& url() const { return target_.server.text; }

  // POST /graphs/{id}/query → the ReadOutput body, unparsed.
  Result<std::string> Query(const std::string& source, const std::string& name, const std::string& params_json,
                            const std::string& branch, const std::optional<std::string>& snapshot);
  // POST /graphs/{id}/mutate, or with `if_commit` POST
  // /graphs/{id}/mutate/if-graph-commit with header
  // Omnigraph-If-Graph-Commit → MutationOutput. `branch` "" is the server's
  // default (main).
  Result<nlohmann::ordered_json> Mutate(const std::string& source, const std::string& name,
                                        const std::string& params_json, const std::string& branch,
                                        const std::optional<std::string>& if_commit);
  // POST /graphs/{id}/queries/{name} (with `if_commit`:
  // …/if-graph-commit and header Omnigraph-If-Graph-Commit) with
  // {params?, branch?, snapshot?, expect_mutation} → the raw reply
  // (ReadOutput for a read, MutationOutput for a mutation). A stored query
  // whose kind is not `expect_mutation` is refused by the server (400).
  Result<std::string> InvokeStored(const std::string& name, const std::string& params_json,
                                   const std::string& branch, const std::optional<std::string>& snapshot,
                                   bool expect_mutation, const std::optional<std::string>& if_commit);
  // GET /graphs/{id}/blob?entity=&type=&id=&property=&(branch=|snapshot=)
  // with `range` ("bytes=A-B" or "bytes=A-", none when empty) → the reply
  // of a 200, 206 or 302 (an external value: its URI in Location). With
  // `head`, HEAD instead: the same headers (Content-Length, ETag,
  // Omnigraph-Snapshot-Id) and no body.
  Result<HttpReply> BlobGet(const std::string& entity, const std::string& type, const std::string& id,
                            const std::string& property, const std::string& branch,
                            const std::optional<std::string>& snapshot, const std::string& range, bool head = false);
  // GET /graphs/{id}/commits/{commit_id}/changes?<query> → one page
  // (CommitChangesPage JSON, raw). `query` is already encoded
  // ("limit=…&kind=…").
  Result<std::string> CommitChanges(const std::string& id, const std::string& query);
  // GET /graphs/{id}/changes?<query> → one feed page (raw).
  Result<std::string> ChangesFeed(const std::string& query);
  // POST /graphs/{id}/changes/baseline {branch, kind, type, op} → the
  // NDJSON reply, unparsed: the snapshot's lines, then the trailer
  // {"baseline":{snapshot_commit_id, resume_cursor}} (remote::ParseBaseline).
  Result<std::string> ChangesBaseline(const std::string& branch, const std::vector<std::string>& kinds,
                                      const std::vector<std::string>& types, const std::vector<std::string>& ops);
  // POST /graphs/{id}/schema/apply {schema_source, allow_data_loss} →
  // SchemaApplyOutput.
  Result<nlohmann::ordered_json> SchemaApply(const std::string& schema_source, bool allow_data_loss);
  // POST /graphs/{id}/export → NDJSON text.
  Result<std::string> Export(const std::string& branch, const std::vector<std::string>& types);
  // GET /graphs/{id}/snapshot?branch= → SnapshotOutput.
  Result<nlohmann::ordered_json> Snapshot(const std::string& branch);
  // GET /graphs/{id}/schema → {schema_source}.
  Result<nlohmann::ordered_json> Schema();
  // GET /graphs/{id}/branches → {branches}.
  Result<nlohmann::ordered_json> BranchList();
  // POST /graphs/{id}/branches {name, from} → BranchCreateOutput.
  Result<nlohmann::ordered_json> BranchCreate(const std::string& name, const std::string& from);
  // DELETE /graphs/{id}/branches/{name} → BranchDeleteOutput.
  Result<nlohmann::ordered_json> BranchDelete(const std::string& name);
  // POST /graphs/{id}/branches/merge {source, target, delete_branch} →
  // BranchMergeOutput.
  Result<nlohmann::ordered_json> BranchMerge(const std::string& source, const std::string& target,
                                             bool delete_branch);
  // GET /graphs/{id}/commits?branch= → {commits}.
  Result<nlohmann::ordered_json> CommitList(const std::string& branch);
  // GET /graphs/{id}/commits/{commit_id} → CommitOutput.
  Result<nlohmann::ordered_json> CommitShow(const std::string& id);
  // POST /graphs/{id}/load/ndjson?branch=&mode=[&from=] with `data` →
  // LoadOutput.
  Result<nlohmann::ordered_json> Load(const std::string& data, const std::string& mode, const std::string& branch,
                                      const std::optional<std::string>& from);
  // POST /graphs/{id}/ingest {branch, from?, mode, data} (the deprecated
  // loader-compatible load, surface.md §4.6) → IngestOutput. Errors: as
  // Call; InvalidArgument when `data` is not UTF-8 (the envelope is JSON).
  Result<nlohmann::ordered_json> Ingest(const std::string& data, const std::string& mode, const std::string& branch,
                                        const std::optional<std::string>& from);

 private:
  // Sends `request` below /graphs/{id}; the raw body of a 2xx reply, else
  // ServerErrorStatus.
  Result<std::string> Call(HttpRequest request);
  Result<nlohmann::ordered_json> CallJson(HttpRequest request);
  // Sends `request` below /graphs/{id}; the reply whatever its status.
  Result<HttpReply> Exchange(HttpRequest request);

  ServedTarget target_;
};

}  // namespace omnigraph::cli::remote
