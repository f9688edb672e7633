#include "cli/remote/remote_graph.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/remote/credentials.h"

namespace omnigraph::cli::remote {
namespace {

using Json = nlohmann::ordered_json;

bool IsUrl(const std::string& text) { return text.rfind("http://", 0) == 0 || text.rfind("https://", 0) == 0; }

std::string WithoutTrailingSlash(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  return text;
}

ErrorCode CodeOfHttpStatus(int status) {
  switch (status) {
    case 400:
    case 413:
    case 415:
    case 416: return ErrorCode::kInvalidArgument;
    case 401:
    case 403: return ErrorCode::kPolicyDenied;
    case 404: return ErrorCode::kNotFound;
    case 409: return ErrorCode::kConflict;
    case 412: return ErrorCode::kPreconditionFailed;
    default: return ErrorCode::kInternal;
  }
}

}  // namespace

std::optional<std::string> HeaderValue(const HttpReply& reply, std::string_view name) {
  for (const auto& [key, value] : reply.headers) {
    if (key.size() == name.size() && std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      return value;
    }
  }
  return std::nullopt;
}

Result<ServedTarget> ResolveServedTarget(const GlobalFlags& flags, bool need_graph) {
  const std::string& server = !flags.server.empty() ? flags.server : flags.default_server;
  if (server.empty()) {
    return UsageError("--graph selects a graph on a server: pass --server <name|url> (or set defaults.server in the "
                      "operator config)");
  }
  ServedTarget target;
  std::string url;
  if (IsUrl(server)) {
    url = server;
    // A literal URL gets the keyed token of the server entry it belongs to.
    for (const auto& [name, entry] : flags.servers) {
      if (WithoutTrailingSlash(entry) == WithoutTrailingSlash(url)) target.server_name = name;
    }
  } else {
    auto entry = flags.servers.find(server);
    if (entry == flags.servers.end()) {
      std::vector<std::string_view> names;
      for (const auto& known : flags.servers) names.push_back(known.first);
      return UsageError(fmt::format("server '{}' is not in the operator config ({})", server,
                                    names.empty() ? std::string("it defines no servers")
                                                  : fmt::format("servers: {}", fmt::join(names, ", "))));
    }
    url = entry->second;
    target.server_name = server;
  }
  OG_ASSIGN_OR_RETURN(target.server, ParseServerUrl(url));
  target.graph_id = !flags.graph.empty() ? flags.graph : flags.default_graph;
  if (target.graph_id.empty() && need_graph) {
    return UsageError(fmt::format("no graph given: pass --graph <id> to select a graph on {} (or set default_graph "
                                  "in the operator config)",
                                  target.server.text));
  }
  OG_ASSIGN_OR_RETURN(target.token, BearerToken(target.server_name));
  return target;
}

Status ServerErrorStatus(int http_status, const std::string& body) {
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string message;
  if (json.is_object() && json.contains("error") && json["error"].is_string()) {
    message = json["error"].get<std::string>();
  } else {
    message = fmt::format("the server answered HTTP {}{}", http_status, body.empty() ? "" : ": " + body);
  }
  Status::Details details;
  if (http_status == 412 && json.is_object() && json.contains("precondition_failure")) {
    const Json& failure = json["precondition_failure"];
    if (failure.contains("expected") && failure["expected"].is_string()) {
      details["expected"] = failure["expected"].get<std::string>();
    }
    if (failure.contains("actual") && failure["actual"].is_string()) {
      details["actual"] = failure["actual"].get<std::string>();
    }
  }
  // The CLI prints a located parse or catalog error's excerpt lines as
  // they are (Context::Fail); the engine marks those by this detail.
  if (message.rfind("parse error", 0) == 0) details["code"] = "parse";
  if (message.rfind("catalog error", 0) == 0) details["code"] = "catalog";
  return Status(CodeOfHttpStatus(http_status), std::move(message), std::move(details));
}

Result<Json> ListGraphs(const GlobalFlags& flags) {
  OG_ASSIGN_OR_RETURN(ServedTarget target, ResolveServedTarget(flags, /*need_graph=*/false));
  HttpRequest request;
  request.target = "/graphs";
  OG_ASSIGN_OR_RETURN(HttpReply reply, Send(target.server, request, target.token));
  if (reply.status < 200 || reply.status >= 300) return ServerErrorStatus(reply.status, reply.body);
  Json json = Json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return Internal(fmt::format("the server at {} sent a reply that is not JSON", target.server.text));
  }
  return json;
}

Status WithSourceName(const Status& status, const std::string& source_file, std::string_view server_name) {
  if (status.ok() || source_file == server_name) return status;
  std::string message = status.message();
  size_t at = message.find(server_name);
  if (at == std::string::npos) return status;
  message.replace(at, server_name.size(), source_file);
  return Status(status.code(), std::move(message), status.details());
}

Result<RemoteGraph> RemoteGraph::Open(const GlobalFlags& flags, const std::string& positional) {
  if (!positional.empty()) {
    return UsageError(fmt::format("pass the graph either as '{}' or with --server/--graph, not both", positional));
  }
  OG_ASSIGN_OR_RETURN(ServedTarget target, ResolveServedTarget(flags));
  return RemoteGraph(std::move(target));
}

Result<HttpReply> RemoteGraph::Exchange(HttpRequest request) {
  request.target = "/graphs/" + UrlEncode(target_.graph_id) + request.target;
  return Send(target_.server, request, target_.token);
}

Result<std::string> RemoteGraph::Call(HttpRequest request) {
  OG_ASSIGN_OR_RETURN(HttpReply reply, Exchange(std::move(request)));
  if (reply.status < 200 || reply.status >= 300) return ServerErrorStatus(reply.status, reply.body);
  return std::move(reply.body);
}

Result<Json> RemoteGraph::CallJson(HttpRequest request) {
  OG_ASSIGN_OR_RETURN(std::string body, Call(std::move(request)));
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Internal(fmt::format("the server at {} sent a reply that is not JSON", url()));
  return json;
}

namespace {

HttpRequest JsonPost(std::string target, const Json& body) {
  HttpRequest request;
  request.method = "POST";
  request.target = std::move(target);
  request.content_type = "application/json";
  request.body = body.dump();
  return request;
}

HttpRequest Get(std::string target) {
  HttpRequest request;
  request.target = std::move(target);
  return request;
}

// The request's `params`: the CLI's --params text as JSON (an object), or
// absent when none was given.
Status AddParams(const std::string& params_json, Json* body) {
  if (params_json.empty()) return Status::OK();
  Json params = Json::parse(params_json, nullptr, /*allow_exceptions=*/false);
  if (params.is_discarded()) return InvalidArgument("--params is not valid JSON");
  (*body)["params"] = std::move(params);
  return Status::OK();
}

}  // namespace

Result<std::string> RemoteGraph::Query(const std::string& source, const std::string& name,
                                       const std::string& params_json, const std::string& branch,
                                       const std::optional<std::string>& snapshot) {
  Json body{{"query", source}};
  if (!name.empty()) body["name"] = name;
  OG_RETURN_IF_ERROR(AddParams(params_json, &body));
  if (snapshot) {
    body["snapshot"] = *snapshot;
  } else {
    body["branch"] = branch;
  }
  return Call(JsonPost("/query", body));
}

Result<Json> RemoteGraph::Mutate(const std::string& source, const std::string& name, const std::string& params_json,
                                 const std::string& branch, const std::optional<std::string>& if_commit) {
  Json body{{"query", source}};
  if (!name.empty()) body["name"] = name;
  OG_RETURN_IF_ERROR(AddParams(params_json, &body));
  if (!branch.empty()) body["branch"] = branch;
  HttpRequest request = JsonPost(if_commit ? "/mutate/if-graph-commit" : "/mutate", body);
  if (if_commit) request.headers.emplace_back("Omnigraph-If-Graph-Commit", *if_commit);
  return CallJson(std::move(request));
}

Result<std::string> RemoteGraph::InvokeStored(const std::string& name, const std::string& params_json,
                                              const std::string& branch, const std::optional<std::string>& snapshot,
                                              bool expect_mutation, const std::optional<std::string>& if_commit) {
  Json body{{"expect_mutation", expect_mutation}};
  OG_RETURN_IF_ERROR(AddParams(params_json, &body));
  if (snapshot) body["snapshot"] = *snapshot;
  if (!branch.empty()) body["branch"] = branch;
  HttpRequest request = JsonPost("/queries/" + UrlEncode(name) + (if_commit ? "/if-graph-commit" : ""), body);
  if (if_commit) request.headers.emplace_back("Omnigraph-If-Graph-Commit", *if_commit);
  return Call(std::move(request));
}

Result<HttpReply> RemoteGraph::BlobGet(const std::string& entity, const std::string& type, const std::string& id,
                                       const std::string& property, const std::string& branch,
                                       const std::optional<std::string>& snapshot, const std::string& range,
                                       bool head) {
  HttpRequest request;
  if (head) request.method = "HEAD";
  request.target = "/blob?entity=" + UrlEncode(entity) + "&type=" + UrlEncode(type) + "&id=" + UrlEncode(id) +
                   "&property=" + UrlEncode(property) +
                   (snapshot ? "&snapshot=" + UrlEncode(*snapshot) : "&branch=" + UrlEncode(branch));
  if (!range.empty()) request.headers.emplace_back("Range", range);
  OG_ASSIGN_OR_RETURN(HttpReply reply, Exchange(std::move(request)));
  if ((reply.status >= 200 && reply.status < 300) || reply.status == 302) return reply;
  return ServerErrorStatus(reply.status, reply.body);
}

Result<std::string> RemoteGraph::CommitChanges(const std::string& id, const std::string& query) {
  return Call(Get("/commits/" + UrlEncode(id) + "/changes" + (query.empty() ? "" : "?" + query)));
}

Result<std::string> RemoteGraph::ChangesFeed(const std::string& query) {
  return Call(Get("/changes" + (query.empty() ? "" : "?" + query)));
}

Result<std::string> RemoteGraph::ChangesBaseline(const std::string& branch, const std::vector<std::string>& kinds,
                                                 const std::vector<std::string>& types,
                                                 const std::vector<std::string>& ops) {
  Json body{{"branch", branch}};
  if (!kinds.empty()) body["kind"] = kinds;
  if (!types.empty()) body["type"] = types;
  if (!ops.empty()) body["op"] = ops;
  return Call(JsonPost("/changes/baseline", body));
}

Result<Json> RemoteGraph::SchemaApply(const std::string& schema_source, bool allow_data_loss) {
  return CallJson(
      JsonPost("/schema/apply", Json{{"schema_source", schema_source}, {"allow_data_loss", allow_data_loss}}));
}

Result<std::string> RemoteGraph::Export(const std::string& branch, const std::vector<std::string>& types) {
  Json body{{"branch", branch}};
  if (!types.empty()) body["type_names"] = types;
  return Call(JsonPost("/export", body));
}

Result<Json> RemoteGraph::Snapshot(const std::string& branch) {
  return CallJson(Get("/snapshot?branch=" + UrlEncode(branch)));
}

Result<Json> RemoteGraph::Schema() { return CallJson(Get("/schema")); }

Result<Json> RemoteGraph::BranchList() { return CallJson(Get("/branches")); }

Result<Json> RemoteGraph::BranchCreate(const std::string& name, const std::string& from) {
  return CallJson(JsonPost("/branches", Json{{"name", name}, {"from", from}}));
}

Result<Json> RemoteGraph::BranchDelete(const std::string& name) {
  HttpRequest request;
  request.method = "DELETE";
  request.target = "/branches/" + UrlEncode(name);
  return CallJson(std::move(request));
}

Result<Json> RemoteGraph::BranchMerge(const std::string& source, const std::string& target, bool delete_branch) {
  return CallJson(
      JsonPost("/branches/merge", Json{{"source", source}, {"target", target}, {"delete_branch", delete_branch}}));
}

Result<Json> RemoteGraph::CommitList(const std::string& branch) {
  return CallJson(Get("/commits?branch=" + UrlEncode(branch)));
}

Result<Json> RemoteGraph::CommitShow(const std::string& id) { return CallJson(Get("/commits/" + UrlEncode(id))); }

Result<Json> RemoteGraph::Load(const std::string& data, const std::string& mode, const std::string& branch,
                               const std::optional<std::string>& from) {
  HttpRequest request;
  request.method = "POST";
  request.target = "/load/ndjson?branch=" + UrlEncode(branch) + "&mode=" + UrlEncode(mode);
  if (from) request.target += "&from=" + UrlEncode(*from);
  request.content_type = "application/x-ndjson";
  request.body = data;
  return CallJson(std::move(request));
}

Result<Json> RemoteGraph::Ingest(const std::string& data, const std::string& mode, const std::string& branch,
                                 const std::optional<std::string>& from) {
  Json body{{"branch", branch}, {"mode", mode}, {"data", data}};
  if (from) body["from"] = *from;
  HttpRequest request;
  request.method = "POST";
  request.target = "/ingest";
  request.content_type = "application/json";
  try {
    request.body = body.dump();
  } catch (const nlohmann::json::type_error&) {
    return InvalidArgument("the data is not valid UTF-8, which the JSON envelope of /ingest needs");
  }
  return CallJson(std::move(request));
}

}  // namespace omnigraph::cli::remote
