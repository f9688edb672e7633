#include "server/server.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "cluster/serving.h"
#include "exec/json_value.h"
#include "graph/branches.h"
#include "policy/bundle.h"
#include "server/errors.h"
#include "server/exchange.h"
#include "server/routes.h"

namespace omnigraph::server {
namespace {

// Graphs opened concurrently at boot (server.md §1.1).
constexpr size_t kParallelOpens = 4;

Result<std::shared_ptr<const policy::Evaluator>> CompileBundle(const std::string& name, const std::string& source,
                                                               policy::Binding binding) {
  OG_ASSIGN_OR_RETURN(policy::Bundle bundle, policy::ParseBundle(source, name + ".policy.yaml"));
  OG_RETURN_IF_ERROR(policy::CheckBinding(bundle, binding));
  return std::shared_ptr<const policy::Evaluator>(std::make_shared<policy::Evaluator>(std::move(bundle)));
}

// Quarantines each graph whose embedding provider's api_key variable is not
// set: secrets are read at boot only (cluster.md §1.4, §5 registry step).
void ResolveProviderSecrets(const Environment& environment, cluster::ServingSnapshot* snapshot) {
  std::vector<cluster::ServingGraph> resolved;
  for (cluster::ServingGraph& graph : snapshot->graphs) {
    if (!graph.embedding_api_key_env || environment(*graph.embedding_api_key_env)) {
      resolved.push_back(std::move(graph));
      continue;
    }
    cluster::Diagnostic warning = cluster::WarningDiagnostic(
        "embedding_api_key_missing", "graph." + graph.id,
        "embedding provider for graph '" + graph.id + "': embedding api_key env var '" +
            *graph.embedding_api_key_env + "' is not set");
    snapshot->quarantined.emplace(graph.id, warning);
    snapshot->warnings.push_back(std::move(warning));
  }
  snapshot->graphs = std::move(resolved);
}

// The graph's external-blob policy as a server applies it (cluster.md §5):
// its server_safe bases (embedded_only ones are dropped; none is Deny).
// Errors: those of exec::ExternalBlobPolicy::Allow.
Result<exec::ExternalBlobPolicy> ServedBlobPolicy(const cluster::ServingGraph& graph) {
  std::vector<exec::ExternalBlobBase> bases;
  for (const cluster::ExternalBlobBase& base : graph.external_blobs.bases) {
    if (base.scope == "server_safe") bases.push_back({base.uri, exec::ExternalBlobScope::kServerSafe});
  }
  return exec::ExternalBlobPolicy::Allow(std::move(bases));
}

// Opens one graph of the snapshot; a failure is the graph's quarantine.
Result<std::unique_ptr<ServedGraph>> OpenServingGraph(const cluster::ServingGraph& graph, size_t handles,
                                                      const api::EnginePtr& engine) {
  if (!IsValidGraphId(graph.id)) {
    return InvalidArgument("graph id '" + graph.id +
                           "' is not a valid server graph id (1-64 ASCII letters, digits or '-')");
  }
  // Checked before the open, which may run engine recovery.
  auto blob_policy = ServedBlobPolicy(graph);
  if (!blob_policy.ok()) return blob_policy.status().WithContext("graph '" + graph.id + "' external blob policy");
  std::shared_ptr<const policy::Evaluator> evaluator;
  if (graph.policy_source) {
    auto compiled = CompileBundle(*graph.policy_name, *graph.policy_source, policy::Binding::kGraph);
    if (!compiled.ok()) return compiled.status().WithContext("graph '" + graph.id + "' policy bundle");
    evaluator = *compiled;
  }
  auto opened = ServedGraph::Open(graph.id, graph.root, evaluator, graph.queries, handles, engine, *blob_policy);
  if (!opened.ok()) return opened.status().WithContext("graph '" + graph.id + "'");
  return opened;
}

}  // namespace

std::string_view RuntimeStateName(RuntimeState state) {
  switch (state) {
    case RuntimeState::kOpen: return "open";
    case RuntimeState::kDefaultDeny: return "default_deny";
    case RuntimeState::kPolicyEnabled: return "policy_enabled";
  }
  return "open";
}

Result<RuntimeState> ClassifyRuntime(bool have_tokens, bool have_policy, bool unauthenticated) {
  if (have_tokens) return have_policy ? RuntimeState::kPolicyEnabled : RuntimeState::kDefaultDeny;
  if (have_policy) {
    return InvalidArgument(
        "a policy bundle is bound but no bearer tokens are configured, so every request would be refused; set "
        "OMNIGRAPH_SERVER_BEARER_TOKEN, OMNIGRAPH_SERVER_BEARER_TOKENS_FILE or OMNIGRAPH_SERVER_BEARER_TOKENS_JSON");
  }
  if (!unauthenticated) {
    return InvalidArgument(
        "refusing to start without authentication: configure bearer tokens (OMNIGRAPH_SERVER_BEARER_TOKEN, "
        "OMNIGRAPH_SERVER_BEARER_TOKENS_FILE or OMNIGRAPH_SERVER_BEARER_TOKENS_JSON) or pass --unauthenticated "
        "(OMNIGRAPH_UNAUTHENTICATED=1) to serve without auth");
  }
  return RuntimeState::kOpen;
}

bool IsValidGraphId(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
  }
  return id != "policies" && id != "healthz" && id != "openapi" && id != "graphs";
}

Result<std::unique_ptr<Server>> Server::Boot(const ServerOptions& options, const Environment& environment,
                                             std::string* log) {
  std::unique_ptr<Server> server(new Server());
  server->openapi_path_ = options.openapi_path;
  server->engine_ = std::make_shared<api::Engine>(api::EngineOptions::WithCacheBudget(options.cache_bytes));
  if (auto filter = environment("OMNIGRAPH_LOG")) {
    auto parsed = EventLog::FromFilter(*filter);
    if (parsed.ok()) server->log_ = std::move(*parsed);
    else *log += "warning: " + parsed.status().message() + "; logging at info\n";
  }
  OG_ASSIGN_OR_RETURN(cluster::ServingSnapshot snapshot, cluster::ReadServingSnapshot(options.cluster));
  ResolveProviderSecrets(environment, &snapshot);
  for (const cluster::Diagnostic& warning : snapshot.warnings) {
    *log += "warning: [" + warning.code + "] " + warning.path + ": " + warning.message + "\n";
  }
  if (options.require_all_graphs && !snapshot.warnings.empty()) {
    std::string message = "strict cluster boot requires every applied graph to be ready; the cluster at '" +
                          options.cluster + "' has:";
    for (const cluster::Diagnostic& warning : snapshot.warnings) {
      message += "\n  [" + warning.code + "] " + warning.path + ": " + warning.message;
    }
    return InvalidArgument(message);
  }
  if (snapshot.graphs.empty()) {
    std::string names;
    for (const auto& [id, warning] : snapshot.quarantined) names += (names.empty() ? "" : ", ") + id;
    return InvalidArgument("the cluster at '" + options.cluster + "' has no healthy graphs to serve (quarantined: " +
                           names + ")");
  }
  if (snapshot.server_policy_source) {
    auto compiled =
        CompileBundle(*snapshot.server_policy_name, *snapshot.server_policy_source, policy::Binding::kCluster);
    if (!compiled.ok()) return compiled.status().WithContext("server policy bundle");
    server->server_policy_ = *compiled;
  }

  // Open the graphs, kParallelOpens at a time.
  std::vector<std::string> failures;
  const auto& graphs = snapshot.graphs;
  for (size_t begin = 0; begin < graphs.size(); begin += kParallelOpens) {
    size_t end = std::min(graphs.size(), begin + kParallelOpens);
    std::vector<std::future<Result<std::unique_ptr<ServedGraph>>>> opens;
    for (size_t i = begin; i < end; ++i) {
      opens.push_back(std::async(std::launch::async, [&graph = graphs[i], &options, &server] {
        return OpenServingGraph(graph, options.handles_per_graph, server->engine_);
      }));
    }
    for (size_t i = begin; i < end; ++i) {
      auto opened = opens[i - begin].get();
      if (opened.ok()) {
        server->graphs_.emplace(graphs[i].id, std::move(*opened));
      } else {
        *log += "warning: quarantined graph '" + graphs[i].id + "': " + opened.status().message() + "\n";
        failures.push_back(graphs[i].id);
      }
    }
  }
  if (!failures.empty() && options.require_all_graphs) {
    return InvalidArgument("strict multi-graph startup requires every graph to open (" +
                           std::to_string(graphs.size()) + " configured, " + std::to_string(failures.size()) +
                           " failed)");
  }
  if (server->graphs_.empty()) {
    std::string names;
    for (const std::string& id : failures) names += (names.empty() ? "" : ", ") + id;
    return InvalidArgument("no healthy graphs opened from multi-graph startup config (quarantined: " + names + ")");
  }

  OG_ASSIGN_OR_RETURN(server->tokens_, TokenTable::FromEnvironment(environment));
  bool have_policy = server->server_policy_ != nullptr;
  for (const auto& [id, graph] : server->graphs_) have_policy = have_policy || graph->policy() != nullptr;
  bool unauthenticated = options.unauthenticated || IsTruthy(environment("OMNIGRAPH_UNAUTHENTICATED"));
  OG_ASSIGN_OR_RETURN(server->runtime_state_, ClassifyRuntime(!server->tokens_.empty(), have_policy, unauthenticated));
  server->admission_ = Admission::FromEnvironment(environment, log);
  server->AddRoutes();
  return server;
}

Server::~Server() { export_slots_.Drain(std::chrono::seconds(10)); }

Server::RouteTraits Server::TraitsOf(std::string_view method, std::string_view path) const {
  RouteMatch match = router_.Find(method, path);
  if (match.route == nullptr) return RouteTraits{};
  return RouteTraits{match.route->body_limit, match.route->writes, static_cast<bool>(match.route->preflight)};
}

std::optional<HttpResponse> Server::Authenticate(const Route& route, Exchange& exchange) {
  if (route.authenticated && auth_required()) {
    std::vector<std::string> authorization = exchange.request.headers.FindAll("Authorization");
    if (authorization.size() > 1) return Unauthorized("more than one Authorization header");
    auto actor = tokens_.Authenticate(authorization.empty() ? std::nullopt
                                                            : std::optional<std::string>(authorization.front()));
    if (!actor.ok()) return Unauthorized(actor.status().message());
    exchange.actor = std::move(*actor);
  }
  auto graph_id = exchange.params.find("graph_id");
  if (graph_id != exchange.params.end()) {
    if (!IsValidGraphId(graph_id->second)) {
      return ErrorResponse(400, "invalid graph id '" + graph_id->second +
                                    "': a graph id is 1-64 ASCII letters, digits or '-'",
                           "bad_request");
    }
    auto found = graphs_.find(graph_id->second);
    if (found == graphs_.end()) return NotFoundResponse("graph '" + graph_id->second + "' not found");
    exchange.graph = found->second.get();
    log_.Write(LogTarget::kRouting, LogLevel::kInfo, "graph routed", {{"graph_id", graph_id->second}});
  }
  return std::nullopt;
}

std::optional<HttpResponse> Server::Preflight(HttpRequest& request) {
  RouteMatch match = router_.Find(request.method, request.path);
  if (match.route == nullptr || !match.route->preflight) return std::nullopt;
  Exchange exchange{*this, request, std::move(match.params)};
  if (auto refusal = Authenticate(*match.route, exchange)) return refusal;
  return match.route->preflight(exchange);
}

HttpResponse Server::Handle(HttpRequest& request) {
  auto started = std::chrono::steady_clock::now();
  std::optional<std::string> actor;
  HttpResponse response = Dispatch(request, &actor);
  // A HEAD response never has a body, whatever its status (RFC 9110 §9.3.2).
  if (request.method == "HEAD") response.head_only = true;
  LogRequest(request.method, request.path, response.status, actor, started);
  return response;
}

void Server::LogRequest(const std::string& method, const std::string& path, int status,
                        const std::optional<std::string>& actor, std::chrono::steady_clock::time_point started) const {
  if (!log_.Enabled(LogTarget::kRequest, LogLevel::kDebug)) return;
  std::chrono::duration<double, std::milli> latency = std::chrono::steady_clock::now() - started;
  log_.Write(LogTarget::kRequest, LogLevel::kDebug, "request",
             {{"method", method},
              {"path", path},
              {"status", std::to_string(status)},
              {"actor_id", actor.value_or("")},
              {"latency_ms", fmt::format("{:.3f}", latency.count())}});
}

HttpResponse Server::Dispatch(HttpRequest& request, std::optional<std::string>* actor) {
  RouteMatch match = router_.Find(request.method, request.path);
  switch (match.outcome) {
    case RouteMatch::Outcome::kBadPath:
      return ErrorResponse(400, "malformed percent-escape in the request path", "bad_request");
    case RouteMatch::Outcome::kNoRoute:
      return NotFoundResponse("no route for " + request.method + " " + request.path);
    case RouteMatch::Outcome::kWrongMethod: {
      std::string allowed;
      for (const std::string& method : match.allowed_methods) allowed += (allowed.empty() ? "" : ", ") + method;
      HttpResponse response = ErrorResponse(405, "method " + request.method + " is not allowed on " + request.path +
                                                     " (allowed: " + allowed + ")",
                                            "method_not_allowed");
      response.AddHeader("Allow", allowed);
      return response;
    }
    case RouteMatch::Outcome::kMatched:
      break;
  }
  Exchange exchange{*this, request, std::move(match.params)};
  HttpResponse response = [&] {
    if (auto refusal = Authenticate(*match.route, exchange)) return *refusal;
    return match.route->handler(exchange);
  }();
  *actor = exchange.actor;
  return response;
}

std::optional<HttpResponse> Authorize(const Exchange& exchange, policy::Action action,
                                      const std::optional<std::string>& branch,
                                      const std::optional<std::string>& target_branch) {
  const policy::Evaluator* engine =
      action == policy::Action::kGraphList ? exchange.server.server_policy()
                                           : (exchange.graph != nullptr ? exchange.graph->policy() : nullptr);
  std::string action_name(policy::ActionName(action));
  if (engine == nullptr) {
    if (action == policy::Action::kGraphList) {
      return ErrorResponse(403, "policy denied action 'graph_list': no server-scoped policy bundle is bound",
                           "forbidden");
    }
    if (exchange.actor && action != policy::Action::kRead) {
      return ErrorResponse(403, "policy denied action '" + action_name + "' for actor '" + *exchange.actor +
                                    "': graph '" + exchange.graph->id() +
                                    "' has no policy bundle, so authenticated actors may only read",
                           "forbidden");
    }
    return std::nullopt;
  }
  if (!exchange.actor) return Unauthorized("missing bearer token");
  // Decide on the names the writers will use: the engine trims branch
  // names, so " main" must be checked as the protected "main".
  std::optional<std::string> decided_branch, decided_target;
  if (branch) decided_branch = graph::TrimBranchName(*branch);
  if (target_branch) decided_target = graph::TrimBranchName(*target_branch);
  policy::Decision decision =
      engine->Decide(policy::Request{*exchange.actor, action, decided_branch, decided_target});
  exchange.server.log().Write(LogTarget::kPolicy, LogLevel::kInfo, "policy decision",
                              {{"actor_id", *exchange.actor},
                               {"action", action_name},
                               {"branch", decided_branch.value_or("")},
                               {"target_branch", decided_target.value_or("")},
                               {"allowed", decision.allowed ? "true" : "false"},
                               {"matched_rule_id", decision.matched_rule_id.value_or("")}});
  if (!decision.allowed) return ErrorResponse(403, decision.message, "forbidden");
  return std::nullopt;
}

std::optional<HttpResponse> JsonBody(const Exchange& exchange, nlohmann::json* body, bool empty_is_object) {
  const std::string& text = exchange.request.body;
  if (text.empty() && empty_is_object) {
    *body = nlohmann::json::object();
    return std::nullopt;
  }
  std::string type = exchange.request.headers.Find("Content-Type").value_or("");
  std::string media = type.substr(0, type.find(';'));
  while (!media.empty() && media.back() == ' ') media.pop_back();
  if (!EqualsIgnoringCase(media, "application/json")) {
    return ErrorResponse(415, "expected a request body with Content-Type: application/json", "bad_request");
  }
  // Parsing is iterative, but dumping or walking a parsed value recurses
  // once per level: a body nested deeper than the loader admits in a line
  // is refused while it is parsed, before any walk can exhaust the stack.
  struct TooDeep {};
  // `depth` counts the arrays and objects around the one starting, so at
  // most kMaxJsonDepth levels of them, the body's own object included.
  // A field named twice is refused rather than read as its last value
  // (the reading a client meant is unknowable), as upstream's serde does.
  struct Repeated {
    std::string field;
  };
  std::set<std::string> fields;
  auto guard = [&fields](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    bool starts = event == nlohmann::json::parse_event_t::object_start ||
                  event == nlohmann::json::parse_event_t::array_start;
    if (starts && depth >= static_cast<int>(exec::kMaxJsonDepth)) throw TooDeep{};
    if (event == nlohmann::json::parse_event_t::key && depth == 1 &&
        !fields.insert(parsed.get<std::string>()).second) {
      throw Repeated{parsed.get<std::string>()};
    }
    return true;
  };
  try {
    *body = nlohmann::json::parse(text, guard);
  } catch (const nlohmann::json::parse_error& error) {
    // The parser's message names the byte, line and column at fault.
    return ErrorResponse(400, std::string("the request body is not valid JSON: ") + error.what(), "bad_request");
  } catch (const Repeated& repeated) {
    return ErrorResponse(400, "the request body names field '" + repeated.field + "' twice", "bad_request");
  } catch (const TooDeep&) {
    return ErrorResponse(400,
                         "the request body nests arrays and objects deeper than " +
                             std::to_string(exec::kMaxJsonDepth) + " levels",
                         "bad_request");
  }
  if (!body->is_object()) return ErrorResponse(400, "the request body must be a JSON object", "bad_request");
  return std::nullopt;
}

HttpResponse JsonResponse(const nlohmann::ordered_json& json, int status) {
  HttpResponse response;
  response.status = status;
  response.body = json.dump();
  return response;
}

}  // namespace omnigraph::server

namespace omnigraph::server {

HttpResponse BadRequest(std::string message) { return ErrorResponse(400, std::move(message), "bad_request"); }

std::optional<HttpResponse> StringField(const nlohmann::json& body, std::string_view name,
                                        std::optional<std::string>* out) {
  auto found = body.find(name);
  if (found == body.end() || found->is_null()) {
    out->reset();
    return std::nullopt;
  }
  if (!found->is_string()) return BadRequest("request field '" + std::string(name) + "' must be a string");
  *out = found->get<std::string>();
  return std::nullopt;
}

std::optional<HttpResponse> BoolField(const nlohmann::json& body, std::string_view name, std::optional<bool>* out) {
  auto found = body.find(name);
  if (found == body.end() || found->is_null()) {
    out->reset();
    return std::nullopt;
  }
  if (!found->is_boolean()) return BadRequest("request field '" + std::string(name) + "' must be a boolean");
  *out = found->get<bool>();
  return std::nullopt;
}

std::optional<HttpResponse> ParamsField(const nlohmann::json& body, std::string* params_json) {
  auto found = body.find("params");
  if (found == body.end() || found->is_null()) {
    *params_json = "{}";
    return std::nullopt;
  }
  if (!found->is_object()) return BadRequest("request field 'params' must be a JSON object");
  *params_json = found->dump();
  return std::nullopt;
}

}  // namespace omnigraph::server
