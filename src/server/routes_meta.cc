// GET /healthz, GET /openapi.json, GET /graphs (server.md §1.2).
#include <fstream>
#include <sstream>

#include "api/version.h"
#include "graph/manifest/graph_state.h"
#include "server/errors.h"
#include "server/routes.h"
#include "server/server.h"

namespace omnigraph::server {

HttpResponse HandleHealth(Exchange&) {
  nlohmann::ordered_json body{{"status", "ok"},
                              {"version", std::string(api::kVersion)},
                              {"internal_schema_version", graph::kStorageStamp}};
  return JsonResponse(body);
}

// The contract is served from the document the server was pointed at, as
// published: per-graph operations under /graphs/{graph_id}/… with their
// `cluster_` operation ids. Without auth the security scheme is dropped,
// so generated clients do not ask for a token the server ignores.
HttpResponse HandleOpenApi(Exchange& exchange) {
  const std::string& path = exchange.server.openapi_path();
  if (path.empty()) return NotFoundResponse("this server was started without an OpenAPI document");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!in || document.is_discarded()) {
    return ErrorResponse(500, "cannot read the OpenAPI document '" + path + "'", "internal");
  }
  if (!exchange.server.auth_required()) {
    if (document.contains("components")) document["components"].erase("securitySchemes");
    for (auto& [route, item] : document["paths"].items()) {
      for (auto& [method, operation] : item.items()) {
        if (operation.is_object()) operation.erase("security");
      }
    }
  }
  return JsonResponse(document);
}

HttpResponse HandleGraphList(Exchange& exchange) {
  if (auto refusal = Authorize(exchange, policy::Action::kGraphList, std::nullopt, std::nullopt)) return *refusal;
  nlohmann::ordered_json graphs = nlohmann::ordered_json::array();
  for (const auto& [id, graph] : exchange.server.graphs()) {
    graphs.push_back(nlohmann::ordered_json{{"graph_id", id}, {"uri", graph->uri()}});
  }
  return JsonResponse(nlohmann::ordered_json{{"graphs", graphs}});
}

}  // namespace omnigraph::server
