// The omnigraph server's request pipeline (spec/server.md §1.3), free of
// the transport: the Beast listener (http_server.h) parses a request and
// calls Server::Handle on an engine worker thread.
//
// Pipeline, in the order that decides status codes:
//   1. route: unknown path 404, wrong method 405 (JSON bodies);
//   2. bearer auth on protected routes (401);
//   3. graph resolution on /graphs/{graph_id}/… (400 bad id, 404 unknown);
//   4. the handler: HTTP-layer policy (403), admission (429), body parsing
//      (400/415), then the engine call.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policy/evaluate.h"
#include "server/admission.h"
#include "server/auth.h"
#include "server/event_log.h"
#include "server/export_stream.h"
#include "server/http.h"
#include "server/router.h"
#include "server/served_graph.h"

namespace omnigraph::server {

// How the server authenticates and authorizes (server.md §1.4's matrix).
enum class RuntimeState {
  kOpen,            // no tokens, no policy, --unauthenticated: no auth
  kDefaultDeny,     // tokens, no policy: authenticated, only read allowed
  kPolicyEnabled,   // tokens and policy
};
std::string_view RuntimeStateName(RuntimeState state);

// The §1.4 classification. Errors: InvalidArgument (the server refuses to
// start) for no tokens and no policy without `unauthenticated`, and for a
// policy without tokens (every request would be 401).
Result<RuntimeState> ClassifyRuntime(bool have_tokens, bool have_policy, bool unauthenticated);

struct ServerOptions {
  std::string cluster;  // --cluster DIR | file://ROOT
  bool unauthenticated = false;
  bool require_all_graphs = false;
  // Where GET /openapi.json reads the contract from (empty: not served).
  std::string openapi_path;
  // Engine handles per graph (concurrent requests on one graph).
  size_t handles_per_graph = 4;
  // Memory for the caches of decoded tables and topologies, shared by
  // every graph served (api/engine.h).
  int64_t cache_bytes = int64_t{768} << 20;
};

class Server {
 public:
  // Boots from the cluster's applied revision (cluster.md §5): reads the
  // serving snapshot, compiles the bundles, opens the graphs (at most 4 at
  // a time), loads tokens from `environment` and classifies the runtime
  // state. An OMNIGRAPH_LOG filter it cannot read is a warning in `*log`
  // (the log stays at info). Graph-level failures quarantine the graph (a warning in
  // `*log`), or refuse the boot with `require_all_graphs`. Errors:
  // InvalidArgument with the message the spec names for every refusal.
  // Waits (up to 10 s) for streaming exports to finish: their threads read
  // the graphs this destroys.
  ~Server();

  static Result<std::unique_ptr<Server>> Boot(const ServerOptions& options, const Environment& environment,
                                              std::string* log);

  // The engine context every served graph reads through.
  api::Engine& engine() { return *engine_; }

  // Runs the whole pipeline for one request and logs it (`request`,
  // debug). Thread-safe.
  HttpResponse Handle(HttpRequest& request);

  // The `request` log line for a request answered with `status`, for the
  // transport's own refusals too (body limits). Thread-safe.
  void LogRequest(const std::string& method, const std::string& path, int status,
                  const std::optional<std::string>& actor, std::chrono::steady_clock::time_point started) const;

  // What the transport needs to know of the route `method path` would
  // match before it reads the body: its body limit in bytes (enforced while
  // reading) and whether it writes (run on the write workers).
  struct RouteTraits {
    uint64_t body_limit = kDefaultBodyLimit;
    bool writes = false;
    bool preflight = false;  // call Preflight before reading the body
  };
  RouteTraits TraitsOf(std::string_view method, std::string_view path) const;

  // For a route with a preflight: bearer auth, graph resolution and the
  // route's own header checks on `request` (its body not yet read).
  // Returns the refusal to send instead of reading the body, or nullopt.
  // Thread-safe; may read the engine (run it on a worker).
  std::optional<HttpResponse> Preflight(HttpRequest& request);

  RuntimeState runtime_state() const { return runtime_state_; }
  const std::map<std::string, std::unique_ptr<ServedGraph>>& graphs() const { return graphs_; }
  Admission& admission() { return *admission_; }
  ExportSlots& export_slots() { return export_slots_; }
  const policy::Evaluator* server_policy() const { return server_policy_.get(); }
  const std::string& openapi_path() const { return openapi_path_; }
  bool auth_required() const { return runtime_state_ != RuntimeState::kOpen; }
  // The event log (event_log.h), filtered by OMNIGRAPH_LOG at boot.
  const EventLog& log() const { return log_; }
  EventLog& log() { return log_; }

 private:
  Server() = default;
  void AddRoutes();
  // Pipeline steps 1 to 4 for `request`; `*actor` is the actor the token
  // named, when it got that far.
  HttpResponse Dispatch(HttpRequest& request, std::optional<std::string>* actor);
  // Pipeline steps 2 and 3 for a matched route: bearer auth and graph
  // resolution into `exchange`; the refusal to send, or nullopt.
  std::optional<HttpResponse> Authenticate(const Route& route, Exchange& exchange);

  Router router_;
  RuntimeState runtime_state_ = RuntimeState::kOpen;
  TokenTable tokens_;
  std::unique_ptr<Admission> admission_;
  ExportSlots export_slots_;
  std::shared_ptr<const policy::Evaluator> server_policy_;
  api::EnginePtr engine_;  // declared before graphs_: their handles read through it
  std::map<std::string, std::unique_ptr<ServedGraph>> graphs_;
  std::string openapi_path_;
  EventLog log_;
};

// True when `id` may name a served graph (server.md §1.2): 1–64 ASCII
// letters, digits or '-', and not one of policies, healthz, openapi, graphs.
bool IsValidGraphId(std::string_view id);

}  // namespace omnigraph::server
