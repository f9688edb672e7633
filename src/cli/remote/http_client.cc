#include "cli/remote/http_client.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <cctype>
#include <charconv>
#include <exception>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

namespace omnigraph::cli::remote {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

// Replies are read whole; an export can be large, so the cap is generous.
constexpr uint64_t kMaxReplyBytes = uint64_t{1} << 34;
// A server silent for this long (no byte sent or accepted) is given up on,
// so a hung server cannot hang the CLI; a long write still streams its
// reply within it.
constexpr int kIdleTimeoutSeconds = 600;

// Bounds each blocking send and receive on `socket` (synchronous Beast
// calls honour no expiry of their own).
void SetIdleTimeout(tcp::socket& socket) {
  timeval limit{kIdleTimeoutSeconds, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
}

http::verb VerbOf(const std::string& method) {
  if (method == "POST") return http::verb::post;
  if (method == "DELETE") return http::verb::delete_;
  if (method == "HEAD") return http::verb::head;
  return http::verb::get;
}

}  // namespace

Result<ServerUrl> ParseServerUrl(const std::string& url) {
  constexpr std::string_view kHttp = "http://";
  if (url.rfind("https://", 0) == 0) {
    return Unsupported(fmt::format("'{}': this build's CLI speaks plain http:// only (no TLS client); reach the "
                                   "server through http:// or a local TLS-terminating proxy",
                                   url));
  }
  if (url.rfind(kHttp, 0) != 0) {
    return InvalidArgument(fmt::format("'{}' is not an http:// server URL", url));
  }
  ServerUrl out;
  out.text = url;
  while (!out.text.empty() && out.text.back() == '/') out.text.pop_back();
  std::string rest = url.substr(kHttp.size());
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) {
    out.base_path = rest.substr(slash);
    while (!out.base_path.empty() && out.base_path.back() == '/') out.base_path.pop_back();
  }
  if (authority.find('@') != std::string::npos || authority.find_first_of("?#") != std::string::npos) {
    return InvalidArgument(fmt::format("'{}': a server URL carries no user info, query or fragment", url));
  }
  std::string port;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return InvalidArgument(fmt::format("'{}': unterminated IPv6 address", url));
    out.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return InvalidArgument(fmt::format("'{}': bad host", url));
      port = authority.substr(close + 2);
    }
  } else {
    size_t colon = authority.rfind(':');
    out.host = authority.substr(0, colon);
    if (colon != std::string::npos) port = authority.substr(colon + 1);
  }
  if (out.host.empty()) return InvalidArgument(fmt::format("'{}' names no host", url));
  if (!port.empty()) {
    unsigned value = 0;
    auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (error != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      return InvalidArgument(fmt::format("'{}': bad port '{}'", url, port));
    }
    out.port = port;
  }
  return out;
}

Result<HttpReply> Send(const ServerUrl& server, const HttpRequest& request, const std::string& bearer_token) {
  try {
    boost::asio::io_context io;
    tcp::resolver resolver(io);
    beast::tcp_stream stream(io);
    auto endpoints = resolver.resolve(server.host, server.port);
    stream.connect(endpoints);
    SetIdleTimeout(stream.socket());

    http::request<http::string_body> message{VerbOf(request.method), server.base_path + request.target, 11};
    message.set(http::field::host, server.host + ":" + server.port);
    message.set(http::field::user_agent, "omnigraph-cli");
    message.set(http::field::accept, "application/json");
    if (!bearer_token.empty()) message.set(http::field::authorization, "Bearer " + bearer_token);
    if (!request.content_type.empty()) message.set(http::field::content_type, request.content_type);
    for (const auto& [name, value] : request.headers) message.insert(name, value);
    message.body() = request.body;
    message.prepare_payload();
    http::write(stream, message);

    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxReplyBytes);
    parser.skip(request.method == "HEAD");
    http::read(stream, buffer, parser);
    const auto& response = parser.get();

    HttpReply reply;
    reply.status = static_cast<int>(response.result_int());
    reply.body = response.body();
    for (const auto& field : response) {
      reply.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    return reply;
  } catch (const std::exception& e) {
    return IoError(fmt::format("cannot reach the server at {}: {}", server.text, e.what()));
  }
}

std::string UrlEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace omnigraph::cli::remote
