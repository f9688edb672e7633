#include "server/router.h"

#include <algorithm>

namespace omnigraph::server {
namespace {

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> segments;
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    segments.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

bool IsParameter(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

}  // namespace

void Router::Add(Route route) {
  route.segments = SplitPath(route.pattern);
  routes_.push_back(std::move(route));
}

RouteMatch Router::Find(std::string_view method, std::string_view path) const {
  RouteMatch match;
  std::vector<std::string> raw = SplitPath(path);
  std::vector<std::string> decoded;
  decoded.reserve(raw.size());
  for (const std::string& segment : raw) {
    auto text = PercentDecode(segment);
    if (!text) {
      match.outcome = RouteMatch::Outcome::kBadPath;
      return match;
    }
    decoded.push_back(std::move(*text));
  }
  // HEAD is answered by the GET route of the path unless the path has its
  // own HEAD route (/blob reads no payload for it), as HTTP servers
  // conventionally do (RFC 9110 §9.3.2): the same status and headers, no body.
  const Route* get_route = nullptr;
  std::map<std::string, std::string> get_params;
  for (const Route& route : routes_) {
    if (route.segments.size() != decoded.size()) continue;
    std::map<std::string, std::string> params;
    bool fits = true;
    for (size_t i = 0; i < decoded.size() && fits; ++i) {
      const std::string& want = route.segments[i];
      if (IsParameter(want)) {
        if (decoded[i].empty()) fits = false;
        else params[want.substr(1, want.size() - 2)] = decoded[i];
      } else {
        // Literal segments match the raw text: "%62ranches" is not "branches".
        fits = raw[i] == want;
      }
    }
    if (!fits) continue;
    if (route.method == method) {
      match.outcome = RouteMatch::Outcome::kMatched;
      match.route = &route;
      match.params = std::move(params);
      return match;
    }
    if (method == "HEAD" && route.method == "GET" && get_route == nullptr) {
      get_route = &route;
      get_params = params;
    }
    for (std::string_view allowed : {std::string_view(route.method), std::string_view(route.method == "GET" ? "HEAD" : "")}) {
      if (allowed.empty()) continue;
      if (std::find(match.allowed_methods.begin(), match.allowed_methods.end(), allowed) ==
          match.allowed_methods.end()) {
        match.allowed_methods.emplace_back(allowed);
      }
    }
  }
  if (get_route != nullptr) {
    match.outcome = RouteMatch::Outcome::kMatched;
    match.route = get_route;
    match.params = std::move(get_params);
    return match;
  }
  // A literal route shadows a parameter one ("/branches/merge" is not the
  // branch "merge"), so the wrong-method answer lists only what matched.
  match.outcome = match.allowed_methods.empty() ? RouteMatch::Outcome::kNoRoute : RouteMatch::Outcome::kWrongMethod;
  return match;
}

}  // namespace omnigraph::server
