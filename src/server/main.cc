// omnigraph-server: serves the graphs of a cluster's applied revision over
// HTTP (spec/server.md §1, cluster.md §5).
//
//   omnigraph-server --cluster DIR|file://ROOT [--bind IP:PORT]
//                    [--unauthenticated] [--require-all-graphs]
//                    [--openapi FILE]
//
// After binding it prints one stdout line `OMNIGRAPH_LISTEN_ADDR=<ip:port>`
// (the real port when 0 was asked), so harnesses need not reserve ports.
// Events go to stderr as OMNIGRAPH_LOG filters them (event_log.h).
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "server/auth.h"
#include "server/http_server.h"
#include "server/server.h"

#ifndef OMNIGRAPH_DEFAULT_OPENAPI
#define OMNIGRAPH_DEFAULT_OPENAPI ""
#endif

int main(int argc, char** argv) {
  // A client that hangs up must not kill the process mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  omnigraph::server::Environment environment = omnigraph::server::ProcessEnvironment();
  omnigraph::server::ServerOptions options;
  omnigraph::server::TransportOptions transport;
  CLI::App app{"omnigraph-server: serve a cluster's graphs over HTTP"};
  app.footer("Environment: OMNIGRAPH_SERVER_BEARER_TOKEN[S_FILE|S_JSON], OMNIGRAPH_LOG (LEVEL or TARGET=LEVEL,...; "
             "targets policy, routing, request; default info), OMNIGRAPH_REQUIRE_ALL_GRAPHS, "
             "OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX, OMNIGRAPH_PER_ACTOR_BYTES_MAX");
  app.add_option("--cluster", options.cluster, "cluster config directory or file:// storage root")->required();
  app.add_option("--bind", transport.bind, "listen address ip:port (port 0: any free port)");
  app.add_flag("--unauthenticated", options.unauthenticated, "serve without bearer tokens or policy (Open mode)");
  app.add_flag("--require-all-graphs", options.require_all_graphs, "refuse to start if any graph is quarantined");
  options.openapi_path = environment("OMNIGRAPH_OPENAPI").value_or(OMNIGRAPH_DEFAULT_OPENAPI);
  app.add_option("--openapi", options.openapi_path, "the OpenAPI document GET /openapi.json serves");
  int64_t cache_mib = options.cache_bytes >> 20;
  app.add_option("--cache-memory", cache_mib, "MiB for the caches of decoded tables and topologies, shared by every graph")
      ->check(CLI::Range(int64_t{16}, int64_t{1} << 30));
  CLI11_PARSE(app, argc, argv);
  options.cache_bytes = cache_mib << 20;
  options.require_all_graphs =
      options.require_all_graphs || omnigraph::server::IsTruthy(environment("OMNIGRAPH_REQUIRE_ALL_GRAPHS"));

  std::string log;
  auto server = omnigraph::server::Server::Boot(options, environment, &log);
  std::cerr << log;
  if (!server.ok()) {
    std::cerr << "error: " << server.status().message() << "\n";
    return 1;
  }
  auto http = omnigraph::server::HttpServer::Bind(**server, transport);
  if (!http.ok()) {
    std::cerr << "error: " << http.status().message() << "\n";
    return 1;
  }
  std::cout << "OMNIGRAPH_LISTEN_ADDR=" << (*http)->local_address() << std::endl;
  std::cerr << "omnigraph-server: serving " << (*server)->graphs().size() << " graph(s) on "
            << (*http)->local_address() << " ("
            << omnigraph::server::RuntimeStateName((*server)->runtime_state()) << ")\n";
  (*http)->Run();
  std::cerr << "omnigraph-server: stopped\n";
  return 0;
}
