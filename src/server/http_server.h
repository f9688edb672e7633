// The HTTP transport (Boost.Beast over Asio, kept out of this header): an
// io thread pool accepts connections and parses and writes messages; a
// separate worker pool runs Server::Handle, so a slow engine call never
// stalls accepts or other connections (server.md §1.7).
#pragma once

#include <memory>
#include <string>

#include "server/server.h"
#include "util/status.h"

namespace omnigraph::server {

struct TransportOptions {
  std::string bind = "127.0.0.1:8080";  // "ip:port"; port 0 picks a free port
  int io_threads = 0;  // 0: half the cores, at least one
  // Engine workers for reads, and separately for writes: writes queue on
  // their graph's write gate, and must never starve the reads of workers.
  // Each graph's writes run on one of the write threads (by graph id).
  int read_threads = 8;
  int write_threads = 4;
  // Seconds a keep-alive connection may sit idle between requests.
  int idle_timeout_seconds = 60;
};

class HttpServer {
 public:
  // Binds and starts listening; requests are served once Run is called.
  // Errors: InvalidArgument for a malformed bind address, IoError when the
  // address cannot be bound.
  static Result<std::unique_ptr<HttpServer>> Bind(Server& server, const TransportOptions& options);
  ~HttpServer();

  // The bound address as "ip:port" (the real port when 0 was asked).
  std::string local_address() const;

  // Serves until SIGINT or SIGTERM (or Stop): then stops accepting, lets
  // requests in flight finish (up to 10 s), and returns.
  void Run();
  // Starts the graceful stop from any thread.
  void Stop();

  struct Impl;  // the Asio state, defined in http_server.cc

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace omnigraph::server
