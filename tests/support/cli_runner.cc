#include "support/cli_runner.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

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

}  // namespace omnigraph::testing
