// What a route handler sees: the request, its decoded path parameters, the
// authenticated actor and the resolved graph, plus the checks every
// handler runs in the pipeline's order (policy, then admission).
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "policy/actions.h"
#include "server/http.h"
#include "server/served_graph.h"
#include "util/status.h"

namespace omnigraph::server {

class Server;

struct Exchange {
  Server& server;
  HttpRequest& request;
  std::map<std::string, std::string> params;
  // The authenticated actor; nullopt when the server runs Open.
  std::optional<std::string> actor;
  // The graph of /graphs/{graph_id}/… routes; null elsewhere.
  ServedGraph* graph = nullptr;

  // The admission actor: the actor, or `anonymous` when there is none.
  std::string AdmissionActor() const { return actor.value_or("anonymous"); }
};

// The HTTP-layer authorization of `action` (server.md §1.4): with no bundle
// for the target (the graph's, or the server's for graph_list), a
// server-scoped action is denied, an authenticated actor may only read,
// and an Open server allows the rest; with a bundle, a request without an
// actor is 401 and everything else is the bundle's decision (403 with its
// message). Returns the refusal to send, or nullopt to go on.
std::optional<HttpResponse> Authorize(const Exchange& exchange, policy::Action action,
                                      const std::optional<std::string>& branch,
                                      const std::optional<std::string>& target_branch);

// Parses the request body as a JSON object into `*body` (an empty body is
// `{}` when `empty_is_object`). Returns the refusal to send instead: 415
// for a non-empty body whose content type is not application/json (with
// any parameters, e.g. charset), 400 bad_request for text that is not JSON
// or not an object.
std::optional<HttpResponse> JsonBody(const Exchange& exchange, nlohmann::json* body, bool empty_is_object = false);

// An HTTP response with `json` as its body and status 200.
HttpResponse JsonResponse(const nlohmann::ordered_json& json, int status = 200);

}  // namespace omnigraph::server

namespace omnigraph::server {

// Body members. Each reads member `name` of the JSON object `body` into
// `*out` (absent or null: nullopt) and returns the 400 refusal to send when
// the member has another JSON type.
std::optional<HttpResponse> StringField(const nlohmann::json& body, std::string_view name,
                                        std::optional<std::string>* out);
std::optional<HttpResponse> BoolField(const nlohmann::json& body, std::string_view name, std::optional<bool>* out);
// `params`: absent or null is "{}"; otherwise it must be an object, kept as
// its compact JSON text for the engine.
std::optional<HttpResponse> ParamsField(const nlohmann::json& body, std::string* params_json);

// 400 bad_request with `message`.
HttpResponse BadRequest(std::string message);

}  // namespace omnigraph::server
