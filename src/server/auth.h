// Bearer-token authentication (spec/server.md §1.4). Tokens are kept only
// as SHA-256 digests; a presented token is hashed and compared with every
// digest in constant time, so neither a match's position nor a near miss
// shows in the timing.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace omnigraph::server {

// Reads an environment variable (std::getenv in production, a map in tests).
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment ProcessEnvironment();

// "Truthy" (server.md §1.1): set, non-empty after trimming, and neither
// `0` nor `false` (any case).
bool IsTruthy(const std::optional<std::string>& value);

class TokenTable {
 public:
  // The table from (actor, token) pairs: both trimmed; a blank actor or
  // token, a repeated actor or a repeated token value is InvalidArgument
  // naming the problem (never the token). Entries are kept sorted by actor.
  static Result<TokenTable> FromPairs(std::vector<std::pair<std::string, std::string>> pairs);

  // The table from the environment (§1.4): OMNIGRAPH_SERVER_BEARER_TOKEN
  // (actor `default`), then OMNIGRAPH_SERVER_BEARER_TOKENS_FILE (a JSON
  // object {actor: token}) or, only when no file is named,
  // OMNIGRAPH_SERVER_BEARER_TOKENS_JSON (the same object inline).
  // OMNIGRAPH_SERVER_BEARER_TOKENS_AWS_SECRET is InvalidArgument: this
  // build has no AWS secrets source. Errors: InvalidArgument for an
  // unreadable file, bad JSON, a non-string token and the FromPairs rules.
  static Result<TokenTable> FromEnvironment(const Environment& environment);

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }

  // The actor the `Authorization` header value names (nullopt: no header).
  // The value must start with exactly "Bearer " (case-sensitive, one
  // space); the rest is the token, taken as is. Errors (both kUnauthorized
  // in spirit, returned as InvalidArgument with the §1.4 message; the
  // caller answers 401): "missing bearer token" for no header or another
  // scheme, "invalid bearer token" when no digest matches.
  Result<std::string> Authenticate(const std::optional<std::string>& authorization) const;

 private:
  struct Entry {
    std::array<uint8_t, 32> digest;
    std::string actor;
  };
  std::vector<Entry> entries_;
};

}  // namespace omnigraph::server
