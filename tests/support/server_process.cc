#include "support/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "cluster/catalog.h"
#include "cluster/state.h"
#include "io/local_store.h"
#include "util/sha256.h"

namespace omnigraph::testing {

std::string ServerBinary() { return OMNIGRAPH_SERVER_BINARY; }

void WriteServingLedger(const std::string& root, const std::vector<std::string>& graph_ids,
                        const std::map<std::string, std::string>& stored_queries,
                        const std::string& server_policy) {
  // A ledger written again replaces the earlier one.
  std::error_code ignored;
  std::filesystem::remove(root + "/__cluster/state.json", ignored);
  auto store = LocalStore::Make(root);
  cluster::ClusterState state;
  state.state_revision = 1;
  for (const std::string& id : graph_ids) state.resources["graph." + id] = cluster::StateResource{"graph-digest"};
  for (const auto& [name, source] : stored_queries) {
    std::string digest = Sha256Hex(source);
    Status stored = cluster::StorePayload(*store, cluster::QueryPayloadKey("", graph_ids.front(), name, digest),
                                          digest, source);
    ASSERT_TRUE(stored.ok()) << stored.message();
    state.resources["query." + graph_ids.front() + "." + name] = cluster::StateResource{digest};
  }
  if (!server_policy.empty()) {
    std::string digest = Sha256Hex(server_policy);
    Status stored =
        cluster::StorePayload(*store, cluster::PolicyPayloadKey("", "server", digest), digest, server_policy);
    ASSERT_TRUE(stored.ok()) << stored.message();
    cluster::StateResource policy{digest};
    policy.applies_to = std::vector<std::string>{"cluster"};
    state.resources["policy.server"] = policy;
  }
  auto written = cluster::WriteState(*store, "", state, std::nullopt);
  ASSERT_TRUE(written.ok()) << written.status().message();
}

ServerProcess::ServerProcess(const std::string& cluster_root, const std::vector<std::string>& args,
                             const std::vector<std::pair<std::string, std::string>>& env) {
  int out[2];
  if (::pipe(out) != 0) {
    error_ = "pipe failed";
    return;
  }
  std::vector<std::string> words = {ServerBinary(), "--cluster", cluster_root, "--bind", "127.0.0.1:0"};
  words.insert(words.end(), args.begin(), args.end());
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDERR_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  if (pid_ < 0) {
    ::close(out[0]);
    error_ = "fork failed";
    return;
  }
  // Reads stdout until the listen line, for at most 60 seconds.
  const std::string marker = "OMNIGRAPH_LISTEN_ADDR=";
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    size_t found = text.find(marker);
    if (found != std::string::npos && text.find('\n', found) != std::string::npos) {
      size_t end = text.find('\n', found);
      url_ = "http://" + text.substr(found + marker.size(), end - found - marker.size());
      break;
    }
    pollfd wait{out[0], POLLIN, 0};
    if (::poll(&wait, 1, 1000) <= 0) continue;
    char buffer[512];
    ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  stdout_fd_ = out[0];
  if (url_.empty()) error_ = "the server printed no listen address; stdout: " + text;
}

ServerProcess::~ServerProcess() {
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) return;
    ::usleep(50 * 1000);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
}

}  // namespace omnigraph::testing
