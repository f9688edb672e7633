// The server's view of one HTTP exchange, free of the transport library:
// handlers, the router and the tests see only these types, so Boost.Beast
// stays inside http_server.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace omnigraph::server {

// Header fields in arrival order; names compare case-insensitively
// (RFC 9110 §5.1), values exactly.
class HeaderFields {
 public:
  void Add(std::string name, std::string value) { fields_.emplace_back(std::move(name), std::move(value)); }
  // The value of the first field named `name`, or nullopt.
  std::optional<std::string> Find(std::string_view name) const;
  // Every value of the fields named `name`, in arrival order.
  std::vector<std::string> FindAll(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

// True when `a` and `b` are equal ignoring ASCII case.
bool EqualsIgnoringCase(std::string_view a, std::string_view b);

struct HttpRequest {
  std::string method;  // upper case, e.g. "POST"
  // The request target split: the path still percent-encoded (the router
  // decodes segment by segment, so an encoded '/' stays inside its
  // segment) and the query parameters decoded, in order.
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  HeaderFields headers;
  std::string body;
  // The peer, "ip:port", for logs.
  std::string peer;

  // The first query parameter `name`, or nullopt.
  std::optional<std::string> QueryParam(std::string_view name) const;
};

// A response body produced piece by piece after the status line is sent
// (NDJSON export, blob bytes). `next` fills `chunk` and returns true while
// there is more; false ends the body cleanly. A failure after the status
// line returns false with `*failed = true`: the transport then aborts the
// connection without the terminal chunk, so the client sees truncation
// (server.md §1.6).
struct BodyProducer {
  std::function<bool(std::string* chunk, bool* failed)> next;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // When set, the body comes from this producer and `body` is ignored:
  // chunked, or with this exact Content-Length when `stream_length` is set
  // (the producer must then yield exactly that many bytes).
  std::shared_ptr<BodyProducer> stream;
  std::optional<uint64_t> stream_length;
  // HEAD: the headers of the response GET would send, no body.
  bool head_only = false;

  void AddHeader(std::string name, std::string value) { headers.emplace_back(std::move(name), std::move(value)); }
};

// Splits a request target ("/a/b?x=1&y=%20") into `request->path` and
// decoded `request->query` ('+' is a space in the query, as forms send
// it). Returns false for a malformed percent escape in the query.
bool SplitTarget(std::string_view target, HttpRequest* request);

// Decodes %XX escapes ('+' stays a '+'); nullopt for a malformed escape.
std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space = false);

}  // namespace omnigraph::server
