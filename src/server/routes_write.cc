// The write routes (server.md §1.2): mutate (plain, conditional and the
// deprecated change), load (JSON envelope, raw NDJSON and the deprecated
// ingest), branch create/delete/merge, schema apply and stored-query
// invocation. Every write runs policy, then per-actor admission, then the
// engine under the graph's write gate with the authenticated actor.
#include <cctype>

#include "api/wire/report_json.h"
#include "graph/branches.h"
#include "server/errors.h"
#include "server/routes.h"
#include "server/server.h"

namespace omnigraph::server {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kIfGraphCommit = "Omnigraph-If-Graph-Commit";
// The admission estimate of a branch operation (server.md §1.7).
constexpr uint64_t kBranchOperationBytes = 256;

// Admits one write of `bytes` for the exchange's actor, or the 429 to send.
std::optional<HttpResponse> Admit(Exchange& exchange, uint64_t bytes, std::optional<Admission::Ticket>* ticket) {
  auto admitted = exchange.server.admission().TryAdmit(exchange.AdmissionActor(), bytes);
  if (admitted) {
    ticket->emplace(std::move(*admitted));
    return std::nullopt;
  }
  const Admission& admission = exchange.server.admission();
  return TooManyRequests("actor '" + exchange.AdmissionActor() + "' is at its admission limit (" +
                         std::to_string(admission.max_in_flight()) + " requests or " +
                         std::to_string(admission.max_bytes()) + " bytes in flight); retry later");
}

// The one raw commit id of the Omnigraph-If-Graph-Commit header, or the 400
// to send: the header must appear exactly once and hold one commit id, not
// `*`, a weak `W/…` validator, a quoted value or a list.
std::optional<HttpResponse> IfGraphCommit(const Exchange& exchange, std::string* commit) {
  std::vector<std::string> values = exchange.request.headers.FindAll(kIfGraphCommit);
  if (values.size() != 1) {
    return BadRequest(std::string(kIfGraphCommit) + " must be sent exactly once, with one graph commit id");
  }
  std::string value = values.front();
  size_t begin = value.find_first_not_of(" \t"), end = value.find_last_not_of(" \t");
  value = begin == std::string::npos ? "" : value.substr(begin, end - begin + 1);
  bool plain = !value.empty() && value != "*" && value.rfind("W/", 0) != 0;
  for (char c : value) {
    if (c == '"' || c == ',' || std::isspace(static_cast<unsigned char>(c))) plain = false;
  }
  if (!plain) {
    return BadRequest(std::string(kIfGraphCommit) + " must hold one raw graph commit id (not '*', a weak " +
                      "validator, a quoted value or a list); got '" + values.front() + "'");
  }
  *commit = value;
  return std::nullopt;
}

// Reads the mutate body {query, name?, params?, branch?} (with the serde
// aliases query_source and query_name).
struct MutateBody {
  std::optional<std::string> query, name, branch;
  std::string params;
};
std::optional<HttpResponse> ReadMutateBody(Exchange& exchange, MutateBody* out) {
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body)) return refusal;
  std::optional<std::string> alias_query, alias_name;
  for (auto [field, target] : {std::pair{"query", &out->query}, {"name", &out->name}, {"branch", &out->branch},
                               {"query_source", &alias_query}, {"query_name", &alias_name}}) {
    if (auto refusal = StringField(body, field, target)) return refusal;
  }
  if (!out->query) out->query = alias_query;
  if (!out->name) out->name = alias_name;
  if (auto refusal = ParamsField(body, &out->params)) return refusal;
  if (!out->query) return BadRequest("request field 'query' is required");
  return std::nullopt;
}

// The load request, from the JSON envelope or the NDJSON query string.
struct LoadRequest {
  std::optional<std::string> branch, from, mode;
  std::string data;
  // The JSON envelope of /load and /ingest carries loader-compatible
  // records (surface.md §4, §4.6); /load/ndjson is strict.
  exec::LoadSyntax syntax = exec::LoadSyntax::kStrict;
};

// The load's checks before any data is read: its mode, then policy
// (branch_create on [from; branch] when the branch is missing and `from`
// is given, then change on the branch). `*exists` tells whether the branch
// is there.
std::optional<HttpResponse> AuthorizeLoad(Exchange& exchange, const LoadRequest& request, bool* exists) {
  std::string branch = request.branch.value_or("main");
  if (!api::ParseLoadMode(request.mode.value_or("merge"))) {
    return BadRequest("mode must be append, merge or overwrite; got '" + *request.mode + "'");
  }
  auto branches = exchange.graph->Read<Result<std::vector<std::string>>>(
      [](api::Omnigraph& handle) { return handle.BranchList(); });
  if (!branches.ok()) return ErrorResponse(branches.status());
  *exists = std::find(branches->begin(), branches->end(), graph::TrimBranchName(branch)) != branches->end();
  if (!*exists && request.from) {
    if (auto refusal = Authorize(exchange, policy::Action::kBranchCreate, request.from, branch)) return refusal;
  }
  return Authorize(exchange, policy::Action::kChange, branch, std::nullopt);
}

// The load after its checks passed (AuthorizeLoad): admission, then the
// engine under the write gate.
HttpResponse WriteLoad(Exchange& exchange, const LoadRequest& request, bool exists) {
  std::string branch = request.branch.value_or("main");
  auto mode = api::ParseLoadMode(request.mode.value_or("merge"));
  std::optional<Admission::Ticket> ticket;
  if (auto refusal = Admit(exchange, exchange.request.body.size(), &ticket)) return *refusal;
  std::optional<std::string> create_from = exists ? std::nullopt : request.from;
  auto report = exchange.graph->Write<Result<api::LoadReport>>(exchange.actor, [&](api::Omnigraph& handle) {
    return handle.Load(request.data, "<request body>", *mode, branch, {}, create_from, request.syntax);
  });
  if (!report.ok()) return ErrorResponse(report.status());
  Json body = api::wire::LoadReportJson(*report, exchange.graph->uri());
  // The request's `from`, echoed even when the branch already existed
  // (openapi IngestOutput / GraphBatchLoadOutput `base_branch`).
  body["base_branch"] = request.from ? Json(*request.from) : Json();
  body["actor_id"] = exchange.actor ? Json(*exchange.actor) : Json();
  return JsonResponse(body);
}

HttpResponse RunLoad(Exchange& exchange, const LoadRequest& request) {
  bool exists = false;
  if (auto refusal = AuthorizeLoad(exchange, request, &exists)) return *refusal;
  return WriteLoad(exchange, request, exists);
}

HttpResponse LoadFromEnvelope(Exchange& exchange) {
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body)) return *refusal;
  LoadRequest request;
  std::optional<std::string> data;
  for (auto [field, target] : {std::pair{"branch", &request.branch}, {"from", &request.from},
                               {"mode", &request.mode}, {"data", &data}}) {
    if (auto refusal = StringField(body, field, target)) return *refusal;
  }
  if (!data) return BadRequest("request field 'data' is required");
  request.data = std::move(*data);
  request.syntax = exec::LoadSyntax::kLegacy;
  return RunLoad(exchange, request);
}

}  // namespace

HttpResponse RunMutation(Exchange& exchange, const std::string& source, const std::string& name,
                         const std::string& params_json, const std::optional<std::string>& branch,
                         const std::optional<std::string>& if_commit) {
  std::string target = branch.value_or("main");
  if (auto refusal = Authorize(exchange, policy::Action::kChange, target, std::nullopt)) return *refusal;
  std::optional<Admission::Ticket> ticket;
  if (auto refusal = Admit(exchange, source.size() + params_json.size(), &ticket)) return *refusal;
  auto report = exchange.graph->Write<Result<api::MutationReport>>(exchange.actor, [&](api::Omnigraph& handle) {
    return handle.Mutate(source, "<inline>", name, params_json, target, if_commit);
  });
  if (!report.ok()) return ErrorResponse(report.status());
  return JsonResponse(api::wire::MutationReportJson(*report, exchange.actor));
}

HttpResponse HandleMutate(Exchange& exchange) {
  MutateBody body;
  if (auto refusal = ReadMutateBody(exchange, &body)) return *refusal;
  if (!exchange.request.headers.FindAll(kIfGraphCommit).empty()) {
    return BadRequest(std::string(kIfGraphCommit) + " is only honoured by POST /graphs/" + exchange.graph->id() +
                      "/mutate/if-graph-commit; send conditional mutations there");
  }
  return RunMutation(exchange, *body.query, body.name.value_or(""), body.params, body.branch, std::nullopt);
}

HttpResponse HandleMutateIfGraphCommit(Exchange& exchange) {
  MutateBody body;
  if (auto refusal = ReadMutateBody(exchange, &body)) return *refusal;
  std::string commit;
  if (auto refusal = IfGraphCommit(exchange, &commit)) return *refusal;
  return RunMutation(exchange, *body.query, body.name.value_or(""), body.params, body.branch, commit);
}

HttpResponse HandleLegacyChange(Exchange& exchange) {
  HttpResponse response = HandleMutate(exchange);
  MarkDeprecated(exchange, "mutate", &response);
  return response;
}

HttpResponse HandleLoad(Exchange& exchange) { return LoadFromEnvelope(exchange); }

HttpResponse HandleLegacyIngest(Exchange& exchange) {
  HttpResponse response = LoadFromEnvelope(exchange);
  MarkDeprecated(exchange, "load", &response);
  return response;
}

namespace {

LoadRequest NdjsonLoadRequest(const Exchange& exchange) {
  LoadRequest request;
  request.branch = exchange.request.QueryParam("branch");
  request.from = exchange.request.QueryParam("from");
  request.mode = exchange.request.QueryParam("mode");
  return request;
}

std::optional<HttpResponse> CheckNdjsonMediaType(const Exchange& exchange) {
  std::string type = exchange.request.headers.Find("Content-Type").value_or("");
  std::string media = type.substr(0, type.find(';'));
  while (!media.empty() && media.back() == ' ') media.pop_back();
  if (!EqualsIgnoringCase(media, "application/x-ndjson")) {
    return ErrorResponse(415, "expected a request body with Content-Type: application/x-ndjson", "bad_request");
  }
  return std::nullopt;
}

}  // namespace

std::optional<HttpResponse> PreflightLoadNdjson(Exchange& exchange) {
  // Policy first, so a caller without the grant learns nothing from the
  // media type; the body (and its 32 MiB limit) only after both.
  bool exists = false;
  if (auto refusal = AuthorizeLoad(exchange, NdjsonLoadRequest(exchange), &exists)) return refusal;
  return CheckNdjsonMediaType(exchange);
}

HttpResponse HandleLoadNdjson(Exchange& exchange) {
  LoadRequest request = NdjsonLoadRequest(exchange);
  bool exists = false;
  if (auto refusal = AuthorizeLoad(exchange, request, &exists)) return *refusal;
  if (auto refusal = CheckNdjsonMediaType(exchange)) return *refusal;
  request.data = exchange.request.body;
  return WriteLoad(exchange, request, exists);
}

HttpResponse HandleBranchCreate(Exchange& exchange) {
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body)) return *refusal;
  std::optional<std::string> name, from;
  if (auto refusal = StringField(body, "name", &name)) return *refusal;
  if (auto refusal = StringField(body, "from", &from)) return *refusal;
  if (!name) return BadRequest("request field 'name' is required");
  std::string source = from.value_or("main");
  if (auto refusal = Authorize(exchange, policy::Action::kBranchCreate, source, *name)) return *refusal;
  std::optional<Admission::Ticket> ticket;
  if (auto refusal = Admit(exchange, kBranchOperationBytes, &ticket)) return *refusal;
  auto report = exchange.graph->Write<Result<api::BranchCreateReport>>(
      exchange.actor, [&](api::Omnigraph& handle) { return handle.BranchCreate(*name, source); });
  if (!report.ok()) return ErrorResponse(report.status());
  return JsonResponse(api::wire::BranchCreateJson(*report));
}

HttpResponse HandleBranchDelete(Exchange& exchange) {
  const std::string& name = exchange.params.at("branch");
  if (auto refusal = Authorize(exchange, policy::Action::kBranchDelete, std::nullopt, name)) return *refusal;
  std::optional<Admission::Ticket> ticket;
  if (auto refusal = Admit(exchange, kBranchOperationBytes, &ticket)) return *refusal;
  Status deleted = exchange.graph->Write<Status>(exchange.actor,
                                                 [&](api::Omnigraph& handle) { return handle.BranchDelete(name); });
  if (!deleted.ok()) return ErrorResponse(deleted);
  return JsonResponse(api::wire::BranchDeleteJson(exchange.graph->uri(), name, exchange.actor));
}

HttpResponse HandleBranchMerge(Exchange& exchange) {
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body)) return *refusal;
  std::optional<std::string> source, target;
  std::optional<bool> delete_branch;
  if (auto refusal = StringField(body, "source", &source)) return *refusal;
  if (auto refusal = StringField(body, "target", &target)) return *refusal;
  if (auto refusal = BoolField(body, "delete_branch", &delete_branch)) return *refusal;
  if (!source) return BadRequest("request field 'source' is required");
  std::string into = target.value_or("main");
  if (auto refusal = Authorize(exchange, policy::Action::kBranchMerge, *source, into)) return *refusal;
  std::optional<Admission::Ticket> ticket;
  if (auto refusal = Admit(exchange, kBranchOperationBytes, &ticket)) return *refusal;
  auto report = exchange.graph->Write<Result<api::BranchMergeReport>>(
      exchange.actor, [&](api::Omnigraph& handle) { return handle.BranchMerge(*source, into); });
  if (!report.ok()) return ErrorResponse(report.status());
  if (delete_branch.value_or(false)) {
    // The merge has landed; deleting the source is a second, separately
    // authorized step whose refusal is reported, not raised (BR-9.10).
    if (auto refusal = Authorize(exchange, policy::Action::kBranchDelete, std::nullopt, *source)) {
      report->branch_deleted = false;
      nlohmann::json error = nlohmann::json::parse(refusal->body, nullptr, false);
      report->branch_delete_error = error.is_object() ? error.value("error", "") : refusal->body;
    } else {
      Status deleted = exchange.graph->Write<Status>(
          exchange.actor, [&](api::Omnigraph& handle) { return handle.BranchDelete(*source); });
      report->branch_deleted = deleted.ok();
      if (!deleted.ok()) report->branch_delete_error = deleted.message();
    }
  }
  return JsonResponse(api::wire::BranchMergeJson(*report));
}

HttpResponse HandleSchemaApply(Exchange& exchange) {
  // The body is read first, as on every route: a malformed one is a 400
  // whatever the caller may do; then policy (403), then the 409.
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body)) return *refusal;
  std::optional<std::string> schema_source;
  if (auto refusal = StringField(body, "schema_source", &schema_source)) return *refusal;
  if (!schema_source) return BadRequest("request field 'schema_source' is required");
  std::optional<bool> allow_data_loss;
  if (auto refusal = BoolField(body, "allow_data_loss", &allow_data_loss)) return *refusal;
  if (auto refusal = Authorize(exchange, policy::Action::kSchemaApply, std::nullopt, std::string("main"))) {
    return *refusal;
  }
  return ErrorResponse(409,
                       "server-side schema apply is disabled for cluster-backed serving; update the cluster config, "
                       "run `omnigraph cluster apply`, and restart the server.",
                       "conflict");
}

namespace {

// POST /queries/{name}[/if-graph-commit] (server.md §1.2).
HttpResponse InvokeStoredQuery(Exchange& exchange, bool conditional) {
  const std::string& name = exchange.params.at("name");
  auto stored = exchange.graph->queries().find(name);
  // A denied invoke_query answers exactly as an unknown name, so a caller
  // cannot learn which stored queries exist.
  HttpResponse not_found = NotFoundResponse("stored query not found");
  if (stored == exchange.graph->queries().end()) return not_found;
  if (auto refusal = Authorize(exchange, policy::Action::kInvokeQuery, std::nullopt, std::nullopt)) {
    return refusal->status == 403 ? not_found : *refusal;
  }
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body, /*empty_is_object=*/true)) return *refusal;
  std::optional<std::string> branch, snapshot;
  std::optional<bool> expect_mutation;
  std::string params;
  if (auto refusal = StringField(body, "branch", &branch)) return *refusal;
  if (auto refusal = StringField(body, "snapshot", &snapshot)) return *refusal;
  if (auto refusal = BoolField(body, "expect_mutation", &expect_mutation)) return *refusal;
  if (auto refusal = ParamsField(body, &params)) return *refusal;
  bool mutation = stored->second.declaration.is_mutation;
  if (expect_mutation && *expect_mutation != mutation) {
    return BadRequest("stored query '" + name + "' is " + (mutation ? "a mutation" : "a read") +
                      ", but the request expected " + (*expect_mutation ? "a mutation" : "a read"));
  }
  if (!mutation) {
    if (conditional) {
      return BadRequest("stored query '" + name + "' is a read; only stored mutations take " +
                        std::string(kIfGraphCommit));
    }
    return RunRead(exchange, stored->second.source, name, params, branch, snapshot, /*legacy=*/false);
  }
  if (snapshot) return BadRequest("stored mutation '" + name + "' cannot run against a snapshot");
  std::optional<std::string> if_commit;
  if (conditional) {
    std::string commit;
    if (auto refusal = IfGraphCommit(exchange, &commit)) return *refusal;
    if_commit = commit;
  } else if (!exchange.request.headers.FindAll(kIfGraphCommit).empty()) {
    return BadRequest(std::string(kIfGraphCommit) + " is only honoured by POST /graphs/" + exchange.graph->id() +
                      "/queries/" + name + "/if-graph-commit");
  }
  return RunMutation(exchange, stored->second.source, name, params, branch, if_commit);
}

}  // namespace

HttpResponse HandleStoredQuery(Exchange& exchange) { return InvokeStoredQuery(exchange, /*conditional=*/false); }

HttpResponse HandleStoredQueryIfGraphCommit(Exchange& exchange) {
  return InvokeStoredQuery(exchange, /*conditional=*/true);
}

}  // namespace omnigraph::server
