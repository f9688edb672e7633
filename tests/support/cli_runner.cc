#include "support/cli_runner.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace omnigraph::testing {
namespace {

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

std::string CliBinary() { return OMNIGRAPH_CLI_BINARY; }

CliRun RunCli(const std::string& directory, const std::string& args) {
  const std::string out = directory + "/.cli_stdout", err = directory + "/.cli_stderr";
  const std::string command = "cd '" + directory + "' && OMNIGRAPH_HOME='" + directory + "/home' '" + CliBinary() +
                              "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  CliRun run;
  run.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = ReadWhole(out);
  run.err = ReadWhole(err);
  return run;
}

void CliGraphTest::Write(const std::string& name, std::string_view text) {
  std::ofstream(dir_.path() + "/" + name, std::ios::binary) << text;
}

void CliGraphTest::InitGraph(const std::string& schema_file, const std::string& data_file, const std::string& mode) {
  CliRun init = Run("init --schema " + schema_file + " g");
  ASSERT_EQ(init.rc, 0) << init.err;
  CliRun load = Run("load g --data " + data_file + " --mode " + mode + " --quiet");
  ASSERT_EQ(load.rc, 0) << load.err;
}

std::string CliGraphTest::Head(const std::string& branch) {
  CliRun list = Run("commit list g --branch " + branch + " --json");
  EXPECT_EQ(list.rc, 0) << list.err;
  nlohmann::json commits = nlohmann::json::parse(list.out, nullptr, false);
  if (!commits.is_object() || !commits["commits"].is_array() || commits["commits"].empty()) {
    ADD_FAILURE() << "commit list printed no commits: " << list.out;
    return "";
  }
  return commits["commits"][0]["graph_commit_id"].get<std::string>();
}

}  // namespace omnigraph::testing
