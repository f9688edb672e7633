// A small synchronous HTTP/1.1 client for the CLI's served commands
// (spec/surface.md §5.1 --server): one request per connection, plain
// http:// only. Boost.Beast stays inside http_client.cc.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace omnigraph::cli::remote {

// A server's base URL split into what a connection needs.
struct ServerUrl {
  std::string host;         // host name or address (IPv6 without brackets)
  std::string port = "80";  // decimal
  std::string base_path;    // path prefix without a trailing '/', "" for the root
  std::string text;         // the URL as given, without a trailing '/' (for messages)
};

// Parses "http://host[:port][/prefix]". Errors: Unsupported for https://
// (this build has no TLS client), InvalidArgument for any other scheme,
// a missing host or a bad port.
Result<ServerUrl> ParseServerUrl(const std::string& url);

struct HttpRequest {
  std::string method = "GET";  // GET, POST, DELETE, HEAD
  std::string target;          // path and query, starting with '/', below the base path
  std::string body;
  std::string content_type;    // sent when non-empty
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, in order
};

struct HttpReply {
  int status = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // as received
};

// Sends `request` to `server` and reads the whole reply, whatever its
// status. `bearer_token`, when non-empty, goes out as
// "Authorization: Bearer <token>". Errors: IoError naming the URL when
// the server cannot be reached, the exchange breaks off, or the server
// stays silent for 10 minutes.
Result<HttpReply> Send(const ServerUrl& server, const HttpRequest& request, const std::string& bearer_token);

// Percent-encodes `text` for a path segment or a query value (RFC 3986
// unreserved characters pass unchanged).
std::string UrlEncode(std::string_view text);

}  // namespace omnigraph::cli::remote
