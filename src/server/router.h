// Maps (method, path) to a route. Patterns are literal segments and
// `{name}` parameters, each matching one non-empty path segment; the
// segment is percent-decoded after the path is split, so "%2F" inside a
// branch name stays inside its segment. A path that matches no pattern is
// "no route" (404); a path some pattern matches under other methods only
// is "wrong method" (405, with the methods that would be accepted).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/http.h"

namespace omnigraph::server {

struct Exchange;  // server/exchange.h

using Handler = std::function<HttpResponse(Exchange& exchange)>;
// Runs on the request's headers alone, before its body is read; returns
// the refusal to send instead of reading the body, or nullopt.
using Preflight = std::function<std::optional<HttpResponse>(Exchange& exchange)>;

inline constexpr uint64_t kDefaultBodyLimit = 1024 * 1024;        // server.md §1.3
inline constexpr uint64_t kLoadBodyLimit = 32ull * 1024 * 1024;  // /load, /ingest, /load/ndjson

struct Route {
  std::string method;   // "GET", "POST", "DELETE", "HEAD"
  std::string pattern;  // e.g. "/graphs/{graph_id}/commits/{commit_id}"
  Handler handler;
  // False only for /healthz and /openapi.json.
  bool authenticated = true;
  // The largest request body accepted, in bytes.
  uint64_t body_limit = kDefaultBodyLimit;
  // Runs on the write workers: a write waits for its graph's write gate,
  // and must not take a worker that reads need.
  bool writes = false;
  // Checks that must answer before the body is read (auth and policy of
  // /load/ndjson, server.md §1.2), after bearer auth and graph resolution.
  Preflight preflight;
  std::vector<std::string> segments;  // pattern split on '/'
};

struct RouteMatch {
  enum class Outcome { kMatched, kNoRoute, kWrongMethod, kBadPath };
  Outcome outcome = Outcome::kNoRoute;
  const Route* route = nullptr;
  std::map<std::string, std::string> params;  // decoded
  std::vector<std::string> allowed_methods;   // for kWrongMethod
};

class Router {
 public:
  void Add(Route route);
  // The route for `method` `path` (path still percent-encoded). kBadPath:
  // a malformed escape in a segment.
  RouteMatch Find(std::string_view method, std::string_view path) const;
  const std::vector<Route>& routes() const { return routes_; }

 private:
  std::vector<Route> routes_;
};

}  // namespace omnigraph::server
