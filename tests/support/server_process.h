// Running the `omnigraph-server` binary of this build from a test, on an
// ephemeral port, for tests of the CLI's served commands.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace omnigraph::testing {

// Absolute path of the `omnigraph-server` binary this build made
// ($<TARGET_FILE:omnigraph-server>, passed as OMNIGRAPH_SERVER_BINARY by
// tests/CMakeLists.txt).
std::string ServerBinary();

// Writes the cluster ledger of <root>, as `cluster apply` leaves it, that
// serves the graphs <root>/graphs/<id>.omni for every id in `graph_ids`
// (the graphs themselves must exist) and, on the first of them, the
// stored queries `stored_queries` (name → whole .gq source), with the
// server-scoped policy bundle `server_policy` bound to the cluster when
// it is non-empty. A failure fails the test.
void WriteServingLedger(const std::string& root, const std::vector<std::string>& graph_ids,
                        const std::map<std::string, std::string>& stored_queries = {},
                        const std::string& server_policy = "");

// One server process: started by the constructor with
// `--cluster <root> --bind 127.0.0.1:0 <args…>` and the extra environment
// `env`, stopped (SIGTERM, then reaped) by the destructor.
class ServerProcess {
 public:
  ServerProcess(const std::string& cluster_root, const std::vector<std::string>& args,
                const std::vector<std::pair<std::string, std::string>>& env = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // "http://127.0.0.1:<port>" once it listens; "" when it did not start
  // (error() says why).
  const std::string& url() const { return url_; }
  const std::string& error() const { return error_; }

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;  // kept open, so a later line on stdout never meets a closed pipe
  std::string url_;
  std::string error_;
};

}  // namespace omnigraph::testing
