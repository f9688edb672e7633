// The read routes (server.md §1.2): snapshot, query and the deprecated
// read, export, schema, the stored-query catalog, branches and commits.
#include <algorithm>

#include "api/wire/report_json.h"
#include "compiler/query_parser.h"
#include "exec/result_format.h"
#include "server/errors.h"
#include "server/export_stream.h"
#include "server/routes.h"
#include "server/server.h"

namespace omnigraph::server {
namespace {

using Json = nlohmann::ordered_json;

// The branch a read of `snapshot` is checked against (§2.4): the branch
// the commit was authored on, main when that is unknown (the engine then
// answers the unknown commit itself).
std::string SnapshotBranch(ServedGraph& graph, const std::string& snapshot) {
  auto view = graph.Read<Result<exec::CommitView>>(
      [&](api::Omnigraph& handle) { return handle.DescribeCommit(snapshot); });
  if (!view.ok()) return "main";
  return view->commit.graph_branch.value_or("main");
}

// Whether the query `name` selects in `source` is a mutation; false when
// the source does not parse (the engine reports that).
bool IsMutationSource(const std::string& source, const std::string& name) {
  auto parsed = compiler::ParseQueries(source, "<inline>");
  if (!parsed.ok()) return false;
  for (const auto& declaration : parsed->queries) {
    if (name.empty() ? parsed->queries.size() == 1 : declaration.name == name) return declaration.is_mutation;
  }
  return false;
}

Json ParamJson(const compiler::query::Param& param) {
  using Shape = compiler::PropertyType::Shape;
  auto scalar_kind = [](compiler::ScalarKind kind) -> std::string {
    switch (kind) {
      case compiler::ScalarKind::kString: return "string";
      case compiler::ScalarKind::kBool: return "bool";
      case compiler::ScalarKind::kI32:
      case compiler::ScalarKind::kU32: return "int";
      case compiler::ScalarKind::kI64:
      case compiler::ScalarKind::kU64: return "bigint";
      case compiler::ScalarKind::kF32:
      case compiler::ScalarKind::kF64: return "float";
      case compiler::ScalarKind::kDate: return "date";
      case compiler::ScalarKind::kDateTime: return "datetime";
      case compiler::ScalarKind::kBlob: return "blob";
    }
    return "string";
  };
  const compiler::PropertyType& type = param.type;
  Json entry{{"name", param.name}};
  if (type.shape == Shape::kList) {
    entry["kind"] = "list";
    entry["item_kind"] = scalar_kind(type.scalar);
  } else if (type.shape == Shape::kVector) {
    entry["kind"] = "vector";
    entry["vector_dim"] = type.vector_dim;
  } else {
    entry["kind"] = type.shape == Shape::kEnum ? "string" : scalar_kind(type.scalar);
  }
  entry["nullable"] = type.nullable;
  return entry;
}

}  // namespace

void MarkDeprecated(const Exchange& exchange, std::string_view successor, HttpResponse* response) {
  response->AddHeader("Deprecation", "true");
  std::string target = "/graphs/" + exchange.graph->id() + "/" + std::string(successor);
  response->AddHeader("Link", "<" + target + ">; rel=\"successor-version\"");
}

HttpResponse HandleSnapshot(Exchange& exchange) {
  std::string branch = exchange.request.QueryParam("branch").value_or("main");
  if (auto refusal = Authorize(exchange, policy::Action::kRead, branch, std::nullopt)) return *refusal;
  auto info = exchange.graph->Read<Result<api::SnapshotInfo>>(
      [&](api::Omnigraph& handle) { return handle.Snapshot(branch); });
  if (!info.ok()) return ErrorResponse(info.status());
  return JsonResponse(api::wire::SnapshotJson(*info));
}

HttpResponse RunRead(Exchange& exchange, const std::string& source, const std::string& name,
                     const std::string& params_json, const std::optional<std::string>& branch,
                     const std::optional<std::string>& snapshot, bool legacy) {
  if (branch && snapshot) return BadRequest("pass either 'branch' or 'snapshot', not both");
  // The deprecated /read predates this guard: it hands a mutation to the
  // engine's read path, which refuses it (400) after the read check, so a
  // mutation never writes through a route that checks only `read`.
  if (!legacy && IsMutationSource(source, name)) {
    return BadRequest(
        "the query is a mutation; use POST /mutate (or its deprecated alias POST /change) for write queries");
  }
  std::string policy_branch = snapshot ? SnapshotBranch(*exchange.graph, *snapshot) : branch.value_or("main");
  if (auto refusal = Authorize(exchange, policy::Action::kRead, policy_branch, std::nullopt)) return *refusal;
  api::ReadTarget target;
  target.branch = branch.value_or("main");
  target.snapshot = snapshot;
  auto result = exchange.graph->Read<Result<exec::QueryResult>>([&](api::Omnigraph& handle) {
    return handle.Query(source, "<inline>", name, params_json, target);
  });
  if (!result.ok()) return ErrorResponse(result.status());
  HttpResponse response;
  response.body = exec::ReadOutputJson(*result, /*with_graph_commit_id=*/!legacy);
  return response;
}

HttpResponse HandleQuery(Exchange& exchange) {
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body)) return *refusal;
  std::optional<std::string> query, name, branch, snapshot;
  std::string params;
  for (auto [field, out] : {std::pair{"query", &query}, {"name", &name}, {"branch", &branch}, {"snapshot", &snapshot}}) {
    if (auto refusal = StringField(body, field, out)) return *refusal;
  }
  if (auto refusal = ParamsField(body, &params)) return *refusal;
  if (!query) return BadRequest("request field 'query' is required");
  return RunRead(exchange, *query, name.value_or(""), params, branch, snapshot, /*legacy=*/false);
}

HttpResponse HandleLegacyRead(Exchange& exchange) {
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body)) return *refusal;
  std::optional<std::string> query, name, branch, snapshot;
  std::string params;
  for (auto [field, out] : {std::pair{"query_source", &query}, {"query_name", &name}, {"branch", &branch},
                            {"snapshot", &snapshot}}) {
    if (auto refusal = StringField(body, field, out)) return *refusal;
  }
  if (auto refusal = ParamsField(body, &params)) return *refusal;
  HttpResponse response = query ? RunRead(exchange, *query, name.value_or(""), params, branch, snapshot,
                                          /*legacy=*/true)
                                : BadRequest("request field 'query_source' is required");
  MarkDeprecated(exchange, "query", &response);
  return response;
}

HttpResponse HandleExport(Exchange& exchange) {
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body, /*empty_is_object=*/true)) return *refusal;
  // ExportRequest is closed (additionalProperties: false in the contract).
  for (const auto& [key, value] : body.items()) {
    if (key != "branch" && key != "type_names") return BadRequest("unknown request field '" + key + "'");
  }
  std::optional<std::string> branch;
  if (auto refusal = StringField(body, "branch", &branch)) return *refusal;
  std::vector<std::string> types;
  if (auto found = body.find("type_names"); found != body.end() && !found->is_null()) {
    if (!found->is_array()) return BadRequest("request field 'type_names' must be an array of type names");
    for (const auto& type : *found) {
      if (!type.is_string()) return BadRequest("request field 'type_names' must be an array of type names");
      types.push_back(type.get<std::string>());
    }
  }
  std::string target_branch = branch.value_or("main");
  if (auto refusal = Authorize(exchange, policy::Action::kExport, target_branch, std::nullopt)) return *refusal;
  auto stream = StartExportStream(*exchange.graph, exchange.server.export_slots(),
                                  api::ReadTarget{target_branch, std::nullopt}, std::move(types));
  if (!stream.ok()) return ErrorResponse(stream.status());
  HttpResponse response;
  response.content_type = "application/x-ndjson; charset=utf-8";
  response.stream = std::move(*stream);
  return response;
}

HttpResponse HandleSchemaGet(Exchange& exchange) {
  if (auto refusal = Authorize(exchange, policy::Action::kRead, std::nullopt, std::nullopt)) return *refusal;
  auto source =
      exchange.graph->Read<Result<std::string>>([](api::Omnigraph& handle) { return handle.SchemaSource(); });
  if (!source.ok()) return ErrorResponse(source.status());
  return JsonResponse(api::wire::SchemaSourceJson(*source));
}

HttpResponse HandleQueriesCatalog(Exchange& exchange) {
  if (auto refusal = Authorize(exchange, policy::Action::kRead, std::string("main"), std::nullopt)) return *refusal;
  Json queries = Json::array();
  for (const auto& [name, stored] : exchange.graph->queries()) {
    const auto& declaration = stored.declaration;
    Json params = Json::array();
    for (const auto& param : declaration.params) params.push_back(ParamJson(param));
    queries.push_back(Json{{"name", name},
                           {"tool_name", name},
                           {"description", declaration.description ? Json(*declaration.description) : Json()},
                           {"instruction", declaration.instruction ? Json(*declaration.instruction) : Json()},
                           {"mutation", declaration.is_mutation},
                           {"params", params}});
  }
  return JsonResponse(Json{{"queries", queries}});
}

HttpResponse HandleBranchList(Exchange& exchange) {
  if (auto refusal = Authorize(exchange, policy::Action::kRead, std::nullopt, std::nullopt)) return *refusal;
  auto branches = exchange.graph->Read<Result<std::vector<std::string>>>(
      [](api::Omnigraph& handle) { return handle.BranchList(); });
  if (!branches.ok()) return ErrorResponse(branches.status());
  return JsonResponse(api::wire::BranchListJson(*branches));
}

HttpResponse HandleCommitList(Exchange& exchange) {
  std::string branch = exchange.request.QueryParam("branch").value_or("main");
  if (auto refusal = Authorize(exchange, policy::Action::kRead, branch, std::nullopt)) return *refusal;
  auto commits = exchange.graph->Read<Result<std::vector<graph::CommitRecord>>>(
      [&](api::Omnigraph& handle) { return handle.ListCommits(branch); });
  if (!commits.ok()) return ErrorResponse(commits.status());
  return JsonResponse(api::wire::CommitListJson(*commits));
}

HttpResponse HandleCommitShow(Exchange& exchange) {
  if (auto refusal = Authorize(exchange, policy::Action::kRead, std::nullopt, std::nullopt)) return *refusal;
  const std::string& id = exchange.params.at("commit_id");
  auto view = exchange.graph->Read<Result<exec::CommitView>>(
      [&](api::Omnigraph& handle) { return handle.DescribeCommit(id); });
  if (!view.ok()) return ErrorResponse(view.status());
  return JsonResponse(api::wire::CommitViewJson(*view));
}

}  // namespace omnigraph::server
